/* SPDX-License-Identifier: MIT */
/*
 * lib/lease/lease_cpu.h - the CPU a lease thread runs on: the policy's CPU.
 *
 * The one place leases learn their CPU: the rseq area's cpu_id (one load
 * through the thread pointer when glibc registered rseq; our own area, or
 * getcpu(), otherwise - see rseq.h).  The value may be stale by the time
 * it is used: the policies only use it as a hint, never for ownership.
 */
#ifndef CIDKIT_LIB_LEASE_CPU_H
#define CIDKIT_LIB_LEASE_CPU_H

#include <cidkit/rseq.h>

static inline unsigned int cidk__lease_cpu(const unsigned int *nr_cpu_ids_p)
{
	int cpu = cidk_rseq_cpu_id();
	unsigned int nr_cpu_ids;

	/*
	 * Read the bound only now: a value loaded before the read would have
	 * to survive its fallback's call in a callee-saved register, which
	 * costs the fast path a push and a pop (lease enter).
	 */
	__asm__ volatile("" ::: "memory");
	nr_cpu_ids = *nr_cpu_ids_p;
	if (__builtin_expect((unsigned int)cpu < nr_cpu_ids, 1))
		return (unsigned int)cpu;
	return cpu < 0 ? 0 : (unsigned int)cpu % nr_cpu_ids;
}

#endif /* CIDKIT_LIB_LEASE_CPU_H */
