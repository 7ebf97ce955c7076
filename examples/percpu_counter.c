/* SPDX-License-Identifier: MIT */
/*
 * percpu_counter.c - a counter many threads bump without atomic
 * instructions: one copy per concurrency ID (the kernel's rseq mm_cid),
 * each increment an rseq critical section on the thread's own copy, the
 * total a sum over the copies.
 *
 *   cc -O2 percpu_counter.c $(pkg-config --cflags --libs cidkit) -o percpu_counter
 *   ./percpu_counter [THREADS [INCREMENTS]]
 *
 * Prints the total, which is exactly THREADS x INCREMENTS, and the path
 * the increments took ("rseq", or "atomic" where rseq is unavailable:
 * another CPU architecture, glibc without rseq, valgrind).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/percpu.h>
#include <cidkit/pool.h>

static struct cidk_pool *pool;
static cidk_pool_handle counter;
static long increments = 1000000;

static void *worker(void *arg)
{
	struct cidk_percpu_counter c;

	(void)arg;
	/*
	 * cidk_percpu_add(pool, counter, 1) alone would do; a counter made
	 * here reads the pool's fields once and keeps them in registers
	 * across the loop (about 2.5x faster per increment).
	 */
	if (cidk_percpu_counter_init(&c, pool, counter, CIDK_PERCPU_MM_CID))
		return (void *)1;
	for (long i = 0; i < increments; i++) {
		/* 0, or -ERANGE if the pool had fewer copies than IDs */
		if (cidk_percpu_counter_add(&c, 1) != 0)
			return (void *)1;
	}
	return NULL;
}

static long arg_or(int argc, char **argv, int i, long dflt, long max)
{
	char *end;
	long v;

	if (argc <= i)
		return dflt;
	errno = 0;
	v = strtol(argv[i], &end, 10);
	if (errno || *end || end == argv[i] || v < 1 || v > max) {
		fprintf(stderr, "percpu_counter: %s: not a number in 1..%ld\n",
			argv[i], max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long nthreads = arg_or(argc, argv, 1, 4, 1024);
	pthread_t *tids;
	int failed = 0;

	increments = arg_or(argc, argv, 2, increments, 1000000000);

	/* One cache-line separated copy per possible CPU covers every mm_cid. */
	pool = cidk_pool_create(cidk_percpu_nr_copies(), CIDK_POOL_LINE);
	if (!pool) {
		perror("percpu_counter: cidk_pool_create");
		return 1;
	}
	counter = cidk_pool_alloc(pool, sizeof(intptr_t), sizeof(intptr_t),
				  NULL);
	if (counter < 0) {
		fprintf(stderr, "percpu_counter: cidk_pool_alloc: %s\n",
			strerror((int)-counter));
		return 1;
	}

	tids = calloc((size_t)nthreads, sizeof(*tids));
	if (!tids)
		return 1;
	for (long i = 0; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, worker, NULL) != 0) {
			fprintf(stderr, "percpu_counter: pthread_create failed\n");
			return 1;
		}
	for (long i = 0; i < nthreads; i++) {
		void *ret;

		pthread_join(tids[i], &ret);
		failed |= ret != NULL;
	}
	if (failed) {
		fprintf(stderr, "percpu_counter: an index beyond the pool\n");
		return 1;
	}

	printf("threads %ld, increments %ld each\n", nthreads, increments);
	printf("total %ld (expected %ld)\n", (long)cidk_percpu_sum(pool, counter),
	       nthreads * increments);
	printf("path %s (%s)\n",
	       cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_MM_CID)),
	       cidk_percpu_why(CIDK_PERCPU_MM_CID));

	free(tids);
	cidk_pool_destroy(pool);
	return 0;
}
