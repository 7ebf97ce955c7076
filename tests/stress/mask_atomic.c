/* SPDX-License-Identifier: MIT */
/*
 * Concurrent atomic mask operations: T threads fold overlapping random
 * masks into one shared union with cidk_mask_union_count(); the counts they
 * return must add up to the final weight (a bit counted twice or never
 * shows), and 2 threads fold one dense mask into an empty union at once,
 * round after round (every word contended).  Then T threads race
 * test_and_set_atomic / test_and_clear_atomic over the same bits: each bit
 * is won exactly once per phase.
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdatomic.h>

#include <cidkit/mask.h>

#include "tap.h"
#include "tsan.h"
#include "prng.h"

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

/*
 * Two threads (one per CPU on a 2-CPU machine) fold the same dense mask
 * into an empty union, started together by a spin flag, RACE_ROUNDS times:
 * both find every block missing bits and race to fetch_or the same words,
 * so a count taken from the check or from the fold's load (instead of from
 * the fetch_or's old value) counts a bit twice.  Thread 0 compares the sum
 * with the weight, empties the union and starts the next round.
 */
/* a planted double count shows in as few as 3 of 100,000 rounds on a busy
 * 2-CPU machine; TSan's build checks the accesses, not the counts, and
 * runs each atomic ~10x slower */
#define RACE_ROUNDS (TEST_TSAN ? 10000 : 100000)
#define RACE_BITS 1000 /* 16 words: one block of the check */
static struct cidk_mask *dense;
static unsigned int race_got[2];
static unsigned int race_bad_rounds;
static atomic_uint race_go, race_done;

/* Spin until *v == want (or != want): yield now and then, so that the
 * rounds progress when both threads share one CPU (a busy machine). */
static void spin_until(atomic_uint *v, unsigned int want, bool equal)
{
	for (unsigned int i = 1; (atomic_load(v) == want) != equal; i++)
		if (i % 65536 == 0)
			sched_yield();
}

static void *race_worker(void *arg)
{
	unsigned int id = (unsigned int)(unsigned long)arg;

	for (unsigned int r = 1; r <= RACE_ROUNDS; r++) {
		if (id == 0)
			atomic_store(&race_go, r);
		else
			spin_until(&race_go, r, true);
		race_got[id] = cidk_mask_union_count(shared, dense);
		atomic_fetch_add(&race_done, 1);
		if (id == 0) {
			spin_until(&race_done, 2 * r, true);
			race_bad_rounds +=
				race_got[0] + race_got[1] != cidk_mask_weight(dense) ||
				!cidk_mask_equal(shared, dense);
			cidk_mask_zero(shared);
		} else if (r < RACE_ROUNDS) {
			/* until thread 0 has checked and starts r + 1 */
			spin_until(&race_go, r, false);
		}
	}
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

	{
		pthread_t th[2];
		struct cidk_mask *all = shared;

		dense = cidk_mask_alloc(RACE_BITS);
		shared = cidk_mask_alloc(RACE_BITS);
		for (unsigned int b = 0; b < RACE_BITS; b++)
			if (b % 3 != 1)
				cidk_mask_set(dense, b);
		for (unsigned long i = 0; i < 2; i++)
			pthread_create(&th[i], NULL, race_worker, (void *)i);
		for (int i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		ok(race_bad_rounds == 0,
		   "2 threads fold one dense mask at once, %d rounds: the counts "
		   "add up to its weight every round (%u rounds wrong)",
		   RACE_ROUNDS, race_bad_rounds);
		cidk_mask_free(dense);
		cidk_mask_free(shared);
		shared = all;
	}

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
