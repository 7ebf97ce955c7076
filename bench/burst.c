/* SPDX-License-Identifier: MIT */
/*
 * bench/burst.c - the cache-locality experiment (see bench_burst.h).
 *
 * The schedule is computed up front: step k = (thread, mode, recorded
 * slot).  A thread waits on its own semaphore; when woken it reads the
 * step number, runs that step's burst, advances the step, sleeps the delay
 * and posts the semaphore of the next step's thread (the last step posts
 * the caller's).  So exactly one thread runs at a time and the baton costs
 * one futex wake, never a spin.  Every sample slot is written by exactly
 * one step; the per-thread counters are written only by their thread; the
 * caller reads everything after joining.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cidkit/lease.h>
#include <cidkit/percpu.h>
#include <cidkit/pool.h>
#include <cidkit/rseq.h>

#include "bench_burst.h"
#include "cidkit_lab.h"
#include "prng.h"

#if defined(__x86_64__) || defined(__i386__)
#define HAVE_TSC 1
static inline uint64_t tsc(void)
{
	return __builtin_ia32_rdtsc();
}
#else
#define HAVE_TSC 0
static inline uint64_t tsc(void)
{
	return 0;
}
#endif

#define PROGRESS_NS 1000000000ull
#define NO_SLOT UINT32_MAX /* a warm-up step: not recorded */

/* Per thread and mode: written only by the thread. */
struct tm_state {
	struct cidk_mask *used;
	uint64_t out_of_bounds, skipped, changes;
	int last, max;
};

struct step {
	unsigned int thread, mode;
	uint32_t slot; /* sample index within the mode, or NO_SLOT */
};

struct burst_run;

struct worker {
	pthread_t tid;
	unsigned int id, cpu;
	sem_t go;
	int err;		/* set before the ready post */
	struct tm_state *tm;	/* [nr_modes] */
	struct burst_run *run;
};

struct burst_run {
	const struct bench_burst_config *cfg;
	struct worker *w;
	unsigned int nr_threads;
	struct step *steps;
	uint64_t nr_steps;
	_Atomic uint64_t step;	/* next step; handed over with the baton */
	atomic_int stop;	/* set by the caller before the final posts */
	atomic_int err;		/* first error of a step */
	sem_t ready, done;
	struct cidk_pool *pool[BENCH_BURST_MAX_MODES];
	cidk_pool_handle area[BENCH_BURST_MAX_MODES];
	struct cidk_lease_domain *dom[BENCH_BURST_MAX_MODES]; /* lease modes */
	unsigned int bound[BENCH_BURST_MAX_MODES];
	double *ns[BENCH_BURST_MAX_MODES];
	double *cycles[BENCH_BURST_MAX_MODES];
	double *hot[BENCH_BURST_MAX_MODES];
};

int bench_burst_mode_parse(const char *name, struct bench_burst_mode *m)
{
	if (!name || !m)
		return -EINVAL;
	if (!strcmp(name, "cpu")) {
		m->index = BENCH_BURST_CPU;
		m->policy = 0;
		return 0;
	}
	if (!strcmp(name, "kernel-cid")) {
		m->index = BENCH_BURST_KERNEL_CID;
		m->policy = 0;
		return 0;
	}
	if (!strncmp(name, "lease:", 6) &&
	    !cidk_cid_policy_parse(name + 6, &m->policy)) {
		m->index = BENCH_BURST_LEASE;
		return 0;
	}
	return -EINVAL;
}

void bench_burst_mode_name(const struct bench_burst_mode *m, char *buf)
{
	switch (m->index) {
	case BENCH_BURST_CPU:
		strcpy(buf, "cpu");
		break;
	case BENCH_BURST_KERNEL_CID:
		strcpy(buf, "kernel-cid");
		break;
	case BENCH_BURST_LEASE:
		snprintf(buf, BENCH_BURST_NAME_MAX, "lease:%s",
			 cidk_cid_policy_name(m->policy) ? cidk_cid_policy_name(m->policy) : "?");
		break;
	default:
		strcpy(buf, "?");
		break;
	}
}

unsigned int bench_burst_all_modes(struct bench_burst_mode *out)
{
	unsigned int n = 0;

	out[n].index = BENCH_BURST_CPU;
	out[n++].policy = 0;
	out[n].index = BENCH_BURST_KERNEL_CID;
	out[n++].policy = 0;
	for (int p = 0; p < CIDK_CID_NR_POLICIES; p++) {
		out[n].index = BENCH_BURST_LEASE;
		out[n++].policy = (enum cidk_cid_policy_kind)p;
	}
	return n;
}

static int pin_self(unsigned int cpu)
{
	cpu_set_t set;

	if (cpu >= CPU_SETSIZE)
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u) };

	if (ns)
		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
			;
}

static void sem_wait_nointr(sem_t *s)
{
	while (sem_wait(s) && errno == EINTR)
		;
}

/*
 * The burst: increment every byte, 16 at a time (a vector add: the loop is
 * bound by memory, not by one add per byte, so that where the lines come
 * from shows).  @p is 64-byte aligned (a pool area).  Not inlined.
 */
typedef unsigned char bytes16 __attribute__((vector_size(16), may_alias));

__attribute__((noinline)) static void touch(unsigned char *p, size_t n)
{
	bytes16 *v = (bytes16 *)(void *)p;
	size_t i, nv = n / sizeof(bytes16);

	for (i = 0; i < nv; i++)
		v[i] += 1;
	for (i = nv * sizeof(bytes16); i < n; i++)
		p[i]++;
	cidk__keep(p);
}

/* The index of this burst in mode @m, or a negative errno. */
static int index_enter(struct burst_run *b, unsigned int m)
{
	switch (b->cfg->modes[m].index) {
	case BENCH_BURST_CPU:
		return cidk_rseq_cpu_id();
	case BENCH_BURST_KERNEL_CID:
		return cidk_rseq_mm_cid();
	case BENCH_BURST_LEASE:
		return cidk_lease_enter(b->dom[m]);
	default:
		return -EINVAL;
	}
}

static void index_exit(struct burst_run *b, unsigned int m)
{
	if (b->cfg->modes[m].index == BENCH_BURST_LEASE)
		cidk_lease_exit(b->dom[m]);
}

static void record_index(struct burst_run *b, struct tm_state *t,
			 unsigned int m, int idx)
{
	if (t->last >= 0 && idx != t->last)
		t->changes++;
	t->last = idx;
	if (idx > t->max)
		t->max = idx;
	if ((unsigned int)idx < t->used->nbits)
		cidk_mask_set(t->used, (unsigned int)idx);
	if ((unsigned int)idx >= b->bound[m])
		t->out_of_bounds++;
}

static void run_step(struct burst_run *b, struct worker *w,
		     const struct step *s)
{
	struct tm_state *t = &w->tm[s->mode];
	unsigned int m = s->mode;
	uint64_t t0, t1, c0, c1, h0, h1;
	int idx, expect = 0;

	idx = index_enter(b, m);
	if (idx < 0) { /* nothing held */
		atomic_compare_exchange_strong(&b->err, &expect, idx);
		return;
	}
	record_index(b, t, m, idx);
	if ((unsigned int)idx >= b->pool[m]->max_cids) {
		t->skipped++;
		index_exit(b, m);
		return;
	}
	{
		unsigned char *p = cidk_pool_ptr(b->pool[m], b->area[m],
						 (unsigned int)idx);

		/* the TSC inside the clock reads: the first read after an
		 * idle period can take microseconds (cold vDSO data) */
		t0 = cidk__now_ns();
		c0 = tsc();
		touch(p, b->cfg->bytes);
		c1 = tsc();
		t1 = cidk__now_ns();
		/* the floor: the same burst again, the area now ours */
		h0 = cidk__now_ns();
		touch(p, b->cfg->bytes);
		h1 = cidk__now_ns();
	}
	index_exit(b, m);
	if (s->slot != NO_SLOT) {
		b->ns[m][s->slot] = (double)(t1 - t0);
		b->cycles[m][s->slot] = (double)(c1 - c0);
		b->hot[m][s->slot] = (double)(h1 - h0);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct burst_run *b = w->run;

	w->err = pin_self(w->cpu);
	if (!w->err)
		(void)cidk_rseq_cpu_id(); /* registers rseq if glibc did not */
	sem_post(&b->ready);
	for (;;) {
		uint64_t k;

		sem_wait_nointr(&w->go);
		if (atomic_load(&b->stop))
			break;
		k = atomic_load_explicit(&b->step, memory_order_relaxed);
		run_step(b, w, &b->steps[k]);
		atomic_store_explicit(&b->step, k + 1, memory_order_relaxed);
		if (k + 1 == b->nr_steps) {
			sem_post(&b->done);
			continue;
		}
		sleep_ns(b->cfg->delay_ns);
		sem_post(&b->w[b->steps[k + 1].thread].go);
	}
	return NULL;
}

/*
 * The line probe: two threads pinned to the two CPUs pass one cache line
 * back and forth (a spinning ping-pong on an atomic counter: A moves it to
 * odd values, B to even ones).  A times batches of PROBE_BATCH round trips;
 * the result is the median batch mean.  Every wait gives up at the
 * deadline, so a preempted partner cannot make the other spin forever.
 */
#define PROBE_BATCH 50u

struct probe {
	_Alignas(64) atomic_uint turn;
	_Alignas(64) atomic_uint ready;
	unsigned int cpu[2];
	uint64_t deadline;
	double *batch;		/* ns per round trip, one per batch */
	unsigned int batches;	/* completed by A */
};

static bool probe_wait(atomic_uint *v, unsigned int want, uint64_t deadline)
{
	unsigned int n = 0;

	while (atomic_load_explicit(v, memory_order_acquire) != want)
		if (!(++n & 1023) && cidk__now_ns() > deadline)
			return false;
	return true;
}

static void *probe_side(void *arg, unsigned int side)
{
	struct probe *p = arg;
	unsigned int t = 0;

	if (pin_self(p->cpu[side]))
		return NULL;
	atomic_fetch_add(&p->ready, 1);
	if (!probe_wait(&p->ready, 2, p->deadline))
		return NULL;
	for (unsigned int b = 0; b < BENCH_BURST_PROBE_TRIPS / PROBE_BATCH; b++) {
		uint64_t t0 = cidk__now_ns();

		for (unsigned int i = 0; i < PROBE_BATCH; i++, t += 2) {
			if (side == 0) {
				atomic_store_explicit(&p->turn, t + 1,
						      memory_order_release);
				if (!probe_wait(&p->turn, t + 2, p->deadline))
					return NULL;
			} else {
				if (!probe_wait(&p->turn, t + 1, p->deadline))
					return NULL;
				atomic_store_explicit(&p->turn, t + 2,
						      memory_order_release);
			}
		}
		if (side == 0) {
			p->batch[b] = (double)(cidk__now_ns() - t0) / PROBE_BATCH;
			p->batches = b + 1;
		}
	}
	return NULL;
}

static void *probe_a(void *arg)
{
	return probe_side(arg, 0);
}

static void *probe_b(void *arg)
{
	return probe_side(arg, 1);
}

/* Median ns per round trip between @cpu_a and @cpu_b, or 0. */
static double line_probe(unsigned int cpu_a, unsigned int cpu_b)
{
	struct probe p = { .cpu = { cpu_a, cpu_b } };
	struct cidk__summary s;
	pthread_t ta, tb;
	double med = 0;

	p.batch = calloc(BENCH_BURST_PROBE_TRIPS / PROBE_BATCH, sizeof(double));
	if (!p.batch)
		return 0;
	atomic_init(&p.turn, 0);
	atomic_init(&p.ready, 0);
	p.deadline = cidk__now_ns() + BENCH_BURST_PROBE_NS;
	if (pthread_create(&tb, NULL, probe_b, &p))
		goto out;
	if (!pthread_create(&ta, NULL, probe_a, &p))
		pthread_join(ta, NULL);
	else
		p.deadline = 0; /* B gives up */
	pthread_join(tb, NULL);
	if (p.batches) {
		cidk__summarize(p.batch, p.batches, &s);
		med = s.median;
	}
out:
	free(p.batch);
	return med;
}

/* The step list: a warm-up round, then the recorded rounds. */
static int make_schedule(struct burst_run *b)
{
	const struct bench_burst_config *cfg = b->cfg;
	unsigned int n = b->nr_threads, nm = cfg->nr_modes;
	unsigned int *order = malloc(n * sizeof(*order));
	struct cidk__prng rng;
	uint64_t k = 0;

	b->nr_steps = (uint64_t)(cfg->rounds + 1) * nm * n;
	b->steps = calloc(b->nr_steps, sizeof(*b->steps));
	if (!order || !b->steps) {
		free(order);
		return -ENOMEM;
	}
	cidk__prng_seed(&rng, cfg->seed);
	for (unsigned int i = 0; i < n; i++)
		order[i] = i;
	for (unsigned int r = 0; r <= cfg->rounds; r++) {
		cidk__prng_shuffle(&rng, order, n);
		for (unsigned int j = 0; j < nm; j++) {
			unsigned int m = (r + j) % nm;

			for (unsigned int i = 0; i < n; i++, k++) {
				b->steps[k].thread = order[i];
				b->steps[k].mode = m;
				b->steps[k].slot =
					r ? (uint32_t)((r - 1) * n + i)
					  : NO_SLOT;
			}
		}
	}
	free(order);
	return 0;
}

/* Set up the pools and bounds of every mode. */
static int make_modes(struct burst_run *b, struct bench_burst_result *res)
{
	const struct bench_burst_config *cfg = b->cfg;
	unsigned int max_cpu = cidk_mask_last(cfg->cpus);
	unsigned int pool_cids = cidk_percpu_nr_copies(); /* nr_cpu_ids */
	unsigned int allowed = pool_cids, users = b->nr_threads + 1;
	size_t samples = (size_t)cfg->rounds * b->nr_threads;
	struct cidk_rseq_info info;
	cpu_set_t set;

	if (!sched_getaffinity(0, sizeof(set), &set))
		allowed = (unsigned int)CPU_COUNT(&set);
	if (pool_cids < max_cpu + 1)
		pool_cids = max_cpu + 1;
	if (pool_cids < b->nr_threads + 1)
		pool_cids = b->nr_threads + 1;
	res->pool_cids = pool_cids;
	cidk_rseq_info(&info);

	for (unsigned int m = 0; m < cfg->nr_modes; m++) {
		struct bench_burst_mode_result *mr = &res->mode[m];

		mr->mode = cfg->modes[m];
		mr->available = true;
		mr->max_index = -1;
		switch (cfg->modes[m].index) {
		case BENCH_BURST_CPU:
			b->bound[m] = max_cpu + 1;
			break;
		case BENCH_BURST_KERNEL_CID:
			/* min(nr_cpus_allowed, nr_users): workers + main */
			b->bound[m] = allowed < users ? allowed : users;
			mr->available = info.has_mm_cid;
			break;
		case BENCH_BURST_LEASE: {
			struct cidk_cid_params p;
			int rc;

			/*
			 * Capacity T: the union of the threads' allowed CPUs
			 * (each pinned to its own), as the kernel's
			 * nr_cpus_allowed would be; nr_users is T as well.
			 */
			cidk_cid_params_default(&p, cfg->modes[m].policy);
			rc = cidk_lease_domain_create(&p, b->nr_threads,
						      &b->dom[m]);
			if (rc)
				return rc;
			b->bound[m] = cidk_lease_capacity(b->dom[m]);
			if (b->bound[m] > b->nr_threads)
				b->bound[m] = b->nr_threads;
			res->lease_capacity = cidk_lease_capacity(b->dom[m]);
			break;
		}
		default:
			return -EINVAL;
		}
		if (cfg->bound_limit && b->bound[m] > cfg->bound_limit)
			b->bound[m] = cfg->bound_limit;
		mr->bound = b->bound[m];
		b->pool[m] = cidk_pool_create(pool_cids, cfg->bytes);
		if (!b->pool[m])
			return -errno;
		b->area[m] = cidk_pool_alloc(b->pool[m], cfg->bytes,
					     CIDK_POOL_LINE, NULL);
		if (b->area[m] < 0)
			return (int)b->area[m];
		b->ns[m] = calloc(samples, sizeof(double));
		b->cycles[m] = calloc(samples, sizeof(double));
		b->hot[m] = calloc(samples, sizeof(double));
		if (!b->ns[m] || !b->cycles[m] || !b->hot[m])
			return -ENOMEM;
		for (size_t i = 0; i < samples; i++)
			b->ns[m][i] = -1; /* no burst (yet) */
	}
	return 0;
}

static int check_config(const struct bench_burst_config *cfg)
{
	if (!cfg || !cfg->cpus || cidk_mask_empty(cfg->cpus) || !cfg->rounds ||
	    !cfg->bytes || !cfg->nr_modes ||
	    cfg->nr_modes > BENCH_BURST_MAX_MODES)
		return -EINVAL;
	for (unsigned int i = 0; i < cfg->nr_modes; i++)
		for (unsigned int j = 0; j < i; j++)
			if (cfg->modes[i].index == cfg->modes[j].index &&
			    (cfg->modes[i].index != BENCH_BURST_LEASE ||
			     cfg->modes[i].policy == cfg->modes[j].policy))
				return -EINVAL;
	return 0;
}

/* Wait for the last step, reporting progress about every second. */
static void wait_done(struct burst_run *b)
{
	const struct bench_burst_config *cfg = b->cfg;

	for (;;) {
		struct timespec ts;

		if (!cfg->progress) {
			sem_wait_nointr(&b->done);
			return;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		if (!sem_timedwait(&b->done, &ts))
			break;
		cfg->progress(cfg->progress_arg,
			      atomic_load_explicit(&b->step,
						   memory_order_relaxed),
			      b->nr_steps);
	}
	cfg->progress(cfg->progress_arg, b->nr_steps, b->nr_steps);
}

/* Fold the per-thread state and the samples into @res. */
static int summarize(struct burst_run *b, struct bench_burst_result *res)
{
	for (unsigned int m = 0; m < b->cfg->nr_modes; m++) {
		struct bench_burst_mode_result *mr = &res->mode[m];
		size_t n = (size_t)b->cfg->rounds * b->nr_threads, kept = 0;
		struct cidk__summary cs;

		mr->used = cidk_mask_alloc(res->pool_cids);
		mr->thread_used = calloc(b->nr_threads, sizeof(*mr->thread_used));
		if (!mr->used || !mr->thread_used)
			return -ENOMEM;
		for (unsigned int i = 0; i < b->nr_threads; i++) {
			struct tm_state *t = &b->w[i].tm[m];

			mr->out_of_bounds += t->out_of_bounds;
			mr->skipped += t->skipped;
			mr->changes += t->changes;
			if (t->max > mr->max_index)
				mr->max_index = t->max;
			cidk_mask_or(mr->used, mr->used, t->used);
			mr->thread_used[i] = t->used; /* moved to the result */
			t->used = NULL;
		}
		mr->distinct = cidk_mask_weight(mr->used);
		/* samples of skipped bursts stay -1: drop them */
		for (size_t i = 0; i < n; i++)
			if (b->ns[m][i] >= 0) {
				b->ns[m][kept] = b->ns[m][i];
				b->cycles[m][kept] = b->cycles[m][i];
				b->hot[m][kept++] = b->hot[m][i];
			}
		mr->bursts = kept;
		cidk__summarize(b->ns[m], kept, &mr->ns);
		cidk__summarize(b->hot[m], kept, &mr->hot_ns);
		cidk__summarize(b->cycles[m], kept, &cs);
		mr->cycles_median = HAVE_TSC ? cs.median : 0;
	}
	return 0;
}

static void free_run(struct burst_run *b)
{
	for (unsigned int m = 0; m < BENCH_BURST_MAX_MODES; m++) {
		cidk_pool_destroy(b->pool[m]);
		cidk_lease_domain_destroy(b->dom[m]);
		free(b->ns[m]);
		free(b->cycles[m]);
		free(b->hot[m]);
	}
	if (b->w)
		for (unsigned int i = 0; i < b->nr_threads; i++) {
			if (b->w[i].tm)
				for (unsigned int m = 0; m < b->cfg->nr_modes; m++)
					cidk_mask_free(b->w[i].tm[m].used);
			free(b->w[i].tm);
		}
	free(b->w);
	free(b->steps);
}

int bench_burst_run(const struct bench_burst_config *cfg,
		    struct bench_burst_result *res)
{
	struct burst_run b;
	unsigned int started = 0, cpu, i;
	uint64_t t0;
	int rc;

	if (!res)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	rc = check_config(cfg);
	if (rc)
		return rc;
	memset(&b, 0, sizeof(b));
	b.cfg = cfg;
	b.nr_threads = cidk_mask_weight(cfg->cpus);
	res->nr_threads = b.nr_threads;
	res->rounds = cfg->rounds;
	res->delay_ns = cfg->delay_ns;
	res->bytes = cfg->bytes;
	res->seed = cfg->seed;
	res->have_cycles = HAVE_TSC;
	res->nr_modes = cfg->nr_modes;
	atomic_init(&b.step, 0);
	atomic_init(&b.stop, 0);
	atomic_init(&b.err, 0);
	sem_init(&b.ready, 0, 0);
	sem_init(&b.done, 0, 0);

	rc = -ENOMEM;
	res->thread_cpu = calloc(b.nr_threads, sizeof(*res->thread_cpu));
	b.w = calloc(b.nr_threads, sizeof(*b.w));
	if (!res->thread_cpu || !b.w)
		goto out;
	rc = make_modes(&b, res);
	if (rc)
		goto out;
	rc = make_schedule(&b);
	if (rc)
		goto out;
	i = 0;
	cidk_mask_for_each(cpu, cfg->cpus) {
		struct worker *w = &b.w[i];

		w->id = i;
		w->cpu = cpu;
		w->run = &b;
		res->thread_cpu[i++] = cpu;
		w->tm = calloc(cfg->nr_modes, sizeof(*w->tm));
		if (!w->tm)
			goto out;
		for (unsigned int m = 0; m < cfg->nr_modes; m++) {
			w->tm[m].last = w->tm[m].max = -1;
			w->tm[m].used = cidk_mask_alloc(res->pool_cids);
			if (!w->tm[m].used)
				goto out;
		}
	}
	for (i = 0; i < b.nr_threads; i++)
		sem_init(&b.w[i].go, 0, 0);

	if (b.nr_threads >= 2)
		res->line_rtt_before_ns = line_probe(res->thread_cpu[0],
						     res->thread_cpu[1]);
	t0 = cidk__now_ns();
	for (i = 0; i < b.nr_threads; i++) {
		rc = -pthread_create(&b.w[i].tid, NULL, worker_main, &b.w[i]);
		if (rc)
			break;
		started++;
	}
	for (i = 0; i < started; i++)
		sem_wait_nointr(&b.ready);
	for (i = 0; !rc && i < b.nr_threads; i++)
		rc = b.w[i].err;
	if (!rc) {
		sem_post(&b.w[b.steps[0].thread].go);
		wait_done(&b);
		rc = atomic_load(&b.err);
	}
	atomic_store(&b.stop, 1);
	for (i = 0; i < started; i++)
		sem_post(&b.w[i].go);
	for (i = 0; i < started; i++)
		pthread_join(b.w[i].tid, NULL);
	res->wall_ns = cidk__now_ns() - t0;
	if (!rc && b.nr_threads >= 2)
		res->line_rtt_after_ns = line_probe(res->thread_cpu[0],
						    res->thread_cpu[1]);
	for (i = 0; i < b.nr_threads; i++)
		sem_destroy(&b.w[i].go);
	if (!rc)
		rc = summarize(&b, res);
out:
	sem_destroy(&b.ready);
	sem_destroy(&b.done);
	free_run(&b);
	if (rc)
		bench_burst_result_free(res);
	return rc;
}

void bench_burst_result_free(struct bench_burst_result *res)
{
	if (!res)
		return;
	for (unsigned int m = 0; m < res->nr_modes; m++) {
		struct bench_burst_mode_result *mr = &res->mode[m];

		if (mr->thread_used)
			for (unsigned int i = 0; i < res->nr_threads; i++)
				cidk_mask_free(mr->thread_used[i]);
		free(mr->thread_used);
		cidk_mask_free(mr->used);
		mr->thread_used = NULL;
		mr->used = NULL;
	}
	free(res->thread_cpu);
	res->thread_cpu = NULL;
	res->nr_modes = 0;
}
