/* SPDX-License-Identifier: MIT */
/*
 * check/scenario.h - the checker's scenarios: a small machine, a few tasks
 * of one mm, and a script of scheduler events per task.  Scenarios are
 * data, in a line grammar:
 *
 *	# a comment
 *	name   livelock-3cpu
 *	about  one line saying what it shows
 *	cpus   3                        (once, before 'allowed' and the tasks)
 *	allowed 0-1                     (every task's CPUs; default all)
 *	policy ownership:v6.19          (the default when --policy is not given)
 *	expect violation                (or: pass; what the default policy should give)
 *	task T0 initial: in 0; fork T3; out
 *	task T1 initial: in 1; out; migrate 2; in 2
 *	task T2 initial affinity 1-2:   (its own CPUs; default 'allowed')
 *	task T3: in 1; out
 *	task V initial clone-vm: in 2; out
 *
 * The full grammar, for users, is in docs/check.md ("Scenario files").
 * A task is one thread of the explorer.  `initial` tasks join the mm (a
 * fork, in the order given) before the exploration starts; the others are
 * created by a `fork NAME` event of a running task and start after it.
 * A `clone-vm` task shares the mm without being a thread of its process
 * (vfork(), clone(CLONE_VM)): the ownership walks find it another way.
 * `exit` of a running task runs while it still holds its CPU (the
 * kernel's do_exit()), then switches out for good; a task not running
 * exits as if it had run elsewhere (a shorthand).
 * Events: `in CPU` (switch in, on an idle CPU), `out`, `fork TASK`,
 * `exit`, `migrate CPU` (while not running), `affinity CPULIST`, `tick`,
 * `rtu` (return to user), and `enter CPU` / `leave`: a switch in and
 * out as a lease does them (lib/lease: the policy's fast path first,
 * lease_fast.h for the lazy family).  Time advances by 60 ms at every event, so the
 * lazy family's 100 ms expiry and scan period come due.
 */
#ifndef CIDKIT_CHECK_SCENARIO_H
#define CIDKIT_CHECK_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "chk.h"

#include "cidkit_lab.h" /* the library's lab-only interface */

#define SCN_MAX_EVENTS 16
#define SCN_MAX_CPUS 64

enum scn_ev_kind {
	SCN_IN,
	SCN_OUT,
	SCN_FORK,
	SCN_EXIT,
	SCN_MIGRATE,
	SCN_AFFINITY,
	SCN_TICK,
	SCN_RTU,
};

struct scn_event {
	enum scn_ev_kind kind;
	unsigned int arg;   /* CPU, or the forked task's index */
	uint64_t mask;	    /* affinity: CPUs */
	bool lease;	    /* in/out as a lease's enter/leave (fast path first) */
};

struct scn_task {
	char name[8];
	bool initial;
	uint64_t affinity;  /* its CPUs at its fork; 0: the scenario's allowed */
	unsigned int line;  /* where it is declared (for messages) */
	bool clone_vm;	    /* shares the mm, not a thread (vfork, CLONE_VM) */
	unsigned int nev;
	struct scn_event ev[SCN_MAX_EVENTS];
};

struct scenario {
	char name[32];
	char about[160];
	char policy[32];     /* "" : none given */
	int expect;	     /* 1 violation, 0 pass, -1 unsaid */
	unsigned int cpus;
	uint64_t allowed;    /* every task's allowed CPUs (default: all) */
	unsigned int ntasks;
	struct scn_task task[CHK_MAX_THREADS];
};

/*
 * Parse @text into @s.  Returns 0, or -EINVAL with a one-line reason in
 * @why: "line N: WHAT near 'TOKEN'" (the token when there is one).  A
 * `policy` must be one cidk_cid_params_parse() knows.  Cost linear in
 * the text.
 */
int scn_parse(const char *text, struct scenario *s, char *why, size_t len);

/* The named scenarios of the library: NULL-terminated array of texts. */
extern const char *const scn_library[];

/* The library's scenario named @name, parsed; -ENOENT if none. */
int scn_find(const char *name, struct scenario *s);

/* The library's @i-th scenario, parsed; -ENOENT past the end. */
int scn_find_index(unsigned int i, struct scenario *s);

/* The CPUs task @i starts with: its own affinity, or 'allowed'. */
static inline uint64_t scn_task_cpus(const struct scenario *s, unsigned int i)
{
	return s->task[i].affinity ? s->task[i].affinity : s->allowed;
}

/* "in 2", "fork T3", ... for the trace. */
void scn_event_str(const struct scenario *s, const struct scn_event *e,
		   char *buf, size_t len);

#endif /* CIDKIT_CHECK_SCENARIO_H */
