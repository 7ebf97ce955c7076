/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU operations under oversubscription, param_test style: T = 4 x
 * online CPUs threads, for a fixed time per phase, each
 *   - adds 1 to a pool counter indexed by mm_cid, then by cpu_id, counting
 *     its own successful adds: the sum of the copies must equal the sum of
 *     the threads' counts exactly (a lost or doubled add would show); the
 *     same again through a cidk_percpu_counter (its own critical section,
 *     with the offsets in registers), by mm_cid and by cpu_id;
 *   - pushes its own nodes on its per-CPU list, then pops a node and
 *     pushes it back (list phase; a pop may take another thread's node):
 *     at the end every node must be on exactly one list, once.
 * With four threads per CPU the scheduler preempts threads inside critical
 * sections all the time, so on the rseq path the kernel must have aborted
 * some: the test requires aborts > 0 there (the abort handler, its
 * signature and the restart are exercised, not only the fast path).
 * Preemption alone lands in the 3-instruction add section rarely (a few
 * per second here: interrupts tend to be taken after the commit), so an
 * extra thread also signals the workers every 20 us; a signal delivered
 * inside a section aborts it just as a preemption does.  A phase lasts
 * PHASE_MS, extended by PHASE_MS steps up to MAX_MS until MIN_ABORTS
 * aborts were seen (on the rseq path).
 *
 * Environment: CIDK_EXPECT_PATH=atomic|rseq makes the test check which path
 * runs (meson runs it once as is and once with CIDK_PERCPU=atomic, the
 * fallback forced on).  In a ThreadSanitizer build the library always takes
 * the atomic path (TSan cannot see the stores inside rseq assembly): this
 * test then checks the fallback's atomics for races, not the critical
 * sections.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cidkit/percpu.h>

#include "tap.h"

#define PHASE_MS 200
#define MAX_MS 2400
#define MIN_ABORTS 10
#define NODES_PER_THREAD 64

struct item {
	struct cidk_percpu_node node;
	unsigned int seen;
};

static struct cidk_pool *pool;
static cidk_pool_handle h_cid, h_cpu, h_list, h_ctr_cid, h_ctr_cpu;
static struct cidk_percpu_counter ctr[2]; /* by mm_cid, by cpu_id */
static atomic_int stop;
static atomic_ulong aborts_seen; /* all workers, this phase */
static pthread_barrier_t barrier;
/* 0: add by mm_cid, 1: add by cpu_id, 2: list, 3-4: counter by mm_cid, cpu_id */
static int phase;

struct worker {
	pthread_t tid;
	struct item *nodes; /* NODES_PER_THREAD of them */
	uint64_t done;
	unsigned long aborts;
	unsigned long errors;
	unsigned long empty;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	unsigned long a0 = cidk_percpu_aborts(), last = a0;
	/* the thread's own copy: the compiler keeps it in registers */
	struct cidk_percpu_counter c = ctr[phase == 4];

	/* Each worker brings its own nodes to the copy it runs on, so that
	 * pops succeed wherever the scheduler puts the workers. */
	if (phase == 2)
		for (unsigned int i = 0; i < NODES_PER_THREAD; i++)
			if (cidk_percpu_list_push(pool, h_list, CIDK_PERCPU_CPU_ID,
						  &w->nodes[i].node))
				w->errors++;
	pthread_barrier_wait(&barrier);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		for (int k = 0; k < 256; k++) {
			if (phase == 2) {
				struct cidk_percpu_node *n = cidk_percpu_list_pop(
					pool, h_list, CIDK_PERCPU_CPU_ID);

				if (!n) {
					w->empty++;
					continue;
				}
				if (cidk_percpu_list_push(pool, h_list,
							  CIDK_PERCPU_CPU_ID, n))
					w->errors++;
				w->done++;
			} else if (phase >= 3) {
				if (cidk_percpu_counter_add(&c, 1))
					w->errors++;
				else
					w->done++;
			} else if (cidk_percpu_add_index(
					   pool, phase ? h_cpu : h_cid,
					   phase ? CIDK_PERCPU_CPU_ID
						 : CIDK_PERCPU_MM_CID,
					   1)) {
				w->errors++;
			} else {
				w->done++;
			}
		}
		if (cidk_percpu_aborts() != last) {
			atomic_fetch_add(&aborts_seen, cidk_percpu_aborts() - last);
			last = cidk_percpu_aborts();
		}
	}
	w->aborts = cidk_percpu_aborts() - a0;
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
}

/*
 * Besides preemption, a signal delivered inside a critical section aborts
 * it: this thread interrupts the workers in turn every few microseconds
 * so that aborts do not depend on where the tick happens to land.
 */
static void *interrupter(void *arg)
{
	struct worker *w = arg;
	unsigned int i = 0, n = 0;
	struct timespec ts = { 0, 20000 };

	while (w[n].tid)
		n++;
	while (!atomic_load(&stop)) {
		pthread_kill(w[i++ % n].tid, SIGUSR1);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void run_phase(struct worker *w, unsigned int t, int on_rseq)
{
	struct timespec ts = { 0, PHASE_MS * 1000000L };
	pthread_t intr;

	for (unsigned int i = 0; i < t; i++) {
		struct item *nodes = w[i].nodes;

		memset(&w[i], 0, sizeof(w[i]));
		w[i].nodes = nodes;
	}
	memset(&w[t], 0, sizeof(w[t])); /* w[t].tid == 0 ends the list */
	atomic_store(&aborts_seen, 0);
	atomic_store(&stop, 0);
	pthread_barrier_init(&barrier, NULL, t + 1);
	for (unsigned int i = 0; i < t; i++)
		pthread_create(&w[i].tid, NULL, work, &w[i]);
	pthread_barrier_wait(&barrier);
	pthread_create(&intr, NULL, interrupter, w);
	/* At least PHASE_MS; longer (up to MAX_MS) until some aborts appear. */
	for (unsigned int ms = 0; ms < MAX_MS; ms += PHASE_MS) {
		nanosleep(&ts, NULL);
		if (atomic_load(&aborts_seen) >= MIN_ABORTS || !on_rseq)
			break;
	}
	atomic_store(&stop, 1);
	pthread_join(intr, NULL);
	for (unsigned int i = 0; i < t; i++)
		pthread_join(w[i].tid, NULL);
	pthread_barrier_destroy(&barrier);
}

int main(void)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int t = 4u * (unsigned int)(online > 0 ? online : 1);
	const char *expect = getenv("CIDK_EXPECT_PATH");
	struct worker *w = calloc(t + 1, sizeof(*w));
	struct sigaction sa;
	struct item *items = calloc((size_t)t * NODES_PER_THREAD, sizeof(*items));
	static const char *names[] = { "mm_cid", "cpu_id", "list by cpu_id",
				       "counter by mm_cid",
				       "counter by cpu_id" };
	enum cidk_percpu_index kinds[] = { CIDK_PERCPU_MM_CID,
					   CIDK_PERCPU_CPU_ID,
					   CIDK_PERCPU_CPU_ID,
					   CIDK_PERCPU_MM_CID,
					   CIDK_PERCPU_CPU_ID };
	cidk_pool_handle *sums[] = { &h_cid, &h_cpu, NULL, &h_ctr_cid,
				     &h_ctr_cpu };

	if (!w || !items)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	diag("%u threads on %ld CPUs; mm_cid path %s (%s), cpu_id path %s", t,
	     online, cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_MM_CID)),
	     cidk_percpu_why(CIDK_PERCPU_MM_CID),
	     cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_CPU_ID)));
	if (expect)
		ok(!strcmp(expect, cidk_percpu_path_name(
					   cidk_percpu_path(CIDK_PERCPU_CPU_ID))),
		   "the path is %s as expected", expect);
	pool = cidk_pool_create(cidk_percpu_nr_copies(), 256);
	if (!ok(pool != NULL, "pool of %u copies", cidk_percpu_nr_copies()))
		return done_testing();
	h_cid = cidk_pool_alloc(pool, sizeof(intptr_t), sizeof(intptr_t), NULL);
	h_cpu = cidk_pool_alloc(pool, sizeof(intptr_t), sizeof(intptr_t), NULL);
	/* The list heads on their own line, away from the counters. */
	h_list = cidk_pool_alloc(pool, sizeof(intptr_t), CIDK_POOL_LINE, NULL);
	h_ctr_cid = cidk_pool_alloc(pool, sizeof(intptr_t), sizeof(intptr_t), NULL);
	h_ctr_cpu = cidk_pool_alloc(pool, sizeof(intptr_t), sizeof(intptr_t), NULL);
	ok(h_cid >= 0 && h_cpu >= 0 && h_list >= 0 && h_ctr_cid >= 0 &&
		   h_ctr_cpu >= 0 &&
		   !cidk_percpu_counter_init(&ctr[0], pool, h_ctr_cid,
					     CIDK_PERCPU_MM_CID) &&
		   !cidk_percpu_counter_init(&ctr[1], pool, h_ctr_cpu,
					     CIDK_PERCPU_CPU_ID),
	   "five objects allocated, two counters made");

	for (unsigned int i = 0; i < t; i++)
		w[i].nodes = &items[(size_t)i * NODES_PER_THREAD];

	for (phase = 0; phase < 5; phase++) {
		uint64_t done = 0;
		unsigned long aborts = 0, errors = 0;
		enum cidk_percpu_index k = kinds[phase];

		run_phase(w, t, cidk_percpu_path(k) == CIDK_PERCPU_RSEQ);
		for (unsigned int i = 0; i < t; i++) {
			done += w[i].done;
			aborts += w[i].aborts;
			errors += w[i].errors;
		}
		diag("%s: %llu operations, %lu aborts", names[phase],
		     (unsigned long long)done, aborts);
		ok(errors == 0, "%s: no operation failed (%lu)", names[phase],
		   errors);
		if (phase != 2) {
			intptr_t sum = cidk_percpu_sum(pool, *sums[phase]);

			ok((uint64_t)sum == done && done > 0,
			   "%s: sum of the copies %lld == adds done %llu",
			   names[phase], (long long)sum,
			   (unsigned long long)done);
		} else {
			unsigned int once = 0, total = 0;

			for (unsigned int c = 0; c < pool->max_cids; c++) {
				intptr_t *head = cidk_pool_ptr(pool, h_list, c);

				for (struct cidk_percpu_node *n =
					     (struct cidk_percpu_node *)*head;
				     n && total <= t * NODES_PER_THREAD;
				     n = n->next, total++)
					((struct item *)n)->seen++;
			}
			for (unsigned int i = 0; i < t * NODES_PER_THREAD; i++)
				once += items[i].seen == 1;
			ok(total == t * NODES_PER_THREAD &&
				   once == t * NODES_PER_THREAD && done > 0,
			   "%s: every node on one list exactly once (%u nodes, "
			   "%u once, of %u)",
			   names[phase], total, once, t * NODES_PER_THREAD);
		}
		if (cidk_percpu_path(k) == CIDK_PERCPU_RSEQ)
			ok(aborts > 0,
			   "%s: the kernel aborted critical sections (%lu)",
			   names[phase], aborts);
		else
			ok(aborts == 0, "%s: atomic path, no aborts counted",
			   names[phase]);
	}
	cidk_pool_destroy(pool);
	free(items);
	free(w);
	return done_testing();
}
