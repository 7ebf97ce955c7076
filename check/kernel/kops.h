/* SPDX-License-Identifier: MIT */
/*
 * check/kernel/kops.h - between the checker (check/kmodel.c) and the
 * kernel's mm_cid code built at run time (the shared object of
 * scripts/kernel-source: the blocks, our stand-ins, kcontext.c).  The
 * object exports one symbol, kchk_ops; the checker's hooks
 * (cidk__chk_before/after, chk_self) come from the checker program.
 *
 * The events run inside the explorer's threads: thread @tid is the
 * scenario's task @tid; thread @ntasks (when asked for) is the worker
 * that runs the irq_work and the work item.  The view is read outside the
 * threads (properties, dump), plainly.
 *
 * Driven (check/kreplay.c: a recorded schedule, one event at a time, no
 * explorer): after drive(), each event runs whole in the caller's thread
 * with `current` the task the event names (the worker for work()), and a
 * wait that cannot end in a sequential run (mm_get_cid()'s retry loop,
 * irq_work_sync()) records a report in the view's bug and calls @stuck,
 * which must not return (the driver longjmp()s out and stops).
 */
#ifndef CIDKIT_CHECK_KERNEL_KOPS_H
#define CIDKIT_CHECK_KERNEL_KOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KOPS_ABI 3
#define KOPS_MAX_TASKS 64 /* the explorer runs at most 8; a trace replay more */
#define KOPS_MAX_CPUS 64
#define KOPS_NONE 0xffffffffu

struct kview {
	unsigned int mode, max_cids, users, nr_cpus_allowed, pcpu_thrs;
	unsigned int update_deferred;
	unsigned long cidmask;
	unsigned int pcp_cid[KOPS_MAX_CPUS];
	int curr[KOPS_MAX_CPUS];	  /* the task running there, -1 idle */
	unsigned int cid[KOPS_MAX_TASKS];  /* task->mm_cid.cid */
	unsigned int active[KOPS_MAX_TASKS];
	unsigned int cpu[KOPS_MAX_TASKS];
	bool irq_pending, work_pending, work_running;
	/* the first report of the stand-ins (WARN_ON_ONCE, lockdep, a bit
	 * past the bitmap), or "" */
	char bug[160];
};

struct kops {
	unsigned int abi;		/* KOPS_ABI */
	const char *version;		/* the tree's, "7.2.13" */
	/* Once: @cpus CPUs, @ntasks tasks; 0 or -EINVAL (too many). */
	int (*setup)(unsigned int cpus, unsigned int ntasks);
	/*
	 * Before every execution, outside the threads: everything back to
	 * the same bytes at the same addresses, the mm created with
	 * @allowed (its first task's CPUs), each task's CPUs @aff[i], and the
	 * tasks @initial[i] forked in order (the first exec()s, the others
	 * are its threads) on CPU @cpu0[i].
	 */
	void (*reset)(uint64_t allowed, const uint64_t *aff,
		      const bool *initial, const bool *clone_vm,
		      const unsigned int *cpu0);
	/* the events of a task, inside its thread */
	void (*in)(unsigned int tid, unsigned int cpu);
	void (*out)(unsigned int tid);
	void (*fork)(unsigned int tid, unsigned int child, bool clone_vm);
	/* @cpu: -1 running (exits there), else the idle CPU it wakes on */
	void (*exit)(unsigned int tid, int cpu);
	void (*migrate)(unsigned int tid, unsigned int cpu);
	void (*affinity)(unsigned int tid, uint64_t mask);
	/* context_switch() on @cpu from @prev to @next, both tasks of the mm
	 * (in and out go through the CPU's idle task instead) */
	void (*switch_to)(unsigned int prev, unsigned int next, unsigned int cpu);
	/* dup_task_struct(): task @child made afresh from @parent (its
	 * allowed CPUs; CID unset, inactive, on no list), before fork() */
	void (*dup)(unsigned int parent, unsigned int child);
	/* from now on, driven (above); for the process's life */
	void (*drive)(void (*stuck)(void));
	/* the worker: runs what is queued; false when nothing was */
	bool (*work)(void);
	void (*view)(struct kview *v);
	/* A name for a shared address (@names: the tasks'), or NULL; is it in
	 * the state? */
	const char *(*addr_name)(const void *a, const char *const *names,
				 char *buf, size_t len);
	bool (*addr_valid)(const void *a);
	/* The state's blocks, for the state cache: block @i, its size. */
	size_t (*block)(unsigned int i, const void **p);
};

#endif /* CIDKIT_CHECK_KERNEL_KOPS_H */
