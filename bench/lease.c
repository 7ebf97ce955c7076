/* SPDX-License-Identifier: MIT */
/*
 * bench/lease.c - ns per lease enter/exit pair (see bench_lease.h).
 *
 * The alternatives are a table: a row names what it measures and how to
 * set up, run one pair, and tear down.  A persistent pool of worker
 * threads runs each alternative in turn, started and stopped by barriers,
 * so thread creation is never timed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/lease.h>
#include <cidkit/rseq.h>

#include "bench_lease.h"
#include "team.h"
#include "cidkit_lab.h"

struct alt {
	const char *what;
	int kind; /* lease: the policy */
	int (*setup)(const struct alt *a, void **ctx);
	int (*pair)(void *ctx); /* >= 0 if its work was done: the token */
	void (*teardown)(void *ctx);
	double (*rmw_per_pair)(void *ctx); /* NULL: not known */
	uint64_t (*done)(void *ctx);       /* NULL: the pairs' own count */
	unsigned int (*bound)(void *ctx);  /* tokens must be below; NULL: any */
};

static int lease_setup(const struct alt *a, void **ctx)
{
	struct cidk_cid_params p;

	cidk_cid_params_default(&p, (enum cidk_cid_policy_kind)a->kind);
	return cidk_lease_domain_create(&p, 0, (struct cidk_lease_domain **)ctx);
}

static int lease_pair(void *ctx)
{
	int cid = cidk_lease_enter(ctx);

	cidk__keep(&cid);
	cidk_lease_exit(ctx);
	return cid;
}

static unsigned int lease_bound(void *ctx)
{
	return cidk_lease_capacity(ctx);
}

static double lease_rmw_per_pair(void *ctx)
{
	struct cidk_cid_stats st;

	cidk_cid_stats(cidk_lease_mm(ctx), &st);
	if (!st.allocations)
		return -1;
	return (double)(st.bitmap_rmw + st.slot_rmw) / (double)st.allocations;
}

static void lease_teardown(void *ctx)
{
	cidk_lease_domain_destroy(ctx);
}

/* The lock and a plain counter it protects: the work a pair does. */
struct locked {
	pthread_mutex_t m;
	uint64_t count;
};

static int mutex_setup(const struct alt *a, void **ctx)
{
	struct locked *l = calloc(1, sizeof(*l));

	(void)a;
	if (!l)
		return -ENOMEM;
	pthread_mutex_init(&l->m, NULL);
	*ctx = l;
	return 0;
}

static int mutex_pair(void *ctx)
{
	struct locked *l = ctx;

	pthread_mutex_lock(&l->m);
	l->count++;
	pthread_mutex_unlock(&l->m);
	return -1; /* counted under the lock: mutex_done */
}

static uint64_t mutex_done(void *ctx)
{
	return ((struct locked *)ctx)->count;
}

static void mutex_teardown(void *ctx)
{
	pthread_mutex_destroy(&((struct locked *)ctx)->m);
	free(ctx);
}

/* Reading the kernel's own mm_cid from the rseq area: no enter, no exit. */
static int rseq_pair(void *ctx)
{
	int cid = cidk_rseq_mm_cid();

	(void)ctx;
	cidk__keep(&cid);
	return cid;
}

/*
 * The floor of a one-RMW lease pair: the lazy family's fast path without
 * the lease -- a CAS claiming a word no other thread touches, then the
 * release store giving it back.  Its own line per thread.
 */
static _Thread_local struct {
	_Alignas(64) _Atomic unsigned int w;
} floor_slot;

static int floor_pair(void *ctx)
{
	unsigned int idle = 0;
	_Bool won;

	(void)ctx;
	won = atomic_compare_exchange_strong(&floor_slot.w, &idle, 1u);
	atomic_store_explicit(&floor_slot.w, 0u, memory_order_release);
	return won ? 0 : -1;
}

#define LEASE(kind, name) \
	{ "lease:" name, kind, lease_setup, lease_pair, lease_teardown, \
	  lease_rmw_per_pair, NULL, lease_bound }

static const struct alt alts[] = {
	LEASE(CIDK_CID_BITMAP, "bitmap"),
	LEASE(CIDK_CID_LAZY, "lazy"),
	LEASE(CIDK_CID_LAZY_BATCHED, "lazy-batched"),
	LEASE(CIDK_CID_CACHE_LOCAL, "cache-local"),
	LEASE(CIDK_CID_INHERIT, "inherit"),
	LEASE(CIDK_CID_OWNERSHIP, "ownership"),
	{ "mutex", 0, mutex_setup, mutex_pair, mutex_teardown, NULL, mutex_done, NULL },
	{ "kernel-mm_cid", 0, NULL, rseq_pair, NULL, NULL, NULL, NULL },
	{ "floor:cas+store", 0, NULL, floor_pair, NULL, NULL, NULL, NULL },
};
#define NALTS (sizeof(alts) / sizeof(alts[0]))

/* One measured job: every worker times @iters pairs of @alt. */
struct job {
	const struct alt *alt;
	void *ctx;
	unsigned int iters;
	double *ns;       /* per worker */
	uint64_t *done;   /* per worker: pairs that did their work */
	int *max;         /* per worker: the largest token */
};

static void run_pairs(void *arg, unsigned int id)
{
	struct job *j = arg;
	uint64_t t0 = cidk__now_ns(), t1, done = 0;
	int max = j->max[id];

	for (unsigned int i = 0; i < j->iters; i++) {
		int t = j->alt->pair(j->ctx);

		done += t >= 0;
		max = t > max ? t : max;
	}
	t1 = cidk__now_ns();
	j->ns[id] = (double)(t1 - t0) / j->iters;
	j->done[id] += done;
	j->max[id] = max;
}

/* One thread count: every alternative, @reps times, interleaved. */
static int measure(unsigned int nthreads, unsigned int iters, unsigned int reps,
		   struct bench_lease_row *rows)
{
	struct job j = { .iters = iters };
	struct bench_team *team = NULL;
	double *samples = calloc((size_t)NALTS * reps, sizeof(double));
	uint64_t *done = calloc((size_t)NALTS * nthreads, sizeof(uint64_t));
	int *max = malloc((size_t)NALTS * nthreads * sizeof(int));
	void *ctx[NALTS] = { NULL };
	int rc = -ENOMEM;

	j.ns = calloc(nthreads, sizeof(double));
	if (!samples || !j.ns || !done || !max)
		goto out_free;
	for (unsigned int i = 0; i < NALTS * nthreads; i++)
		max[i] = -1;
	for (unsigned int a = 0; a < NALTS; a++) {
		rc = alts[a].setup ? alts[a].setup(&alts[a], &ctx[a]) : 0;
		if (rc)
			goto out_ctx;
	}
	rc = bench_team_start(&team, nthreads);
	for (unsigned int r = 0; !rc && r < reps; r++) {
		for (unsigned int a = 0; a < NALTS; a++) {
			double sum = 0;

			j.alt = &alts[a];
			j.ctx = ctx[a];
			j.done = &done[a * nthreads];
			j.max = &max[a * nthreads];
			bench_team_run(team, run_pairs, &j);
			for (unsigned int t = 0; t < nthreads; t++)
				sum += j.ns[t];
			samples[a * reps + r] = sum / nthreads;
		}
	}
	bench_team_stop(team);
	for (unsigned int a = 0; !rc && a < NALTS; a++) {
		rows[a].what = alts[a].what;
		rows[a].threads = nthreads;
		cidk__summarize(&samples[a * reps], reps, &rows[a].ns);
		rows[a].rmw_per_pair = alts[a].rmw_per_pair ?
			alts[a].rmw_per_pair(ctx[a]) : -1;
		rows[a].pairs = (uint64_t)nthreads * iters * reps;
		rows[a].done = 0;
		if (alts[a].done)
			rows[a].done = alts[a].done(ctx[a]);
		else
			for (unsigned int t = 0; t < nthreads; t++)
				rows[a].done += done[a * nthreads + t];
		for (unsigned int t = 0; alts[a].bound && t < nthreads; t++)
			if (max[a * nthreads + t] >= (int)alts[a].bound(ctx[a]))
				rows[a].done = 0; /* a token out of bounds: no work */
	}
out_ctx:
	for (unsigned int a = 0; a < NALTS; a++)
		if (ctx[a] && alts[a].teardown)
			alts[a].teardown(ctx[a]);
out_free:
	free(samples);
	free(done);
	free(max);
	free(j.ns);
	return rc;
}

int bench_lease_run(unsigned int nthreads, unsigned int iters,
		    unsigned int reps, struct bench_lease_row **rows,
		    unsigned int *nrows)
{
	unsigned int counts[2] = { 1, nthreads }, ncounts = nthreads > 1 ? 2 : 1;
	struct bench_lease_row *r;
	int rc = 0;

	if (!nthreads || !iters || !reps)
		return -EINVAL;
	r = calloc(ncounts * NALTS, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (unsigned int c = 0; !rc && c < ncounts; c++)
		rc = measure(counts[c], iters, reps, &r[c * NALTS]);
	if (rc) {
		free(r);
		return rc;
	}
	*rows = r;
	*nrows = ncounts * NALTS;
	return 0;
}
