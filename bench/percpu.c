/* SPDX-License-Identifier: MIT */
/*
 * bench/percpu.c - ns per per-CPU counter increment (see bench_percpu.h).
 *
 * Each alternative is a loop function (so that the increment is inlined
 * into its loop, as a user's would be) and a sum function; a persistent
 * pool of worker threads runs each alternative in turn, started and
 * stopped by barriers, so thread creation is never timed.  The counters
 * of every alternative live in their own pool object (or their own cache
 * line), never shared with another alternative.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cidkit/lease.h>
#include <cidkit/percpu.h>
#include <cidkit/rseq.h>

#include "bench_percpu.h"
#include "team.h"

/* CPU time of the calling thread: a thread that the (shared, loaded)
 * machine preempts is not charged for the time it waits. */
static uint64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct ctx {
	struct cidk_pool *pool;
	cidk_pool_handle h;
	struct cidk_lease_domain *dom;
	pthread_mutex_t lock;
	int lock_ready;
	alignas(64) _Atomic intptr_t shared;
	alignas(64) intptr_t locked; /* guarded by lock */
	/* the issue-37 rows: per copy w[0] the counter, w[1] a second word,
	 * w[2] a list head, w[3] a pointer to a holder of &w[0] */
	intptr_t (*holders)[2];
	intptr_t (*nodes)[3]; /* list nodes, the link at offset 16 */
	_Atomic long pairs;   /* pop+push pairs done */
};

struct alt {
	char what[48];
	int kind; /* leases: the policy */
	enum cidk_percpu_index idx; /* rows with a percpu path */
	int has_path;
	int (*setup)(struct alt *a, struct ctx *c);
	void (*loop)(struct ctx *c, unsigned int iters);
	intptr_t (*sum)(struct ctx *c);
};

static void loop_rseq_cpu(struct ctx *c, unsigned int iters)
{
	for (unsigned int i = 0; i < iters; i++)
		cidk_percpu_add_index(c->pool, c->h, CIDK_PERCPU_CPU_ID, 1);
}

static void loop_rseq_cid(struct ctx *c, unsigned int iters)
{
	for (unsigned int i = 0; i < iters; i++)
		cidk_percpu_add_index(c->pool, c->h, CIDK_PERCPU_MM_CID, 1);
}

/* A cidk_percpu_counter in a local: base, stride and offsets in registers. */
static void loop_counter(struct ctx *c, enum cidk_percpu_index idx,
			 unsigned int iters)
{
	struct cidk_percpu_counter ctr;

	if (cidk_percpu_counter_init(&ctr, c->pool, c->h, idx))
		return; /* the sum check reports it */
	for (unsigned int i = 0; i < iters; i++)
		cidk_percpu_counter_add(&ctr, 1);
}

static void loop_counter_cpu(struct ctx *c, unsigned int iters)
{
	loop_counter(c, CIDK_PERCPU_CPU_ID, iters);
}

static void loop_counter_cid(struct ctx *c, unsigned int iters)
{
	loop_counter(c, CIDK_PERCPU_MM_CID, iters);
}

static void loop_fallback(struct ctx *c, unsigned int iters)
{
	for (unsigned int i = 0; i < iters; i++)
		cidk_percpu_add_atomic(c->pool, c->h, CIDK_PERCPU_MM_CID, 1);
}

/* What a user writes without cidk_percpu: the kernel's mm_cid, then an
 * atomic add on that CID's copy (cpu_id when the kernel has no mm_cid). */
static void loop_mm_cid_atomic(struct ctx *c, unsigned int iters)
{
	for (unsigned int i = 0; i < iters; i++) {
		int cid = cidk_rseq_mm_cid();

		if (cid < 0)
			cid = cidk_rseq_cpu_id();
		if (cid < 0 || (unsigned int)cid >= c->pool->max_cids)
			cid = 0;
		atomic_fetch_add_explicit(
			(_Atomic intptr_t *)cidk_pool_ptr(c->pool, c->h,
							  (unsigned int)cid),
			1, memory_order_relaxed);
	}
}

static void loop_lease(struct ctx *c, unsigned int iters)
{
	for (unsigned int i = 0; i < iters; i++) {
		int cid = cidk_lease_enter(c->dom);

		if (cid >= 0) {
			(*(intptr_t *)cidk_pool_ptr(c->pool, c->h,
						    (unsigned int)cid))++;
			cidk_lease_exit(c->dom);
		}
	}
}

static void loop_shared(struct ctx *c, unsigned int iters)
{
	for (unsigned int i = 0; i < iters; i++)
		atomic_fetch_add_explicit(&c->shared, 1, memory_order_relaxed);
}

static void loop_mutex(struct ctx *c, unsigned int iters)
{
	for (unsigned int i = 0; i < iters; i++) {
		pthread_mutex_lock(&c->lock);
		c->locked++;
		pthread_mutex_unlock(&c->lock);
	}
}


/*
 * The issue-37 operations, one row each, per indexing: each iteration
 * adds exactly 1 to the copies' sum (w[0]), or counts one pop+push pair.
 * An _on row reads the index, then runs the section (retried on -EAGAIN,
 * as a caller does).
 */
#define OPS_OBJ (4 * sizeof(intptr_t))
#define OPS_NODES 256

static inline __attribute__((always_inline)) unsigned int
ix_of(enum cidk_percpu_index idx, const struct ctx *c)
{
	int i = cidk_percpu_index_read(idx);

	return i >= 0 && (unsigned int)i < c->pool->max_cids ? (unsigned int)i : 0;
}

static intptr_t *word(const struct ctx *c, unsigned int i, unsigned int k)
{
	return (intptr_t *)cidk_pool_ptr(c->pool, c->h, i) + k;
}

static void loop_add_on(struct ctx *c, enum cidk_percpu_index idx,
			unsigned int iters)
{
	for (unsigned int n = 0; n < iters; n++)
		while (cidk_percpu_add_on(c->pool, c->h, idx, ix_of(idx, c), 1))
			;
}

static void loop_cmpeqv_relaxed(struct ctx *c, enum cidk_percpu_index idx,
				unsigned int iters)
{
	for (unsigned int n = 0; n < iters; n++) {
		unsigned int i;
		intptr_t v;

		do {
			i = ix_of(idx, c);
			v = __atomic_load_n(word(c, i, 0), __ATOMIC_RELAXED);
		} while (cidk_percpu_cmpeqv_storev_relaxed_on(c->pool, c->h, idx,
							      i, v, v + 1));
	}
}

static void loop_cmpeqv2(struct ctx *c, enum cidk_percpu_index idx,
			 unsigned int iters)
{
	for (unsigned int n = 0; n < iters; n++) {
		unsigned int i;
		intptr_t v;

		do {
			i = ix_of(idx, c);
			v = __atomic_load_n(word(c, i, 0), __ATOMIC_RELAXED);
		} while (cidk_percpu_cmpeqv_cmpeqv_storev_on(
			c->pool, c->h, idx, i, v, word(c, i, 1), 0, v + 1));
	}
}

static void loop_trystorev(struct ctx *c, enum cidk_percpu_index idx,
			   unsigned int iters, int rel)
{
	for (unsigned int n = 0; n < iters; n++) {
		unsigned int i;
		intptr_t v;

		do {
			i = ix_of(idx, c);
			v = __atomic_load_n(word(c, i, 0), __ATOMIC_RELAXED);
		} while ((rel ? cidk_percpu_cmpeqv_trystorev_storev_release_on
			      : cidk_percpu_cmpeqv_trystorev_storev_on)(
			c->pool, c->h, idx, i, v, word(c, i, 1), 0, v + 1));
	}
}

/* 16 bytes of zeros into w[1..2] (w[2], the list head, is not used by
 * these rows' object). */
static void loop_trymemcpy(struct ctx *c, enum cidk_percpu_index idx,
			   unsigned int iters, int rel)
{
	static const intptr_t zero[2];

	for (unsigned int n = 0; n < iters; n++) {
		unsigned int i;
		intptr_t v;

		do {
			i = ix_of(idx, c);
			v = __atomic_load_n(word(c, i, 0), __ATOMIC_RELAXED);
		} while ((rel ? cidk_percpu_cmpeqv_trymemcpy_storev_release_on
			      : cidk_percpu_cmpeqv_trymemcpy_storev_on)(
			c->pool, c->h, idx, i, v, word(c, i, 1), zero,
			sizeof(zero), v + 1));
	}
}

/* Pop (cmpnev_storeoffp_load, implicit) and push the node back
 * (cmpeqv_storev): one pair. */
static void loop_pop_push(struct ctx *c, enum cidk_percpu_index idx,
			  unsigned int iters)
{
	long done = 0;

	while (done < (long)iters) {
		intptr_t got, head;
		unsigned int i;

		if (cidk_percpu_cmpnev_storeoffp_load(c->pool, c->h + 16, idx, 0,
						      16, &got))
			continue; /* this copy is empty: another's nodes moved */
		do {
			i = ix_of(idx, c);
			head = __atomic_load_n(word(c, i, 2), __ATOMIC_RELAXED);
			((intptr_t *)got)[2] = head;
		} while (cidk_percpu_cmpeqv_storev(c->pool, c->h + 16, idx, i,
						   head, got));
		done++;
	}
	atomic_fetch_add(&c->pairs, done);
}

static void loop_deref(struct ctx *c, enum cidk_percpu_index idx,
		       unsigned int iters)
{
	for (unsigned int n = 0; n < iters; n++)
		cidk_percpu_offset_deref_addv(c->pool, c->h + 24, idx, 8, 1);
}

/* The atomic path of the locked operations, called directly. */
static void loop_atomic_ops(struct ctx *c, unsigned int iters, int op)
{
	static const intptr_t zero[2];
	enum cidk_percpu_index idx = CIDK_PERCPU_CPU_ID;

	for (unsigned int n = 0; n < iters; n++) {
		unsigned int i;
		intptr_t v;
		int rc;

		if (op == 3) {
			cidk_percpu_offset_deref_addv_atomic(
				c->pool, c->h + 24, idx, CIDK_PERCPU_CURRENT, 8, 1);
			continue;
		}
		do {
			i = ix_of(idx, c);
			v = __atomic_load_n(word(c, i, 0), __ATOMIC_RELAXED);
			rc = op == 0 ? cidk_percpu_cmpeqv_cmpeqv_storev_atomic(
					       c->pool, c->h, idx, i, v,
					       word(c, i, 1), 0, v + 1) :
			     op == 1 ? cidk_percpu_cmpeqv_trystorev_storev_atomic(
					       c->pool, c->h, idx, i, v,
					       word(c, i, 1), 0, v + 1) :
				       cidk_percpu_cmpeqv_trymemcpy_storev_atomic(
					       c->pool, c->h, idx, i, v,
					       word(c, i, 1), zero,
					       sizeof(zero), v + 1);
		} while (rc);
	}
}

#define OPS_LOOP(name, body)                                                  \
	static void name(struct ctx *c, unsigned int iters) { body; }
OPS_LOOP(l_add_on_cpu, loop_add_on(c, CIDK_PERCPU_CPU_ID, iters))
OPS_LOOP(l_add_on_cid, loop_add_on(c, CIDK_PERCPU_MM_CID, iters))
OPS_LOOP(l_cmpeqv_cpu, loop_cmpeqv_relaxed(c, CIDK_PERCPU_CPU_ID, iters))
OPS_LOOP(l_cmpeqv_cid, loop_cmpeqv_relaxed(c, CIDK_PERCPU_MM_CID, iters))
OPS_LOOP(l_cmpeqv2_cpu, loop_cmpeqv2(c, CIDK_PERCPU_CPU_ID, iters))
OPS_LOOP(l_cmpeqv2_cid, loop_cmpeqv2(c, CIDK_PERCPU_MM_CID, iters))
OPS_LOOP(l_trystorev_cpu, loop_trystorev(c, CIDK_PERCPU_CPU_ID, iters, 0))
OPS_LOOP(l_trystorev_cid, loop_trystorev(c, CIDK_PERCPU_MM_CID, iters, 0))
OPS_LOOP(l_trystorev_rel_cpu, loop_trystorev(c, CIDK_PERCPU_CPU_ID, iters, 1))
OPS_LOOP(l_trymemcpy_cpu, loop_trymemcpy(c, CIDK_PERCPU_CPU_ID, iters, 0))
OPS_LOOP(l_trymemcpy_cid, loop_trymemcpy(c, CIDK_PERCPU_MM_CID, iters, 0))
OPS_LOOP(l_trymemcpy_rel_cpu, loop_trymemcpy(c, CIDK_PERCPU_CPU_ID, iters, 1))
OPS_LOOP(l_pop_cpu, loop_pop_push(c, CIDK_PERCPU_CPU_ID, iters))
OPS_LOOP(l_pop_cid, loop_pop_push(c, CIDK_PERCPU_MM_CID, iters))
OPS_LOOP(l_deref_cpu, loop_deref(c, CIDK_PERCPU_CPU_ID, iters))
OPS_LOOP(l_deref_cid, loop_deref(c, CIDK_PERCPU_MM_CID, iters))
OPS_LOOP(l_atomic_cmpeqv2, loop_atomic_ops(c, iters, 0))
OPS_LOOP(l_atomic_trystorev, loop_atomic_ops(c, iters, 1))
OPS_LOOP(l_atomic_trymemcpy, loop_atomic_ops(c, iters, 2))
OPS_LOOP(l_atomic_deref, loop_atomic_ops(c, iters, 3))

static intptr_t sum_pairs(struct ctx *c)
{
	return (intptr_t)atomic_load(&c->pairs);
}

static intptr_t sum_pool(struct ctx *c);

/* The object of OPS_OBJ bytes; every copy's w[3] -> holder -> its w[0];
 * OPS_NODES nodes spread over the copies' lists. */
static int setup_ops(struct alt *a, struct ctx *c)
{
	unsigned int nr = cidk_percpu_nr_copies();

	(void)a;
	c->pool = cidk_pool_create(nr, CIDK_POOL_LINE);
	if (!c->pool)
		return -errno;
	c->h = cidk_pool_alloc(c->pool, OPS_OBJ, sizeof(intptr_t), NULL);
	if (c->h < 0)
		return (int)c->h;
	c->holders = calloc(nr, sizeof(*c->holders));
	c->nodes = calloc(OPS_NODES, sizeof(*c->nodes));
	if (!c->holders || !c->nodes)
		return -ENOMEM;
	for (unsigned int i = 0; i < nr; i++) {
		c->holders[i][1] = (intptr_t)word(c, i, 0);
		*word(c, i, 3) = (intptr_t)c->holders[i];
	}
	for (unsigned int k = 0; k < OPS_NODES; k++) {
		c->nodes[k][2] = *word(c, k % nr, 2);
		*word(c, k % nr, 2) = (intptr_t)c->nodes[k];
	}
	atomic_init(&c->pairs, 0);
	return 0;
}

/* The ops rows' sum: the counters w[0] only. */
static intptr_t sum_ops(struct ctx *c)
{
	return sum_pool(c);
}

static intptr_t sum_pool(struct ctx *c)
{
	return cidk_percpu_sum(c->pool, c->h);
}

static intptr_t sum_shared(struct ctx *c)
{
	return atomic_load(&c->shared);
}

static intptr_t sum_locked(struct ctx *c)
{
	intptr_t v;

	pthread_mutex_lock(&c->lock);
	v = c->locked;
	pthread_mutex_unlock(&c->lock);
	return v;
}

static int setup_pool(struct alt *a, struct ctx *c)
{
	(void)a;
	c->pool = cidk_pool_create(cidk_percpu_nr_copies(), CIDK_POOL_LINE);
	if (!c->pool)
		return -errno;
	c->h = cidk_pool_alloc(c->pool, sizeof(intptr_t), sizeof(intptr_t),
			       NULL);
	return c->h < 0 ? (int)c->h : 0;
}

static int setup_lease(struct alt *a, struct ctx *c)
{
	struct cidk_cid_params p;
	int rc = setup_pool(a, c);

	if (rc)
		return rc;
	cidk_cid_params_default(&p, (enum cidk_cid_policy_kind)a->kind);
	return cidk_lease_domain_create(&p, c->pool->max_cids, &c->dom);
}

static int setup_lock(struct alt *a, struct ctx *c)
{
	(void)a;
	if (pthread_mutex_init(&c->lock, NULL))
		return -ENOMEM;
	c->lock_ready = 1;
	return 0;
}

static void teardown(struct ctx *c)
{
	cidk_lease_domain_destroy(c->dom);
	cidk_pool_destroy(c->pool);
	free(c->holders);
	free(c->nodes);
	if (c->lock_ready)
		pthread_mutex_destroy(&c->lock);
}

#define NBASE 8
#define NOPS 20
#define NALTS (NBASE + NOPS + CIDK_CID_NR_POLICIES)

/* The issue-37 rows, after the baselines (NOPS of them). */
static unsigned int ops_alts(struct alt *a)
{
	static const struct {
		const char *what;
		enum cidk_percpu_index idx;
		int has_path;
		void (*loop)(struct ctx *c, unsigned int iters);
		intptr_t (*sum)(struct ctx *c);
	} t[NOPS] = {
		{ "add_on:cpu", CIDK_PERCPU_CPU_ID, 1, l_add_on_cpu, sum_ops },
		{ "add_on:mm_cid", CIDK_PERCPU_MM_CID, 1, l_add_on_cid, sum_ops },
		{ "cmpeqv_relaxed_on:cpu", CIDK_PERCPU_CPU_ID, 1, l_cmpeqv_cpu, sum_ops },
		{ "cmpeqv_relaxed_on:mm_cid", CIDK_PERCPU_MM_CID, 1, l_cmpeqv_cid, sum_ops },
		{ "cmpeqv_cmpeqv_on:cpu", CIDK_PERCPU_CPU_ID, 1, l_cmpeqv2_cpu, sum_ops },
		{ "cmpeqv_cmpeqv_on:mm_cid", CIDK_PERCPU_MM_CID, 1, l_cmpeqv2_cid, sum_ops },
		{ "trystorev_on:cpu", CIDK_PERCPU_CPU_ID, 1, l_trystorev_cpu, sum_ops },
		{ "trystorev_on:mm_cid", CIDK_PERCPU_MM_CID, 1, l_trystorev_cid, sum_ops },
		{ "trystorev_release_on:cpu", CIDK_PERCPU_CPU_ID, 1, l_trystorev_rel_cpu, sum_ops },
		{ "trymemcpy16_on:cpu", CIDK_PERCPU_CPU_ID, 1, l_trymemcpy_cpu, sum_ops },
		{ "trymemcpy16_on:mm_cid", CIDK_PERCPU_MM_CID, 1, l_trymemcpy_cid, sum_ops },
		{ "trymemcpy16_release_on:cpu", CIDK_PERCPU_CPU_ID, 1, l_trymemcpy_rel_cpu, sum_ops },
		{ "pop+push:cpu", CIDK_PERCPU_CPU_ID, 1, l_pop_cpu, sum_pairs },
		{ "pop+push:mm_cid", CIDK_PERCPU_MM_CID, 1, l_pop_cid, sum_pairs },
		{ "deref_addv:cpu", CIDK_PERCPU_CPU_ID, 1, l_deref_cpu, sum_ops },
		{ "deref_addv:mm_cid", CIDK_PERCPU_MM_CID, 1, l_deref_cid, sum_ops },
		{ "atomic:cmpeqv_cmpeqv", CIDK_PERCPU_CPU_ID, 0, l_atomic_cmpeqv2, sum_ops },
		{ "atomic:trystorev", CIDK_PERCPU_CPU_ID, 0, l_atomic_trystorev, sum_ops },
		{ "atomic:trymemcpy16", CIDK_PERCPU_CPU_ID, 0, l_atomic_trymemcpy, sum_ops },
		{ "atomic:deref_addv", CIDK_PERCPU_CPU_ID, 0, l_atomic_deref, sum_ops },
	};

	for (unsigned int k = 0; k < NOPS; k++) {
		snprintf(a[k].what, sizeof(a[k].what), "%s", t[k].what);
		a[k].idx = t[k].idx;
		a[k].has_path = t[k].has_path;
		a[k].setup = setup_ops;
		a[k].loop = t[k].loop;
		a[k].sum = t[k].sum;
	}
	return NOPS;
}

/* The table, in the order of the issue: percpu rows, leases, baselines. */
static unsigned int make_alts(struct alt *a)
{
	unsigned int n = 0;

	memset(a, 0, NALTS * sizeof(*a));
	a[n] = (struct alt){ "rseq-add:cpu", 0, CIDK_PERCPU_CPU_ID, 1,
			     setup_pool, loop_rseq_cpu, sum_pool };
	n++;
	a[n] = (struct alt){ "rseq-add:mm_cid", 0, CIDK_PERCPU_MM_CID, 1,
			     setup_pool, loop_rseq_cid, sum_pool };
	n++;
	a[n] = (struct alt){ "rseq-counter:cpu", 0, CIDK_PERCPU_CPU_ID, 1,
			     setup_pool, loop_counter_cpu, sum_pool };
	n++;
	a[n] = (struct alt){ "rseq-counter:mm_cid", 0, CIDK_PERCPU_MM_CID, 1,
			     setup_pool, loop_counter_cid, sum_pool };
	n++;
	a[n] = (struct alt){ "atomic-fallback", 0, CIDK_PERCPU_MM_CID, 0,
			     setup_pool, loop_fallback, sum_pool };
	n++;
	a[n] = (struct alt){ "mm_cid+atomic", 0, CIDK_PERCPU_MM_CID, 0,
			     setup_pool, loop_mm_cid_atomic, sum_pool };
	n++;
	for (int k = 0; k < CIDK_CID_NR_POLICIES; k++, n++) {
		snprintf(a[n].what, sizeof(a[n].what), "lease:%s",
			 cidk_cid_policy_name((enum cidk_cid_policy_kind)k));
		a[n].kind = k;
		a[n].setup = setup_lease;
		a[n].loop = loop_lease;
		a[n].sum = sum_pool;
	}
	a[n] = (struct alt){ "shared-atomic", 0, CIDK_PERCPU_CPU_ID, 0, NULL,
			     loop_shared, sum_shared };
	n++;
	a[n] = (struct alt){ "mutex", 0, CIDK_PERCPU_CPU_ID, 0, setup_lock,
			     loop_mutex, sum_locked };
	n++;
	n += ops_alts(&a[n]);
	return n;
}

/* One measured job: every worker times @iters increments of @alt. */
struct job {
	const struct alt *alt;
	struct ctx *ctx;
	unsigned int iters;
	double *ns;		/* per worker */
	unsigned long *aborts;	/* per worker, this job */
};

static void run_adds(void *arg, unsigned int id)
{
	struct job *j = arg;
	unsigned long a0 = cidk_percpu_aborts();
	uint64_t t0 = thread_ns(), t1;

	j->alt->loop(j->ctx, j->iters);
	t1 = thread_ns();
	j->ns[id] = (double)(t1 - t0) / j->iters;
	j->aborts[id] = cidk_percpu_aborts() - a0;
}

int bench_percpu_run(unsigned int nthreads, unsigned int iters,
		     unsigned int reps, struct bench_percpu_row **rows,
		     unsigned int *nrows, const char **bad)
{
	static struct alt alts[NALTS];
	unsigned int nalts;
	struct job j = { .iters = iters };
	struct bench_team *team = NULL;
	double *samples = NULL;
	struct ctx *ctx = NULL;
	struct bench_percpu_row *r = NULL;
	int rc = -ENOMEM;

	if (!nthreads || !iters || !reps)
		return -EINVAL;
	nalts = make_alts(alts);
	samples = calloc((size_t)nalts * reps, sizeof(double));
	j.ns = calloc(nthreads, sizeof(double));
	j.aborts = calloc(nthreads, sizeof(unsigned long));
	ctx = aligned_alloc(64, nalts * sizeof(*ctx));
	r = calloc(nalts, sizeof(*r));
	if (!samples || !j.ns || !j.aborts || !ctx || !r)
		goto out_free;
	memset(ctx, 0, nalts * sizeof(*ctx));
	for (unsigned int a = 0; a < nalts; a++) {
		atomic_init(&ctx[a].shared, 0);
		rc = alts[a].setup ? alts[a].setup(&alts[a], &ctx[a]) : 0;
		if (rc)
			goto out_ctx;
	}
	rc = bench_team_start(&team, nthreads);
	for (unsigned int rep = 0; !rc && rep < reps; rep++) {
		for (unsigned int a = 0; !rc && a < nalts; a++) {
			double sum = 0;
			intptr_t before = alts[a].sum(&ctx[a]);

			j.alt = &alts[a];
			j.ctx = &ctx[a];
			bench_team_run(team, run_adds, &j);
			for (unsigned int t = 0; t < nthreads; t++) {
				sum += j.ns[t];
				r[a].aborts += j.aborts[t];
			}
			samples[a * reps + rep] = sum / nthreads;
			if ((uintptr_t)alts[a].sum(&ctx[a]) - (uintptr_t)before !=
			    (uintptr_t)nthreads * iters) {
				*bad = alts[a].what;
				rc = -EIO;
			}
		}
	}
	bench_team_stop(team);
	for (unsigned int a = 0; !rc && a < nalts; a++) {
		r[a].what = alts[a].what;
		r[a].path = alts[a].has_path ?
			cidk_percpu_path_name(cidk_percpu_path(alts[a].idx)) :
			!strncmp(alts[a].what, "atomic", 6) ? "atomic" : "-";
		r[a].threads = nthreads;
		cidk__summarize(&samples[a * reps], reps, &r[a].ns);
	}
out_ctx:
	for (unsigned int a = 0; a < nalts; a++)
		teardown(&ctx[a]);
out_free:
	free(samples);
	free(j.ns);
	free(j.aborts);
	free(ctx);
	if (rc) {
		free(r);
		return rc;
	}
	*rows = r;
	*nrows = nalts;
	return 0;
}
