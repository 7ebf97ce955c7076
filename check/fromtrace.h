/* SPDX-License-Identifier: MIT */
/*
 * check/fromtrace.h - `cidkit check --from-trace TRACE`: a schedule
 * recorded by `cidkit trace record` (the ftrace text format; trace/) made
 * a scenario of the recorded thread group's tasks and events, to explore
 * around, and the recorded order as --replay directives (issue 38).
 *
 * The thread group: the header's tgid= (`# cidkit-trace:`), else the
 * first sched_process_exec's.  Its tasks, in order of appearance, are
 * T0, T1, ...: a task seen first as a fork's child is forked (`fork TN`
 * in the parent), any other is `initial`.  Events: a switch-in on CPU C
 * (`in C`), a switch-out (`out`), a fork (`fork TN`), an exit (`exit`),
 * an affinity change (the cpus_allowed kprobe: `affinity LIST`).  A task
 * the trace shows running (an rseq_update, a fork, a switch-out) that no
 * switch-in put there -- it ran when the recording started -- gets an
 * `in C` first; a switch-in on a CPU where another task of the group
 * still runs by the record switches that one out first.  Not kept: a
 * migration (the next switch-in moves the task's runqueue), wake-ups,
 * returns to user (they would be `rtu`), other thread groups (the
 * policies' idle task).  The prefix of the trace is taken up to the first
 * event past a limit: 8 tasks (the checker's threads), 16 events a task
 * (a scenario's), @max_events in all (the search's cost).
 *
 * Scenario text (the grammar of scenario.c), with comments: the trace,
 * each task's pid, where the prefix was cut, and the recorded order as
 * "# replay: --replay T0/2,T1/1,..." (event directives: the explorer runs
 * each event of the recorded order in turn).
 */
#ifndef CIDKIT_CHECK_FROMTRACE_H
#define CIDKIT_CHECK_FROMTRACE_H

#include <stddef.h>

/*
 * The scenario of trace @path: 0 and *@text (malloc'd, the caller frees;
 * *@replay points into it: the recorded order's directives, or "" when no
 * event was kept); -errno and a one-line reason in @why ("FILE:LINE: ..."
 * for a malformed line, "FILE: ..." else).
 */
int chk_from_trace(const char *path, unsigned int max_events, char **text,
		   const char **replay, char *why, size_t len);

#endif
