/* SPDX-License-Identifier: MIT */
/*
 * check/kreplay.h - `cidkit check --from-trace TRACE --kernel-source V
 * --trace-cids`: a schedule recorded by `cidkit trace record` driven, in
 * the recorded order and one event at a time (no exploration), through
 * the kernel's own mm_cid code and our call context (check/kernel/), and
 * each rseq_update's mm_cid compared with the CID that code gives the
 * task at that point: the agreement docs/validation.md measures for the
 * port (`cidkit sim replay`), on the kernel's code (docs/check-kernel.md).
 *
 * Events, as trace/replay.c maps them for the port (docs/trace.md), each
 * through the call context (check/kernel/kcontext.c, kops.h):
 *   sched_process_exec of the group leader   the mm is created: the
 *       leader's exec (sched_mm_cid_after_execve()), running on that CPU;
 *   sched_switch on CPU c                    prev and next both threads of
 *       the group: context_switch(prev, next); one of them: a switch with
 *       the CPU's idle task (another process has no mm of ours);
 *   sched_process_fork by a thread           dup_task_struct() and
 *       copy_process()'s sched_post_fork() -> sched_mm_cid_fork(child)
 *       with current the parent;
 *   mm_cid_exit (kprobe), else sched_process_exit   do_exit() ->
 *       sched_mm_cid_exit(current) (the first of the two; the second is
 *       then nothing), the task's last schedule;
 *   sched_migrate_task of a sleeping thread  set_task_cpu();
 *   cpus_allowed (kprobe)                    set_cpus_allowed_common() ->
 *       mm_update_cpus_allowed(), and the irq_work and work it queues;
 *   rseq_update                              compared: the task's CID
 *       without the ONCPU and TRANSIT bits (what rseq writes), -1 unset.
 * A thread the trace shows running (an rseq_update, a fork, an exit)
 * where no switch put it is switched in there first, and counted, as the
 * port's replay does.  Other events are skipped.
 */
#ifndef CIDKIT_CHECK_KREPLAY_H
#define CIDKIT_CHECK_KREPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KREPLAY_KEEP 8 /* disagreements kept */

/* the call context's entries (kops.h), counted */
enum { KR_EXEC, KR_SWITCH, KR_IN, KR_OUT, KR_FORK, KR_EXIT, KR_MIGRATE,
       KR_AFFINITY, KR_WORK, KR_NCALLS };

struct kreplay_disagree {
	uint64_t ts_ns;
	unsigned long line;	/* the trace's line (text traces; else 0) */
	int pid;
	unsigned int cpu;
	int recorded, code;	/* mm_cid: the trace's, the kernel code's */
	unsigned int word;	/* the code's task->mm_cid.cid, flags and all */
	unsigned int users;	/* mm_cid.users there */
	bool percpu;		/* the mode: per-CPU */
	int prev_recorded;	/* the task's previous mm_cid, -1 none */
};

struct kreplay_result {
	char kernel[64];	/* the recorded kernel ("" unknown) */
	char code[32];		/* the code's version (kmodel_version()) */
	int tgid;
	unsigned int cpus, threads, max_live;
	unsigned long events, group_events, rseq_updates, agree;
	unsigned long inconsistent;	/* threads switched in where the trace
					   had not (lost events) */
	unsigned long mode_switches;	/* flips of mm_cid.mode's ONCPU bit */
	/* the call context's calls, by kind (KR_*: which call sites ran) */
	unsigned long calls[9];
	char bug[200];		/* the stand-ins' first report, or "" */
	unsigned long bug_line;
	bool stopped;		/* a wait that cannot end: the replay stopped */
	unsigned int ndisagree;
	struct kreplay_disagree dis[KREPLAY_KEEP];
};

/*
 * Replay @path (ftrace text or trace.dat; .xz and .gz through xz -dc and
 * gzip -dc) through the loaded kernel code (kmodel_build() first).  0
 * and *@r; -errno and a one-line reason in @why (a trace it cannot read,
 * a thread group it cannot find, more CPUs or threads alive at once than
 * the call context holds).  Prints nothing.
 */
int kreplay_run(const char *path, struct kreplay_result *r, char *why,
		size_t len);
/* @r on stdout, as text or JSON. */
void kreplay_print(const char *path, const struct kreplay_result *r, bool json);

#endif
