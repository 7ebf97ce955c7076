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
#include "util/clock.h"

struct alt {
	const char *what;
	int kind; /* lease: the policy */
	int (*setup)(const struct alt *a, void **ctx);
	void (*pair)(void *ctx);
	void (*teardown)(void *ctx);
	double (*rmw_per_pair)(void *ctx); /* NULL: not known */
};

static int lease_setup(const struct alt *a, void **ctx)
{
	struct cidk_cid_params p;

	cidk_cid_params_default(&p, (enum cidk_cid_policy_kind)a->kind);
	return cidk_lease_domain_create(&p, 0, (struct cidk_lease_domain **)ctx);
}

static void lease_pair(void *ctx)
{
	int cid = cidk_lease_enter(ctx);

	cidk__keep(&cid);
	cidk_lease_exit(ctx);
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

static int mutex_setup(const struct alt *a, void **ctx)
{
	pthread_mutex_t *m = malloc(sizeof(*m));

	(void)a;
	if (!m)
		return -ENOMEM;
	pthread_mutex_init(m, NULL);
	*ctx = m;
	return 0;
}

static void mutex_pair(void *ctx)
{
	pthread_mutex_lock(ctx);
	cidk__keep(ctx);
	pthread_mutex_unlock(ctx);
}

static void mutex_teardown(void *ctx)
{
	pthread_mutex_destroy(ctx);
	free(ctx);
}

/* Reading the kernel's own mm_cid from the rseq area: no enter, no exit. */
static void rseq_pair(void *ctx)
{
	int cid = cidk_rseq_mm_cid();

	(void)ctx;
	cidk__keep(&cid);
}

/*
 * The floor of a one-RMW lease pair: the lazy family's fast path without
 * the lease -- a CAS claiming a word no other thread touches, then the
 * release store giving it back.  Its own line per thread.
 */
static _Thread_local struct {
	_Alignas(64) _Atomic unsigned int w;
} floor_slot;

static void floor_pair(void *ctx)
{
	unsigned int idle = 0;

	(void)ctx;
	atomic_compare_exchange_strong(&floor_slot.w, &idle, 1u);
	atomic_store_explicit(&floor_slot.w, 0u, memory_order_release);
}

#define LEASE(kind, name) \
	{ "lease:" name, kind, lease_setup, lease_pair, lease_teardown, \
	  lease_rmw_per_pair }

static const struct alt alts[] = {
	LEASE(CIDK_CID_BITMAP, "bitmap"),
	LEASE(CIDK_CID_LAZY, "lazy"),
	LEASE(CIDK_CID_LAZY_BATCHED, "lazy-batched"),
	LEASE(CIDK_CID_CACHE_LOCAL, "cache-local"),
	LEASE(CIDK_CID_INHERIT, "inherit"),
	LEASE(CIDK_CID_OWNERSHIP, "ownership"),
	{ "mutex", 0, mutex_setup, mutex_pair, mutex_teardown, NULL },
	{ "kernel-mm_cid", 0, NULL, rseq_pair, NULL, NULL },
	{ "floor:cas+store", 0, NULL, floor_pair, NULL, NULL },
};
#define NALTS (sizeof(alts) / sizeof(alts[0]))

/* One measured job: every worker times @iters pairs of @alt. */
struct job {
	const struct alt *alt;
	void *ctx;
	unsigned int iters;
	double *ns; /* per worker */
};

static void run_pairs(void *arg, unsigned int id)
{
	struct job *j = arg;
	uint64_t t0 = cidk__now_ns(), t1;

	for (unsigned int i = 0; i < j->iters; i++)
		j->alt->pair(j->ctx);
	t1 = cidk__now_ns();
	j->ns[id] = (double)(t1 - t0) / j->iters;
}

/* One thread count: every alternative, @reps times, interleaved. */
static int measure(unsigned int nthreads, unsigned int iters, unsigned int reps,
		   struct bench_lease_row *rows)
{
	struct job j = { .iters = iters };
	struct bench_team *team = NULL;
	double *samples = calloc((size_t)NALTS * reps, sizeof(double));
	void *ctx[NALTS] = { NULL };
	int rc = -ENOMEM;

	j.ns = calloc(nthreads, sizeof(double));
	if (!samples || !j.ns)
		goto out_free;
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
	}
out_ctx:
	for (unsigned int a = 0; a < NALTS; a++)
		if (ctx[a] && alts[a].teardown)
			alts[a].teardown(ctx[a]);
out_free:
	free(samples);
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
