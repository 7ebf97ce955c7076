/* SPDX-License-Identifier: MIT */
/*
 * cidkit/cid.h - concurrency ID (CID) allocation policies.
 *
 * A CID is a small integer held by a task of an mm (a process) while it
 * runs, unique among the mm's running tasks, kept below
 * min(nr_cpus_allowed, nr_users) so that per-CID arrays stay compact (the
 * ownership policy, like the kernel since 6.19, below nr_cpu_ids, and
 * converging below min(opt + opt/4, nr_cpu_ids), opt = min(nr_cpus_allowed,
 * nr_users)).  The
 * policies here are the ones the Linux scheduler tried (docs/design.md,
 * "Concurrency IDs"); each is written once and driven by two drivers:
 *   - the simulator (sim/), single-threaded and deterministic;
 *   - leases (lease.h), where real threads enter and exit around a burst.
 *
 * The interface is a set of scheduler events on an mm.  Time is always an
 * argument (nanoseconds, any monotonic origin); a policy never reads a clock.
 * "cpu" is an index below the nr_cpu_ids given at creation; it names the
 * CPU the event happens on (for leases: the CPU the thread runs on now).
 *
 * Concurrency: all shared state of an mm is manipulated with C11 atomics.
 * The CID bitmap bit is the ownership of a CID; per-CPU and per-task
 * fields are hints, claimed with compare-and-swap.  No lock on a fast path.
 *
 *   | event \ may run concurrently with        | same mm, other task | same task |
 *   |------------------------------------------|---------------------|-----------|
 *   | switch, tick, return_to_user, migrate    | yes                 | no        |
 *   | fork, exit, set_affinity                 | yes                 | no        |
 *   | mm_create / mm_destroy                   | no                  | no        |
 *   | stats read                               | yes (approximate)   | yes       |
 *
 * Cost counters are plain relaxed loads and stores (never a shared RMW):
 * exact when one thread drives the mm (the simulator), approximate under
 * concurrent drivers.
 */
#ifndef CIDKIT_CID_H
#define CIDKIT_CID_H

#ifndef __cplusplus
#include <stdatomic.h> /* the library's C files rely on it; C++ has none */
#endif
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cidkit/common.h>
#include <cidkit/mask.h>

#ifdef __cplusplus
extern "C" {
#endif

/* No CID (the task is not running, or is not of this mm). */
#define CIDK_CID_NONE UINT32_MAX

/* The kernel's constants (lazy family). */
#define CIDK_CID_EXPIRY_NS (100ull * 1000 * 1000)      /* slot unused > 100 ms */
#define CIDK_CID_SCAN_PERIOD_NS (100ull * 1000 * 1000) /* one pass per 100 ms */

enum cidk_cid_policy_kind {
	CIDK_CID_BITMAP,       /* lowest free bit on switch-in, freed on switch-out */
	CIDK_CID_LAZY,	       /* per-(mm, CPU) slot + periodic compaction pass */
	CIDK_CID_LAZY_BATCHED, /* same, the pass visits <= batch CPUs per call */
	CIDK_CID_CACHE_LOCAL,  /* lazy + recent CID per slot + spread to nr_cids_used */
	CIDK_CID_INHERIT,      /* task's last -> CPU's last -> lowest free, bounded */
	CIDK_CID_OWNERSHIP,    /* tasks own CIDs, or CPUs do (Linux 6.19 and later) */
	CIDK_CID_NR_POLICIES,
};

/*
 * The published 2026 fixes of the ownership policy, one bit each, so that
 * the checker can take out one fix, or several, and show what each buys
 * (docs/check.md has the table; lib/cid/ownership.c the sources).  A
 * policy spec names them: "ownership" (every fix), "ownership:v6.19"
 * (none: the design as first merged, Nov 2025), "ownership:-W1" (every
 * fix but W1), "ownership:-W1-FORK" (every fix but those), and
 * "ownership:+W1+W4" (v6.19 with only those).  Only ownership has fixes.
 */
enum cidk_cid_fix {
	CIDK_CID_FIX_W1 = 1u << 0,    /* "Prevent live lock on task to CPU mode
					 transition" (2026-02-02): a transit
					 phase for the task -> CPU switch */
	CIDK_CID_FIX_W2 = 1u << 1,    /* "Protect transition on weakly ordered
					 systems" (2026-02-02): one mode word */
	CIDK_CID_FIX_W3 = 1u << 2,    /* "Drop per CPU CID immediately when
					 switching to per task mode"
					 (2026-02-02) */
	CIDK_CID_FIX_W4 = 1u << 3,    /* "Optimize transitional CIDs when
					 scheduling out" (2026-02-02) */
	CIDK_CID_FIX_FEB = 1u << 4,   /* "Don't assume CID is CPU owned on mode
					 switch" (2026-02-10) */
	CIDK_CID_FIX_FORK = 1u << 5,  /* "Prevent CID stalls due to concurrent
					 forks" (2026-03-10) */
	CIDK_CID_FIX_VFORK = 1u << 6, /* "Handle vfork()/CLONE_VM correctly"
					 (2026-03-10) */
	CIDK_CID_FIXES_ALL = (1u << 7) - 1,
};

/* Where the lazy family's compaction work runs when it is due. */
enum cidk_cid_scan_trigger {
	CIDK_CID_SCAN_TICK,	      /* from the tick of a running task of the mm */
	CIDK_CID_SCAN_RETURN_TO_USER, /* on the mm's tasks' return to user space */
};

struct cidk_cid_params {
	enum cidk_cid_policy_kind kind;
	enum cidk_cid_scan_trigger trigger; /* lazy family; default RETURN_TO_USER */
	unsigned int batch;	   /* lazy-batched: CPUs per scan call (default 16;
				      ignored by the other policies) */
	uint64_t expiry_ns;	   /* 0: CIDK_CID_EXPIRY_NS */
	uint64_t scan_period_ns;   /* 0: CIDK_CID_SCAN_PERIOD_NS */
	unsigned int reverted;	   /* ownership: the CIDK_CID_FIX_* taken out
				      (default 0: every fix applied) */
};

/* Per-mm cost counters: what the policies are compared on. */
struct cidk_cid_stats {
	uint64_t bitmap_rmw;	     /* atomic RMWs on the mm's CID bitmap */
	uint64_t bitmap_search;	     /* searches of the CID bitmap (find first zero...) */
	uint64_t compaction_calls;   /* calls of the compaction scan that did work */
	uint64_t compaction_cpus;    /* CPUs visited by those calls, in total */
	uint64_t compaction_max_cpus;/* most CPUs visited by one call */
	uint64_t compaction_releases;/* slot CIDs released by the scan */
	uint64_t deferred_releases;  /* releases deferred to a CPU running the mm */
	uint64_t handovers;	     /* CIDs passed between tasks without bitmap work */
	uint64_t cid_changes;	     /* a task switched in with another CID than last time */
	uint64_t allocations;	     /* a task switched in and needed a CID */
	uint64_t max_cid;	     /* the largest CID ever handed out */
	/* added with the implementation: */
	uint64_t slot_rmw;	     /* atomic RMWs on per-CPU slots and mm counters */
	uint64_t migrate_moves;	     /* slot CIDs moved along with a migrating task */
	/* ownership: */
	uint64_t mode_switches;	     /* per-task <-> per-CPU mode changes */
	uint64_t fixup_walks;	     /* fixup walks (over tasks or CPUs) */
	uint64_t fixup_visits;	     /* tasks or CPUs those walks visited */
	uint64_t transit_drops;	     /* transit CIDs given back at switch-out */
	uint64_t stalls;	     /* allocations that found no free CID after
					CIDK_CID_STALL_SPINS pauses (gave up) */
};

/*
 * How long an allocation that must succeed (ownership's mm_get_cid) waits
 * for another thread to free a CID, in pauses, before it gives up and
 * counts a stall.  The kernel waits forever; a bounded wait keeps a
 * broken variant from hanging a test (docs/cid.md).
 */
#define CIDK_CID_STALL_SPINS (1u << 16)

/*
 * Per-task state, owned by the driver (a simulated task, or a thread's
 * thread-local lease state), zero-initialised by cidk_cid_task_init().
 * The policy reads and writes it only from events of this task.
 */
struct cidk_cid_task {
	unsigned int cid;      /* held while running, else CIDK_CID_NONE */
	unsigned int last_cid; /* the last CID it held (inherit, cid_changes) */
	unsigned int cpu;      /* the CPU it runs on, while running */
	bool running;
	/* policy-private (ownership), never touched by drivers: */
	bool active;		       /* counted in the mm's users */
	bool clone_vm;		       /* shares the mm without being a thread of
					  its process (vfork, CLONE_VM) */
	unsigned int own;	       /* the kernel's t->mm_cid.cid, with flags */
	struct cidk_cid_task *next;    /* the mm's task list */
};

struct cidk_cid_mm; /* opaque: one mm's CID state */

/* ---- names -------------------------------------------------------------- */

/*
 * cidk_cid_policy_name - "bitmap", "lazy", "lazy-batched", "cache-local",
 * "inherit", "ownership"; NULL for an unknown kind.
 */
CIDK_EXPORT const char *cidk_cid_policy_name(enum cidk_cid_policy_kind kind);

/*
 * cidk_cid_policy_parse - the kind named @name (as above).
 * Returns 0, or -EINVAL for an unknown name (*kind unchanged).
 */
CIDK_EXPORT int cidk_cid_policy_parse(const char *name,
				      enum cidk_cid_policy_kind *kind);

/* Fill @p with the defaults for @kind. */
CIDK_EXPORT void cidk_cid_params_default(struct cidk_cid_params *p,
					 enum cidk_cid_policy_kind kind);

/*
 * cidk_cid_fix_name - "W1", "W2", "W3", "W4", "FEB", "FORK", "VFORK" for
 * one CIDK_CID_FIX_* bit; NULL for anything else.
 */
CIDK_EXPORT const char *cidk_cid_fix_name(unsigned int fix);

/*
 * cidk_cid_params_parse - the defaults for the policy named by @spec:
 * "NAME", or for ownership "NAME:FIXES" where FIXES is "current" (every
 * fix, the default), "v6.19" (none), "-F[-F...]" (every fix but those) or
 * "+F[+F...]" (v6.19 with only those), F a name of cidk_cid_fix_name()
 * in any case, each at most once; for lazy-batched "lazy-batched:B", B
 * (1 to 65535, decimal) the CPUs one scan call visits (default 16).
 * Returns 0, or -EINVAL for an unknown name, an unknown or repeated fix,
 * a mix of + and -, a bad B, or a suffix on any other policy (*p
 * unchanged).
 */
CIDK_EXPORT int cidk_cid_params_parse(const char *spec,
				      struct cidk_cid_params *p);

/*
 * cidk_cid_params_name - the spec of @p's policy and fixes, in the form
 * cidk_cid_params_parse() reads back to the same kind and fixes: "NAME",
 * "ownership:v6.19" when every fix is out, else "ownership:-F-F" when at
 * most half of the fixes are out, "ownership:+F+F" otherwise (fixes in
 * the order of their bits); "lazy-batched:B" when its batch is not the
 * default 16.  Writes at most @len bytes (NUL included).
 * Returns the length of the full name (as snprintf), or -EINVAL for an
 * unknown kind or unknown fix bits.
 */
CIDK_EXPORT int cidk_cid_params_name(const struct cidk_cid_params *p,
				     char *buf, size_t len);

/* ---- life cycle --------------------------------------------------------- */

/*
 * cidk_cid_mm_create - a new mm whose first task is allowed on @allowed.
 * @nr_cpu_ids is the width of every CPU mask and the number of possible
 * CPUs (CIDs never reach it).  The mm starts with no user: every task,
 * the first one included, joins with cidk_cid_fork() (the ownership
 * policy must know every task to walk them).
 * Returns 0 and *out, or -EINVAL (bad params, empty @allowed, width
 * mismatch) or -ENOMEM.  Not MT-safe with respect to the new mm.
 */
CIDK_EXPORT int cidk_cid_mm_create(const struct cidk_cid_params *p,
				   unsigned int nr_cpu_ids,
				   const struct cidk_mask *allowed,
				   struct cidk_cid_mm **out);

/* cidk_cid_mm_destroy - free an mm (no task may be running). NULL: no-op. */
CIDK_EXPORT void cidk_cid_mm_destroy(struct cidk_cid_mm *mm);

CIDK_EXPORT void cidk_cid_task_init(struct cidk_cid_task *t);

/* ---- events ------------------------------------------------------------- */

/*
 * cidk_cid_fork - a new task @t joins the mm (nr_users + 1), allowed on
 * @allowed (which grows the union).  @t is initialised here.
 * Returns 0 or -EINVAL (width mismatch).
 */
CIDK_EXPORT int cidk_cid_fork(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			      const struct cidk_mask *allowed);

/*
 * cidk_cid_exit - task @t leaves the mm (nr_users - 1).  If it is running
 * it is first switched out on its CPU at @now.
 */
CIDK_EXPORT void cidk_cid_exit(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			       uint64_t now);

/*
 * cidk_cid_set_affinity - task @t may now run on @allowed.  The mm's
 * allowed union only grows (cidk_mask_union_count), and nr_cpus_allowed
 * with it.  Returns the number of CPUs the union gained, or -EINVAL.
 */
CIDK_EXPORT int cidk_cid_set_affinity(struct cidk_cid_mm *mm,
				      struct cidk_cid_task *t,
				      const struct cidk_mask *allowed);

/*
 * cidk_cid_switch - on @cpu at @now, @prev (of @prev_mm) stops running and
 * @next (of @next_mm) starts.  A NULL mm with a NULL task is the idle
 * task; the two mms may differ, or be the same (then the CID may pass from
 * one task to the other).  Returns the CID @next holds (CIDK_CID_NONE when
 * @next is idle).  @prev gives back the per-CPU state of the CPU it
 * switched in on (prev->cpu; the same as @cpu for the simulator).
 * When the policy finds no CID within its bound (a driver ran more tasks
 * than the mm has allowed CPUs) the lowest free CID below nr_cpu_ids is
 * taken instead, which cidk_cid_check() reports; when none is free at all,
 * the call waits a bounded while for another driver's release in flight,
 * then lets @next run without a CID (CIDK_CID_NONE, counted in stalls,
 * reported by cidk_cid_check()).  MT-safe as the table above says.
 */
CIDK_EXPORT unsigned int cidk_cid_switch(unsigned int cpu,
					 struct cidk_cid_mm *prev_mm,
					 struct cidk_cid_task *prev,
					 struct cidk_cid_mm *next_mm,
					 struct cidk_cid_task *next,
					 uint64_t now);

/*
 * cidk_cid_tick - the periodic tick on @cpu, where @t of @mm is running.
 * With the tick trigger, runs the compaction work when due.  Returns the
 * number of CPUs the compaction scan visited in this call (0: none ran).
 */
CIDK_EXPORT unsigned int cidk_cid_tick(struct cidk_cid_mm *mm,
				       struct cidk_cid_task *t,
				       unsigned int cpu, uint64_t now);

/*
 * cidk_cid_return_to_user - @t of @mm, running on @cpu, returns to user
 * space (after a wake-up, a tick, a system call).  With the return-to-user
 * trigger, runs the compaction work when due.  Returns as cidk_cid_tick().
 */
CIDK_EXPORT unsigned int cidk_cid_return_to_user(struct cidk_cid_mm *mm,
						 struct cidk_cid_task *t,
						 unsigned int cpu,
						 uint64_t now);

/*
 * cidk_cid_migrate - the (not running) task @t of @mm moves from CPU
 * @from to CPU @to.  The lazy family does what the kernel's
 * sched_mm_cid_migrate_to() did: unless the mm has at least as many users
 * as allowed CPUs and @to already has a CID, the task's idle CID leaves
 * @from's slot (its recent CID cleared) for an empty slot of @to, or is
 * released when @to has one (counted in migrate_moves).  Ownership: a
 * task-owned CID moves with the task, a CPU-owned one stays.  A running
 * task is left alone.
 */
CIDK_EXPORT void cidk_cid_migrate(struct cidk_cid_mm *mm,
				  struct cidk_cid_task *t, unsigned int from,
				  unsigned int to, uint64_t now);

/* ---- queries ------------------------------------------------------------ */

/*
 * min(nr_cpus_allowed, nr_users): the bound a compact mm stays under
 * (ownership converges below its own max_cids, see above).
 */
CIDK_EXPORT unsigned int cidk_cid_max_cids(const struct cidk_cid_mm *mm);
CIDK_EXPORT unsigned int cidk_cid_nr_users(const struct cidk_cid_mm *mm);
CIDK_EXPORT unsigned int cidk_cid_nr_cpus_allowed(const struct cidk_cid_mm *mm);
CIDK_EXPORT unsigned int cidk_cid_nr_cpu_ids(const struct cidk_cid_mm *mm);
CIDK_EXPORT enum cidk_cid_policy_kind
cidk_cid_mm_policy(const struct cidk_cid_mm *mm);

/*
 * cidk_cid_releases - the CIDs the compaction scan has released so far,
 * immediately or deferred: compaction_releases + deferred_releases of
 * cidk_cid_stats() (those per-CPU counters may lose a count when two
 * threads update one at once; this one does not), in one load (the
 * simulator prices each compaction call by its releases).  MT-safe.
 */
CIDK_EXPORT uint64_t cidk_cid_releases(const struct cidk_cid_mm *mm);

/* Copy the mm's cost counters into @st. */
CIDK_EXPORT void cidk_cid_stats(const struct cidk_cid_mm *mm,
				struct cidk_cid_stats *st);

/*
 * cidk_cid_check - the invariant checker (tests, debug builds).  @tasks
 * are all the mm's live tasks (n of them).  Checks: no CID is held by two
 * running tasks; every running task holds a CID whose bitmap bit is set;
 * every CID is below nr_cpu_ids and below nr_cpus_allowed; when @strict,
 * also below min(nr_cpus_allowed, nr_users).  Also (added): a task not
 * running holds none; the lazy family's per-CPU slots hold distinct CIDs,
 * a busy slot's CID is the one of a task running on that CPU; and no CID
 * leaks (every bit set is owned by a running task or a slot).  Returns 0
 * when all hold, else -EINVAL and a description in @why (if not NULL,
 * @whylen bytes), or -ENOMEM.  Single-threaded only.
 */
CIDK_EXPORT int cidk_cid_check(const struct cidk_cid_mm *mm,
			       struct cidk_cid_task *const *tasks,
			       unsigned int n, bool strict, char *why,
			       size_t whylen);

#ifdef __cplusplus
}
#endif

#endif /* CIDKIT_CID_H */
