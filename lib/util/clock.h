/* SPDX-License-Identifier: MIT */
/* Internal: monotonic time for benchmarks (never used by policies). */
#ifndef CIDKIT_UTIL_CLOCK_H
#define CIDKIT_UTIL_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t cidk__now_ns(void);

/* Keep the compiler from optimising away a value or a memory write. */
static inline void cidk__keep(const void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

#endif /* CIDKIT_UTIL_CLOCK_H */
