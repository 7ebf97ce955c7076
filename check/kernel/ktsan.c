/* SPDX-License-Identifier: MIT */
/*
 * check/kernel/ktsan.c - every plain load and store of the kernel's mm_cid
 * code a scheduling point (`--kernel-plain`): the translation unit is
 * compiled with -fsanitize=thread, which calls __tsan_readN/__tsan_writeN
 * before each plain access, and linked with these hooks instead of the
 * ThreadSanitizer runtime (the idea of an outside prototype).  A hook on
 * an address of the shared state (the mm, the per-CPU block, the tasks,
 * the run-queues) announces a load or store point; the instrumented
 * atomics of the stand-ins just do their operation (the stand-in has
 * announced its point already).  Compiled without the sanitizer.
 *
 * Limits: a plain step has no source line in the trace (the hook gets
 * none), and its store shows the value found, not the one written (the
 * hook runs before it): a spinner waiting for a plain store would not see
 * the progress (none of the kernel's waits does); sequential consistency
 * only (the memory models need the values).
 */
#include <stdbool.h>
#include <stdint.h>

#include "cid/cid_atomic.h"

bool kchk_plain_shared(const void *a);

static uint64_t peek(const volatile void *a, unsigned int n)
{
	switch (n) {
	case 1: return *(const volatile uint8_t *)a;
	case 2: return *(const volatile uint16_t *)a;
	case 4: return *(const volatile uint32_t *)a;
	default: return *(const volatile uint64_t *)a;
	}
}

static void point(const volatile void *a, unsigned int n, enum cidk__chk_op op)
{
	uint64_t v;

	if (!kchk_plain_shared((const void *)a))
		return;
	cidk__chk_before(0, CIDK__ACC(op, n, CIDK__MO_RLX), (const void *)a);
	v = peek(a, n);
	cidk__chk_after(v, v);
}

#define RW(n)                                                           \
	void __tsan_read##n(void *a) { point(a, n > 8 ? 8 : n, CIDK__OP_LOAD); } \
	void __tsan_write##n(void *a) { point(a, n > 8 ? 8 : n, CIDK__OP_STORE); } \
	void __tsan_unaligned_read##n(void *a) { __tsan_read##n(a); }  \
	void __tsan_unaligned_write##n(void *a) { __tsan_write##n(a); }
RW(1)
RW(2)
RW(4)
RW(8)
RW(16)

void __tsan_init(void) {}
void __tsan_func_entry(void *pc) { (void)pc; }
void __tsan_func_exit(void) {}
void __tsan_read_range(void *a, unsigned long n) { (void)a; (void)n; }
void __tsan_write_range(void *a, unsigned long n) { (void)a; (void)n; }
void __tsan_volatile_read4(void *a) { __tsan_read4(a); }
void __tsan_volatile_write4(void *a) { __tsan_write4(a); }

/* the stand-ins' atomics: the operation only */
int __tsan_atomic32_load(const volatile int *a, int mo)
{
	(void)mo;
	return __atomic_load_n(a, __ATOMIC_SEQ_CST);
}
void __tsan_atomic32_store(volatile int *a, int v, int mo)
{
	(void)mo;
	__atomic_store_n(a, v, __ATOMIC_SEQ_CST);
}
int __tsan_atomic32_exchange(volatile int *a, int v, int mo)
{
	(void)mo;
	return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);
}
int __tsan_atomic32_compare_exchange_weak(volatile int *a, int *c, int v,
					  int mo, int fmo)
{
	(void)mo;
	(void)fmo;
	return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST,
					   __ATOMIC_SEQ_CST);
}
int __tsan_atomic32_compare_exchange_strong(volatile int *a, int *c, int v,
					    int mo, int fmo)
{
	return __tsan_atomic32_compare_exchange_weak(a, c, v, mo, fmo);
}
long __tsan_atomic64_load(const volatile long *a, int mo)
{
	(void)mo;
	return __atomic_load_n(a, __ATOMIC_SEQ_CST);
}
long __tsan_atomic64_fetch_or(volatile long *a, long v, int mo)
{
	(void)mo;
	return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);
}
long __tsan_atomic64_fetch_and(volatile long *a, long v, int mo)
{
	(void)mo;
	return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);
}
void __tsan_atomic_thread_fence(int mo)
{
	(void)mo;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
