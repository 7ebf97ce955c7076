/* SPDX-License-Identifier: MIT */
/*
 * cidk_percpu_fence() and cidk_percpu_fence_all(), two ways.
 *
 * 1. The contract itself, on a critical section of this test's own (not
 *    the library's: hand-written assembly for each architecture, glibc's
 *    rseq area and glibc's RSEQ_SIG): a thread pinned alone to CPU A
 *    enters the section, marks that it is inside, and spins there until
 *    the main thread, pinned to CPU B, sets a flag; then it commits.  The
 *    main thread waits until the worker is inside, then calls
 *    cidk_percpu_fence(A) (or cidk_percpu_fence_all()), then sets the
 *    flag: the fence must not return before the section was aborted, so
 *    the worker must report an abort, never a commit.  The control round
 *    (no fence) must commit at least once in 20 (the section is able to;
 *    on a loaded machine a preemption aborts some), the fenced rounds
 *    must abort all 20 times.  Needs the rseq path, an rseq area
 *    (glibc's, else the library's own) and two CPUs.
 *
 * 2. Draining per-CPU data from another thread under load, exact totals
 *    ("close, fence, own" as percpu.h describes it).  2 x online CPUs
 *    workers increment their current copy through
 *    cidk_percpu_cmpeqv_storev() by 2 (values are 2 x count; bit 0 set
 *    means "closed": a worker that reads it skips that copy), counting
 *    their successes; a drainer thread visits the copies in turn: sets
 *    bit 0 (atomic or), fences (the copy's CPU for cpu_id, every CPU for
 *    mm_cid), checks that the bit is still set (else a section that had
 *    compared before the close committed over it: close again), adds the
 *    copy's count to a global total and opens the copy again with 0.  At
 *    the end global + what the copies hold == the workers' successes,
 *    exactly, and the drainer fenced more than 0 times.  The same with
 *    lists: workers push their nodes (head's bit 0 closed, nodes 8-byte
 *    aligned), the drainer steals a whole list after close + fence;
 *    every node must end on exactly one list (stolen or per-CPU) once.
 *    Without the fence, a section that compared before the close and is
 *    still running (its CPU stalled: an interrupt, a host that
 *    descheduled the vCPU) commits after the drainer took the copy: an
 *    increment counted twice, or a node lost.
 *
 * The path must be the documented one (as percpu_sums works it out from
 * outside the library), and CIDK_EXPECT_PATH=atomic|rseq is checked when
 * set.  On the atomic path the fence is a thread fence (percpu.h), part 1
 * does not apply (said so), and part 2 still requires exact totals.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cidkit/percpu.h>

#include "percpu_oracle.h"
#include "tap.h"
#include "test_cpu.h"
#include "tsan.h"

#define PHASE_MS 400
#define NODES_PER_WORKER 65536
#define CONTRACT_ROUNDS 20

/* ---- part 1: the contract, on the test's own critical section ---- */

static atomic_int in_cs, go;

/*
 * One critical section: inside, store 1 to in_cs, spin until go, store 1
 * to *done (the commit).  Returns 0 committed, 1 aborted.
 */
#if TEST_ARCH_RSEQ && defined(__x86_64__)
_Static_assert(RSEQ_SIG == 0x53053053, "glibc's x86-64 signature");
static int long_section(char *area, int *done)
{
	__asm__ goto(".pushsection __rseq_cs, \"aw\"\n\t"
		     ".balign 32\n"
		     "3:\n\t"
		     ".long 0, 0\n\t"
		     ".quad 1f, 2f - 1f, 4f\n\t"
		     ".popsection\n\t"
		     "leaq 3b(%%rip), %%rax\n\t"
		     "movq %%rax, 8(%[area])\n"
		     "1:\n\t"
		     "movl $1, (%[in])\n"
		     "5:\n\t"
		     "cmpl $0, (%[go])\n\t"
		     "je 5b\n\t"
		     "movl $1, (%[done])\n"
		     "2:\n\t"
		     ".pushsection __rseq_failure, \"ax\"\n\t"
		     ".byte 0x0f, 0xb9, 0x3d\n\t"
		     ".long 0x53053053\n"
		     "4:\n\t"
		     "jmp %l[aborted]\n\t"
		     ".popsection\n\t"
		     : : [area] "r"(area), [in] "r"(&in_cs), [go] "r"(&go),
		       [done] "r"(done)
		     : "rax", "cc", "memory" : aborted);
	return 0;
aborted:
	return 1;
}
#elif TEST_ARCH_RSEQ && defined(__aarch64__)
_Static_assert(RSEQ_SIG == 0xd428bc00, "glibc's aarch64 signature");
static int long_section(char *area, int *done)
{
	__asm__ goto(".pushsection __rseq_cs, \"aw\"\n\t"
		     ".balign 32\n"
		     "3:\n\t"
		     ".long 0, 0\n\t"
		     ".quad 1f, 2f - 1f, 4f\n\t"
		     ".popsection\n\t"
		     "adrp x15, 3b\n\t"
		     "add x15, x15, :lo12:3b\n\t"
		     "str x15, [%[area], #8]\n"
		     "1:\n\t"
		     "mov w14, #1\n\t"
		     "str w14, [%[in]]\n"
		     "5:\n\t"
		     "ldr w14, [%[go]]\n\t"
		     "cbz w14, 5b\n\t"
		     "mov w14, #1\n\t"
		     "str w14, [%[done]]\n"
		     "2:\n\t"
		     ".pushsection __rseq_failure, \"ax\"\n\t"
		     ".balign 4\n\t"
		     ".inst 0xd428bc00\n"
		     "4:\n\t"
		     "b %l[aborted]\n\t"
		     ".popsection\n\t"
		     : : [area] "r"(area), [in] "r"(&in_cs), [go] "r"(&go),
		       [done] "r"(done)
		     : "x14", "x15", "cc", "memory" : aborted);
	return 0;
aborted:
	return 1;
}
#elif TEST_ARCH_RSEQ && defined(__riscv)
_Static_assert(RSEQ_SIG == 0xf1401073, "glibc's riscv signature");
static int long_section(char *area, int *done)
{
	__asm__ goto(".pushsection __rseq_cs, \"aw\"\n\t"
		     ".balign 32\n"
		     "3:\n\t"
		     ".long 0, 0\n\t"
		     ".quad 1f, 2f - 1f, 4f\n\t"
		     ".popsection\n\t"
		     "lla t6, 3b\n\t"
		     "sd t6, 8(%[area])\n"
		     "1:\n\t"
		     "li t5, 1\n\t"
		     "sw t5, 0(%[in])\n"
		     "5:\n\t"
		     "lw t5, 0(%[go])\n\t"
		     "beqz t5, 5b\n\t"
		     "li t5, 1\n\t"
		     "sw t5, 0(%[done])\n"
		     "2:\n\t"
		     ".pushsection __rseq_failure, \"ax\"\n\t"
		     ".balign 4\n\t"
		     ".long 0xf1401073\n"
		     "4:\n\t"
		     "jump %l[aborted], t6\n\t"
		     ".popsection\n\t"
		     : : [area] "r"(area), [in] "r"(&in_cs), [go] "r"(&go),
		       [done] "r"(done)
		     : "t5", "t6", "memory" : aborted);
	return 0;
aborted:
	return 1;
}
#elif TEST_ARCH_RSEQ && defined(__powerpc64__)
_Static_assert(RSEQ_SIG == 0x0fe5000b, "glibc's powerpc signature");
static int long_section(char *area, int *done)
{
	__asm__ goto(".pushsection __rseq_cs, \"aw\"\n\t"
		     ".balign 32\n"
		     "3:\n\t"
		     ".long 0, 0\n\t"
		     ".quad 1f, 2f - 1f, 4f\n\t"
		     ".popsection\n\t"
		     "bcl 20, 31, 9f\n"
		     "9:\n\t"
		     "mflr %%r17\n\t"
		     "addis %%r17, %%r17, (3b - 9b)@ha\n\t"
		     "addi %%r17, %%r17, (3b - 9b)@l\n\t"
		     "std %%r17, 8(%[area])\n"
		     "1:\n\t"
		     "li %%r18, 1\n\t"
		     "stw %%r18, 0(%[in])\n"
		     "5:\n\t"
		     "lwz %%r18, 0(%[go])\n\t"
		     "cmpwi %%cr7, %%r18, 0\n\t"
		     "beq %%cr7, 5b\n\t"
		     "li %%r18, 1\n\t"
		     "stw %%r18, 0(%[done])\n"
		     "2:\n\t"
		     ".pushsection __rseq_failure, \"ax\"\n\t"
		     ".balign 4\n\t"
		     ".long 0x0fe5000b\n"
		     "4:\n\t"
		     "b %l[aborted]\n\t"
		     ".popsection\n\t"
		     : : [area] "b"(area), [in] "b"(&in_cs), [go] "b"(&go),
		       [done] "b"(done)
		     : "r17", "r18", "cr7", "lr", "memory" : aborted);
	return 0;
aborted:
	return 1;
}
#elif TEST_ARCH_RSEQ && defined(__s390x__)
_Static_assert(RSEQ_SIG == 0xB2FF0FFF, "glibc's s390 signature");
static int long_section(char *area, int *done)
{
	__asm__ goto(".pushsection __rseq_cs, \"aw\"\n\t"
		     ".balign 32\n"
		     "3:\n\t"
		     ".long 0, 0\n\t"
		     ".quad 1f, 2f - 1f, 4f\n\t"
		     ".popsection\n\t"
		     "larl %%r0, 3b\n\t"
		     "stg %%r0, 8(%[area])\n"
		     "1:\n\t"
		     "mvhi 0(%[in]), 1\n"
		     "5:\n\t"
		     "lt %%r0, 0(%[go])\n\t"
		     "je 5b\n\t"
		     "mvhi 0(%[done]), 1\n"
		     "2:\n\t"
		     ".pushsection __rseq_failure, \"ax\"\n\t"
		     ".balign 4\n\t"
		     ".long 0xb2ff0fff\n"
		     "4:\n\t"
		     "jg %l[aborted]\n\t"
		     ".popsection\n\t"
		     : : [area] "a"(area), [in] "a"(&in_cs), [go] "a"(&go),
		       [done] "a"(done)
		     : "r0", "cc", "memory" : aborted);
	return 0;
aborted:
	return 1;
}
#endif

#if TEST_ARCH_RSEQ
static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

struct spinner {
	int cpu;
	int aborted; /* the section's result */
	int done;    /* what the commit stored */
	int pinned;
};

static void *spin_thread(void *arg)
{
	struct spinner *s = arg;

	s->pinned = !pin(s->cpu);
	/*
	 * glibc's area, or where glibc registers none (riscv64 before glibc
	 * 2.41's RSEQ_SIG) the library's own, registered by this first read.
	 */
	(void)cidk_rseq_cpu_id();
	s->aborted = long_section((char *)cidk__thread_pointer() +
					  (__rseq_size ? __rseq_offset
						       : cidk_percpu_rseq_off),
				  &s->done);
	return NULL;
}

enum how { NO_FENCE, FENCE_CPU, FENCE_ALL };

/* One round: returns 0 committed, 1 aborted, -1 setup failed. */
static int round_once(int a, enum how how, int *rc)
{
	struct spinner s = { .cpu = a };
	pthread_t t;
	struct timespec t0, now;

	atomic_store(&in_cs, 0);
	atomic_store(&go, 0);
	*rc = 0;
	if (pthread_create(&t, NULL, spin_thread, &s))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!atomic_load(&in_cs)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > 20) /* never entered: give up */
			break;
	}
	if (how == FENCE_CPU)
		*rc = cidk_percpu_fence((unsigned int)a);
	else if (how == FENCE_ALL)
		*rc = cidk_percpu_fence_all();
	atomic_store(&go, 1);
	pthread_join(t, NULL);
	if (!s.pinned || !atomic_load(&in_cs))
		return -1;
	/* the section's own word agrees with its result */
	if (s.done == s.aborted)
		return -1;
	return s.aborted;
}

static void check_contract(void)
{
	cpu_set_t set;
	int a = -1, b = -1, rc;
	static const char *names[] = { "no fence (control)",
				       "cidk_percpu_fence(A)",
				       "cidk_percpu_fence_all()" };

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int c = 0; c < CPU_SETSIZE && b < 0; c++)
		if (CPU_ISSET(c, &set)) {
			if (a < 0)
				a = c;
			else
				b = c;
		}
	if (b < 0 || pin(b)) {
		diag("part 1 needs two CPUs: not run");
		return;
	}
	diag("part 1: the section on CPU %d, the fencing thread on CPU %d", a,
	     b);
	for (int how = NO_FENCE; how <= FENCE_ALL; how++) {
		unsigned int aborted = 0, committed = 0, failed = 0, errs = 0;

		for (int r = 0; r < CONTRACT_ROUNDS; r++) {
			int res = round_once(a, (enum how)how, &rc);

			errs += rc != 0;
			if (res < 0)
				failed++;
			else if (res)
				aborted++;
			else
				committed++;
		}
		if (how == NO_FENCE)
			/* a preemption of the spinning section aborts it
			 * too (a loaded machine): commits must happen, not
			 * every time */
			ok(committed > 0 && !failed,
			   "%s: the section commits (%u committed, %u aborted, "
			   "%u not run)",
			   names[how], committed, aborted, failed);
		else
			ok(aborted == CONTRACT_ROUNDS && !errs,
			   "%s returns only after the section running on CPU "
			   "%d aborted (%u aborted, %u committed, %u not run, "
			   "%u fence errors)",
			   names[how], a, aborted, committed, failed, errs);
	}
	CPU_ZERO(&set);
	for (int c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
}
#endif

/* ---- part 2: drain under load ---- */

struct node {
	struct cidk_percpu_node n;
	unsigned int seen;
} __attribute__((aligned(8)));

static struct cidk_pool *pool;
static cidk_pool_handle h;
static enum cidk_percpu_index idx;
static int lists; /* this phase pushes nodes, else counts */
static unsigned int max_nodes; /* lists: all workers' nodes */
static atomic_int stop;
static pthread_barrier_t barrier;

struct worker {
	pthread_t tid;
	struct node *nodes;
	unsigned int next; /* lists: nodes pushed so far */
	uint64_t done;     /* counts: successful increments */
	unsigned long closed, errors;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(&barrier);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int i = cidk_percpu_index_now(idx), rc;
		intptr_t *copy, v, nv;

		if (i < 0 || (unsigned int)i >= pool->max_cids) {
			w->errors++;
			continue;
		}
		if (lists && w->next == NODES_PER_WORKER)
			break;
		copy = (intptr_t *)cidk_pool_ptr(pool, h, (unsigned int)i);
		v = __atomic_load_n(copy, __ATOMIC_ACQUIRE);
		if (v & 1) { /* the drainer holds it */
			w->closed++;
			continue;
		}
		if (lists) {
			struct node *n = &w->nodes[w->next];

			n->n.next = (struct cidk_percpu_node *)v;
			nv = (intptr_t)n;
		} else {
			nv = (intptr_t)((uintptr_t)v + 2);
		}
		rc = cidk_percpu_cmpeqv_storev(pool, h, idx, (unsigned int)i, v,
					       nv);
		if (rc == 0) {
			if (lists) /* (read by the main thread meanwhile) */
				__atomic_store_n(&w->next, w->next + 1,
						 __ATOMIC_RELAXED);
			else
				w->done++;
		} else if (rc != 1 && rc != -EAGAIN) {
			w->errors++;
		}
	}
	return NULL;
}

struct drainer {
	pthread_t tid;
	uint64_t total;           /* counts: taken from the copies */
	struct cidk_percpu_node *stolen; /* lists: taken */
	unsigned long fences, reclosed, errors, takes;
};

/* Close copy @c, fence, take what it holds, open it again. */
static void drain_one(struct drainer *d, unsigned int c)
{
	intptr_t *copy = (intptr_t *)cidk_pool_ptr(pool, h, c), v;
	int rc;

	for (;;) {
		__atomic_fetch_or(copy, 1, __ATOMIC_SEQ_CST);
		rc = idx == CIDK_PERCPU_CPU_ID ? cidk_percpu_fence(c)
					       : cidk_percpu_fence_all();
		if (rc) {
			d->errors++;
			__atomic_fetch_and(copy, ~(intptr_t)1, __ATOMIC_SEQ_CST);
			return;
		}
		d->fences++;
		v = __atomic_load_n(copy, __ATOMIC_ACQUIRE);
		if (v & 1)
			break;
		d->reclosed++; /* a section committed over the close */
	}
	v &= ~(intptr_t)1;
	if (lists) {
		struct cidk_percpu_node *n = (struct cidk_percpu_node *)v;
		unsigned int walked = 0;

		/* (a broken fence can make a cycle: stop and say so) */
		while (n && ++walked <= max_nodes) {
			struct cidk_percpu_node *next = n->next;

			n->next = d->stolen;
			d->stolen = n;
			n = next;
		}
		if (n)
			d->errors++;
	} else {
		d->total += (uint64_t)v >> 1;
	}
	d->takes++;
	__atomic_store_n(copy, 0, __ATOMIC_RELEASE);
}

static void *drain(void *arg)
{
	struct drainer *d = arg;
	unsigned int c = 0;

	pthread_barrier_wait(&barrier);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		drain_one(d, c);
		c = (c + 1) % pool->max_cids;
	}
	return NULL;
}

static void run_phase(const char *name, unsigned int t, struct node *all)
{
	struct worker *w = calloc(t, sizeof(*w));
	struct drainer d;
	struct timespec ts = { 0, 1000000L };
	uint64_t done = 0, held = 0;
	unsigned long closed = 0, errors = 0;
	unsigned int total_nodes = t * NODES_PER_WORKER, once = 0, seen = 0;
	int on_rseq = cidk_percpu_path(idx) == CIDK_PERCPU_RSEQ;

	memset(&d, 0, sizeof(d));
	for (unsigned int c = 0; c < pool->max_cids; c++)
		*(intptr_t *)cidk_pool_ptr(pool, h, c) = 0;
	atomic_store(&stop, 0);
	pthread_barrier_init(&barrier, NULL, t + 2);
	for (unsigned int i = 0; i < t; i++) {
		w[i].nodes = &all[(size_t)i * NODES_PER_WORKER];
		pthread_create(&w[i].tid, NULL, work, &w[i]);
	}
	pthread_create(&d.tid, NULL, drain, &d);
	pthread_barrier_wait(&barrier);
	for (unsigned int ms = 0; ms < PHASE_MS; ms++) {
		unsigned int pushed = 0;

		nanosleep(&ts, NULL);
		if (!lists)
			continue;
		for (unsigned int i = 0; i < t; i++)
			pushed += __atomic_load_n(&w[i].next, __ATOMIC_RELAXED);
		if (pushed == total_nodes && ms >= 10)
			break;
	}
	atomic_store(&stop, 1);
	for (unsigned int i = 0; i < t; i++) {
		pthread_join(w[i].tid, NULL);
		done += lists ? w[i].next : w[i].done;
		closed += w[i].closed;
		errors += w[i].errors;
	}
	pthread_join(d.tid, NULL);
	pthread_barrier_destroy(&barrier);

	diag("%s: %s path, %llu %s, %lu fences, %lu copies taken, %lu closes "
	     "repeated (a commit over the close), workers found a copy "
	     "closed %lu times",
	     name, cidk_percpu_path_name(cidk_percpu_path(idx)),
	     (unsigned long long)done, lists ? "nodes pushed" : "increments",
	     d.fences, d.takes, d.reclosed, closed);
	ok(errors == 0 && d.errors == 0,
	   "%s: no operation or fence failed (%lu, %lu)", name, errors,
	   d.errors);
	ok(d.fences > 0 && d.takes > 0, "%s: the drainer fenced (%lu) and "
	   "took copies (%lu)", name, d.fences, d.takes);
	if (lists) {
		for (unsigned int i = 0; i < total_nodes; i++)
			all[i].seen = 0;
		for (struct cidk_percpu_node *n = d.stolen;
		     n && seen <= total_nodes; n = n->next, seen++)
			((struct node *)n)->seen++;
		for (unsigned int c = 0; c < pool->max_cids; c++)
			for (struct cidk_percpu_node *n = *(
				     struct cidk_percpu_node **)cidk_pool_ptr(
				     pool, h, c);
			     n && seen <= total_nodes; n = n->next, seen++)
				((struct node *)n)->seen++;
		for (unsigned int i = 0; i < total_nodes; i++)
			once += all[i].seen == 1;
		/* Workers stop at the time limit, so not every node need be
		 * pushed (a slow guest pushes fewer): the pushed ones, and
		 * only they, are found, each once. */
		ok(done > 0 && done <= total_nodes && seen == done &&
			   once == done,
		   "%s: every pushed node stolen or on a list exactly once "
		   "(%llu pushed, %u found, %u once, of %u)",
		   name, (unsigned long long)done, seen, once, total_nodes);
	} else {
		for (unsigned int c = 0; c < pool->max_cids; c++)
			held += (uint64_t)*(intptr_t *)cidk_pool_ptr(pool, h, c) >>
				1;
		ok(d.total + held == done && done > 0,
		   "%s: drained %llu + left in the copies %llu == increments "
		   "%llu",
		   name, (unsigned long long)d.total,
		   (unsigned long long)held, (unsigned long long)done);
	}
	(void)on_rseq;
	free(w);
}


int main(void)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int t = 2u * (unsigned int)(online > 0 ? online : 1);
	const char *expect = getenv("CIDK_EXPECT_PATH");
	enum cidk_percpu_path want_cpu = test_documented_path(CIDK_PERCPU_CPU_ID);
	enum cidk_percpu_path want_cid = test_documented_path(CIDK_PERCPU_MM_CID);
	struct node *all = calloc((size_t)t * NODES_PER_WORKER, sizeof(*all));
	static const struct {
		const char *name;
		enum cidk_percpu_index idx;
		int lists;
	} phases[] = {
		{ "counts by cpu_id, fence(cpu)", CIDK_PERCPU_CPU_ID, 0 },
		{ "counts by mm_cid, fence_all()", CIDK_PERCPU_MM_CID, 0 },
		{ "lists by cpu_id, fence(cpu)", CIDK_PERCPU_CPU_ID, 1 },
		{ "lists by mm_cid, fence_all()", CIDK_PERCPU_MM_CID, 1 },
	};

	if (!all)
		return 1;
	diag("%u workers on %ld CPUs; cpu_id path %s, mm_cid path %s (%s)", t,
	     online, cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_CPU_ID)),
	     cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_MM_CID)),
	     cidk_percpu_why(CIDK_PERCPU_MM_CID));
	ok(cidk_percpu_path(CIDK_PERCPU_CPU_ID) == want_cpu &&
		   cidk_percpu_path(CIDK_PERCPU_MM_CID) == want_cid,
	   "paths as documented: cpu_id %s, mm_cid %s",
	   cidk_percpu_path_name(want_cpu), cidk_percpu_path_name(want_cid));
	if (expect)
		ok(!strcmp(expect, cidk_percpu_path_name(
					   cidk_percpu_path(CIDK_PERCPU_CPU_ID))),
		   "the path is %s as expected", expect);
	ok(cidk_percpu_fence(cidk_percpu_nr_copies()) == -EINVAL,
	   "fence(nr_copies %u): -EINVAL", cidk_percpu_nr_copies());
#if TEST_ARCH_RSEQ
	if (cidk_percpu_path(CIDK_PERCPU_CPU_ID) == CIDK_PERCPU_RSEQ)
		check_contract();
	else
		diag("part 1 not run: atomic path (the fence is a thread fence)");
#else
	diag("part 1 not run: no critical sections for this architecture");
#endif
	pool = cidk_pool_create(cidk_percpu_nr_copies(), 64);
	if (!ok(pool != NULL, "pool of %u copies", cidk_percpu_nr_copies()))
		return done_testing();
	for (size_t p = 0; p < sizeof(phases) / sizeof(phases[0]); p++) {
		h = cidk_pool_alloc(pool, sizeof(intptr_t), sizeof(intptr_t),
				    NULL);
		if (!ok(h >= 0, "%s: object allocated", phases[p].name))
			continue;
		idx = phases[p].idx;
		lists = phases[p].lists;
		max_nodes = t * NODES_PER_WORKER;
		run_phase(phases[p].name, t, all);
	}
	cidk_pool_destroy(pool);
	free(all);
	return done_testing();
}
