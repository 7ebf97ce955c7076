/* SPDX-License-Identifier: MIT */
/*
 * cidkit cid [--threads N] [--duration MS] [--churn W] [--affinity] [--json]
 *
 * A window onto the running kernel's own CID policy: N threads wake and
 * sleep in bursts for MS milliseconds; in each burst a thread reads its
 * cpu_id and mm_cid from rseq on every iteration and records which values
 * it saw.  Prints, per thread and overall, the CPUs and the mm_cids (as
 * cpulists), the largest mm_cid and how many distinct ones appeared.
 *
 * Two workloads for the kernel's thresholds and migrations (recorded by
 * `cidkit trace record`, replayed by `cidkit sim replay`):
 *   --churn W   the N threads are created and exit W times: in each of W
 *               equal waves they start together (N + 1 users) and exit one
 *               by one, each after a random share (1/2 to 7/8) of the
 *               wave, then the main thread alone (1 user) runs bursts for
 *               the wave's last eighth -- users cross ownership's per-CPU
 *               threshold (above the CPUs) and pcpu_thrs (below) each wave.
 *   --affinity  while the threads run, the main thread changes one
 *               thread's affinity every 0.5-1.5 ms, in turn: to one random
 *               allowed CPU, then back to all of them, so a running thread
 *               is moved by the kernel (sched_setaffinity's migration).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cidkit/mask.h>
#include <cidkit/percpu.h>
#include <cidkit/rseq.h>

#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"
#include "cidkit_lab.h"
#include "prng.h"

#define MAX_THREADS 4096u
#define MAX_DURATION_MS 3600000u
#define BURST_MIN_US 50u
#define BURST_MAX_US 500u
#define SLEEP_MIN_US 100u
#define SLEEP_MAX_US 2000u
#define MAX_WAVES 1000u
#define AFFINITY_MIN_US 500u
#define AFFINITY_MAX_US 1500u

static const char about[] =
	"Run N threads that wake and sleep in bursts for MS milliseconds; each\n"
	"reads the kernel's cpu_id and mm_cid (its concurrency ID) from rseq and\n"
	"records what it saw.  Prints per thread the CPUs and mm_cids seen (as\n"
	"cpulists), overall the largest mm_cid and the number of distinct ones,\n"
	"and what rseq provides here (who registered the area, feature size),\n"
	"and which path the per-CPU operations take (cidkit/percpu.h: rseq\n"
	"critical sections, or the atomic fallback, and why).\n"
	"Without mm_cid (old kernel, no rseq) it says so and still shows CPUs.\n"
	"--churn W creates the threads W times: in each wave they start together\n"
	"and exit one by one, then the main thread runs alone (users go above the\n"
	"CPU count and back to 1).  --affinity has the main thread move one\n"
	"running thread at a time, pinning it to a random CPU and back.\n";

/* The workers wait for go, then run until their deadline. */
struct start {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int go;
};

struct worker {
	pthread_t tid;
	unsigned int id;
	uint64_t deadline_ns;
	int has_mm_cid;
	struct start *start;
	struct cidk_mask *cpus;    /* CPUs seen */
	struct cidk_mask *cids;    /* mm_cids seen (below nbits) */
	unsigned long samples;
	unsigned long cid_changes; /* consecutive samples with another mm_cid */
	int max_cpu, max_cid;      /* also values >= nbits */
	int started;
	bool pinned;               /* --affinity: now on one CPU */
};

/* The workload options, and what they did. */
struct plan {
	unsigned int waves;              /* --churn W; 0: one wave, no churn */
	bool affinity;                   /* --affinity */
	unsigned long started;           /* threads created */
	unsigned long affinity_changes;  /* masks the kernel took */
};

static void record(struct cidk_mask *m, int v, int *max)
{
	if (v < 0)
		return;
	if ((unsigned int)v < m->nbits)
		cidk_mask_set(m, (unsigned int)v);
	if (v > *max)
		*max = v;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct cidk__prng rng;
	int last = -1;

	cidk__prng_seed(&rng, 0x5eed0000u + w->id);
	pthread_mutex_lock(&w->start->lock);
	while (!w->start->go)
		pthread_cond_wait(&w->start->cond, &w->start->lock);
	pthread_mutex_unlock(&w->start->lock); /* publishes deadline_ns */
	/*
	 * At least one burst: a worker first scheduled after its deadline (a
	 * loaded machine) still reports the IDs it ran with, not 0 samples.
	 */
	do {
		uint64_t burst = (BURST_MIN_US +
				  cidk__prng_below(&rng, BURST_MAX_US - BURST_MIN_US)) *
				 1000u;
		uint64_t end = cidk__now_ns() + burst;
		struct timespec ts;

		do {
			int cpu = cidk_rseq_cpu_id();
			int cid = w->has_mm_cid ? cidk_rseq_mm_cid() : -1;

			record(w->cpus, cpu, &w->max_cpu);
			record(w->cids, cid, &w->max_cid);
			if (cid >= 0 && last >= 0 && cid != last)
				w->cid_changes++;
			last = cid;
			w->samples++;
		} while (cidk__now_ns() < end);
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(SLEEP_MIN_US +
				    cidk__prng_below(&rng, SLEEP_MAX_US - SLEEP_MIN_US)) *
			     1000L;
		nanosleep(&ts, NULL);
	} while (cidk__now_ns() < w->deadline_ns);
	return NULL;
}

/* A mask as a cpulist, padded to @width ("-" if empty). */
static void print_list_w(const struct cidk_mask *m, int width)
{
	char *s = cidk_mask_list_alloc(m);

	printf("%-*s", width, s && *s ? s : "-");
	free(s);
}

static void print_list(const struct cidk_mask *m)
{
	print_list_w(m, 0);
}

/* A mask as a JSON string, its cpulist ("" if empty). */
static void list_json(struct jw *j, const char *key, const struct cidk_mask *m)
{
	char *s = cidk_mask_list_alloc(m);

	jw_kstr(j, key, s ? s : "");
	free(s);
}

static const char *no_mm_cid_reason(const struct cidk_rseq_info *info)
{
	if (info->owner == CIDK_RSEQ_NONE)
		return "no rseq area could be registered";
	return "the kernel's rseq feature size is below 28 bytes";
}

static void print_human(const struct cidk_rseq_info *info, struct worker *w,
			unsigned int n, unsigned int ms, const struct plan *p,
			const struct cidk_mask *allowed,
			const struct cidk_mask *cpus, const struct cidk_mask *cids,
			int max_cid, unsigned int bound)
{
	printf("rseq: ");
	if (info->owner == CIDK_RSEQ_NONE)
		printf("no area (rseq(2) failed: %s); CPUs from getcpu()\n",
		       strerror(info->register_error));
	else
		printf("area registered by %s (%u bytes; glibc __rseq_size %u)\n",
		       cidk_rseq_owner_name(info->owner), info->area_size,
		       info->glibc_size);
	printf("kernel: rseq feature size %u, align %u; node_id %s, mm_cid %s\n",
	       info->feature_size, info->align,
	       info->has_node_id ? "yes" : "no",
	       info->has_mm_cid ? "yes" : "no");
	if (!info->has_mm_cid)
		printf("mm_cid unavailable: %s\n", no_mm_cid_reason(info));
	printf("percpu ops: by cpu_id %s, by mm_cid %s (%s)\n",
	       cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_CPU_ID)),
	       cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_MM_CID)),
	       cidk_percpu_why(CIDK_PERCPU_MM_CID));
	printf("%u threads, %u ms of wake/sleep bursts, allowed CPUs ", n, ms);
	print_list(allowed);
	if (p->waves)
		printf("\nchurn: %u waves, %lu threads created (users %u + 1 at the start of a wave, 1 at its end)",
		       p->waves, p->started, n);
	if (p->affinity)
		printf("\naffinity: %lu changes (a thread pinned to one CPU, then given all back)",
		       p->affinity_changes);
	printf("\n\n%6s %10s %-12s %-12s %s\n", "thread", "samples", "cpus",
	       "mm_cids", "mm_cid changes");
	for (unsigned int i = 0; i < n; i++) {
		printf("%6u %10lu ", i, w[i].samples);
		print_list_w(w[i].cpus, 12);
		printf(" ");
		if (info->has_mm_cid)
			print_list_w(w[i].cids, 12);
		else
			printf("%-12s", "-");
		printf(" %lu\n", w[i].cid_changes);
	}
	printf("\nall threads: cpus ");
	print_list(cpus);
	if (info->has_mm_cid) {
		printf("; mm_cids ");
		print_list(cids);
		printf("\nlargest mm_cid %d, %u distinct; kernel bound min(allowed CPUs, threads incl. main) = %u\n",
		       max_cid, cidk_mask_weight(cids), bound);
	} else {
		printf("\nmm_cid: unavailable\n");
	}
}

static void print_json(const struct cidk_rseq_info *info, struct worker *w,
		       unsigned int n, unsigned int ms, const struct plan *p,
		       const struct cidk_mask *allowed,
		       const struct cidk_mask *cpus, const struct cidk_mask *cids,
		       int max_cid, unsigned int bound)
{
	struct jw j;

	jw_init(&j, stdout);
	jw_obj(&j);
	jw_key(&j, "rseq");
	jw_obj(&j);
	jw_kstr(&j, "registered_by", cidk_rseq_owner_name(info->owner));
	jw_kuint(&j, "area_size", info->area_size);
	jw_kuint(&j, "glibc_rseq_size", info->glibc_size);
	jw_kuint(&j, "feature_size", info->feature_size);
	jw_kuint(&j, "align", info->align);
	jw_kbool(&j, "node_id", info->has_node_id);
	jw_kbool(&j, "mm_cid", info->has_mm_cid);
	jw_kint(&j, "register_error", info->register_error);
	jw_obj_end(&j);
	jw_break(&j, "\n ");
	jw_key(&j, "percpu");
	jw_obj(&j);
	jw_kstr(&j, "cpu_id",
		cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_CPU_ID)));
	jw_kstr(&j, "mm_cid",
		cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_MM_CID)));
	jw_obj_end(&j);
	jw_break(&j, "\n ");
	jw_kuint(&j, "threads", n);
	jw_kuint(&j, "duration_ms", ms);
	list_json(&j, "allowed_cpus", allowed);
	if (p->waves) {
		jw_kuint(&j, "churn_waves", p->waves);
		jw_kuint(&j, "threads_created", p->started);
	}
	if (p->affinity)
		jw_kuint(&j, "affinity_changes", p->affinity_changes);
	jw_break(&j, "\n ");
	jw_key(&j, "per_thread");
	jw_arr(&j);
	for (unsigned int i = 0; i < n; i++) {
		jw_break(&j, "\n  ");
		jw_obj(&j);
		jw_kuint(&j, "thread", i);
		jw_kuint(&j, "samples", w[i].samples);
		list_json(&j, "cpus", w[i].cpus);
		if (info->has_mm_cid)
			list_json(&j, "mm_cids", w[i].cids);
		else
			jw_knull(&j, "mm_cids");
		jw_kuint(&j, "mm_cid_changes", w[i].cid_changes);
		jw_obj_end(&j);
	}
	jw_break(&j, "\n ");
	jw_arr_end(&j);
	jw_break(&j, "\n ");
	list_json(&j, "cpus", cpus);
	if (info->has_mm_cid) {
		list_json(&j, "mm_cids", cids);
		jw_kint(&j, "max_mm_cid", max_cid);
		jw_kuint(&j, "distinct_mm_cids", cidk_mask_weight(cids));
	} else {
		jw_knull(&j, "mm_cids");
		jw_knull(&j, "max_mm_cid");
		jw_kuint(&j, "distinct_mm_cids", 0);
	}
	jw_kuint(&j, "mm_cid_bound", bound);
	jw_obj_end(&j);
	jw_end(&j);
}

/* The CPUs this process may run on, as a mask of @nbits bits. */
static int allowed_cpus(struct cidk_mask *m)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (unsigned int c = 0; c < CPU_SETSIZE && c < m->nbits; c++)
		if (CPU_ISSET(c, &set))
			cidk_mask_set(m, c);
	return 0;
}

/*
 * Move worker @w: pin it to one random CPU of @allowed, or (when pinned)
 * give it all of @allowed back.  Returns 1 when the kernel took the new
 * mask, 0 when the thread had exited already.
 */
static int move_worker(struct worker *w, const struct cidk_mask *allowed,
		       struct cidk__prng *rng)
{
	unsigned int weight = cidk_mask_weight(allowed);
	unsigned int k = (unsigned int)cidk__prng_below(rng, weight);
	cpu_set_t set;

	CPU_ZERO(&set);
	for (unsigned int c = 0; c < allowed->nbits && c < CPU_SETSIZE; c++) {
		if (!cidk_mask_test(allowed, c))
			continue;
		if (w->pinned || k-- == 0)
			CPU_SET(c, &set);
	}
	if (pthread_setaffinity_np(w->tid, sizeof(set), &set))
		return 0;
	w->pinned = !w->pinned;
	return 1;
}

/* The main thread alone: bursts that read rseq, short sleeps, until @end. */
static void main_alone(uint64_t end, struct cidk__prng *rng)
{
	while (cidk__now_ns() < end) {
		uint64_t stop = cidk__now_ns() +
				(BURST_MIN_US +
				 cidk__prng_below(rng, BURST_MAX_US - BURST_MIN_US)) *
					1000u;
		struct timespec ts = { 0, (long)SLEEP_MIN_US * 1000L };
		volatile int sink = 0;

		while (cidk__now_ns() < stop && cidk__now_ns() < end)
			sink += cidk_rseq_cpu_id();
		(void)sink; /* read: clang's -Wunused-but-set-variable */
		nanosleep(&ts, NULL);
	}
}

/*
 * One wave: start the @n workers, let them run (each until its deadline:
 * @ms from now, or with @churn a random 1/2 to 7/8 of @ms), moving them
 * when @p->affinity, join them; with @churn the main thread then runs
 * alone until @ms is over.  Returns 0 or the pthread_create error.
 */
static int run_wave(struct worker *w, unsigned int n, uint64_t ms_ns,
		    bool churn, struct plan *p, const struct cidk_mask *allowed,
		    struct cidk__prng *rng)
{
	struct start start = { PTHREAD_MUTEX_INITIALIZER,
			       PTHREAD_COND_INITIALIZER, 0 };
	uint64_t t0, last = 0;
	int err = 0;

	for (unsigned int i = 0; i < n; i++) {
		w[i].start = &start;
		w[i].pinned = false;
		err = pthread_create(&w[i].tid, NULL, worker_main, &w[i]);
		w[i].started = !err;
		if (err)
			break;
		p->started++;
	}
	/* The deadline counts from the start, not from thread creation; on
	 * error the started threads see a deadline in the past. */
	t0 = cidk__now_ns();
	pthread_mutex_lock(&start.lock);
	for (unsigned int i = 0; i < n; i++) {
		uint64_t d = churn ? ms_ns / 2 + cidk__prng_below(rng, ms_ns * 3 / 8 + 1)
				   : ms_ns;

		w[i].deadline_ns = err ? 0 : t0 + d;
		if (w[i].deadline_ns > last)
			last = w[i].deadline_ns;
	}
	start.go = 1;
	pthread_cond_broadcast(&start.cond);
	pthread_mutex_unlock(&start.lock);
	for (unsigned int k = 0; !err && p->affinity && cidk__now_ns() < last; k++) {
		struct timespec ts = {
			0, (long)(AFFINITY_MIN_US +
				  cidk__prng_below(rng, AFFINITY_MAX_US - AFFINITY_MIN_US)) *
				   1000L
		};

		nanosleep(&ts, NULL);
		if (cidk__now_ns() < w[k % n].deadline_ns)
			p->affinity_changes += (unsigned long)move_worker(&w[k % n],
									  allowed, rng);
	}
	for (unsigned int i = 0; i < n; i++)
		if (w[i].started)
			pthread_join(w[i].tid, NULL);
	if (!err && churn)
		main_alone(t0 + ms_ns, rng);
	return err;
}

int cmd_cid(int argc, char **argv)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	/* the library's one count of possible CPUs (nr_cpu_ids) */
	unsigned int possible = cidk_percpu_nr_copies();
	unsigned int n = 0, ms = 1000, nbits, bound;
	struct cidk_mask *allowed = NULL, *cpus = NULL, *cids = NULL;
	struct worker *w = NULL;
	struct cidk_rseq_info info;
	struct plan plan = { 0, false, 0, 0 };
	struct cidk__prng rng;
	int rc = CLI_EXIT_FAIL, max_cid = -1, err = 0, first;
	bool json = false;
	struct opt opts[] = {
		{ OPT_UINT("threads", 't', &n, 1, MAX_THREADS, "N", "threads"),
		  .def = "2 x online CPUs" },
		{ OPT_UINT("duration", 'd', &ms, 1, MAX_DURATION_MS, "MS",
			   "milliseconds") },
		{ OPT_UINT("churn", 'c', &plan.waves, 1, MAX_WAVES, "W",
			   "create the threads W times, each wave ending with the main thread alone") },
		{ OPT_FLAG("affinity", 'a', &plan.affinity,
			   "move one running thread at a time by changing its affinity") },
		{ OPT_FLAG("json", 'j', &json, "one JSON object instead of the table") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { "cid", about, NULL, NULL, 0, 0, opts };

	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	rc = CLI_EXIT_FAIL;
	if (online < 1)
		online = 1;
	if (possible < (unsigned int)online)
		possible = (unsigned int)online;
	if (!n)
		n = 2u * (unsigned int)online > MAX_THREADS
			    ? MAX_THREADS
			    : 2u * (unsigned int)online;
	/* mm_cids stay below the possible CPUs and the thread count. */
	nbits = possible > n + 1 ? possible : n + 1;

	cidk_rseq_info(&info);
	cidk__prng_seed(&rng, 0x5eedc1d0u);
	allowed = cidk_mask_alloc(nbits);
	cpus = cidk_mask_alloc(nbits);
	cids = cidk_mask_alloc(nbits);
	w = calloc(n, sizeof(*w));
	if (!allowed || !cpus || !cids || !w) {
		err = ENOMEM;
		goto out;
	}
	allowed_cpus(allowed);
	for (unsigned int i = 0; i < n; i++) {
		w[i].id = i;
		w[i].has_mm_cid = info.has_mm_cid;
		w[i].max_cpu = w[i].max_cid = -1;
		w[i].cpus = cidk_mask_alloc(nbits);
		w[i].cids = cidk_mask_alloc(nbits);
		if (!w[i].cpus || !w[i].cids) {
			err = ENOMEM;
			break;
		}
	}
	if (!err && plan.affinity && !cidk_mask_weight(allowed))
		err = EINVAL;
	if (plan.waves)
		for (unsigned int v = 0; !err && v < plan.waves; v++)
			err = run_wave(w, n, (uint64_t)ms * 1000000u / plan.waves,
				       true, &plan, allowed, &rng);
	else if (!err)
		err = run_wave(w, n, (uint64_t)ms * 1000000u, false, &plan,
			       allowed, &rng);
	if (err)
		goto out;

	for (unsigned int i = 0; i < n; i++) {
		cidk_mask_or(cpus, cpus, w[i].cpus);
		cidk_mask_or(cids, cids, w[i].cids);
		if (w[i].max_cid > max_cid)
			max_cid = w[i].max_cid;
	}
	bound = cidk_mask_weight(allowed);
	if (n + 1 < bound)
		bound = n + 1;
	if (json)
		print_json(&info, w, n, ms, &plan, allowed, cpus, cids, max_cid,
			   bound);
	else
		print_human(&info, w, n, ms, &plan, allowed, cpus, cids,
			    max_cid, bound);
	rc = CLI_EXIT_OK;
out:
	if (err)
		cli_fail("cid: cannot run %u threads: %s", n, strerror(err));
	if (w)
		for (unsigned int i = 0; i < n; i++) {
			cidk_mask_free(w[i].cpus);
			cidk_mask_free(w[i].cids);
		}
	free(w);
	cidk_mask_free(allowed);
	cidk_mask_free(cpus);
	cidk_mask_free(cids);
	return rc;
}
