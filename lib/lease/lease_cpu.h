/* SPDX-License-Identifier: MIT */
/*
 * lib/lease/lease_cpu.h - the CPU a lease thread runs on: the policy's CPU.
 *
 * The one place leases learn their CPU.  sched_getcpu() for now (a vDSO
 * call or an rseq read inside glibc); the rseq module's cpu_id read
 * replaces it at merge.  The value may be stale by the time it is used:
 * the policies only use it as a hint, never for ownership.
 */
#ifndef CIDKIT_LIB_LEASE_CPU_H
#define CIDKIT_LIB_LEASE_CPU_H

#include <sched.h>

static inline unsigned int cidk__lease_cpu(unsigned int nr_cpu_ids)
{
	int cpu = sched_getcpu();

	if (cpu < 0)
		return 0;
	return (unsigned int)cpu < nr_cpu_ids ? (unsigned int)cpu
					      : (unsigned int)cpu % nr_cpu_ids;
}

#endif /* CIDKIT_LIB_LEASE_CPU_H */
