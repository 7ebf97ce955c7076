/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/cpus.c - where the checks run: the allowed CPUs, pinning a
 * thread to one, membarrier's RSEQ command (query and registration), and
 * the kernel's own answer to "where am I" (getcpu(2) as
 * a system call: glibc's sched_getcpu() reads the rseq area, the very
 * thing under test).
 */
#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "abi/abi_impl.h"

unsigned int cidk__abi_allowed(int *cpus, unsigned int max)
{
	cpu_set_t set;
	unsigned int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

int cidk__abi_pin(pid_t tid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(tid, sizeof(set), &set) ? -errno : 0;
}

int cidk__abi_unpin(const int *cpus, unsigned int n)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (unsigned int i = 0; i < n; i++)
		CPU_SET(cpus[i], &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

int cidk__abi_getcpu(unsigned int *cpu, unsigned int *node)
{
	if (syscall(SYS_getcpu, cpu, node, NULL))
		return -errno;
	return 0;
}

pid_t cidk__abi_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

int cidk__abi_membarrier_rseq(void)
{
	long q = syscall(__NR_membarrier, CIDK_ABI_MB_QUERY, 0, 0);

	if (q < 0)
		return -errno;
	if (!(q & CIDK_ABI_MB_PRIVATE_EXPEDITED_RSEQ))
		return -ENOSYS;
	if (syscall(__NR_membarrier, CIDK_ABI_MB_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0, 0))
		return -errno;
	return 0;
}
