/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU operations under oversubscription, param_test style: T = 4 x
 * online CPUs threads, for a fixed time per phase, by mm_cid and by
 * cpu_id (eight phases), each
 *   - adds 1 to a pool counter (cidk_percpu_add_index), counting its own
 *     successful adds: the sum of the copies must equal the sum of the
 *     threads' counts exactly (a lost or doubled add would show); the same
 *     again through a cidk_percpu_counter (its own critical section, with
 *     the offsets in registers);
 *   - increments its current copy through compare-and-store: reads its
 *     index i (cidk_percpu_index_now), then, up to CMPEQV_RUN times while
 *     the index stays i, reads v from copy i and calls
 *     cidk_percpu_cmpeqv_storev(expect_index i, expect v, store v + 1),
 *     counting only the stores it reports done (0; 1, the copy changed
 *     since the read, and -EAGAIN, the thread now has another index, are
 *     counted apart and shown).  The sum of the copies must equal the
 *     successes exactly.  Why a lost update fails it: a copy changes only
 *     through successful stores, each of v + 1 over v; if each store is
 *     atomic with its comparison against every other thread that can use
 *     that copy, each success adds exactly 1 and the sum is the successes.
 *     If it is not (a preemption between the comparison and the store
 *     that does not abort the section, a missing check that the thread
 *     still has index i, so that a thread that moved stores into a copy
 *     another thread now increments, or a plain load and store instead of
 *     the operation), two threads both see v and both store v + 1: two
 *     successes, one increment, and the sum falls below the successes.
 *     How often such a window is hit in a phase depends on where the
 *     kernel interrupts: a one-instruction window may go unhit (see
 *     docs/percpu.md for which breaks this phase caught);
 *   - pushes its own nodes on its per-CPU list, then pops a node and
 *     pushes it back (a pop may take another thread's node): at the end
 *     every node must be on exactly one list, once.
 * With four threads per CPU the scheduler preempts threads inside critical
 * sections all the time, so on the rseq path the kernel must have aborted
 * some: the test requires aborts > 0 there in every phase (the abort
 * handler, its signature and the restart are exercised, not only the fast
 * path).  Preemption alone lands in the 3-instruction add section rarely
 * (a few per second here: interrupts tend to be taken after the commit),
 * so an extra thread also signals the workers every 20 us (the workers run
 * at nice +5 to it, so that it gets a CPU when it wakes, and it asks for
 * no timer slack); a signal delivered inside a section aborts it just as a
 * preemption does.  A phase lasts PHASE_MS, extended by PHASE_MS steps up
 * to MAX_MS until MIN_ABORTS aborts were seen (on the rseq path).
 *
 * Which path runs: the test works out from outside the library which path
 * percpu.h documents for this process, and requires the library's choice
 * to match for both indexings: rseq when x86-64 or little-endian aarch64
 * (from the compiler's macros), not a ThreadSanitizer
 * build (this file is compiled with the same -fsanitize as the library),
 * CIDK_PERCPU is not "atomic" and there is an rseq area: glibc's
 * (__rseq_size > 0) or else cidkit's own, which needs rseq(2) (asked of
 * the kernel here); mm_cid also needs the kernel's mm_cid
 * (AT_RSEQ_FEATURE_SIZE >= 28).  So a library that silently fell back to
 * atomics fails here even without CIDK_EXPECT_PATH.  In addition,
 * CIDK_EXPECT_PATH=atomic|rseq makes the test check the cpu_id path
 * against the environment (meson runs it as is, with CIDK_PERCPU=atomic,
 * and with glibc's rseq disabled: then on cidkit's own area, each worker
 * registering it at its first operation).  In a ThreadSanitizer build the
 * library always takes the atomic path (TSan cannot see the stores inside
 * rseq assembly): this test then checks the fallback's atomics for races,
 * not the critical sections.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cidkit/percpu.h>

#include "percpu_oracle.h"
#include "tap.h"
#include "test_cpu.h"
#include "tsan.h"

#define PHASE_MS 200
#define MAX_MS 2400
#define MIN_ABORTS 10
#define NODES_PER_THREAD 64
#define CMPEQV_RUN 16 /* stores per index read */
#define WORKER_NICE 5 /* the workers' nice above the interrupter's */

enum op { OP_ADD, OP_COUNTER, OP_CMPEQV, OP_LIST };

struct phase {
	const char *name;
	enum op op;
	enum cidk_percpu_index idx;
	cidk_pool_handle h;
};

static struct phase phases[] = {
	{ "add by mm_cid", OP_ADD, CIDK_PERCPU_MM_CID, -1 },
	{ "add by cpu_id", OP_ADD, CIDK_PERCPU_CPU_ID, -1 },
	{ "list by cpu_id", OP_LIST, CIDK_PERCPU_CPU_ID, -1 },
	{ "list by mm_cid", OP_LIST, CIDK_PERCPU_MM_CID, -1 },
	{ "counter by mm_cid", OP_COUNTER, CIDK_PERCPU_MM_CID, -1 },
	{ "counter by cpu_id", OP_COUNTER, CIDK_PERCPU_CPU_ID, -1 },
	{ "cmpeqv by mm_cid", OP_CMPEQV, CIDK_PERCPU_MM_CID, -1 },
	{ "cmpeqv by cpu_id", OP_CMPEQV, CIDK_PERCPU_CPU_ID, -1 },
};
#define NR_PHASES (sizeof(phases) / sizeof(phases[0]))

struct item {
	struct cidk_percpu_node node;
	unsigned int seen;
};

static struct cidk_pool *pool;
static struct cidk_percpu_counter ctr; /* the counter phase's */
static atomic_int stop;
static atomic_ulong aborts_seen; /* all workers, this phase */
static pthread_barrier_t barrier;
static const struct phase *cur;

struct worker {
	pthread_t tid;
	struct item *nodes; /* NODES_PER_THREAD of them */
	uint64_t done;
	unsigned long aborts;
	unsigned long errors;
	unsigned long empty;    /* list: pop found the copy empty */
	unsigned long mismatch; /* cmpeqv: the copy no longer held v */
	unsigned long again;    /* cmpeqv: the index changed (-EAGAIN) */
};

/*
 * Compare-and-store increments of the calling thread's copy: its index i
 * read once, then up to CMPEQV_RUN times v read from copy i and v + 1
 * stored over it, until the index changes (-EAGAIN).  (Reading the index
 * for every store spent most of the time outside the section: under a
 * tenth of the aborts.)
 */
static void cmpeqv_once(struct worker *w, cidk_pool_handle h,
			enum cidk_percpu_index idx)
{
	int i = cidk_percpu_index_now(idx), rc;
	intptr_t v, *copy;

	if (i < 0 || (unsigned int)i >= pool->max_cids) {
		w->errors++;
		return;
	}
	copy = (intptr_t *)cidk_pool_ptr(pool, h, (unsigned int)i);
	for (int k = 0; k < CMPEQV_RUN; k++) {
		v = __atomic_load_n(copy, __ATOMIC_RELAXED);
		rc = cidk_percpu_cmpeqv_storev(pool, h, idx, (unsigned int)i, v,
					       (intptr_t)((uintptr_t)v + 1));
		if (rc == 0) {
			w->done++;
		} else if (rc == 1) {
			w->mismatch++;
		} else if (rc == -EAGAIN) {
			w->again++;
			return;
		} else {
			w->errors++;
			return;
		}
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	const struct phase *p = cur;
	unsigned long a0 = cidk_percpu_aborts(), last = a0;
	/* the thread's own copy: the compiler keeps it in registers */
	struct cidk_percpu_counter c = ctr;

	/* Below the interrupter, which then runs as soon as its timer fires
	 * (at equal priority it waited behind four workers per CPU and sent
	 * a tenth of its signals). */
	setpriority(PRIO_PROCESS, (id_t)gettid(),
		    getpriority(PRIO_PROCESS, 0) + WORKER_NICE);
	/* Each worker brings its own nodes to the copy it runs on, so that
	 * pops succeed wherever the scheduler puts the workers. */
	if (p->op == OP_LIST)
		for (unsigned int i = 0; i < NODES_PER_THREAD; i++)
			if (cidk_percpu_list_push(pool, p->h, p->idx,
						  &w->nodes[i].node))
				w->errors++;
	pthread_barrier_wait(&barrier);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		for (int k = 0; k < 256; k++) {
			if (p->op == OP_LIST) {
				struct cidk_percpu_node *n =
					cidk_percpu_list_pop(pool, p->h, p->idx);

				if (!n) {
					w->empty++;
					continue;
				}
				if (cidk_percpu_list_push(pool, p->h, p->idx, n))
					w->errors++;
				w->done++;
			} else if (p->op == OP_CMPEQV) {
				cmpeqv_once(w, p->h, p->idx);
			} else if (p->op == OP_COUNTER) {
				if (cidk_percpu_counter_add(&c, 1))
					w->errors++;
				else
					w->done++;
			} else if (cidk_percpu_add_index(pool, p->h, p->idx, 1)) {
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
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL); /* not 50 us late */
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


/* The list phase's check: every node on exactly one list, once. */
static void check_lists(const struct phase *p, struct item *items,
			unsigned int nodes, uint64_t done)
{
	unsigned int once = 0, total = 0;

	for (unsigned int i = 0; i < nodes; i++)
		items[i].seen = 0;
	for (unsigned int c = 0; c < pool->max_cids; c++) {
		intptr_t *head = cidk_pool_ptr(pool, p->h, c);

		for (struct cidk_percpu_node *n = (struct cidk_percpu_node *)*head;
		     n && total <= nodes; n = n->next, total++)
			((struct item *)n)->seen++;
	}
	for (unsigned int i = 0; i < nodes; i++)
		once += items[i].seen == 1;
	ok(total == nodes && once == nodes && done > 0,
	   "%s: every node on one list exactly once (%u nodes, %u once, of %u)",
	   p->name, total, once, nodes);
}

int main(void)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int t = 4u * (unsigned int)(online > 0 ? online : 1);
	const char *expect = getenv("CIDK_EXPECT_PATH");
	const char *forced = getenv("CIDK_PERCPU");
	struct worker *w = calloc(t + 1, sizeof(*w));
	struct sigaction sa;
	struct item *items = calloc((size_t)t * NODES_PER_THREAD, sizeof(*items));
	enum cidk_percpu_path want_cpu = test_documented_path(CIDK_PERCPU_CPU_ID);
	enum cidk_percpu_path want_cid = test_documented_path(CIDK_PERCPU_MM_CID);
	int ok_objects = 1;

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
	ok(cidk_percpu_path(CIDK_PERCPU_CPU_ID) == want_cpu &&
		   cidk_percpu_path(CIDK_PERCPU_MM_CID) == want_cid,
	   "paths as documented: cpu_id %s, mm_cid %s (rseq arch %d, TSan %d, "
	   "CIDK_PERCPU %s, __rseq_size %u, rseq(2) %d, rseq feature size %lu)",
	   cidk_percpu_path_name(want_cpu), cidk_percpu_path_name(want_cid),
	   TEST_ARCH_RSEQ, TEST_TSAN, forced ? forced : "unset",
	   (unsigned int)__rseq_size, test_kernel_has_rseq(),
	   getauxval(AT_RSEQ_FEATURE_SIZE));
	if (expect)
		ok(!strcmp(expect, cidk_percpu_path_name(
					   cidk_percpu_path(CIDK_PERCPU_CPU_ID))),
		   "the path is %s as expected", expect);
	pool = cidk_pool_create(cidk_percpu_nr_copies(), 256);
	if (!ok(pool != NULL, "pool of %u copies", cidk_percpu_nr_copies()))
		return done_testing();
	/* The list heads on lines of their own, away from the counters. */
	for (unsigned int i = 0; i < NR_PHASES; i++) {
		size_t align = phases[i].op == OP_LIST ? CIDK_POOL_LINE
						       : sizeof(intptr_t);

		phases[i].h = cidk_pool_alloc(pool, sizeof(intptr_t), align, NULL);
		ok_objects &= phases[i].h >= 0;
	}
	ok(ok_objects, "%zu objects allocated", NR_PHASES);

	for (unsigned int i = 0; i < t; i++)
		w[i].nodes = &items[(size_t)i * NODES_PER_THREAD];

	for (unsigned int ph = 0; ph < NR_PHASES; ph++) {
		const struct phase *p = &phases[ph];
		uint64_t done = 0;
		unsigned long aborts = 0, errors = 0, mismatch = 0, again = 0;
		int on_rseq = cidk_percpu_path(p->idx) == CIDK_PERCPU_RSEQ;

		if (p->op == OP_COUNTER &&
		    !ok(!cidk_percpu_counter_init(&ctr, pool, p->h, p->idx),
			"%s: counter made", p->name))
			continue;
		cur = p;
		run_phase(w, t, on_rseq);
		for (unsigned int i = 0; i < t; i++) {
			done += w[i].done;
			aborts += w[i].aborts;
			errors += w[i].errors;
			mismatch += w[i].mismatch;
			again += w[i].again;
		}
		if (p->op == OP_CMPEQV)
			diag("%s: %llu operations, %lu aborts; %lu found the "
			     "value changed, %lu the index changed",
			     p->name, (unsigned long long)done, aborts,
			     mismatch, again);
		else
			diag("%s: %llu operations, %lu aborts", p->name,
			     (unsigned long long)done, aborts);
		ok(errors == 0, "%s: no operation failed (%lu)", p->name, errors);
		if (p->op == OP_LIST) {
			check_lists(p, items, t * NODES_PER_THREAD, done);
		} else {
			intptr_t sum = cidk_percpu_sum(pool, p->h);

			ok((uint64_t)sum == done && done > 0,
			   "%s: sum of the copies %lld == %s done %llu", p->name,
			   (long long)sum,
			   p->op == OP_CMPEQV ? "stores" : "adds",
			   (unsigned long long)done);
		}
		if (on_rseq)
			ok(aborts > 0,
			   "%s: the kernel aborted critical sections (%lu)",
			   p->name, aborts);
		else
			ok(aborts == 0, "%s: atomic path, no aborts counted",
			   p->name);
	}
	cidk_pool_destroy(pool);
	free(items);
	free(w);
	return done_testing();
}
