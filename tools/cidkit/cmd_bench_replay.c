/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench replay [TRACE] - how fast the replay runs: events per
 * second through each policy alone and through all six at once (what
 * 'sim replay' does), and trace lines parsed per second (trace/text.c on
 * lines already in memory: the parser, not the disk).  The events are the
 * trace's, or a synthetic schedule (16 threads of one group on 8 CPUs:
 * switches between them and the idle task, returns to user, migrations).
 * Median and min-max of --reps repetitions, in the thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID); not deterministic.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/trace.h>

#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"
#include "stats.h"
#include <time.h>

/*
 * The thread's CPU time: on a shared machine the figure is the replay's
 * work, not the time other processes held the CPU.
 */
static uint64_t cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

struct evs {
	struct cidk_trace_event *v;
	size_t n, cap;
	unsigned int nr_cpus;
	int tgid;
	int *threads;
	unsigned int nr_threads;
	char *text;	/* the lines, for the parser's rate */
	size_t text_len, lines;
};

static int push(struct evs *e, const struct cidk_trace_event *ev)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 4096;
		struct cidk_trace_event *v = realloc(e->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		e->v = v;
		e->cap = cap;
	}
	e->v[e->n++] = *ev;
	return 0;
}

/*
 * The synthetic schedule: deterministic (a fixed LCG), made in chunks of
 * CHUNK events that stay in the cache while they are replayed (as a
 * parser's events do), so that the figure is the replay's, not the
 * memory's.
 */
#define CHUNK 4096
enum { SCPUS = 8, STHREADS = 16 };

struct synth {
	int on[SCPUS], last_cpu[STHREADS + 1];
	bool running[STHREADS + 1];
	uint64_t x, ts;
	int next;
	bool started;
};

static void synth_chunk(struct synth *s, struct evs *e)
{
	struct cidk_trace_event ev;

	e->n = 0;
	if (!s->started) {
		s->started = true;
		s->x = 1;
		s->ts = 1000000000ull;
		s->next = 1;
		memset(&ev, 0, sizeof(ev));
		ev.tgid = 1;
		ev.kind = CIDK_TRACE_EXEC;
		ev.pid = ev.task_pid = 1;
		ev.ts_ns = s->ts;
		e->v[e->n++] = ev;
		s->on[0] = 1;
		s->running[1] = true;
		for (int t = 2; t <= STHREADS; t++) {
			ev.kind = CIDK_TRACE_FORK;
			ev.task_pid = 1;
			ev.child_pid = t;
			ev.ts_ns = ++s->ts;
			e->v[e->n++] = ev;
		}
	}
	while (e->n + 3 <= CHUNK) {
		unsigned int c;
		int n = 0;

		s->x = s->x * 6364136223846793005ull + 1442695040888963407ull;
		c = (unsigned int)(s->x >> 33) % SCPUS;
		s->ts += 1000 + (s->x >> 50);
		/* next: the next sleeping thread, or idle one time in four */
		if ((s->x >> 20) & 3) {
			for (int k = 0; k < STHREADS && !n; k++) {
				int t = (s->next + k - 1) % STHREADS + 1;

				if (!s->running[t])
					n = t;
			}
			s->next = n ? n % STHREADS + 1 : s->next;
		}
		if (n && s->last_cpu[n] != (int)c) {
			memset(&ev, 0, sizeof(ev));
			ev.kind = CIDK_TRACE_MIGRATE;
			ev.cpu = c;
			ev.tgid = -1;
			ev.task_pid = n;
			ev.orig_cpu = s->last_cpu[n];
			ev.dest_cpu = (int)c;
			ev.ts_ns = s->ts;
			e->v[e->n++] = ev;
			s->last_cpu[n] = (int)c;
		}
		memset(&ev, 0, sizeof(ev));
		ev.kind = CIDK_TRACE_SWITCH;
		ev.cpu = c;
		ev.pid = s->on[c];
		ev.tgid = s->on[c] ? 1 : -1;
		ev.prev_pid = s->on[c];
		ev.next_pid = n;
		ev.ts_ns = s->ts;
		e->v[e->n++] = ev;
		s->running[s->on[c]] = false;
		s->on[c] = n;
		s->running[n] = n != 0;
		if (n) {
			memset(&ev, 0, sizeof(ev));
			ev.kind = CIDK_TRACE_RSEQ_UPDATE;
			ev.cpu = c;
			ev.pid = n;
			ev.tgid = 1;
			ev.cpu_id = (int)c;
			ev.mm_cid = (int)c;
			ev.ts_ns = s->ts + 100;
			e->v[e->n++] = ev;
		}
	}
}

static int load(struct evs *e, const char *file, const char *cmdname)
{
	struct cidk_trace_event ev;
	struct cidk_trace_info info;
	size_t at = 0;
	FILE *f = fopen(file, "r");
	int rc = 0;

	if (!f)
		return cli_error("%s: %s: %s", cmdname, cli_q(file), strerror(errno));
	/* the whole text in memory: the bench is of the parser, not the disk */
	for (;;) {
		size_t cap = e->text_len + 65536;
		char *t = realloc(e->text, cap + 1);
		size_t got;

		if (!t) {
			fclose(f);
			return cli_error("%s: %s", cmdname, strerror(ENOMEM));
		}
		e->text = t;
		got = fread(t + e->text_len, 1, 65536, f);
		e->text_len += got;
		if (got < 65536)
			break;
	}
	fclose(f);
	e->text[e->text_len] = 0;
	cidk_trace_info_init(&info);
	while (at < e->text_len) {
		char *nl = memchr(e->text + at, '\n', e->text_len - at);
		size_t len = nl ? (size_t)(nl - e->text - at) + 1 : e->text_len - at;

		e->lines++;
		rc = cidk_trace_parse_line(e->text + at, len, &ev, &info);
		if (rc < 0) {
			cidk_trace_info_fini(&info);
			return cli_error("%s: %s:%zu: not a trace line of the ftrace text format",
					 cmdname, cli_q(file), e->lines);
		}
		if (rc == 1 && push(e, &ev)) {
			cidk_trace_info_fini(&info);
			return cli_error("%s: %s", cmdname, strerror(ENOMEM));
		}
		at += len;
	}
	e->nr_cpus = info.nr_cpus;
	e->tgid = info.tgid;
	e->threads = info.threads;
	e->nr_threads = info.nr_threads;
	info.threads = NULL;
	cidk_trace_info_fini(&info);
	if (!e->nr_cpus || e->tgid < 0)
		return cli_error("%s: %s: no '# cidkit-trace:' header (CPUs, thread group)",
				 cmdname, cli_q(file));
	return 0;
}

/*
 * One replay of every event through @pols (the trace's, or @total
 * synthetic ones made in chunks, only the replay timed); ns, or 0 after an
 * error.  *@count: the events replayed.
 */
static uint64_t replay_once(struct evs *e, bool synthetic, size_t total,
			    const int *pols, unsigned int np, int *err,
			    size_t *count)
{
	struct cidk_replay_params p = { .nr_cpus = e->nr_cpus, .tgid = e->tgid,
					.threads = e->threads,
					.nr_threads = e->nr_threads,
					.nr_policies = np, .model = -1 };
	struct synth st = { .started = false };
	struct cidk_replay *r;
	uint64_t ns = 0, t0;

	for (unsigned int i = 0; i < np; i++)
		cidk_cid_params_default(&p.policy[i], (enum cidk_cid_policy_kind)pols[i]);
	*err = cidk_replay_create(&p, &r);
	if (*err)
		return 0;
	*count = 0;
	do {
		if (synthetic)
			synth_chunk(&st, e);
		t0 = cpu_ns();
		for (size_t i = 0; i < e->n && !*err; i++)
			*err = cidk_replay_event(r, &e->v[i]);
		ns += cpu_ns() - t0;
		*count += e->n;
	} while (synthetic && *count < total && !*err);
	cidk_replay_destroy(r);
	return ns;
}

struct row {
	char name[32];
	double med, lo, hi; /* millions per second */
};

/* Sorts @v (labutil/stats.c: the lab's one median code). */
static void summarize(double *v, unsigned int n, struct row *r)
{
	struct cidk__summary s;

	cidk__summarize(v, n, &s);
	r->med = s.median;
	r->lo = s.min;
	r->hi = s.max;
}

int cmd_bench_replay(int argc, char **argv)
{
	const char *cmdname = "bench replay";
	unsigned int reps = 11, mevents = 2;
	bool json = false;
	struct opt opts[] = {
		{ OPT_UINT("reps", 0, &reps, 1, 1000, "R", "repetitions") },
		{ OPT_UINT("events", 0, &mevents, 1, 100, "M",
			   "millions of synthetic events (without TRACE)") },
		{ OPT_FLAG("json", 0, &json, "one JSON object") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { cmdname,
		"Events per second through the replay ('sim replay'): each policy\n"
		"alone and all six at once, over TRACE's events or a synthetic\n"
		"schedule (16 threads on 8 CPUs); and TRACE's lines parsed per second\n"
		"from memory.  Median (min-max) of R repetitions, by the thread's\n"
		"CPU time.\n",
		NULL, "TRACE", 0, 1, opts };
	struct evs e = { 0 };
	struct row rows[CIDK_CID_NR_POLICIES + 2];
	unsigned int nrows = 0;
	double *v = NULL;
	int rc, first, status = CLI_EXIT_USAGE, err = 0;
	size_t total = 0;

	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	if (first < argc)
		rc = load(&e, argv[first], cmdname);
	else if (!(e.v = malloc(CHUNK * sizeof(*e.v))))
		rc = cli_error("%s: %s", cmdname, strerror(ENOMEM));
	else {
		e.nr_cpus = SCPUS;
		e.tgid = 1;
	}
	if (rc)
		goto out;
	v = malloc(reps * sizeof(*v));
	if (!v) {
		cli_error("%s: %s", cmdname, strerror(ENOMEM));
		goto out;
	}
	for (int k = -1; k < CIDK_CID_NR_POLICIES; k++) {
		int pols[CIDK_CID_NR_POLICIES];
		unsigned int np = 0;

		if (k < 0)
			for (; np < CIDK_CID_NR_POLICIES; np++)
				pols[np] = (int)np;
		else
			pols[np++] = k;
		for (unsigned int i = 0; i < reps; i++) {
			size_t cnt = 0;
			uint64_t ns = replay_once(&e, first >= argc,
						  (size_t)mevents * 1000000, pols,
						  np, &err, &cnt);

			if (err) {
				cli_error("%s: replay: %s", cmdname, strerror(-err));
				goto out;
			}
			v[i] = (double)cnt / ((double)(ns ? ns : 1) / 1e9) / 1e6;
			total = cnt;
		}
		snprintf(rows[nrows].name, sizeof(rows[0].name), "%s",
			 k < 0 ? "all six" : cidk_cid_policy_name((enum cidk_cid_policy_kind)k));
		summarize(v, reps, &rows[nrows++]);
	}
	if (e.text) {
		for (unsigned int i = 0; i < reps; i++) {
			struct cidk_trace_event ev;
			uint64_t t0 = cpu_ns(), t1;
			size_t at = 0, sink = 0;

			while (at < e.text_len) {
				char *nl = memchr(e.text + at, '\n', e.text_len - at);
				size_t len = nl ? (size_t)(nl - e.text - at) + 1
						: e.text_len - at;

				sink += cidk_trace_parse_line(e.text + at, len, &ev, NULL) == 1;
				at += len;
			}
			t1 = cpu_ns();
			v[i] = (double)e.lines / ((double)(t1 - t0 ? t1 - t0 : 1) / 1e9) / 1e6;
			(void)sink;
		}
		snprintf(rows[nrows].name, sizeof(rows[0].name), "parse (lines)");
		summarize(v, reps, &rows[nrows++]);
	}
	if (json) {
		struct jw j;

		jw_init(&j, stdout);
		jw_obj(&j);
		jw_kuint(&j, "events", total);
		jw_kuint(&j, "cpus", e.nr_cpus);
		jw_kuint(&j, "reps", reps);
		jw_key(&j, "results");
		jw_arr(&j);
		for (unsigned int i = 0; i < nrows; i++) {
			jw_break(&j, "\n  ");
			jw_obj(&j);
			jw_kstr(&j, "what", rows[i].name);
			jw_knum(&j, "m_per_s", rows[i].med, 2);
			jw_knum(&j, "m_per_s_min", rows[i].lo, 2);
			jw_knum(&j, "m_per_s_max", rows[i].hi, 2);
			jw_obj_end(&j);
		}
		jw_break(&j, "\n");
		jw_arr_end(&j);
		jw_obj_end(&j);
		jw_end(&j);
	} else {
		printf("%zu events (%s), %u CPUs, median (min-max) of %u repetitions\n",
		       total, first < argc ? argv[first] : "synthetic", e.nr_cpus, reps);
		printf("%-16s %12s %22s\n", "replay through", "M events/s", "min-max");
		for (unsigned int i = 0; i < nrows; i++) {
			if (!strcmp(rows[i].name, "parse (lines)"))
				printf("%-16s %12s %22s\n", "parser", "M lines/s", "");
			printf("%-16s %12.2f %10.2f - %-10.2f\n", rows[i].name,
			       rows[i].med, rows[i].lo, rows[i].hi);
		}
	}
	status = CLI_EXIT_OK;
out:
	free(v);
	free(e.v);
	free(e.text);
	free(e.threads);
	return status;
}
