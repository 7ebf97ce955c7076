/* SPDX-License-Identifier: MIT */
/*
 * lib/percpu/fence.c - cidk_percpu_fence() and cidk_percpu_fence_all()
 * (include/cidkit/percpu.h): wait until every critical section that was
 * running on a CPU (or on any) has committed or aborted.
 *
 * On the rseq path a fence is membarrier(2)'s
 * MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ (Linux >= 5.10): the kernel
 * interrupts each targeted CPU that runs a thread of this process and
 * makes it abort the critical section it is in before it returns to user
 * space, and issues a full memory barrier there; a thread of ours that
 * was preempted inside a section will abort when it runs again anyway.
 * The command needs the process registered once with
 * MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ: done at the first
 * fence (the kernel keeps it for the process's life; registering twice
 * is harmless, so two first fences may race).
 *
 * On the atomic path (both indexings) an operation is one atomic
 * read-modify-write of the copy (a list pop's lock bit included), or,
 * for the multi-word operations of issue 37, runs under a lock of
 * ops_atomic.c: the fence takes and drops every such lock
 * (cidk__percpu_ops_quiesce), so a holder has finished, then is a
 * sequentially consistent thread fence and succeeds.
 *
 * Invariants: reg holds 0 (not tried yet), 1 (registered) or a negative
 * errno (the kernel refused: every later fence returns it).
 * Workload: cold (a fence is a system call and inter-processor
 * interrupts; callers drain or resize, they do not fence per operation).
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cidkit/percpu.h>

#include "percpu_ops.h"

#ifndef MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ (1 << 7)
#define MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ (1 << 8)
#endif
#ifndef MEMBARRIER_CMD_FLAG_CPU
#define MEMBARRIER_CMD_FLAG_CPU (1 << 0)
#endif

static int reg;

static int membarrier(int cmd, unsigned int flags, int cpu)
{
	return (int)syscall(SYS_membarrier, cmd, flags, cpu);
}

/* Registered for the RSEQ command: 0, or why not (negative errno). */
static int registered(void)
{
	int r = __atomic_load_n(&reg, __ATOMIC_ACQUIRE);
	int q;

	if (r)
		return r > 0 ? 0 : r;
	q = membarrier(MEMBARRIER_CMD_QUERY, 0, 0);
	if (q < 0)
		r = errno == ENOSYS ? -ENOSYS : -errno;
	else if (!(q & MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ))
		r = -ENOSYS; /* Linux < 5.10, or not built in */
	else if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0,
			    0))
		r = -errno;
	else
		r = 1;
	__atomic_store_n(&reg, r, __ATOMIC_RELEASE);
	return r > 0 ? 0 : r;
}

/* Whether any indexing runs critical sections in this process. */
static int on_rseq(void)
{
	return cidk_percpu_path(CIDK_PERCPU_CPU_ID) == CIDK_PERCPU_RSEQ ||
	       cidk_percpu_path(CIDK_PERCPU_MM_CID) == CIDK_PERCPU_RSEQ;
}

int cidk_percpu_fence(unsigned int cpu)
{
	int err;

	if (cpu >= cidk_percpu_nr_copies() || cpu > (unsigned int)INT32_MAX)
		return -EINVAL;
	if (!on_rseq()) {
		cidk__percpu_ops_quiesce();
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		return 0;
	}
	if ((err = registered()))
		return err;
	if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
		       MEMBARRIER_CMD_FLAG_CPU, (int)cpu))
		return -errno;
	return 0;
}

int cidk_percpu_fence_all(void)
{
	int err;

	if (!on_rseq()) {
		cidk__percpu_ops_quiesce();
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		return 0;
	}
	if ((err = registered()))
		return err;
	if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, 0, 0))
		return -errno;
	return 0;
}
