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

int bench_mask_run(unsigned int bits, unsigned int reps,
		   struct bench_mask_result *res)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct cidk_mask *a = NULL, *b = NULL;
	double *samples[BENCH_MASK_NR] = { NULL };
	unsigned int nr_cpus_allowed; /* what each way maintains */
	int rc = -ENOMEM;

	if (!bits || !reps)
		return -EINVAL;
	a = cidk_mask_alloc(bits);
	b = cidk_mask_alloc(bits);
	if (!a || !b)
		goto out;
	for (int w = 0; w < BENCH_MASK_NR; w++)
		if (!(samples[w] = calloc(reps, sizeof(double))))
			goto out;

	/* The common case: both full, the union does not change. */
	cidk_mask_fill(a);
	cidk_mask_fill(b);
	nr_cpus_allowed = cidk_mask_weight(b);

	for (unsigned int r = 0; r < reps; r++) {
		uint64_t t0, t1;
		int same;

		t0 = cidk__now_ns();
		nr_cpus_allowed += cidk_mask_union_count(b, a);
		t1 = cidk__now_ns();
		samples[BENCH_MASK_UNION_COUNT][r] = (double)(t1 - t0);

		t0 = cidk__now_ns();
		nr_cpus_allowed += per_bit_atomic(b, a);
		t1 = cidk__now_ns();
		samples[BENCH_MASK_PER_BIT][r] = (double)(t1 - t0);

		t0 = cidk__now_ns();
		nr_cpus_allowed = locked_or_weight(&lock, b, a);
		t1 = cidk__now_ns();
		samples[BENCH_MASK_LOCKED][r] = (double)(t1 - t0);

		t0 = cidk__now_ns();
		same = memcmp(a->bits, b->bits, a->nwords * sizeof(long));
		t1 = cidk__now_ns();
		cidk__keep(&same);
		samples[BENCH_MASK_MEMCMP][r] = (double)(t1 - t0);
	}
	res->bits = bits;
	res->reps = reps;
	res->weight = nr_cpus_allowed;
	for (int w = 0; w < BENCH_MASK_NR; w++)
		cidk__summarize(samples[w], reps, &res->ns[w]);
	rc = 0;
out:
	for (int w = 0; w < BENCH_MASK_NR; w++)
		free(samples[w]);
	cidk_mask_free(a);
	cidk_mask_free(b);
	return rc;
}
