/* SPDX-License-Identifier: MIT */
/*
 * Per-CID pool under threads: T owners each hold one CID and do a
 * non-atomic read-modify-write of their copy of a counter ITER times, while
 * an allocator thread keeps allocating new objects (writing their initial
 * value into every CID's region, next to the owners' counters) and checks
 * every copy.  Each owner's final count must be exact (a copy shared with
 * another CID, or an initial value written over a live object, would lose
 * or corrupt increments), and under ThreadSanitizer no access may race.
 */
#include <pthread.h>
#include <stdint.h>

#include <cidkit/pool.h>

#include "tap.h"

#define T 8
#define ITER 200000
#define STRIDE 4096

static struct cidk_pool *pool;
static cidk_pool_handle counter;
static pthread_barrier_t barrier;
static unsigned int alloc_ok, alloc_bad_init;

static void *owner(void *arg)
{
	unsigned int cid = (unsigned int)(uintptr_t)arg;
	uint64_t *c = cidk_pool_ptr(pool, counter, cid);

	pthread_barrier_wait(&barrier);
	for (unsigned int i = 0; i < ITER; i++) {
		volatile uint64_t *v = c;
		uint64_t x = *v;

		*v = x + 1;
	}
	return NULL;
}

static void *allocator(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&barrier);
	for (uint32_t k = 1;; k++) {
		uint32_t init = 0x9e3779b9u * k;
		cidk_pool_handle h = cidk_pool_alloc(pool, sizeof(init), 4, &init);

		if (h < 0)
			break;
		alloc_ok++;
		for (unsigned int cid = 0; cid < T; cid++)
			alloc_bad_init += *(uint32_t *)cidk_pool_ptr(pool, h, cid) != init;
	}
	return NULL;
}

int main(void)
{
	pthread_t t[T + 1];
	uint64_t zero = 0;
	unsigned int exact = 0;

	pool = cidk_pool_create(T, STRIDE);
	if (!ok(pool != NULL, "pool of %d CIDs x %d bytes", T, STRIDE))
		return done_testing();
	counter = cidk_pool_alloc(pool, sizeof(uint64_t), 8, &zero);
	ok(counter == 0, "counter handle 0");
	pthread_barrier_init(&barrier, NULL, T + 1);
	for (unsigned int i = 0; i < T; i++)
		pthread_create(&t[i], NULL, owner, (void *)(uintptr_t)i);
	pthread_create(&t[T], NULL, allocator, NULL);
	for (unsigned int i = 0; i <= T; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&barrier);
	for (unsigned int i = 0; i < T; i++)
		exact += *(uint64_t *)cidk_pool_ptr(pool, counter, i) == ITER;
	ok(exact == T, "every CID's counter is exactly %d (%u of %d)", ITER,
	   exact, T);
	ok(alloc_ok == (STRIDE - 8) / 4,
	   "allocator filled the region: %u objects", alloc_ok);
	ok(alloc_bad_init == 0, "initial values intact in every copy (%u bad)",
	   alloc_bad_init);
	cidk_pool_destroy(pool);
	return done_testing();
}
