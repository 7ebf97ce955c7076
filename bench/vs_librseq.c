/* SPDX-License-Identifier: MIT */
/*
 * bench/vs_librseq.c - cidkit's per-CPU operations and librseq's, side by
 * side in one run: ns per operation and the ratio cidkit / librseq, for
 * every operation the two libraries share, in both indexings (cpu_id and
 * mm_cid).  Built only when librseq is found (pkg-config librseq); run by
 * scripts/vs-librseq.sh, which builds librseq from its public repository
 * outside this tree.  docs/percpu.md, "Against librseq".
 *
 * Each side is written the way its documentation tells a user to write
 * it: cidkit's calls on a cidk_pool (the index read inside the section
 * where cidkit does so), librseq's retry loop around its helper with the
 * index read before (rseq_cpu_start() or rseq_current_mm_cid()) on an
 * array of 64-byte-aligned copies, the layout of librseq's own tests.
 * The pairs run on the same worker threads one after the other, the order
 * swapped every repetition; a row is the median and min-max over the
 * repetitions of the mean per-thread CPU ns per operation, and the ratio
 * is the median of the per-repetition ratios.  Every repetition checks the
 * result exactly (sums, nodes conserved): a pair that loses an update
 * fails the run.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rseq/rseq.h>

#include <cidkit/percpu.h>
#include <cidkit/pool.h>

#include "team.h"
#include "stats.h"

#define LINE 64
#define NODES 4 /* nodes each thread pushes and pops in turn */

/*
 * One copy, the same on both sides: @v the word every operation commits
 * to, @v2 the second word (double compare, store-store), @buf the memcpy
 * target, @self/@cntp/@count the chain of the offset-dereference add
 * (*v = &copy, at +@cntp a pointer to @count).
 */
struct copy {
	intptr_t v, v2;
	intptr_t buf[2];
	intptr_t *cntp;
	intptr_t count;
};

struct lr_copy {
	struct copy c;
} __attribute__((aligned(LINE)));

/* One side's data: the cidkit pool and handle, or librseq's array. */
struct side {
	struct cidk_pool *pool;
	cidk_pool_handle h;
	struct lr_copy *lr;
	unsigned int ncopies;
};

struct pair;

struct run {
	const struct pair *p;
	int lib; /* 0 cidkit, 1 librseq */
	int mm_cid;
	unsigned int iters;
	struct side s;
	struct cidk_percpu_node *nodes; /* NODES per thread */
	double *ns;			/* per thread */
	_Atomic long bad;		/* failed operations (not retries) */
	_Atomic long held;		/* nodes in the threads' hands at the end */
};

struct pair {
	const char *op;	   /* the operation, librseq's name */
	const char *cidkit; /* cidkit's call */
	void (*loop[2])(struct run *r, unsigned int id);
	int (*check)(struct run *r, unsigned int nthreads);
	void (*setup)(struct run *r); /* NULL: all zero */
	int lr_has;		      /* librseq has the operation here */
};

/* librseq defines its offset-dereference add on some architectures only. */
#ifdef rseq_arch_has_load_add_load_load_add_store
#define LR_HAS_DEREF 1
#else
#define LR_HAS_DEREF 0
#endif

static uint64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static enum cidk_percpu_index cidx(const struct run *r)
{
	return r->mm_cid ? CIDK_PERCPU_MM_CID : CIDK_PERCPU_CPU_ID;
}

static enum rseq_percpu_mode lmode(const struct run *r)
{
	return r->mm_cid ? RSEQ_PERCPU_MM_CID : RSEQ_PERCPU_CPU_ID;
}

/* librseq's index for the next attempt, as its tests read it. */
static inline __attribute__((always_inline)) int lr_index(int mm_cid)
{
	return mm_cid ? (int)rseq_current_mm_cid() : (int)rseq_cpu_start();
}

static struct copy *copy_at(struct run *r, unsigned int i)
{
	if (r->lib)
		return &r->s.lr[i].c;
	return cidk_pool_ptr(r->s.pool, r->s.h, i);
}

static intptr_t *slot(struct run *r, unsigned int i)
{
	return &copy_at(r, i)->v;
}

static intptr_t sum_side(struct run *r)
{
	intptr_t t = 0;

	for (unsigned int i = 0; i < r->s.ncopies; i++)
		t += *slot(r, i);
	return t;
}

/* Point each copy's @v at its own chain (the deref add's setup). */
static void chain(struct run *r)
{
	for (unsigned int i = 0; i < r->s.ncopies; i++) {
		struct copy *c = copy_at(r, i);

		c->v = (intptr_t)c;
		c->cntp = &c->count;
	}
}

/* --- load-add-store: a counter -------------------------------------- */

static void add_cidkit(struct run *r, unsigned int id)
{
	enum cidk_percpu_index idx = cidx(r);
	long bad = 0;

	(void)id;
	for (unsigned int n = 0; n < r->iters; n++)
		bad += cidk_percpu_add_index(r->s.pool, r->s.h, idx, 1) != 0;
	r->bad += bad;
}

static void add_counter(struct run *r, unsigned int id)
{
	struct cidk_percpu_counter c;
	long bad = 0;

	(void)id;
	if (cidk_percpu_counter_init(&c, r->s.pool, r->s.h, cidx(r))) {
		r->bad += r->iters;
		return;
	}
	for (unsigned int n = 0; n < r->iters; n++)
		bad += cidk_percpu_counter_add(&c, 1) != 0;
	r->bad += bad;
}

static void add_librseq(struct run *r, unsigned int id)
{
	enum rseq_percpu_mode mode = lmode(r);
	struct lr_copy *lr = r->s.lr;
	int mm = r->mm_cid;

	(void)id;
	for (unsigned int n = 0; n < r->iters; n++) {
		int i;

		do
			i = lr_index(mm);
		while (rseq_load_add_store__ptr(RSEQ_MO_RELAXED, mode,
						&lr[i].c.v, 1, i));
	}
}

static int check_sum(struct run *r, unsigned int nthreads)
{
	return !r->bad && sum_side(r) == (intptr_t)nthreads * r->iters;
}

/* --- load-compare-store: read, then store v + 1 if unchanged --------- */

static void cbne_cidkit(struct run *r, unsigned int id)
{
	enum cidk_percpu_index idx = cidx(r);
	long bad = 0;

	(void)id;
	for (unsigned int n = 0; n < r->iters; n++) {
		for (;;) {
			int i = cidk_percpu_index_read(idx), rc;
			intptr_t v;

			if (i < 0) {
				bad++;
				break;
			}
			v = __atomic_load_n(slot(r, (unsigned int)i),
					    __ATOMIC_RELAXED);
			rc = cidk_percpu_cmpeqv_storev(r->s.pool, r->s.h, idx,
						       (unsigned int)i, v,
						       v + 1);
			if (!rc)
				break;
			if (rc < 0 && rc != -EAGAIN) {
				bad++;
				break;
			}
		}
	}
	r->bad += bad;
}

static void cbne_librseq(struct run *r, unsigned int id)
{
	enum rseq_percpu_mode mode = lmode(r);
	struct lr_copy *lr = r->s.lr;
	int mm = r->mm_cid;

	(void)id;
	for (unsigned int n = 0; n < r->iters; n++) {
		for (;;) {
			int i = lr_index(mm);
			intptr_t v = RSEQ_READ_ONCE(lr[i].c.v);

			if (!rseq_load_cbne_store__ptr(RSEQ_MO_RELAXED, mode,
						       &lr[i].c.v, v, v + 1, i))
				break;
		}
	}
}


/*
 * The compare-and-commit family, as each side's user writes it: read the
 * index and the copy's @v, try the operation with @v as the expected
 * value and @v + 1 as the commit; retry when the section failed (another
 * thread on the CPU moved @v: 1; the thread moved: -EAGAIN or librseq's
 * -1).  CIDK_TRY/LR_TRY are the one call each row differs by, with @c the
 * copy, @i the index and @v the value read.  CIDK_ON_LOOP is the cidkit
 * side of every _on row: READ (nothing, or CBNE_READ) after the index,
 * then the call.
 */
#define CIDK_ON_LOOP(name, READ, CIDK_TRY)                                   \
	static void name(struct run *r, unsigned int id)                      \
	{                                                                     \
		enum cidk_percpu_index idx = cidx(r);                         \
		struct cidk_pool *pool = r->s.pool;                           \
		cidk_pool_handle h = r->s.h;                                  \
		intptr_t src[2] = { (intptr_t)id, (intptr_t)id };             \
		long bad = 0;                                                 \
                                                                              \
		(void)src;                                                    \
		for (unsigned int n = 0; n < r->iters; n++) {                 \
			for (;;) {                                            \
				int i = cidk_percpu_index_read(idx), rc;      \
                                                                              \
				if (i < 0) {                                  \
					bad++;                                \
					break;                                \
				}                                             \
				READ                                          \
				rc = CIDK_TRY;                                \
				if (!rc)                                      \
					break;                                \
				if (rc < 0 && rc != -EAGAIN) {                \
					bad++;                                \
					break;                                \
				}                                             \
			}                                                     \
		}                                                             \
		r->bad += bad;                                                \
	}

/* The compare family reads the copy's @v (and keeps @c) first. */
#define CBNE_READ                                                             \
	struct copy *c = cidk_pool_ptr(pool, h, (unsigned int)i);             \
	intptr_t v = __atomic_load_n(&c->v, __ATOMIC_RELAXED);
#define CIDK_CBNE_LOOP(name, CIDK_TRY) CIDK_ON_LOOP(name, CBNE_READ, CIDK_TRY)

#define LR_CBNE_LOOP(name, LR_TRY)                                            \
	static void name(struct run *r, unsigned int id)                      \
	{                                                                     \
		enum rseq_percpu_mode mode = lmode(r);                        \
		struct lr_copy *lr = r->s.lr;                                 \
		intptr_t src[2] = { (intptr_t)id, (intptr_t)id };             \
		int mm = r->mm_cid;                                           \
                                                                              \
		(void)src;                                                    \
		for (unsigned int n = 0; n < r->iters; n++) {                 \
			for (;;) {                                            \
				int i = lr_index(mm);                         \
				struct copy *c = &lr[i].c;                    \
				intptr_t v = RSEQ_READ_ONCE(c->v);            \
                                                                              \
				if (!(LR_TRY))                                \
					break;                                \
			}                                                     \
		}                                                             \
	}

CIDK_CBNE_LOOP(cbne_relaxed_cidkit,
	       cidk_percpu_cmpeqv_storev_relaxed_on(pool, h, idx,
						    (unsigned int)i, v, v + 1))
CIDK_CBNE_LOOP(cbne2_cidkit,
	       cidk_percpu_cmpeqv_cmpeqv_storev_on(pool, h, idx, (unsigned int)i,
						   v, &c->v2, 0, v + 1))
LR_CBNE_LOOP(cbne2_librseq,
	     rseq_load_cbne_load_cbne_store__ptr(RSEQ_MO_RELAXED, mode, &c->v,
						 v, &c->v2, 0, v + 1, i))
CIDK_CBNE_LOOP(store2_cidkit,
	       cidk_percpu_cmpeqv_trystorev_storev_on(pool, h, idx,
						      (unsigned int)i, v,
						      &c->v2, v, v + 1))
LR_CBNE_LOOP(store2_librseq,
	     rseq_load_cbne_store_store__ptr(RSEQ_MO_RELAXED, mode, &c->v, v,
					     &c->v2, v, v + 1, i))
CIDK_CBNE_LOOP(store2_rel_cidkit,
	       cidk_percpu_cmpeqv_trystorev_storev_release_on(
		       pool, h, idx, (unsigned int)i, v, &c->v2, v, v + 1))
LR_CBNE_LOOP(store2_rel_librseq,
	     rseq_load_cbne_store_store__ptr(RSEQ_MO_RELEASE, mode, &c->v, v,
					     &c->v2, v, v + 1, i))
CIDK_CBNE_LOOP(memcpy_cidkit,
	       cidk_percpu_cmpeqv_trymemcpy_storev_on(pool, h, idx,
						      (unsigned int)i, v,
						      c->buf, src, sizeof(src),
						      v + 1))
LR_CBNE_LOOP(memcpy_librseq,
	     rseq_load_cbne_memcpy_store__ptr(RSEQ_MO_RELAXED, mode, &c->v, v,
					      c->buf, src, sizeof(src), v + 1,
					      i))
CIDK_CBNE_LOOP(memcpy_rel_cidkit,
	       cidk_percpu_cmpeqv_trymemcpy_storev_release_on(
		       pool, h, idx, (unsigned int)i, v, c->buf, src,
		       sizeof(src), v + 1))
LR_CBNE_LOOP(memcpy_rel_librseq,
	     rseq_load_cbne_memcpy_store__ptr(RSEQ_MO_RELEASE, mode, &c->v, v,
					      c->buf, src, sizeof(src), v + 1,
					      i))

/* --- load-add-store with the index named (_on) ----------------------- */

CIDK_ON_LOOP(addon_cidkit, ,
	     cidk_percpu_add_on(pool, h, idx, (unsigned int)i, 1))

/* --- load-add-load-load-add-store: *(*(v) + off) += 1 ---------------- */

#define DEREF_OFF ((long)offsetof(struct copy, cntp))

CIDK_ON_LOOP(deref_cidkit, ,
	     cidk_percpu_offset_deref_addv_on(pool, h, idx, (unsigned int)i,
					      DEREF_OFF, 1))

static void deref_librseq(struct run *r, unsigned int id)
{
#ifdef rseq_arch_has_load_add_load_load_add_store
	enum rseq_percpu_mode mode = lmode(r);
	struct lr_copy *lr = r->s.lr;
	int mm = r->mm_cid;

	(void)id;
	for (unsigned int n = 0; n < r->iters; n++) {
		int i;

		do
			i = lr_index(mm);
		while (rseq_load_add_load_load_add_store__ptr(
			RSEQ_MO_RELAXED, mode, &lr[i].c.v, DEREF_OFF, 1, i));
	}
#else
	(void)r;
	(void)id; /* never run: the pair is left out (lr_has) */
#endif
}

static int check_count(struct run *r, unsigned int nthreads)
{
	intptr_t t = 0;

	for (unsigned int i = 0; i < r->s.ncopies; i++)
		t += copy_at(r, i)->count;
	return !r->bad && t == (intptr_t)nthreads * r->iters;
}

/* --- list push then pop (cbne_store, cbeq_store_add_load_store) ------ */

static struct cidk_percpu_node *my_nodes(struct run *r, unsigned int id)
{
	return r->nodes + (size_t)id * NODES;
}

/*
 * Each thread keeps a hand of its NODES nodes: push the top of the hand,
 * pop one back (after a migration it may come from another copy, or the
 * copy may be empty); what is left on the lists is counted by the check.
 */
static void list_cidkit(struct run *r, unsigned int id)
{
	struct cidk_percpu_node *hand[NODES];
	enum cidk_percpu_index idx = cidx(r);
	unsigned int held = NODES;
	long bad = 0;

	for (unsigned int k = 0; k < NODES; k++)
		hand[k] = my_nodes(r, id) + k;
	for (unsigned int n = 0; n < r->iters; n++) {
		struct cidk_percpu_node *got;

		if (held) {
			if (cidk_percpu_list_push(r->s.pool, r->s.h, idx,
						  hand[held - 1]))
				bad++;
			else
				held--;
		}
		got = cidk_percpu_list_pop(r->s.pool, r->s.h, idx);
		if (got)
			hand[held++] = got;
		else if (errno != ENOENT)
			bad++;
	}
	r->held += held;
	r->bad += bad;
}

static void list_librseq(struct run *r, unsigned int id)
{
	enum rseq_percpu_mode mode = lmode(r);
	struct cidk_percpu_node *hand[NODES];
	struct lr_copy *lr = r->s.lr;
	unsigned int held = NODES;
	int mm = r->mm_cid;

	for (unsigned int k = 0; k < NODES; k++)
		hand[k] = my_nodes(r, id) + k;
	for (unsigned int n = 0; n < r->iters; n++) {
		intptr_t got;
		int i, rc;

		if (held) {
			struct cidk_percpu_node *node = hand[held - 1];

			for (;;) {
				intptr_t head;

				i = lr_index(mm);
				head = RSEQ_READ_ONCE(lr[i].c.v);
				node->next = (struct cidk_percpu_node *)head;
				if (!rseq_load_cbne_store__ptr(
					    RSEQ_MO_RELAXED, mode, &lr[i].c.v,
					    head, (intptr_t)node, i))
					break;
			}
			held--;
		}
		for (;;) {
			i = lr_index(mm);
			rc = rseq_load_cbeq_store_add_load_store__ptr(
				RSEQ_MO_RELAXED, mode, &lr[i].c.v, 0,
				offsetof(struct cidk_percpu_node, next), &got,
				i);
			if (rc >= 0) /* 0 popped, 1 empty; -1 retry */
				break;
		}
		if (!rc)
			hand[held++] = (struct cidk_percpu_node *)got;
	}
	r->held += held;
}


/* The same with the _on forms, librseq's own pattern call for call. */
static void list_on_cidkit(struct run *r, unsigned int id)
{
	struct cidk_percpu_node *hand[NODES];
	enum cidk_percpu_index idx = cidx(r);
	struct cidk_pool *pool = r->s.pool;
	cidk_pool_handle h = r->s.h;
	unsigned int held = NODES;
	long bad = 0;

	for (unsigned int k = 0; k < NODES; k++)
		hand[k] = my_nodes(r, id) + k;
	for (unsigned int n = 0; n < r->iters; n++) {
		intptr_t got;
		int i, rc;

		if (held) {
			struct cidk_percpu_node *node = hand[held - 1];

			for (;;) {
				intptr_t head, *v;

				if ((i = cidk_percpu_index_read(idx)) < 0) {
					bad++;
					break;
				}
				v = cidk_pool_ptr(pool, h, (unsigned int)i);
				head = __atomic_load_n(v, __ATOMIC_RELAXED);
				node->next = (struct cidk_percpu_node *)head;
				rc = cidk_percpu_cmpeqv_storev_relaxed_on(
					pool, h, idx, (unsigned int)i, head,
					(intptr_t)node);
				if (!rc) {
					held--;
					break;
				}
				if (rc < 0 && rc != -EAGAIN) {
					bad++;
					break;
				}
			}
		}
		for (;;) {
			if ((i = cidk_percpu_index_read(idx)) < 0) {
				rc = i;
				break;
			}
			rc = cidk_percpu_cmpnev_storeoffp_load_on(
				pool, h, idx, (unsigned int)i, 0,
				offsetof(struct cidk_percpu_node, next), &got);
			if (rc != -EAGAIN)
				break;
		}
		if (!rc)
			hand[held++] = (struct cidk_percpu_node *)got;
		else if (rc != 1)
			bad++;
	}
	r->held += held;
	r->bad += bad;
}

/* Every node is in a hand or on exactly one list, and no list loops. */
static int check_nodes(struct run *r, unsigned int nthreads)
{
	long total = (long)nthreads * NODES, on = 0;

	for (unsigned int i = 0; i < r->s.ncopies; i++) {
		struct cidk_percpu_node *n = (void *)*slot(r, i);

		for (; n && on <= total; n = n->next)
			on++;
		*slot(r, i) = 0;
	}
	return !r->bad && on + r->held == total;
}

static const struct pair pairs[] = {
	{ "load_add_store", "cidk_percpu_add_index",
	  { add_cidkit, add_librseq }, check_sum, NULL, 1 },
	{ "load_add_store", "cidk_percpu_counter_add",
	  { add_counter, add_librseq }, check_sum, NULL, 1 },
	{ "load_add_store", "cidk_percpu_add_on",
	  { addon_cidkit, add_librseq }, check_sum, NULL, 1 },
	{ "load_cbne_store", "cidk_percpu_cmpeqv_storev",
	  { cbne_cidkit, cbne_librseq }, check_sum, NULL, 1 },
	{ "load_cbne_store", "..._cmpeqv_storev_relaxed_on",
	  { cbne_relaxed_cidkit, cbne_librseq }, check_sum, NULL, 1 },
	{ "load_cbne_load_cbne_store", "..._cmpeqv_cmpeqv_storev_on",
	  { cbne2_cidkit, cbne2_librseq }, check_sum, NULL, 1 },
	{ "load_cbne_store_store", "..._trystorev_storev_on",
	  { store2_cidkit, store2_librseq }, check_sum, NULL, 1 },
	{ "..store_store:release", "..._trystorev_storev_release_on",
	  { store2_rel_cidkit, store2_rel_librseq }, check_sum, NULL, 1 },
	{ "load_cbne_memcpy16_store", "..._trymemcpy_storev_on",
	  { memcpy_cidkit, memcpy_librseq }, check_sum, NULL, 1 },
	{ "..memcpy16_store:release", "..._trymemcpy_storev_release_on",
	  { memcpy_rel_cidkit, memcpy_rel_librseq }, check_sum, NULL, 1 },
	{ "load_add_load_load_add_store", "..._offset_deref_addv_on",
	  { deref_cidkit, deref_librseq }, check_count, chain, LR_HAS_DEREF },
	{ "push+pop", "cidk_percpu_list_push+pop",
	  { list_cidkit, list_librseq }, check_nodes, NULL, 1 },
	{ "push+pop (cbeq_store_add_load)", "..._storev_relaxed_on+cmpnev_storeoffp_load_on",
	  { list_on_cidkit, list_librseq }, check_nodes, NULL, 1 },
};

#define NPAIRS (sizeof(pairs) / sizeof(pairs[0]))

static void job(void *arg, unsigned int id)
{
	struct run *r = arg;
	uint64_t t0;

	/* librseq: a no-op where glibc registered the area (both use it) */
	if (r->lib && rseq_register_current_thread())
		r->bad += r->iters;
	t0 = thread_ns();
	r->p->loop[r->lib](r, id);
	r->ns[id] = (double)(thread_ns() - t0) / r->iters;
}

static int side_make(struct side *s, int lib, unsigned int ncopies)
{
	memset(s, 0, sizeof(*s));
	s->ncopies = ncopies;
	if (lib) {
		s->lr = aligned_alloc(LINE, sizeof(*s->lr) * ncopies);
		if (!s->lr)
			return -ENOMEM;
		memset(s->lr, 0, sizeof(*s->lr) * ncopies);
		return 0;
	}
	s->pool = cidk_pool_create(ncopies, LINE);
	if (!s->pool)
		return -errno;
	s->h = cidk_pool_alloc(s->pool, sizeof(struct copy), sizeof(intptr_t),
			       NULL);
	return s->h < 0 ? (int)s->h : 0;
}

static void side_free(struct side *s)
{
	cidk_pool_destroy(s->pool);
	free(s->lr);
}

/* One measurement of one side: mean per-thread ns per op, or < 0. */
static double measure(struct bench_team *t, struct run *r,
		      unsigned int nthreads)
{
	double mean = 0;

	r->bad = 0;
	r->held = 0;
	if (side_make(&r->s, r->lib, cidk_percpu_nr_copies()))
		return -1;
	if (r->p->setup)
		r->p->setup(r);
	bench_team_run(t, job, r);
	if (!r->p->check(r, nthreads)) {
		side_free(&r->s);
		return -1;
	}
	side_free(&r->s);
	for (unsigned int k = 0; k < nthreads; k++)
		mean += r->ns[k];
	return mean / nthreads;
}

struct row {
	const struct pair *p;
	int mm_cid;
	struct cidk__summary side[2], ratio;
};

static int run_pair(struct bench_team *t, const struct pair *p, int mm_cid,
		    unsigned int nthreads, unsigned int iters,
		    unsigned int reps, struct row *row)
{
	double *v[3], ns[64];
	struct cidk_percpu_node *nodes;
	struct run r = { .p = p, .mm_cid = mm_cid, .iters = iters, .ns = ns };
	int rc = 0;

	nodes = calloc((size_t)nthreads * NODES, sizeof(*nodes));
	for (int k = 0; k < 3; k++)
		v[k] = calloc(reps, sizeof(double));
	if (!nodes || !v[0] || !v[1] || !v[2]) {
		rc = -ENOMEM;
		goto out;
	}
	r.nodes = nodes;
	for (unsigned int rep = 0; rep < reps && !rc; rep++) {
		for (int k = 0; k < 2; k++) {
			r.lib = (int)((rep + (unsigned int)k) & 1);
			v[r.lib][rep] = measure(t, &r, nthreads);
			if (v[r.lib][rep] < 0) {
				fprintf(stderr,
					"vs_librseq: %s (%s, %s): wrong result\n",
					p->op, r.lib ? "librseq" : p->cidkit,
					mm_cid ? "mm_cid" : "cpu_id");
				rc = -EIO;
				break;
			}
		}
		v[2][rep] = v[0][rep] / v[1][rep];
	}
	row->p = p;
	row->mm_cid = mm_cid;
	for (int k = 0; k < 2; k++)
		cidk__summarize(v[k], reps, &row->side[k]);
	cidk__summarize(v[2], reps, &row->ratio);
out:
	free(nodes);
	for (int k = 0; k < 3; k++)
		free(v[k]);
	return rc;
}

static void usage(FILE *f)
{
	fputs("usage: vs_librseq [--threads N] [--iters N] [--reps N] [--json]\n"
	      "ns per operation of cidkit and librseq side by side, "
	      "both indexings,\nwith the ratio cidkit / librseq "
	      "(median of per-repetition ratios).\n",
	      f);
}

static int parse_uint(const char *s, unsigned int max, unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || !v || v > max || s[0] == '-')
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static void print_rows(const struct row *rows, unsigned int n,
		       unsigned int nthreads, int json)
{
	if (json) {
		printf("{\"threads\": %u, \"path\": \"%s\", \"rows\": [",
		       nthreads,
		       cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_CPU_ID)));
		for (unsigned int k = 0; k < n; k++) {
			const struct row *w = &rows[k];

			printf("%s\n {\"op\": \"%s\", \"cidkit\": \"%s\", "
			       "\"index\": \"%s\", \"cidkit_ns\": [%.3f, %.3f, %.3f], "
			       "\"librseq_ns\": [%.3f, %.3f, %.3f], "
			       "\"ratio\": [%.3f, %.3f, %.3f]}",
			       k ? "," : "", w->p->op, w->p->cidkit,
			       w->mm_cid ? "mm_cid" : "cpu_id",
			       w->side[0].median, w->side[0].min, w->side[0].max,
			       w->side[1].median, w->side[1].min, w->side[1].max,
			       w->ratio.median, w->ratio.min, w->ratio.max);
		}
		printf("\n]}\n");
		return;
	}
	printf("%u thread(s); cidkit path %s; ns per op, median (min-max)\n",
	       nthreads,
	       cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_CPU_ID)));
	printf("%-30s %-46s %-6s %-20s %-20s %s\n", "operation (librseq)", "cidkit call",
	       "index", "cidkit", "librseq", "ratio");
	for (unsigned int k = 0; k < n; k++) {
		const struct row *w = &rows[k];
		char a[32], b[32];

		snprintf(a, sizeof(a), "%.2f (%.2f-%.2f)", w->side[0].median,
			 w->side[0].min, w->side[0].max);
		snprintf(b, sizeof(b), "%.2f (%.2f-%.2f)", w->side[1].median,
			 w->side[1].min, w->side[1].max);
		printf("%-30s %-46s %-6s %-20s %-20s %.3f (%.3f-%.3f)\n",
		       w->p->op, w->p->cidkit, w->mm_cid ? "mm_cid" : "cpu_id",
		       a, b, w->ratio.median, w->ratio.min, w->ratio.max);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "iters", required_argument, NULL, 'i' },
		{ "reps", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int nthreads = 1, iters = 2000000, reps = 11, n = 0;
	struct row rows[2 * NPAIRS];
	struct bench_team *t;
	int json = 0, c, rc = 0, nidx;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (parse_uint(optarg, 64, &nthreads))
				goto bad;
			break;
		case 'i':
			if (parse_uint(optarg, 1000000000, &iters))
				goto bad;
			break;
		case 'r':
			if (parse_uint(optarg, 1000, &reps))
				goto bad;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	if (rseq_register_current_thread()) {
		fprintf(stderr, "vs_librseq: librseq cannot register rseq here\n");
		return 1;
	}
	/* glibc's original 32-byte registration has no mm_cid for librseq */
	nidx = rseq_mm_cid_available() ? 2 : 1;
	if (nidx == 1)
		fprintf(stderr, "vs_librseq: the registered rseq area has no "
				"mm_cid (rseq_size %u): cpu_id rows only\n",
			(unsigned int)rseq_size);
	if ((rc = bench_team_start(&t, nthreads))) {
		fprintf(stderr, "vs_librseq: threads: %s\n", strerror(-rc));
		return 1;
	}
	for (unsigned int k = 0; k < NPAIRS && !rc; k++) {
		if (!pairs[k].lr_has) {
			fprintf(stderr, "vs_librseq: librseq has no %s on this "
					"architecture: row left out\n", pairs[k].op);
			continue;
		}
		for (int mm = 0; mm < nidx && !rc; mm++, n++)
			rc = run_pair(t, &pairs[k], mm, nthreads, iters, reps,
				      &rows[n]);
	}
	bench_team_stop(t);
	if (rc)
		return 1;
	print_rows(rows, n, nthreads, json);
	return 0;
bad:
	fputs("vs_librseq: bad arguments (--help)\n", stderr);
	return 2;
}
