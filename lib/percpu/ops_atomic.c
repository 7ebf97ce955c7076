/* SPDX-License-Identifier: MIT */
/*
 * lib/percpu/ops_atomic.c - the atomic path of the per-CPU operations of
 * issue 37 (librseq's set; the contracts are in include/cidkit/percpu.h).
 *
 * A critical section is atomic against every other section on its CPU (or
 * its mm_cid); on the atomic path any thread may touch any copy at any
 * time, so an operation that stores more than one word, compares two, or
 * follows a pointer read from @v needs more than one compare-and-swap:
 *  - it holds the lock of @v (locks[]: spin locks hashed by @v's address,
 *    shared by unrelated words that collide, which only costs waiting);
 *  - it commits with a compare-and-swap of @v from the value it compared,
 *    so a lock-free cidk_percpu_cmpeqv_storev_atomic() on @v that slips in
 *    between makes it fail (result 1), exactly as that store committing on
 *    the CPU between an aborted try and the retry would; the attempts it
 *    made (stores to @v2, @dst, @load) stay, as the contract allows.
 * Invariants: a lock is held only inside one function here, never across
 * a call out; cidk__percpu_ops_quiesce() (the atomic path's fence) takes
 * and drops every lock, so after it every operation that held one has
 * finished.
 * Workload: the fallback hot path (called, not inlined).
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>

#include <cidkit/percpu.h>

#include "percpu_ops.h"

#define NR_LOCKS 64

/* One cache line each, so that locks of different copies do not share. */
static struct {
	unsigned int held;
	char pad[64 - sizeof(unsigned int)];
} locks[NR_LOCKS] __attribute__((aligned(64)));

static unsigned int *lock_of(const void *v)
{
	uintptr_t a = (uintptr_t)v >> 3;

	return &locks[(a ^ (a >> 6) ^ (a >> 12)) % NR_LOCKS].held;
}

static void lock(unsigned int *l)
{
	unsigned int spins = 0;

	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(l, __ATOMIC_RELAXED))
			if (++spins > 64) {
				sched_yield();
				spins = 0;
			}
	}
}

static void unlock(unsigned int *l)
{
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

void cidk__percpu_ops_quiesce(void)
{
	for (unsigned int i = 0; i < NR_LOCKS; i++) {
		lock(&locks[i].held);
		unlock(&locks[i].held);
	}
}

/*
 * The copy of @h at @cpu (CIDK_PERCPU_CURRENT: the thread's index now):
 * NULL with *@err -ERANGE, -EAGAIN (@cpu is not the index now) or the
 * index reader's error.
 */
static intptr_t *copy_on(struct cidk_pool *pool, cidk_pool_handle h,
			 enum cidk_percpu_index idx, unsigned int cpu, int *err)
{
	int now;

	if (cpu != CIDK_PERCPU_CURRENT && cpu >= pool->max_cids) {
		*err = -ERANGE;
		return NULL;
	}
	now = cidk_percpu_index_now(idx);
	if (now < 0) {
		*err = now;
		return NULL;
	}
	if (cpu == CIDK_PERCPU_CURRENT) {
		if ((unsigned int)now >= pool->max_cids) {
			*err = -ERANGE;
			return NULL;
		}
		cpu = (unsigned int)now;
	} else if ((unsigned int)now != cpu) {
		*err = -EAGAIN;
		return NULL;
	}
	return (intptr_t *)cidk_pool_ptr(pool, h, cpu);
}

/* The commit: 0 if @v still held @expect and now holds @newv, else 1. */
static int commit(intptr_t *v, intptr_t expect, intptr_t newv)
{
	return !__atomic_compare_exchange_n(v, &expect, newv, 0,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

int cidk_percpu_add_on_atomic(struct cidk_pool *pool, cidk_pool_handle h,
			      enum cidk_percpu_index idx, unsigned int cpu,
			      intptr_t delta)
{
	int err = 0;
	intptr_t *v = copy_on(pool, h, idx, cpu, &err);

	if (!v)
		return err;
	__atomic_fetch_add(v, delta, __ATOMIC_RELAXED);
	return 0;
}

int cidk_percpu_cmpeqv_cmpeqv_storev_atomic(struct cidk_pool *pool,
					    cidk_pool_handle h,
					    enum cidk_percpu_index idx,
					    unsigned int cpu, intptr_t expect,
					    intptr_t *v2, intptr_t expect2,
					    intptr_t newv)
{
	int err = 0, rc = 1;
	intptr_t *v = copy_on(pool, h, idx, cpu, &err);
	unsigned int *l;

	if (!v)
		return err;
	l = lock_of(v);
	lock(l);
	if (__atomic_load_n(v, __ATOMIC_ACQUIRE) == expect &&
	    __atomic_load_n(v2, __ATOMIC_ACQUIRE) == expect2)
		rc = commit(v, expect, newv);
	unlock(l);
	return rc;
}

int cidk_percpu_cmpeqv_trystorev_storev_atomic(struct cidk_pool *pool,
					       cidk_pool_handle h,
					       enum cidk_percpu_index idx,
					       unsigned int cpu,
					       intptr_t expect, intptr_t *v2,
					       intptr_t newv2, intptr_t newv)
{
	int err = 0, rc = 1;
	intptr_t *v = copy_on(pool, h, idx, cpu, &err);
	unsigned int *l;

	if (!v)
		return err;
	l = lock_of(v);
	lock(l);
	if (__atomic_load_n(v, __ATOMIC_RELAXED) == expect) {
		__atomic_store_n(v2, newv2, __ATOMIC_RELAXED);
		rc = commit(v, expect, newv);
	}
	unlock(l);
	return rc;
}

/* The copy, word by word when everything is word-aligned, else bytes. */
static void copy_relaxed(void *dst, const void *src, size_t len)
{
	size_t w = sizeof(uintptr_t);

	if (!((uintptr_t)dst % w) && !((uintptr_t)src % w) && !(len % w)) {
		for (size_t k = 0; k < len / w; k++)
			__atomic_store_n((uintptr_t *)dst + k,
					 __atomic_load_n((const uintptr_t *)src + k,
							 __ATOMIC_RELAXED),
					 __ATOMIC_RELAXED);
		return;
	}
	for (size_t k = 0; k < len; k++)
		__atomic_store_n((unsigned char *)dst + k,
				 __atomic_load_n((const unsigned char *)src + k,
						 __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
}

int cidk_percpu_cmpeqv_trymemcpy_storev_atomic(struct cidk_pool *pool,
					       cidk_pool_handle h,
					       enum cidk_percpu_index idx,
					       unsigned int cpu,
					       intptr_t expect, void *dst,
					       const void *src, size_t len,
					       intptr_t newv)
{
	int err = 0, rc = 1;
	intptr_t *v = copy_on(pool, h, idx, cpu, &err);
	unsigned int *l;

	if (!v)
		return err;
	l = lock_of(v);
	lock(l);
	if (__atomic_load_n(v, __ATOMIC_ACQUIRE) == expect) {
		copy_relaxed(dst, src, len);
		rc = commit(v, expect, newv);
	}
	unlock(l);
	return rc;
}

int cidk_percpu_cmpnev_storeoffp_load_atomic(struct cidk_pool *pool,
					     cidk_pool_handle h,
					     enum cidk_percpu_index idx,
					     unsigned int cpu,
					     intptr_t expectnot, ptrdiff_t off,
					     intptr_t *load)
{
	int err = 0, rc;
	intptr_t *v = copy_on(pool, h, idx, cpu, &err), head, next;
	unsigned int *l;

	if (!v)
		return err;
	l = lock_of(v);
	lock(l);
	/* Pops hold the lock, so only pushes (compare-and-swaps) move the
	 * head meanwhile: a head that fails the commit was pushed over. */
	do {
		head = __atomic_load_n(v, __ATOMIC_ACQUIRE);
		if (head == expectnot) {
			rc = 1;
			break;
		}
		*load = head;
		next = __atomic_load_n((intptr_t *)((char *)head + off),
				       __ATOMIC_RELAXED);
		rc = commit(v, head, next);
	} while (rc);
	unlock(l);
	return rc;
}

int cidk_percpu_offset_deref_addv_atomic(struct cidk_pool *pool,
					 cidk_pool_handle h,
					 enum cidk_percpu_index idx,
					 unsigned int cpu, ptrdiff_t off,
					 intptr_t inc)
{
	int err = 0;
	intptr_t *v = copy_on(pool, h, idx, cpu, &err), p, *t;
	unsigned int *l;

	if (!v)
		return err;
	l = lock_of(v);
	lock(l);
	p = __atomic_load_n(v, __ATOMIC_ACQUIRE);
	t = __atomic_load_n((intptr_t **)((char *)p + off), __ATOMIC_ACQUIRE);
	__atomic_fetch_add(t, inc, __ATOMIC_RELAXED);
	unlock(l);
	return 0;
}
