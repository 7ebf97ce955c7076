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

static inline unsigned int cidk__lease_cpu(unsigned int nr_cpu_ids)
{
	int cpu = cidk_rseq_cpu_id();

	if (cpu < 0)
		return 0;
	return (unsigned int)cpu < nr_cpu_ids ? (unsigned int)cpu
					      : (unsigned int)cpu % nr_cpu_ids;
}

#endif /* CIDKIT_LIB_LEASE_CPU_H */
