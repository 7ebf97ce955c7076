/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include <cidkit/mask.h>

#include "bench_mask.h"
#include "cidkit_lab.h"

const char *const bench_mask_way_name[BENCH_MASK_NR] = {
	[BENCH_MASK_UNION_COUNT] = "union_count",
	[BENCH_MASK_PER_BIT] = "per_bit_atomic",
	[BENCH_MASK_LOCKED] = "locked_or_weight",
	[BENCH_MASK_MEMCMP] = "memcmp",
};

const char *const bench_mask_scenario_name[BENCH_MASK_NR_SCENARIOS] = {
	[BENCH_MASK_STEADY] = "steady",
	[BENCH_MASK_GROWING] = "growing",
};

const char *const bench_mask_cache_name[BENCH_MASK_NR_CACHE] = {
	[BENCH_MASK_WARM] = "warm",
	[BENCH_MASK_COLD] = "cold",
};

/* ---- the cache state before a timed call ---------------------------------- */

#if defined(__x86_64__) || defined(__aarch64__)
bool bench_mask_cold_supported(void)
{
	return true;
}
#else
bool bench_mask_cold_supported(void)
{
	return false;
}
#endif

/* Write back and drop every line of [p, p + n) from every cache level. */
static void flush_range(const void *p, size_t n)
{
#if defined(__x86_64__)
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)63, end = (uintptr_t)p + n;

	for (; a < end; a += 64)
		_mm_clflush((const void *)a);
	_mm_mfence();
#elif defined(__aarch64__)
	uint64_t ctr;
	uintptr_t line, a, end = (uintptr_t)p + n;

	__asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
	line = (uintptr_t)4 << ((ctr >> 16) & 0xf); /* DminLine, in bytes */
	for (a = (uintptr_t)p & ~(line - 1); a < end; a += line)
		__asm__ volatile("dc civac, %0" : : "r"(a) : "memory");
	__asm__ volatile("dsb ish" : : : "memory");
#else
	(void)p;
	(void)n;
#endif
}

/* Put A and B in the stated cache state (the untimed step before a call). */
static void prepare(enum bench_mask_cache c, const struct cidk_mask *a,
		    const struct cidk_mask *b)
{
	size_t bytes = a->nwords * sizeof(long);

	if (c == BENCH_MASK_COLD) {
		flush_range(a->bits, bytes);
		flush_range(b->bits, bytes);
	} else {
		int d = memcmp(a->bits, b->bits, bytes); /* both read once */

		cidk__keep(&d);
	}
}

unsigned int bench_mask_grow_bit(unsigned int bits, unsigned int grow,
				 unsigned int i)
{
	return (unsigned int)((unsigned long long)i * bits / grow);
}

static unsigned int per_bit_atomic(struct cidk_mask *b,
				   const struct cidk_mask *a)
{
	unsigned int bit, n = 0;

	cidk_mask_for_each(bit, a)
		n += !cidk_mask_test_and_set_atomic(b, bit);
	return n;
}

static unsigned int locked_or_weight(pthread_mutex_t *lock,
				     struct cidk_mask *b,
				     const struct cidk_mask *a)
{
	unsigned int w;

	pthread_mutex_lock(lock);
	cidk_mask_or(b, b, a);
	w = cidk_mask_weight(b);
	pthread_mutex_unlock(lock);
	return w;
}

/* the three ways' counts and bitmaps after a fold: equal, or -EDOM */
static int compare(struct cidk_mask *const b[BENCH_MASK_NR_WAYS],
		   const unsigned int n[BENCH_MASK_NR_WAYS], const char *where,
		   struct bench_mask_result *res)
{
	size_t bytes = b[0]->nwords * sizeof(long);

	res->compared++;
	for (int w = 0; w < BENCH_MASK_NR_WAYS; w++)
		res->weight[w] = n[w];
	for (int w = 1; w < BENCH_MASK_NR_WAYS; w++)
		if (n[w] != n[0] || memcmp(b[w]->bits, b[0]->bits, bytes)) {
			res->disagreed = where;
			return -EDOM;
		}
	return 0;
}

static void free_ways(struct cidk_mask *b[BENCH_MASK_NR_WAYS])
{
	for (int w = 0; w < BENCH_MASK_NR_WAYS; w++) {
		cidk_mask_free(b[w]);
		b[w] = NULL;
	}
}

static int alloc_ways(struct cidk_mask *b[BENCH_MASK_NR_WAYS],
		      unsigned int bits)
{
	for (int w = 0; w < BENCH_MASK_NR_WAYS; w++)
		b[w] = cidk_mask_alloc(bits);
	for (int w = 0; w < BENCH_MASK_NR_WAYS; w++)
		if (!b[w]) {
			free_ways(b);
			return -ENOMEM;
		}
	return 0;
}

int bench_mask_verify(unsigned int bits, int fault,
		      struct bench_mask_result *res)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct cidk_mask *a, *b[BENCH_MASK_NR_WAYS];
	unsigned int n[BENCH_MASK_NR_WAYS];
	int rc = -ENOMEM;

	a = cidk_mask_alloc(bits);
	if (!a || alloc_ways(b, bits))
		goto out_a;
	for (unsigned int i = 0; i < bits; i += 2)
		cidk_mask_set(a, i);
	cidk_mask_set(a, bits - 1);
	for (int w = 0; w < BENCH_MASK_NR_WAYS; w++) {
		for (unsigned int i = 0; i < bits; i += 3)
			cidk_mask_set(b[w], i);
		n[w] = cidk_mask_weight(b[w]);
	}
	n[BENCH_MASK_UNION_COUNT] += cidk_mask_union_count(b[0], a);
	n[BENCH_MASK_PER_BIT] += per_bit_atomic(b[1], a);
	n[BENCH_MASK_LOCKED] = locked_or_weight(&lock, b[2], a);
	if (fault >= 0 && fault < BENCH_MASK_NR_WAYS)
		n[fault]++;
	rc = compare(b, n, "a union that changes", res);
	free_ways(b);
out_a:
	cidk_mask_free(a);
	return rc;
}

/* Everything one run owns: freed in one place. */
struct run {
	pthread_mutex_t lock;
	struct cidk_mask *a, *b[BENCH_MASK_NR], *tmpl[BENCH_MASK_NR_SCENARIOS];
	unsigned int base[BENCH_MASK_NR_SCENARIOS]; /* weight of each B before */
	double *samples[BENCH_MASK_NR_SCENARIOS][BENCH_MASK_NR_CACHE]
		       [BENCH_MASK_NR];
};

static void run_free(struct run *x)
{
	cidk_mask_free(x->a);
	for (int w = 0; w < BENCH_MASK_NR; w++)
		cidk_mask_free(x->b[w]);
	for (int s = 0; s < BENCH_MASK_NR_SCENARIOS; s++) {
		cidk_mask_free(x->tmpl[s]);
		for (int c = 0; c < BENCH_MASK_NR_CACHE; c++)
			for (int w = 0; w < BENCH_MASK_NR; w++)
				free(x->samples[s][c][w]);
	}
}

static int run_alloc(struct run *x, unsigned int bits, unsigned int reps,
		     unsigned int grow)
{
	memset(x, 0, sizeof(*x));
	pthread_mutex_init(&x->lock, NULL);
	x->a = cidk_mask_alloc(bits);
	for (int w = 0; w < BENCH_MASK_NR; w++)
		x->b[w] = cidk_mask_alloc(bits);
	for (int s = 0; s < BENCH_MASK_NR_SCENARIOS; s++) {
		x->tmpl[s] = cidk_mask_alloc(bits);
		for (int c = 0; c < BENCH_MASK_NR_CACHE; c++)
			for (int w = 0; w < BENCH_MASK_NR; w++)
				x->samples[s][c][w] = calloc(reps, sizeof(double));
	}
	if (!x->a)
		return -ENOMEM;
	for (int w = 0; w < BENCH_MASK_NR; w++)
		if (!x->b[w])
			return -ENOMEM;
	for (int s = 0; s < BENCH_MASK_NR_SCENARIOS; s++) {
		if (!x->tmpl[s])
			return -ENOMEM;
		for (int c = 0; c < BENCH_MASK_NR_CACHE; c++)
			for (int w = 0; w < BENCH_MASK_NR; w++)
				if (!x->samples[s][c][w])
					return -ENOMEM;
	}
	cidk_mask_fill(x->a);
	cidk_mask_fill(x->tmpl[BENCH_MASK_STEADY]);
	cidk_mask_fill(x->tmpl[BENCH_MASK_GROWING]);
	for (unsigned int i = 0; i < grow; i++)
		cidk_mask_clear(x->tmpl[BENCH_MASK_GROWING],
				bench_mask_grow_bit(bits, grow, i));
	for (int s = 0; s < BENCH_MASK_NR_SCENARIOS; s++)
		x->base[s] = cidk_mask_weight(x->tmpl[s]);
	return 0;
}

/* One timed call of way @w; returns the nr_cpus_allowed it arrives at. */
static unsigned int timed_call(struct run *x, enum bench_mask_way w,
			       unsigned int base, double *ns)
{
	struct cidk_mask *b = x->b[w];
	unsigned int n = base;
	uint64_t t0, t1;
	int same;

	t0 = cidk__now_ns();
	switch (w) {
	case BENCH_MASK_UNION_COUNT:
		n += cidk_mask_union_count(b, x->a);
		break;
	case BENCH_MASK_PER_BIT:
		n += per_bit_atomic(b, x->a);
		break;
	case BENCH_MASK_LOCKED:
		n = locked_or_weight(&x->lock, b, x->a);
		break;
	default:
		same = memcmp(x->a->bits, b->bits, x->a->nwords * sizeof(long));
		cidk__keep(&same);
		break;
	}
	t1 = cidk__now_ns();
	*ns = (double)(t1 - t0);
	return n;
}

static const char *const where[BENCH_MASK_NR_SCENARIOS][BENCH_MASK_NR_CACHE] = {
	{ "a steady repetition, warm", "a steady repetition, cold" },
	{ "a growing repetition, warm", "a growing repetition, cold" },
};

int bench_mask_run(unsigned int bits, unsigned int reps, unsigned int grow,
		   struct bench_mask_result *res)
{
	int ncache = bench_mask_cold_supported() ? BENCH_MASK_NR_CACHE : 1;
	unsigned int n[BENCH_MASK_NR]; /* nr_cpus_allowed, per way */
	struct run x;
	int rc;

	if (!bits || !reps || !grow || grow > bits)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	res->bits = bits;
	res->reps = reps;
	res->grow = grow;
	res->cold = ncache == BENCH_MASK_NR_CACHE;
	rc = bench_mask_verify(bits, -1, res);
	if (rc)
		return rc;
	rc = run_alloc(&x, bits, reps, grow);
	if (rc)
		goto out;
	for (int w = 0; w < BENCH_MASK_NR; w++)
		cidk_mask_copy(x.b[w], x.tmpl[BENCH_MASK_STEADY]);

	for (unsigned int r = 0; r < reps; r++)
		for (int s = 0; s < BENCH_MASK_NR_SCENARIOS; s++)
			for (int c = 0; c < ncache; c++) {
				for (int k = 0; k < BENCH_MASK_NR; k++) {
					enum bench_mask_way w = (r + k) % BENCH_MASK_NR;

					/*
					 * steady: every B stays full; growing:
					 * the folding ways' B back to the template
					 * (memcmp's B stays equal to A: the floor
					 * reads both masks to the end)
					 */
					if (s == BENCH_MASK_GROWING &&
					    w != BENCH_MASK_MEMCMP)
						cidk_mask_copy(x.b[w], x.tmpl[s]);
					prepare(c, x.a, x.b[w]);
					n[w] = timed_call(&x, w, x.base[s],
							  &x.samples[s][c][w][r]);
				}
				for (int w = 0; w < BENCH_MASK_NR_WAYS; w++)
					res->gained[s][w] = n[w] - x.base[s];
				rc = compare(x.b, n, where[s][c], res); /* untimed */
				if (rc) /* else every B is full again */
					goto out;
			}
	for (int s = 0; s < BENCH_MASK_NR_SCENARIOS; s++)
		for (int c = 0; c < ncache; c++)
			for (int w = 0; w < BENCH_MASK_NR; w++)
				cidk__summarize(x.samples[s][c][w], reps,
						&res->ns[s][c][w]);
	rc = 0;
out:
	run_free(&x);
	return rc;
}
