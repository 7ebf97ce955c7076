/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/mask.h>

#include "bench_mask.h"
#include "util/clock.h"

const char *const bench_mask_way_name[BENCH_MASK_NR] = {
	[BENCH_MASK_UNION_COUNT] = "union_count",
	[BENCH_MASK_PER_BIT] = "per_bit_atomic",
	[BENCH_MASK_LOCKED] = "locked_or_weight",
	[BENCH_MASK_MEMCMP] = "memcmp",
};

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

int bench_mask_run(unsigned int bits, unsigned int reps,
		   struct bench_mask_result *res)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct cidk_mask *a = NULL, *b[BENCH_MASK_NR_WAYS] = { NULL };
	double *samples[BENCH_MASK_NR] = { NULL };
	unsigned int n[BENCH_MASK_NR_WAYS]; /* nr_cpus_allowed, per way */
	int rc;

	if (!bits || !reps)
		return -EINVAL;
	res->bits = bits;
	res->reps = reps;
	res->compared = 0;
	res->disagreed = NULL;
	rc = bench_mask_verify(bits, -1, res);
	if (rc)
		return rc;
	rc = -ENOMEM;
	a = cidk_mask_alloc(bits);
	if (!a || alloc_ways(b, bits))
		goto out;
	for (int w = 0; w < BENCH_MASK_NR; w++)
		if (!(samples[w] = calloc(reps, sizeof(double))))
			goto out;

	/* The common case: both full, the union does not change. */
	cidk_mask_fill(a);
	for (int w = 0; w < BENCH_MASK_NR_WAYS; w++) {
		cidk_mask_fill(b[w]);
		n[w] = cidk_mask_weight(b[w]);
	}

	for (unsigned int r = 0; r < reps; r++) {
		uint64_t t0, t1;
		int same;

		t0 = cidk__now_ns();
		n[BENCH_MASK_UNION_COUNT] += cidk_mask_union_count(b[0], a);
		t1 = cidk__now_ns();
		samples[BENCH_MASK_UNION_COUNT][r] = (double)(t1 - t0);

		t0 = cidk__now_ns();
		n[BENCH_MASK_PER_BIT] += per_bit_atomic(b[1], a);
		t1 = cidk__now_ns();
		samples[BENCH_MASK_PER_BIT][r] = (double)(t1 - t0);

		t0 = cidk__now_ns();
		n[BENCH_MASK_LOCKED] = locked_or_weight(&lock, b[2], a);
		t1 = cidk__now_ns();
		samples[BENCH_MASK_LOCKED][r] = (double)(t1 - t0);

		t0 = cidk__now_ns();
		same = memcmp(a->bits, b[0]->bits, a->nwords * sizeof(long));
		t1 = cidk__now_ns();
		cidk__keep(&same);
		samples[BENCH_MASK_MEMCMP][r] = (double)(t1 - t0);

		rc = compare(b, n, "a repetition on full masks", res); /* not timed */
		if (rc)
			goto out;
	}
	for (int w = 0; w < BENCH_MASK_NR; w++)
		cidk__summarize(samples[w], reps, &res->ns[w]);
	rc = 0;
out:
	for (int w = 0; w < BENCH_MASK_NR; w++)
		free(samples[w]);
	cidk_mask_free(a);
	free_ways(b);
	return rc;
}
