/* SPDX-License-Identifier: MIT */
/*
 * lib/internal/cidkit_lab.h - what the library gives the lab and nobody
 * else: the one door from the lab (check/, sim/, trace/, bench/,
 * tools/cidkit/, tests/) into libcidkit's internals.
 *
 * Why a separate header: the installed headers (include/cidkit/) declare
 * exactly the exported, documented API (docs/api.md, checked against nm -D
 * by tests/install/abi.py).  The functions below are compiled into
 * libcidkit with hidden visibility: a lab program links them from the
 * static archive (libcidkit.a), a user of libcidkit.so cannot, and a
 * program built with only include/ on its path cannot even name them.
 * This folder is not installed, and the lab's include path holds it
 * instead of lib/ (meson.build: lab_dep), so a lab file that includes a
 * module's private header ("cid/cid_internal.h") does not compile; what the
 * lab needs of a module's internals is declared, or included, here.
 *
 * Here: the CID policies' interface proper (an mm's life cycle and its
 * scheduler events, the simulator's and the checker's drivers), the
 * invariant checker, the ownership policy's kernel-fix flags and the
 * policy-spec grammar that names them; the machine presets of the topology
 * spec grammar (for the command's listings); the quadratic reference
 * checks of topology sanity (tests, benchmarks); the benchmarks' clock, the
 * sysfs file opener, the behavioural ABI checks run by `cidkit abi`, and
 * the per-ISA union folds the mask benchmarks compare.
 */
#ifndef CIDKIT_LAB_H
#define CIDKIT_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cidkit/cid.h>
#include <cidkit/common.h>
#include <cidkit/mask.h>
#include <cidkit/topo.h>

/* Relative to this file: a few modules' lab-facing internals, whole. */
#include "../abi/abi.h"		   /* the checks of `cidkit abi` */
#include "../mask/mask_internal.h" /* cidk__mask_union_count_isa() */
#include "../util/clock.h"	   /* cidk__now_ns(), cidk__keep() */
#include "../util/file.h"	   /* cidk__open_regular() */

/* ==== CID policies (lib/cid/) ============================================ */

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
	/* "Prevent live lock on task to CPU mode transition" (2026-02-02): a
	   transit phase for the task -> CPU switch */
	CIDK_CID_FIX_W1 = 1u << 0,
	/* "Protect transition on weakly ordered systems" (2026-02-02): one
	   mode word */
	CIDK_CID_FIX_W2 = 1u << 1,
	/* "Drop per CPU CID immediately when switching to per task mode"
	   (2026-02-02) */
	CIDK_CID_FIX_W3 = 1u << 2,
	/* "Optimize transitional CIDs when scheduling out" (2026-02-02) */
	CIDK_CID_FIX_W4 = 1u << 3,
	/* "Don't assume CID is CPU owned on mode switch" (2026-02-10) */
	CIDK_CID_FIX_FEB = 1u << 4,
	/* "Prevent CID stalls due to concurrent forks" (2026-03-10) */
	CIDK_CID_FIX_FORK = 1u << 5,
	/* "Handle vfork()/CLONE_VM correctly" (2026-03-10) */
	CIDK_CID_FIX_VFORK = 1u << 6,
	CIDK_CID_FIXES_ALL = (1u << 7) - 1,
};

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

/*
 * The events below, and their concurrency:
 *
 *   | event \ may run concurrently with        | same mm, other task | same task |
 *   |------------------------------------------|---------------------|-----------|
 *   | switch, tick, return_to_user, migrate    | yes                 | no        |
 *   | fork, exit, set_affinity                 | yes                 | no        |
 *   | mm_create / mm_destroy                   | no                  | no        |
 *   | stats read, releases                     | yes (approximate)   | yes       |
 *
 * Time is always an argument (nanoseconds, any monotonic origin); a policy
 * never reads a clock.  "cpu" is an index below the nr_cpu_ids given at
 * creation; it names the CPU the event happens on (for leases: the CPU the
 * thread runs on now).  All shared state of an mm is manipulated with C11
 * atomics: the CID bitmap bit is the ownership of a CID; per-CPU and
 * per-task fields are hints, claimed with compare-and-swap.
 */

/*
 * cidk_cid_fix_name - "W1", "W2", "W3", "W4", "FEB", "FORK", "VFORK" for
 * one CIDK_CID_FIX_* bit; NULL for anything else.
 */
const char *cidk_cid_fix_name(unsigned int fix);

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
int cidk_cid_params_parse(const char *spec, struct cidk_cid_params *p);

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
int cidk_cid_params_name(const struct cidk_cid_params *p, char *buf,
			 size_t len);

/*
 * cidk_cid_mm_create - a new mm whose first task is allowed on @allowed.
 * @nr_cpu_ids is the width of every CPU mask and the number of possible
 * CPUs (CIDs never reach it).  The mm starts with no user: every task,
 * the first one included, joins with cidk_cid_fork() (the ownership
 * policy must know every task to walk them).
 * Returns 0 and *out, or -EINVAL (bad params, empty @allowed, width
 * mismatch) or -ENOMEM.  Not MT-safe with respect to the new mm.
 */
int cidk_cid_mm_create(const struct cidk_cid_params *p, unsigned int nr_cpu_ids,
		       const struct cidk_mask *allowed,
		       struct cidk_cid_mm **out);

/* cidk_cid_mm_destroy - free an mm (no task may be running). NULL: no-op. */
void cidk_cid_mm_destroy(struct cidk_cid_mm *mm);

/* cidk_cid_task_init - @t holds no CID and belongs to no mm. */
void cidk_cid_task_init(struct cidk_cid_task *t);

/*
 * cidk_cid_fork - a new task @t joins the mm (nr_users + 1), allowed on
 * @allowed (which grows the union).  @t is initialised here.
 * Returns 0 or -EINVAL (width mismatch).
 */
int cidk_cid_fork(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
		  const struct cidk_mask *allowed);

/*
 * cidk_cid_exit - task @t leaves the mm (nr_users - 1).  If it is running
 * it is first switched out on its CPU at @now.
 */
void cidk_cid_exit(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
		   uint64_t now);

/*
 * cidk_cid_set_affinity - task @t may now run on @allowed.  The mm's
 * allowed union only grows (cidk_mask_union_count), and nr_cpus_allowed
 * with it.  Returns the number of CPUs the union gained, or -EINVAL.
 */
int cidk_cid_set_affinity(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
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
unsigned int cidk_cid_switch(unsigned int cpu, struct cidk_cid_mm *prev_mm,
			     struct cidk_cid_task *prev,
			     struct cidk_cid_mm *next_mm,
			     struct cidk_cid_task *next, uint64_t now);

/*
 * cidk_cid_tick - the periodic tick on @cpu, where @t of @mm is running.
 * With the tick trigger, runs the compaction work when due.  Returns the
 * number of CPUs the compaction scan visited in this call (0: none ran).
 */
unsigned int cidk_cid_tick(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			   unsigned int cpu, uint64_t now);

/*
 * cidk_cid_return_to_user - @t of @mm, running on @cpu, returns to user
 * space (after a wake-up, a tick, a system call).  With the return-to-user
 * trigger, runs the compaction work when due.  Returns as cidk_cid_tick().
 */
unsigned int cidk_cid_return_to_user(struct cidk_cid_mm *mm,
				     struct cidk_cid_task *t, unsigned int cpu,
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
void cidk_cid_migrate(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
		      unsigned int from, unsigned int to, uint64_t now);

/*
 * cidk_cid_releases - the CIDs the compaction scan has released so far,
 * immediately or deferred: compaction_releases + deferred_releases of
 * cidk_cid_stats() (those per-CPU counters may lose a count when two
 * threads update one at once; this one does not), in one load (the
 * simulator prices each compaction call by its releases).  MT-safe.
 */
uint64_t cidk_cid_releases(const struct cidk_cid_mm *mm);

/*
 * cidk__cid_cpu_has_cid - whether the lazy family's per-CPU slot of @cpu
 * in @mm holds a CID now (idle there, or in use by a task running on
 * @cpu): what 6.4-6.18's sched_mm_cid_migrate_to() tests of its
 * destination, for the trace replay (trace/replay.c) so that it never
 * reads a policy's slots itself.  False for a policy outside the lazy
 * family (lazy, lazy-batched, cache-local) and for @cpu at or above @mm's
 * CPUs.  Reads only; MT-safe (one relaxed load), the answer as of the load.
 */
bool cidk__cid_cpu_has_cid(const struct cidk_cid_mm *mm, unsigned int cpu);

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
int cidk_cid_check(const struct cidk_cid_mm *mm,
		   struct cidk_cid_task *const *tasks, unsigned int n,
		   bool strict, char *why, size_t whylen);

/* ==== topology (lib/topo/) =============================================== */

/* The preset names, NULL-terminated, and the spec each one stands for. */
const char *const *cidk_topo_presets(void);
const char *cidk_topo_preset_spec(const char *name);

/*
 * The quadratic pairwise reference (tests, benchmarks): same answer and
 * same level as cidk_topo_span_sane() (the CPUs reported may differ).
 */
bool cidk_topo_span_sane_pairwise(const struct cidk_topo *t,
				  struct cidk_topo_insane *why);

/*
 * The quadratic reference: span pairwise, and each containment test by
 * comparing every pair of online CPUs (equal groups below must mean equal
 * groups above), placed in the chain the same way.  Same verdict, level
 * and kind as cidk_topo_sane() (the CPUs may differ).
 */
bool cidk_topo_sane_pairwise(const struct cidk_topo *t,
			     struct cidk_topo_insane *why);

#endif /* CIDKIT_LAB_H */
