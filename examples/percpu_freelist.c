/* SPDX-License-Identifier: MIT */
/*
 * percpu_freelist.c - what a newcomer writes first: a per-CPU counter and
 * a per-CPU freelist of objects, shared by many threads, written from
 * <cidkit/percpu.h>, <cidkit/pool.h> and examples/percpu_counter.c alone,
 * with no environment and no checks of the kernel: the library decides
 * how its operations run.  It checks its own results and says so.
 *
 *   cc -O2 percpu_freelist.c $(pkg-config --cflags --libs cidkit) -o percpu_freelist
 *   ./percpu_freelist [THREADS [ROUNDS [OPS]]]      (defaults 8 20 20000)
 *
 * Each round, THREADS threads each do OPS operations: take an object from
 * the freelist copy of the CPU they run on (cidk_percpu_list_pop; an empty
 * copy says ENOENT), keep up to HOLD of them, give one back when they hold
 * HOLD or found their copy empty (cidk_percpu_list_push: on the CPU they
 * run on then, which may be another one), and count each operation
 * (cidk_percpu_add by mm_cid).  Objects wander between the copies; none
 * may be lost, doubled or linked into a cycle.  After each round, with the
 * threads joined:
 *   - the counter's total is exactly THREADS x OPS x rounds so far;
 *   - a walk of every copy of the list, bounded by the number of objects
 *     (a cycle cannot make it spin), finds every object exactly once;
 *   - no object was ever handed to two threads at once (each object has a
 *     flag a taker sets and a giver clears).
 * Exit 0 when every round was exact, 1 at the first loss (with what was
 * wrong), 2 on bad arguments.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/percpu.h>
#include <cidkit/pool.h>

#define HOLD 4 /* objects one thread keeps at most */

struct object {
	struct cidk_percpu_node node; /* first: a node pointer is the object's */
	unsigned int id;
	atomic_int taken;             /* 1 while a thread holds it */
	unsigned int seen;            /* the walk's count */
};

static struct cidk_pool *pool;
static cidk_pool_handle counter, freelist;
static struct object *objects;
static long nobjects, ops = 20000;
static atomic_long doubled; /* objects found taken when popped */

static void *worker(void *arg)
{
	struct object *held[HOLD];
	int n = 0;

	(void)arg;
	for (long i = 0; i < ops; i++) {
		struct cidk_percpu_node *p =
			cidk_percpu_list_pop(pool, freelist, CIDK_PERCPU_CPU_ID);

		if (p) {
			struct object *o = (struct object *)p;

			if (atomic_exchange(&o->taken, 1))
				atomic_fetch_add(&doubled, 1);
			held[n++] = o;
		} else if (errno != ENOENT) {
			return (void *)1; /* ERANGE: the pool is too small */
		}
		if (n == HOLD || (!p && n > 0)) {
			struct object *o = held[--n];

			atomic_store(&o->taken, 0);
			if (cidk_percpu_list_push(pool, freelist,
						  CIDK_PERCPU_CPU_ID, &o->node))
				return (void *)1;
		}
		if (cidk_percpu_add(pool, counter, 1))
			return (void *)1;
	}
	while (n > 0) {
		struct object *o = held[--n];

		atomic_store(&o->taken, 0);
		if (cidk_percpu_list_push(pool, freelist, CIDK_PERCPU_CPU_ID,
					  &o->node))
			return (void *)1;
	}
	return NULL;
}

/*
 * Every copy of the freelist, walked with at most nobjects + 1 steps in
 * all: 0 when every object is on exactly one list once, else 1 and why.
 */
static int check_lists(long round)
{
	long steps = 0, once = 0;

	for (long i = 0; i < nobjects; i++)
		objects[i].seen = 0;
	for (unsigned int c = 0; c < pool->max_cids; c++) {
		intptr_t *head = cidk_pool_ptr(pool, freelist, c);
		struct cidk_percpu_node *p = (struct cidk_percpu_node *)*head;

		for (; p && steps <= nobjects; p = p->next, steps++)
			((struct object *)p)->seen++;
	}
	for (long i = 0; i < nobjects; i++)
		once += objects[i].seen == 1;
	if (steps == nobjects && once == nobjects)
		return 0;
	fprintf(stderr,
		"percpu_freelist: round %ld: %s: %ld steps, %ld of %ld objects once\n",
		round, steps > nobjects ? "a cycle (or a doubled object)" :
		"objects lost", steps, once, nobjects);
	return 1;
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
		fprintf(stderr, "percpu_freelist: %s: not a number in 1..%ld\n",
			argv[i], max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long nthreads = arg_or(argc, argv, 1, 8, 1024);
	long rounds = arg_or(argc, argv, 2, 20, 100000);
	pthread_t *tids;

	ops = arg_or(argc, argv, 3, ops, 100000000);
	/* Fewer objects than the threads could hold: copies run empty. */
	nobjects = nthreads * HOLD / 2 + 1;

	pool = cidk_pool_create(cidk_percpu_nr_copies(), CIDK_POOL_LINE);
	if (!pool) {
		perror("percpu_freelist: cidk_pool_create");
		return 1;
	}
	counter = cidk_pool_alloc(pool, sizeof(intptr_t), sizeof(intptr_t), NULL);
	freelist = cidk_pool_alloc(pool, sizeof(intptr_t), sizeof(intptr_t), NULL);
	objects = calloc((size_t)nobjects, sizeof(*objects));
	tids = calloc((size_t)nthreads, sizeof(*tids));
	if (counter < 0 || freelist < 0 || !objects || !tids) {
		fprintf(stderr, "percpu_freelist: out of memory\n");
		return 1;
	}
	for (long i = 0; i < nobjects; i++) {
		objects[i].id = (unsigned int)i;
		if (cidk_percpu_list_push(pool, freelist, CIDK_PERCPU_CPU_ID,
					  &objects[i].node)) {
			fprintf(stderr, "percpu_freelist: push failed\n");
			return 1;
		}
	}

	for (long r = 1; r <= rounds; r++) {
		int failed = 0;
		intptr_t total;

		for (long i = 0; i < nthreads; i++)
			if (pthread_create(&tids[i], NULL, worker, NULL) != 0) {
				fprintf(stderr, "percpu_freelist: pthread_create failed\n");
				return 1;
			}
		for (long i = 0; i < nthreads; i++) {
			void *ret;

			pthread_join(tids[i], &ret);
			failed |= ret != NULL;
		}
		if (failed) {
			fprintf(stderr, "percpu_freelist: an index beyond the pool\n");
			return 1;
		}
		total = cidk_percpu_sum(pool, counter);
		if (total != nthreads * ops * r) {
			fprintf(stderr,
				"percpu_freelist: round %ld: counter %ld, expected %ld\n",
				r, (long)total, nthreads * ops * r);
			return 1;
		}
		if (atomic_load(&doubled)) {
			fprintf(stderr,
				"percpu_freelist: round %ld: %ld objects handed to two threads at once\n",
				r, atomic_load(&doubled));
			return 1;
		}
		if (check_lists(r))
			return 1;
	}

	printf("threads %ld, rounds %ld, operations %ld each, objects %ld\n",
	       nthreads, rounds, ops, nobjects);
	printf("exact: counter %ld, every object on one list once, every round\n",
	       (long)cidk_percpu_sum(pool, counter));
	printf("path counter %s, freelist %s (%s)\n",
	       cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_MM_CID)),
	       cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_CPU_ID)),
	       cidk_percpu_why(CIDK_PERCPU_CPU_ID));

	free(tids);
	free(objects);
	cidk_pool_destroy(pool);
	return 0;
}
