/* SPDX-License-Identifier: MIT */
/*
 * lib/percpu/percpu.c - the choice of path, the atomic path and the cold
 * helpers of the per-CPU operations (include/cidkit/percpu.h).
 *
 * Invariants:
 *  - cidk_percpu_off starts "every indexing off, undecided" and is written
 *    once: by the constructor, before main(), when nothing needs the
 *    probe (no rseq, ThreadSanitizer, CIDK_PERCPU=atomic|rseq), else by
 *    decide(), which runs the probe (lib/abi/probe.c) under a lock at the
 *    first operation, path or why query, fence or cidk_percpu_init(), and
 *    publishes the path (CIDK_PERCPU_UNDECIDED clear) in one release store
 *    after why_cpu/why_cid.  Until that store every operation waits in
 *    decide(), before it touches a copy; after it, every thread takes the
 *    same path for the rest of the process's life (the two paths must
 *    never touch the same copy at the same time: a plain add inside a
 *    critical section is not atomic against a locked add from another
 *    CPU).  So no operation is in flight when the path is chosen.
 *  - On the atomic path, bit 0 of a list head is set only while a pop
 *    holds that copy (between its CAS and its release store); the rseq
 *    path never sets it.
 * Workload: the atomic functions are the fallback hot path (called, not
 * inlined); everything else runs once or on aborts only.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#endif

#include <pthread.h>

#include <cidkit/abi.h>
#include <cidkit/percpu.h>

#include "abi/abi.h"
#include "topo/possible.h"
#include "rseq/rseq_own.h"

#if defined(__SANITIZE_THREAD__)
#define PERCPU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PERCPU_TSAN 1
#endif
#endif
#ifndef PERCPU_TSAN
#define PERCPU_TSAN 0
#endif

/* every indexing off the rseq path until the path is chosen */
unsigned int cidk_percpu_off = CIDK_PERCPU_CPU_ID | CIDK_PERCPU_MM_CID |
			       CIDK_PERCPU_UNDECIDED;
ptrdiff_t cidk_percpu_rseq_off;

/* The area is cidkit's own (glibc registered none): threads register it. */
static int own_area;

/* What the constructor found: the rseq path's bits, if the probe agrees. */
static unsigned int want;
static pthread_mutex_t decide_lock = PTHREAD_MUTEX_INITIALIZER;
static char why_buf[320];
static const char *env_note = "";

static const char *why_cpu = "not chosen yet";
static const char *why_cid = "not chosen yet";
static unsigned int nr_copies = 1;
static _Thread_local unsigned long aborts;

/* CIDK_PERCPU: 'a' (atomic), 'r' (rseq, no probe) or 'p' (probe, the default). */
static int env_choice(void)
{
	static char note[96];
	const char *e = getenv("CIDK_PERCPU");

	if (!e || !*e || !strcmp(e, "probe"))
		return 'p';
	if (!strcmp(e, "atomic"))
		return 'a';
	if (!strcmp(e, "rseq"))
		return 'r';
	snprintf(note, sizeof(note), " (CIDK_PERCPU=%.32s%s not understood: rseq, atomic or probe)",
		 e, strlen(e) > 32 ? "..." : "");
	env_note = note;
	return 'p';
}

/*
 * Whether the area (glibc's, or cidkit's own) holds an mm_cid the kernel
 * fills: as lib/rseq's constructor decides, recomputed here because the
 * order of constructors is not specified.
 */
static int has_mm_cid(void)
{
	unsigned long fs = getauxval(AT_RSEQ_FEATURE_SIZE);
	unsigned long area = __rseq_size < 32 ? 32 : __rseq_size;

	/* (cidkit's own area is 32 bytes: the original size) */
	return fs >= CIDK_RSEQ_FEATURE_MM_CID &&
	       area >= CIDK_RSEQ_FEATURE_MM_CID;
}

/*
 * The area the critical sections use: glibc's, else cidkit's own when the
 * kernel has rseq(2).  Nothing is registered here (a library must not
 * take the main thread's one registration at load time): each thread
 * registers its own area at its first operation (cidk_percpu_range_slow).
 * NULL, or why neither can be used.
 */
static const char *choose_area(void)
{
	if (__rseq_size) {
		cidk_percpu_rseq_off = __rseq_offset;
		return NULL;
	}
	if (cidk__rseq_probe())
		return "no rseq(2): old kernel, or refused (valgrind)";
	cidk_percpu_rseq_off = cidk__rseq_own_offset();
	own_area = 1;
	return NULL;
}

/* The path, for good: @rseq's bits run critical sections, the rest atomics. */
static void publish(unsigned int rseq)
{
	__atomic_store_n(&cidk_percpu_off,
			 (CIDK_PERCPU_CPU_ID | CIDK_PERCPU_MM_CID) & ~rseq,
			 __ATOMIC_RELEASE);
}

/*
 * fork() while another thread probes would leave the child a lock held by
 * a thread it does not have, and its first operation waiting for ever:
 * fork waits for the probe instead (at most its budget).  Both locks, in
 * the order decide() takes them.
 */
static void fork_prepare(void)
{
	pthread_mutex_lock(&decide_lock);
	cidk__abi_probe_lock();
}

static void fork_done(void)
{
	cidk__abi_probe_unlock();
	pthread_mutex_unlock(&decide_lock);
}

/*
 * What the process can do, found once: by the constructor, or earlier by
 * the first operation if another library's constructor runs one before
 * ours (the order of constructors is not specified).
 */
static pthread_once_t choose_once = PTHREAD_ONCE_INIT;

static void choose(void)
{
	unsigned int mask = 0;
	const char *why = NULL;
	int env = env_choice();

	pthread_atfork(fork_prepare, fork_done, fork_done);
	nr_copies = cidk__topo_nr_possible();
	if (!CIDK_PERCPU_HAVE_RSEQ)
		why = "no critical sections for this architecture (x86-64, "
		      "little-endian aarch64, riscv64, little-endian ppc64 "
		      "and s390x only)";
	else if (PERCPU_TSAN)
		why = "ThreadSanitizer build (TSan cannot see rseq)";
	else if (env == 'a')
		why = "forced by CIDK_PERCPU=atomic";
	else
		why = choose_area();
	if (why) {
		why_cpu = why_cid = why;
	} else {
		/* a registration covers cpu_id from the first kernel with
		 * rseq; mm_cid needs feature size >= 28. */
		static const char *on[] = {
			"rseq critical sections",
			"rseq critical sections on cidkit's own rseq area "
			"(glibc registered none)",
		};

		mask |= CIDK_PERCPU_CPU_ID;
		why_cpu = on[own_area];
		if (has_mm_cid()) {
			mask |= CIDK_PERCPU_MM_CID;
			why_cid = on[own_area];
		} else {
			why_cid = "the kernel provides no mm_cid (Linux < 6.3)";
		}
		if (env == 'r') {
			why_cpu = "forced by CIDK_PERCPU=rseq (not probed)";
			if (mask & CIDK_PERCPU_MM_CID)
				why_cid = why_cpu;
		}
	}
	if (mask && env == 'p') {
		want = mask; /* decide() asks the probe */
		return;
	}
	publish(mask);
}

__attribute__((constructor)) static void percpu_choose(void)
{
	pthread_once(&choose_once, choose);
}

/*
 * The probe's verdict on the abort promise turned into the path: PASS
 * keeps the rseq path the constructor found, FAIL and UNKNOWN take the
 * atomic path (a section the kernel does not abort corrupts data; not
 * knowing is treated as not safe).
 */
static void decide(void)
{
	struct cidk_abi_probe_result r;
	const struct cidk_abi_promise_result *a = &r.promise[CIDK_ABI_ABORT];
	unsigned int mask = 0;

	pthread_once(&choose_once, choose);
	pthread_mutex_lock(&decide_lock);
	if (!(__atomic_load_n(&cidk_percpu_off, __ATOMIC_ACQUIRE) & CIDK_PERCPU_UNDECIDED))
		goto out;
	cidk_abi_probe_cached(&r);
	if (a->verdict == CIDK_ABI_PASS) {
		mask = want;
		snprintf(why_buf, sizeof(why_buf),
			 "%s; the probe: interrupted sections abort (%u aborted during an event, %llu us)%s",
			 why_cpu, a->aborts_in_event,
			 (unsigned long long)(a->ns / 1000), env_note);
		why_cpu = why_buf;
		if (want & CIDK_PERCPU_MM_CID)
			why_cid = why_cpu;
	} else {
		snprintf(why_buf, sizeof(why_buf), "%s: %s%s",
			 a->verdict == CIDK_ABI_FAIL ?
			 "broken abort promise" :
			 "the probe could not tell, so the safe default",
			 a->why, env_note);
		why_cpu = why_buf;
		if (want & CIDK_PERCPU_MM_CID)
			why_cid = why_cpu;
	}
	publish(mask);
out:
	pthread_mutex_unlock(&decide_lock);
}

/* The indexings on the rseq path, choosing it first if no one has. */
static unsigned int paths(void)
{
	unsigned int m = __atomic_load_n(&cidk_percpu_off, __ATOMIC_ACQUIRE);

	if (m & CIDK_PERCPU_UNDECIDED) {
		decide();
		m = __atomic_load_n(&cidk_percpu_off, __ATOMIC_ACQUIRE);
	}
	return ~m & (CIDK_PERCPU_CPU_ID | CIDK_PERCPU_MM_CID);
}

int cidk_percpu_init(void)
{
	paths();
	return 0;
}

enum cidk_percpu_path cidk_percpu_path(enum cidk_percpu_index idx)
{
	return (paths() & (unsigned int)idx) ? CIDK_PERCPU_RSEQ : CIDK_PERCPU_ATOMIC;
}

const char *cidk_percpu_path_name(enum cidk_percpu_path path)
{
	return path == CIDK_PERCPU_RSEQ ? "rseq" : "atomic";
}

const char *cidk_percpu_why(enum cidk_percpu_index idx)
{
	paths();
	return idx == CIDK_PERCPU_MM_CID ? why_cid : why_cpu;
}

unsigned int cidk_percpu_nr_copies(void)
{
	pthread_once(&choose_once, choose);
	return nr_copies;
}

unsigned long cidk_percpu_aborts(void)
{
	return aborts;
}

void cidk_percpu_count_abort(void)
{
	aborts++;
}

int cidk_percpu_range_slow(void)
{
	if (own_area && !cidk__rseq_own_registered())
		return cidk_rseq_register_current_thread();
	return -ERANGE;
}

int cidk_percpu_index_now(enum cidk_percpu_index idx)
{
	int i;

	if (idx == CIDK_PERCPU_MM_CID) {
		i = cidk_rseq_mm_cid();
		if (i >= 0 || cidk_percpu_path(idx) == CIDK_PERCPU_RSEQ)
			return i;
	}
	return cidk_rseq_cpu_id();
}

/* The copy the atomic path uses, or NULL (index out of range: -ERANGE). */
static intptr_t *copy_now(struct cidk_pool *pool, cidk_pool_handle h,
			  enum cidk_percpu_index idx, int *err)
{
	int i = cidk_percpu_index_now(idx);

	if (i < 0) {
		*err = i;
		return NULL;
	}
	if ((unsigned int)i >= pool->max_cids) {
		*err = -ERANGE;
		return NULL;
	}
	return (intptr_t *)cidk_pool_ptr(pool, h, (unsigned int)i);
}

int cidk_percpu_add_atomic(struct cidk_pool *pool, cidk_pool_handle h,
			   enum cidk_percpu_index idx, intptr_t delta)
{
	int err = 0;
	intptr_t *v = copy_now(pool, h, idx, &err);

	if (!v)
		return err;
	__atomic_fetch_add(v, delta, __ATOMIC_RELAXED);
	return 0;
}

int cidk_percpu_cmpeqv_storev_atomic(struct cidk_pool *pool,
				     cidk_pool_handle h,
				     enum cidk_percpu_index idx,
				     unsigned int expect_index,
				     intptr_t expect, intptr_t newv)
{
	intptr_t *v;
	int now;

	if (expect_index >= pool->max_cids)
		return -ERANGE;
	now = cidk_percpu_index_now(idx);
	if (now < 0)
		return now;
	if ((unsigned int)now != expect_index)
		return -EAGAIN;
	v = (intptr_t *)cidk_pool_ptr(pool, h, expect_index);
	/* Any thread may hold any index here: the compare-and-store itself
	 * must be atomic. */
	if (__atomic_compare_exchange_n(v, &expect, newv, 0, __ATOMIC_RELEASE,
					__ATOMIC_RELAXED))
		return 0;
	return 1;
}

static void relax(unsigned int *spins)
{
	if (++*spins > 64) {
		sched_yield();
		*spins = 0;
	}
}

int cidk_percpu_list_push_atomic(struct cidk_pool *pool, cidk_pool_handle h,
				 enum cidk_percpu_index idx,
				 struct cidk_percpu_node *node)
{
	int err = 0;
	intptr_t *v = copy_now(pool, h, idx, &err), head;
	unsigned int spins = 0;

	if (!v)
		return err;
	for (;;) {
		head = __atomic_load_n(v, __ATOMIC_RELAXED);
		if (head & 1) { /* a pop holds this copy */
			relax(&spins);
			continue;
		}
		node->next = (struct cidk_percpu_node *)head;
		if (__atomic_compare_exchange_n(v, &head, (intptr_t)node, 0,
						__ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return 0;
	}
}

struct cidk_percpu_node *cidk_percpu_list_pop_atomic(struct cidk_pool *pool,
						     cidk_pool_handle h,
						     enum cidk_percpu_index idx)
{
	int err = 0;
	intptr_t *v = copy_now(pool, h, idx, &err), head;
	unsigned int spins = 0;
	struct cidk_percpu_node *node;

	if (!v) {
		errno = -err;
		return NULL;
	}
	/* A pop locks the copy (bit 0 of the head) while it reads head->next:
	 * a CAS alone would suffer ABA (the head popped, its next popped, the
	 * head pushed back between our read and our CAS). */
	for (;;) {
		head = __atomic_load_n(v, __ATOMIC_ACQUIRE);
		if (!head) {
			errno = ENOENT;
			return NULL;
		}
		if (head & 1) {
			relax(&spins);
			continue;
		}
		if (__atomic_compare_exchange_n(v, &head, head | 1, 0,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
	}
	node = (struct cidk_percpu_node *)head;
	__atomic_store_n(v, (intptr_t)node->next, __ATOMIC_RELEASE);
	return node;
}

intptr_t cidk_percpu_sum(const struct cidk_pool *pool, cidk_pool_handle h)
{
	uintptr_t sum = 0;

	for (unsigned int i = 0; i < pool->max_cids; i++)
		sum += (uintptr_t)__atomic_load_n(
			(const intptr_t *)cidk_pool_ptr(pool, h, i),
			__ATOMIC_RELAXED);
	return (intptr_t)sum;
}
