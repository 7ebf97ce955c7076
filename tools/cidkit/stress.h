/* SPDX-License-Identifier: MIT */
/*
 * The engine of `cidkit stress` (stress.c): workloads that steer the
 * kernel's mm_cid machinery, and the invariants watched from user space.
 *
 * The shapes come from the checker's scenarios (sim/, cidkit check) and
 * the 6.19 fixes they model: "sched/mmcid: Handle vfork()/CLONE_VM
 * correctly" (a task sharing the mm without being a thread is missed by
 * the fixup walk when users cross the CPU count: N CPUs are left N-1
 * CIDs) and "sched/mmcid: Prevent CID stalls due to concurrent forks"
 * (both merged for 7.0-rc4, backported to 6.19.9, 2026-03).  A phase:
 * the workers go from a count below the allowed CPUs to one above (the
 * extra ones released together at a barrier), run, and the extra ones
 * exit; meanwhile, per workload, CLONE_VM children sleep, helper threads
 * fork, and one worker at a time is pinned to a random CPU and back.
 */
#ifndef CIDKIT_TOOLS_STRESS_H
#define CIDKIT_TOOLS_STRESS_H

#include <stdbool.h>
#include <stdint.h>

#define STRESS_MAX_THREADS 1024u

enum stress_workload {
	STRESS_MIXED,
	STRESS_THREADS,
	STRESS_VFORK,
	STRESS_FORKS,
	STRESS_AFFINITY,
	STRESS_VFORK_REPRO,
	STRESS_FORK_RACE,
	STRESS_AFFINITY_WIDEN,
};

/* affinity-widen's round kinds and what a swap of CPUs showed */
enum { AW_FRESH, AW_WIDENED, AW_EXIT, AW_KINDS };
enum { AW_TASK, AW_CPU, AW_OTHER, AW_SEEN };

enum stress_break {
	BREAK_NONE,
	BREAK_UNIQUENESS, /* every add to copy 0: one CID for all */
	BREAK_BOUND,      /* the read mm_cid + 1 */
	BREAK_PROGRESS,   /* worker 0 stops advancing */
	BREAK_COMPACTION, /* the check's bound 0: no CID passes */
};

enum stress_inv { INV_UNIQUENESS, INV_BOUND, INV_PROGRESS, INV_COMPACTION, INV_N };
enum stress_verdict { V_NA, V_PASS, V_FAIL };

struct stress_result {
	enum stress_verdict v[INV_N];
	char why[INV_N][160];
	double secs;
	unsigned int phases, max_users;
	int max_cid;
	unsigned long threads, clones, forks, affinity_changes;
	uint64_t reads, adds;
	int64_t lost;
	unsigned int max_gap_ms, slowest_compaction_ms;
	/* affinity-widen: [kind][AW_TASK..AW_OTHER] swaps, and each kind's
	 * largest mm_cid (-1: none read) */
	unsigned long aw[AW_KINDS][AW_SEEN];
	int aw_max_cid[AW_KINDS];
};

struct stress_run {
	/* in */
	unsigned int seconds, max_threads, watchdog_ms, compact_ms, heartbeat_ms;
	uint64_t seed;
	enum stress_workload workload;
	enum stress_break brk;
	const char *workload_name;
	/* out */
	unsigned int allowed; /* CPUs in the process's affinity at the start */
	struct stress_result res;
};

/*
 * stress_run - run @r's workload for r->seconds (plus the last phase's
 * exits) and fill r->res.  Returns 0, or a negative errno when the run
 * could not be set up (no memory, no threads).  Not MT-safe (one run per
 * process: it changes the process's threads and affinities).
 */
int stress_run(struct stress_run *r);

/* Did every invariant hold (pass or n/a)? */
bool stress_ok(const struct stress_result *s);

#endif /* CIDKIT_TOOLS_STRESS_H */
