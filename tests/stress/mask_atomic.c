/* SPDX-License-Identifier: MIT */
/*
 * Concurrent atomic mask operations: T threads fold overlapping random
 * masks into one shared union with cidk_mask_union_count(); the counts they
 * return must add up to the final weight (a bit counted twice or never
 * shows).  Then T threads race test_and_set_atomic / test_and_clear_atomic
 * over the same bits: each bit is won exactly once per phase.
 */
#include <pthread.h>
#include <stdatomic.h>

#include <cidkit/mask.h>

#include "tap.h"
#include "util/prng.h"

#define T 8
#define NBITS 20011
#define ROUNDS 200

static struct cidk_mask *shared;
static struct cidk_mask *srcs[T][ROUNDS / 20];
static unsigned long counted[T];
static atomic_uint won_set, won_clear;
static pthread_barrier_t barrier;

static void *union_worker(void *arg)
{
	unsigned int id = (unsigned int)(unsigned long)arg;

	pthread_barrier_wait(&barrier);
	for (unsigned int r = 0; r < ROUNDS; r++)
		counted[id] += cidk_mask_union_count(shared,
						     srcs[id][r % (ROUNDS / 20)]);
	return NULL;
}

static void *bit_worker(void *arg)
{
	unsigned int id = (unsigned int)(unsigned long)arg, set = 0, clr = 0;

	pthread_barrier_wait(&barrier);
	for (unsigned int i = 0; i < NBITS; i++)
		set += !cidk_mask_test_and_set_atomic(shared, (i * 7 + id) % NBITS);
	pthread_barrier_wait(&barrier);
	for (unsigned int i = 0; i < NBITS; i++)
		clr += cidk_mask_test_and_clear_atomic(shared, (i * 13 + id) % NBITS);
	atomic_fetch_add(&won_set, set);
	atomic_fetch_add(&won_clear, clr);
	return NULL;
}

static void run(void *(*fn)(void *))
{
	pthread_t th[T];

	pthread_barrier_init(&barrier, NULL, T);
	for (unsigned long i = 0; i < T; i++)
		pthread_create(&th[i], NULL, fn, (void *)i);
	for (int i = 0; i < T; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&barrier);
}

int main(void)
{
	struct cidk__prng rng;
	struct cidk_mask *ref;
	unsigned long total = 0;

	cidk__prng_seed(&rng, 1);
	shared = cidk_mask_alloc(NBITS);
	ref = cidk_mask_alloc(NBITS);
	for (int t = 0; t < T; t++)
		for (int k = 0; k < ROUNDS / 20; k++) {
			struct cidk_mask *m = cidk_mask_alloc(NBITS);

			/* sparse, overlapping: every thread shares bits */
			for (unsigned int b = 0; b < NBITS; b++)
				if (cidk__prng_below(&rng, 100) < 4)
					cidk_mask_set(m, b);
			cidk_mask_or(ref, ref, m);
			srcs[t][k] = m;
		}

	run(union_worker);
	for (int t = 0; t < T; t++)
		total += counted[t];
	ok(cidk_mask_equal(shared, ref), "union of %d threads' masks is exact", T);
	ok(total == cidk_mask_weight(shared),
	   "sum of union_count returns (%lu) == final weight (%u)", total,
	   cidk_mask_weight(shared));

	cidk_mask_zero(shared);
	run(bit_worker);
	ok(atomic_load(&won_set) == NBITS,
	   "test_and_set_atomic: each of %u bits won once (got %u)", NBITS,
	   atomic_load(&won_set));
	ok(atomic_load(&won_clear) == NBITS && cidk_mask_empty(shared),
	   "test_and_clear_atomic: each bit cleared once (got %u)",
	   atomic_load(&won_clear));

	for (int t = 0; t < T; t++)
		for (int k = 0; k < ROUNDS / 20; k++)
			cidk_mask_free(srcs[t][k]);
	cidk_mask_free(shared);
	cidk_mask_free(ref);
	return done_testing();
}
