/* SPDX-License-Identifier: MIT */
/*
 * lib/cid/ownership.c - the ownership policy: the CID design Linux runs
 * since 6.19.
 *
 * Sources (public; the facts are the kernel's, the code is ours):
 *   [V5]   "sched: Rewrite MM CID management", T. Gleixner, V5 posted
 *          2025-11-19, merged for 6.19 (tip sched/core); V3 17/20
 *          "sched/mmcid: Provide CID ownership mode fixup functions"
 *          (2025-10-29) describes the modes, the fixup walks and the
 *          hysteresis pcpu_thrs = min(opt - opt/4, nr_cpu_ids/2).
 *   [WOES] "sched/mmcid: Cure mode transition woes", V2 2026-02-02 (tip
 *          sched/urgent 2026-02-04):
 *          1/4 "Prevent live lock on task to CPU mode transition" (W1: the
 *          task->CPU switch gains the transit phase the reverse one had),
 *          2/4 "Protect transition on weakly ordered systems" (W2: one
 *          mode word instead of two), 3/4 "Drop per CPU CID immediately
 *          when switching to per task mode" (W3: an exit that switches
 *          back gives its CPU's CID back instead of passing it to the
 *          exiting task in transit), 4/4 "Optimize transitional CIDs when
 *          scheduling out" (W4: a transit CID is kept, not dropped, once
 *          the transition is over).
 *   [FEB]  "sched/mmcid: Don't assume CID is CPU owned on mode switch",
 *          2026-02-10 (1e83ccd5921a): W3's drop only when the CPU owns
 *          the CID (a task still in transit had given it back already).
 *   [FORK] "sched/mmcid: Prevent CID stalls due to concurrent forks",
 *          2026-03-10, sched-urgent 2026-03-15: the new task becomes a
 *          CID user only after it is visible to the fixup walk.
 *   [VFORK] "sched/mmcid: Handle vfork()/CLONE_VM correctly", same pull:
 *          the walk's second pass, for the users that share the mm
 *          without being threads, no longer counts the threads again.
 *
 * Ownership.  A CID is owned by a task (its `own` word holds the plain
 * CID) or by a CPU (the CPU's slot holds CID | ONCPU; a task running
 * there uses it and mirrors it in `own`), or it is borrowed in transit
 * (CID | TRANSIT: given back at switch-out).  The bitmap bit is set for
 * exactly the owned CIDs.
 *
 * Modes.  Per-task while users <= max_cids = min(opt + opt/4, nr_cpu_ids),
 * opt = min(nr_cpus_allowed, users): a task keeps its CID across switches
 * and switch-in/out touch no bitmap bit.  A fork that makes users exceed
 * max_cids switches the mm to per-CPU: it sets the mode (with TRANSIT in
 * the current variant) and walks the tasks, moving each running task's
 * CID to its CPU (current: in transit, handed over at its switch-out) and
 * dropping the others' (fixup_tasks_to_cpus); a task that switches in
 * before the walk reaches it hands its CID over itself.  When users fall below
 * pcpu_thrs (recorded at the switch), the exit (or the affinity change)
 * switches back: TRANSIT is set, the CPUs are walked, their CIDs go to
 * the task running there (in transit) or to the pool, then TRANSIT is
 * cleared (fixup_cpus_to_tasks).  Convergence: at switch-in a CID at or
 * above max_cids is exchanged for a free one below it, when there is one.
 * CIDs stay below nr_cpu_ids, and may exceed nr_cpus_allowed (by the 25%
 * allowance, and during transitions): the kernel's bound, not the
 * nr_cpus_allowed of the older designs.
 *
 * Fixes (params.reverted: the CIDK_CID_FIX_* bits taken out; 0 = all):
 *   W1     without it the task->CPU switch sets the mode with no transit
 *          phase and the walk moves a running task's CID to its CPU;
 *   W2     without it the mode is two words percpu and transit, written
 *          transit-first by relaxed stores (6.19's WRITE_ONCE()s, no
 *          barrier around the fixups); a switch that reads the new percpu
 *          word with the old transit word needs weak ordering (`cidkit
 *          check --memory rc11` finds it), sequential consistency never;
 *   W3     without it an exit that switches back to per-task passes its
 *          CPU's CID (when the CPU owns one) to the exiting task, in
 *          transit; with W4 the task keeps it at its last switch-out;
 *   W4     without it a transit CID is always dropped at switch-out;
 *   FEB    without it W3's drop takes the CPU's CID as CPU-owned, and a
 *          value with TRANSIT in it is given back (put_value() records
 *          it for the invariant checker instead of writing past the
 *          bitmap, as the kernel's clear_bit() did);
 *   FORK   without it fork counts the new task as a user and gives it a
 *          CID before it is on the task list;
 *   VFORK  without it the walk's second pass counts threads against the
 *          users left and stops before the CLONE_VM users.
 *   "v6.19" takes out all seven: the design as first merged.
 *
 * Locks (user-space stand-ins, cid_atomic.h), in nesting order:
 *   mutex      the kernel's mm_cid.mutex and mm_cid.lock folded into one:
 *              serialises fork, exit and affinity changes, and so users,
 *              max_cids, pcpu_thrs, the mode of record, `active`, and the
 *              walks.  (The kernel's raw spinlock exists because affinity
 *              changes run under a runqueue lock and cannot sleep; ours
 *              can, so one lock orders the same accesses.)
 *   list_lock  the task list (the kernel walks it under RCU and adds to
 *              it under tasklist_lock; a walk here holds the lock).
 *   rq_lock    per CPU, the runqueue lock: a slot's cid and curr, and the
 *              `own` word of the tasks whose `cpu` is that CPU.  A task's
 *              `cpu` changes only under its old CPU's rq_lock, so
 *              task_rq_lock() (read cpu, lock, re-check) pins it.  The
 *              kernel also holds the new rq's lock, or marks the task
 *              MIGRATING, while it moves; here the move's store of `cpu`
 *              is a release and the re-check an acquire, so that a walker
 *              that pins the task on its new CPU before the task takes
 *              that CPU's lock sees the task's `own` as it left it (a
 *              data race ThreadSanitizer found in lease_churn).
 * Lock-free: the mode words and max_cids (read at every switch-in), the
 * bitmap (atomic RMWs), nr_users and nr_cpus_allowed.
 *
 * Departures from the kernel, each for a reason:
 *   - the mode switch back to per-task after an affinity change runs in
 *     the caller's context; the kernel defers it to a work item;
 *   - mm_get_cid() waits CIDK_CID_STALL_SPINS pauses, then gives up and
 *     counts a stall (the kernel waits forever: a broken variant must not
 *     hang a test); the switch-in then fails and leaves no trace;
 *   - leases only: a thread whose CPU's slot is running another thread of
 *     the mm (preempted inside a lease, which the kernel never sees) takes
 *     the next free allowed CPU's slot instead; with every allowed slot
 *     busy the switch-in fails (cidk_lease_enter() waits).
 *   - the forking task is handed over by the walk like every other task
 *     (the kernel transfers `current` first, then walks the others: the
 *     same when the forker is first on the list, as the first task is);
 *   - the walk's two passes go over one list of the mm's tasks in
 *     creation order (the kernel: the thread group, then every task of
 *     the system, since VFORK's pull a list of the mm's users); the
 *     behaviour without VFORK is our reading of the fix's summary;
 *   - exit runs on the running task (as do_exit() does) only when the
 *     checker calls cidk__cid_exit_running(); cidk_cid_exit() (the
 *     simulator, leases) switches the task out first; a task exiting
 *     while not running touches no CPU's CID;
 *   - without W3 the exiting task takes its CPU's CID only when the CPU
 *     owns one (the change log: "reassigns the per CPU CID").
 *
 * Cost: a switch-in in per-task mode that keeps its CID is two loads of
 * mm words, the rq_lock, and no bitmap RMW; a switch-out one load.  The
 * walks are O(tasks) and O(nr_cpu_ids), once per mode switch.
 */
#include "cid/cid_internal.h"

#define OWN_UNSET CIDK__OWN_UNSET	/* MM_CID_UNSET */
#define OWN_ONCPU 0x40000000u	/* MM_CID_ONCPU: the CPU owns it */
#define OWN_TRANSIT 0x20000000u /* MM_CID_TRANSIT: borrowed until switch-out */

static inline unsigned int own_cid(unsigned int v)
{
	return v & ~(OWN_ONCPU | OWN_TRANSIT);
}

static inline bool on_task(unsigned int v)
{
	return v < OWN_TRANSIT;
}

static inline bool on_cpu(unsigned int v)
{
	return (v & OWN_ONCPU) != 0 && v != OWN_UNSET;
}

static inline bool in_transit(unsigned int v)
{
	return (v & OWN_TRANSIT) != 0 && v != OWN_UNSET;
}

/* Is the published fix @fix (CIDK_CID_FIX_*) applied? */
static inline bool fixed(const struct cidk_cid_mm *mm, unsigned int fix)
{
	return !(mm->p.reverted & fix);
}

/*
 * Give back a CID the way the kernel's clear_bit() would: a value at or
 * above nr_cpu_ids (flag bits left in it) is recorded for the invariant
 * checker instead of written past the bitmap.
 */
static void put_value(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
		      unsigned int v)
{
	if (v >= mm->nr_cpu_ids) {
		if (!mm->bad_put)
			mm->bad_put = v;
		return;
	}
	cidk__cid_put(mm, sh, v);
}

/* ---- the pool ------------------------------------------------------------- */

/* __mm_get_cid: one search below @limit, one test-and-set; no retry. */
static unsigned int get_below(struct cidk_cid_mm *mm,
			      struct cidk__cid_shard *sh, unsigned int limit)
{
	unsigned int cid;

	if (limit > mm->nr_cpu_ids)
		limit = mm->nr_cpu_ids;
	cidk__st_add(sh, ST_BITMAP_SEARCH, 1);
	cid = cidk__cid_first_zero(mm, limit);
	if (cid >= limit || !cidk__cid_try_take(mm, sh, cid))
		return CIDK_CID_NONE;
	return cid;
}

/*
 * mm_get_cid: below max_cids, else anywhere below nr_cpu_ids, waiting for
 * a free one (the kernel spins with the runqueue lock held).  NONE after
 * CIDK_CID_STALL_SPINS pauses: a stall.
 */
static unsigned int get_cid(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh)
{
	unsigned int cid = get_below(mm, sh, cidk__ld(&mm->max_cids));

	for (unsigned int spins = 0; cid == CIDK_CID_NONE; spins++) {
		if (spins == CIDK_CID_STALL_SPINS) {
			cidk__st_add(sh, ST_STALLS, 1);
			return CIDK_CID_NONE;
		}
		cidk__spin_wait();
		cid = get_below(mm, sh, mm->nr_cpu_ids);
	}
	return cid;
}

/* mm_cid_converge: a CID below @max for @orig, keeping its ONCPU bit. */
static unsigned int converge(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
			     unsigned int orig, unsigned int max)
{
	unsigned int cid = get_below(mm, sh, max);

	if (cid == CIDK_CID_NONE)
		return orig;
	cidk__cid_put(mm, sh, own_cid(orig));
	return cid | (orig & OWN_ONCPU);
}

/* ---- locks ------------------------------------------------------------------ */

/* (macros, so that the checker's trace names the caller's line) */
#define rq_lock(mm, cpu) rq_lock_((mm), (cpu), CIDK__SITE)
#define rq_unlock(sl) cidk__unlock(&(sl)->rq_lock)

static inline struct cidk__cid_slot *rq_lock_(struct cidk_cid_mm *mm,
					      unsigned int cpu,
					      const struct cidk__site *s)
{
	cidk__lock_(&mm->slots[cpu].rq_lock, s);
	return &mm->slots[cpu];
}

/* task_rq_lock: lock the runqueue of the CPU @t is on, and pin it there. */
static struct cidk__cid_slot *task_rq_lock(struct cidk_cid_mm *mm,
					   struct cidk_cid_task *t)
{
	for (;;) {
		unsigned int cpu = cidk__ldp(&t->cpu);
		struct cidk__cid_slot *sl = rq_lock(mm, cpu);

		if (cidk__ldp(&t->cpu) == cpu)
			return sl;
		rq_unlock(sl);
	}
}

/* @t (not running, the caller's own task) moves to @cpu. */
static void move_task(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
		      unsigned int cpu)
{
	unsigned int from = t->cpu;
	struct cidk__cid_slot *sl;

	if (from == cpu)
		return;
	sl = rq_lock(mm, from);
	cidk__stp(&t->cpu, cpu);
	rq_unlock(sl);
}

/* ---- the mode ------------------------------------------------------------- */

/* Publish a new mode (mutex held); ONCPU and TRANSIT bits. */
static void set_mode(struct cidk_cid_mm *mm, unsigned int mode)
{
	if (fixed(mm, CIDK_CID_FIX_W2)) {
		cidk__st_mb(&mm->mode, mode);
		return;
	}
	/* without W2: two words, transit first, relaxed (see the header) */
	cidk__st(&mm->transit, mode & OWN_TRANSIT);
	cidk__st(&mm->percpu, (mode & OWN_ONCPU) ? 1u : 0u);
}

/* The mode as a switch reads it: one word (W2), or two loads. */
static unsigned int load_mode(struct cidk_cid_mm *mm)
{
	unsigned int m;

	if (fixed(mm, CIDK_CID_FIX_W2))
		return cidk__ld(&mm->mode);
	m = cidk__ld(&mm->percpu) ? OWN_ONCPU : 0;
	return m | cidk__ld(&mm->transit);
}

static unsigned int min_u(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

/*
 * mm_update_max_cids (mutex held): recompute max_cids and decide the
 * mode.  [V5]: opt = min(nr_cpus_allowed, users); max_cids = min(opt +
 * opt/4, nr_cpu_ids) -- the 25% allowance keeps a tight affinity mask
 * from flipping modes at every fork -- and the mm goes per-CPU when users
 * exceed max_cids, back when they fall below pcpu_thrs = min(opt - opt/4,
 * nr_cpu_ids/2), recorded at the switch and recomputed when the allowed
 * set widens.  Returns +1 (to per-CPU), -1 (to per-task) or 0.
 */
static int update_max_cids(struct cidk_cid_mm *mm, bool widened)
{
	unsigned int allowed = cidk__ld(&mm->nr_cpus_allowed);
	unsigned int users = cidk__ld(&mm->nr_users);
	unsigned int opt = min_u(allowed, users);
	unsigned int max = min_u(opt + opt / 4, mm->nr_cpu_ids);
	unsigned int thrs = min_u(opt - opt / 4, mm->nr_cpu_ids / 2);

	cidk__st(&mm->max_cids, max);
	if (!mm->own_percpu) {
		if (users <= max)
			return 0;
		mm->pcpu_thrs = thrs;
		mm->own_percpu = true;
		return 1;
	}
	if (widened)
		mm->pcpu_thrs = thrs;
	if (users >= mm->pcpu_thrs)
		return 0;
	mm->own_percpu = false;
	return -1;
}

/* ---- the walks ------------------------------------------------------------- */

/*
 * mm_cid_fixup_tasks_to_cpus (mutex held, mode already per-CPU): each
 * visible, active task's own CID goes to the CPU it runs on, or to the
 * pool when it is not running.  Then the transit phase ends.
 */
/* One task of the walk: true when it is a CID user (active). */
static bool fixup_task_to_cpu(struct cidk_cid_mm *mm,
			      struct cidk__cid_shard *sh,
			      struct cidk_cid_task *t)
{
	struct cidk__cid_slot *sl = task_rq_lock(mm, t);
	bool user = t->active;

	cidk__st_add(sh, ST_FIXUP_VISITS, 1);
	if (t->active && on_task(t->own)) {
		if (sl->curr == t) {
			/*
			 * without W1: straight to the CPU; with it: in
			 * transit, handed to the CPU at switch-out
			 */
			t->own |= fixed(mm, CIDK_CID_FIX_W1) ? OWN_TRANSIT :
							       OWN_ONCPU;
			sl->cid = t->own;
		} else {
			cidk__cid_put(mm, sh, t->own);
			t->own = OWN_UNSET;
		}
	}
	rq_unlock(sl);
	return user;
}

/*
 * The kernel's walk: the forker's threads, then (users left) every task,
 * for_each_process_thread(): the forker's process (its threads again),
 * then later ones, its CLONE_VM children; without VFORK the threads,
 * counted again, can spend the budget before the children (a departure:
 * the forker too, which the kernel skips as current).  With VFORK the
 * threads are skipped.  Our list holds both kinds in creation order: the
 * second pass takes the threads first, then the CLONE_VM users. */
static void fixup_tasks_to_cpus(struct cidk_cid_mm *mm,
				struct cidk__cid_shard *sh)
{
	unsigned int users = cidk__ld(&mm->nr_users);

	cidk__st_add(sh, ST_FIXUP_WALKS, 1);
	cidk__lock(&mm->list_lock);
	for (struct cidk_cid_task *t = mm->tasks; t; t = t->next)
		if (!t->clone_vm && fixup_task_to_cpu(mm, sh, t) && users)
			users--;
	for (unsigned int vm = 0; vm < 2; vm++) /* threads, then CLONE_VM */
		for (struct cidk_cid_task *t = mm->tasks; t && users; t = t->next)
			if (t->clone_vm == vm &&
			    (vm || !fixed(mm, CIDK_CID_FIX_VFORK)) &&
			    fixup_task_to_cpu(mm, sh, t))
				users--;
	cidk__unlock(&mm->list_lock);
	if (fixed(mm, CIDK_CID_FIX_W1))
		set_mode(mm, OWN_ONCPU); /* transit over */
}

/*
 * mm_cid_fixup_cpus_to_tasks (mutex held, mode per-task with TRANSIT):
 * each CPU's CID goes to the task running there, in transit, or to the
 * pool; a task running with a task CID is marked in transit.  Then
 * TRANSIT is cleared: from here on CIDs are strictly task-owned.
 */
static void fixup_cpus_to_tasks(struct cidk_cid_mm *mm,
				struct cidk__cid_shard *sh)
{
	cidk__st_add(sh, ST_FIXUP_WALKS, 1);
	for (unsigned int c = 0; c < mm->nr_cpu_ids; c++) {
		struct cidk__cid_slot *sl = rq_lock(mm, c);
		struct cidk_cid_task *cur = sl->curr;

		cidk__st_add(sh, ST_FIXUP_VISITS, 1);
		if (on_cpu(sl->cid)) {
			if (cur && cur->active) {
				cur->own = own_cid(sl->cid) | OWN_TRANSIT;
				sl->cid = cur->own;
			} else {
				cidk__cid_put(mm, sh, own_cid(sl->cid));
				sl->cid = OWN_UNSET;
			}
		} else if (cur && cur->active && !in_transit(cur->own)) {
			cur->own |= OWN_TRANSIT;
			sl->cid = cur->own;
		}
		rq_unlock(sl);
	}
	set_mode(mm, 0);
}

/* Switch the mode as update_max_cids() decided (mutex held). */
static void switch_mode(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
			int dir)
{
	cidk__st_add(sh, ST_MODE_SWITCHES, 1);
	if (dir > 0) {
		set_mode(mm, fixed(mm, CIDK_CID_FIX_W1) ?
				     OWN_ONCPU | OWN_TRANSIT : OWN_ONCPU);
		fixup_tasks_to_cpus(mm, sh);
	} else {
		set_mode(mm, OWN_TRANSIT);
		fixup_cpus_to_tasks(mm, sh);
	}
}

/* ---- switch-in and switch-out (rq_lock held) -------------------------------- */

/* mm_cid_from_task: the per-task mode's switch-in. */
static unsigned int from_task(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
			      struct cidk_cid_task *t, struct cidk__cid_slot *sl,
			      unsigned int mode)
{
	unsigned int cpu_cid = sl->cid, tcid = t->own;
	unsigned int max = cidk__ld(&mm->max_cids);

	if (on_task(tcid) && on_task(cpu_cid)) {
		if (tcid >= max)
			tcid = converge(mm, sh, tcid, max);
	} else {
		/* hand over or drop the CPU's CID */
		if (on_cpu(cpu_cid)) {
			if (on_task(tcid)) {
				cidk__cid_put(mm, sh, own_cid(cpu_cid));
				sl->cid = OWN_UNSET;
			} else {
				tcid = own_cid(cpu_cid);
			}
		}
		if (!on_task(tcid)) {
			tcid = get_cid(mm, sh);
			if (tcid == CIDK_CID_NONE) {
				t->own = OWN_UNSET;
				return CIDK_CID_NONE;
			}
		}
		tcid |= mode & OWN_TRANSIT;
	}
	sl->cid = tcid;
	t->own = tcid;
	return own_cid(tcid);
}

/* mm_cid_from_cpu: the per-CPU mode's switch-in. */
static unsigned int from_cpu(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
			     struct cidk_cid_task *t, struct cidk__cid_slot *sl,
			     unsigned int mode)
{
	unsigned int cpu_cid = sl->cid, tcid = t->own;
	unsigned int max = cidk__ld(&mm->max_cids);

	if (on_cpu(cpu_cid & tcid)) {
		if (own_cid(cpu_cid) >= max)
			cpu_cid = converge(mm, sh, cpu_cid, max);
	} else {
		/* hand over or drop the task's own CID */
		if (on_task(tcid)) {
			if (on_cpu(cpu_cid)) {
				cidk__cid_put(mm, sh, tcid);
				t->own = OWN_UNSET;
			} else {
				cpu_cid = tcid | OWN_ONCPU;
			}
		}
		if (!on_cpu(cpu_cid)) {
			unsigned int cid = get_cid(mm, sh);

			if (cid == CIDK_CID_NONE) {
				t->own = OWN_UNSET;
				return CIDK_CID_NONE;
			}
			cpu_cid = cid | OWN_ONCPU;
		}
		if (mode & OWN_TRANSIT) /* only with W1 */
			cpu_cid = own_cid(cpu_cid) | OWN_TRANSIT;
	}
	sl->cid = cpu_cid;
	t->own = cpu_cid;
	return own_cid(cpu_cid);
}

/*
 * The slot to run on: @cpu's, or (leases only, see the header) the next
 * allowed one not running a task of the mm.  Returns it locked, or NULL.
 */
static struct cidk__cid_slot *claim_cpu(struct cidk_cid_mm *mm,
					struct cidk_cid_task *t,
					unsigned int *cpu)
{
	unsigned int n = mm->nr_cpu_ids;

	for (unsigned int i = 0; i < n; i++) {
		unsigned int c = (*cpu + i) % n;
		struct cidk__cid_slot *sl;

		if (i && !cidk__mask_test(mm->allowed, c))
			continue;
		move_task(mm, t, c);
		sl = rq_lock(mm, c);
		if (!sl->curr) {
			*cpu = c;
			return sl;
		}
		rq_unlock(sl);
	}
	return NULL;
}

static unsigned int ownership_switch_in(struct cidk_cid_mm *mm,
					struct cidk_cid_task *t,
					unsigned int cpu, uint64_t now)
{
	struct cidk__cid_shard *sh = cidk__shard(mm, cpu);
	struct cidk__cid_slot *sl = claim_cpu(mm, t, &cpu);
	unsigned int mode, cid;

	(void)now;
	if (!sl)
		return CIDK_CID_NONE;
	mode = load_mode(mm);
	if (mode & OWN_ONCPU)
		cid = from_cpu(mm, sh, t, sl, mode);
	else
		cid = from_task(mm, sh, t, sl, mode);
	if (cid != CIDK_CID_NONE) {
		sl->curr = t;
		cidk__cid_count_in(sh, t, cid); /* t->cpu is set: move_task */
	}
	rq_unlock(sl);
	return cid;
}

/* mm_cid_schedout: only a transit CID needs work. */
static void ownership_switch_out(struct cidk_cid_mm *mm,
				 struct cidk_cid_task *t, uint64_t now)
{
	struct cidk__cid_shard *sh = cidk__shard(mm, t->cpu);
	struct cidk__cid_slot *sl = rq_lock(mm, t->cpu);
	unsigned int cid = own_cid(t->own);

	(void)now;
	sl->curr = NULL;
	if (in_transit(t->own)) {
		if (fixed(mm, CIDK_CID_FIX_W4)) {
			/* transition over: keep it, as the mode says */
			unsigned int mode = load_mode(mm);

			if (!(mode & OWN_TRANSIT) &&
			    cid < cidk__ld(&mm->max_cids)) {
				if (mode & OWN_ONCPU)
					cid |= OWN_ONCPU;
				sl->cid = cid;
				t->own = cid;
				rq_unlock(sl);
				return;
			}
		}
		cidk__cid_put(mm, sh, cid);
		cidk__st_add(sh, ST_TRANSIT_DROPS, 1);
		t->own = OWN_UNSET;
	}
	rq_unlock(sl);
}

static void ownership_migrate(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			      unsigned int from, unsigned int to)
{
	(void)from;
	move_task(mm, t, to); /* task-owned CIDs move with the task */
}

/* ---- fork, exit, affinity (the mutex) --------------------------------------- */

static void list_add_task(struct cidk_cid_mm *mm, struct cidk_cid_task *t)
{
	struct cidk_cid_task **pp;

	cidk__lock(&mm->list_lock);
	for (pp = &mm->tasks; cidk__lld(pp); pp = &(*pp)->next)
		;
	t->next = NULL;
	cidk__lst(pp, t);
	cidk__unlock(&mm->list_lock);
}

static void list_del_task(struct cidk_cid_mm *mm, struct cidk_cid_task *t)
{
	cidk__lock(&mm->list_lock);
	for (struct cidk_cid_task **pp = &mm->tasks; cidk__lld(pp); pp = &(*pp)->next)
		if (*pp == t) {
			cidk__lst(pp, t->next);
			break;
		}
	t->next = NULL;
	cidk__unlock(&mm->list_lock);
}

/* sched_mm_cid_fork (with [FORK]: after the task is visible) */
static void ownership_fork(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			   const struct cidk_mask *allowed)
{
	struct cidk__cid_shard *sh = cidk__shard(mm, 0);
	int dir;

	t->own = OWN_UNSET;
	if (fixed(mm, CIDK_CID_FIX_FORK))
		list_add_task(mm, t);
	cidk__lock(&mm->mutex);
	cidk__cid_grow_union(mm, allowed);
	t->active = true;
	cidk__add(&mm->nr_users, 1);
	dir = update_max_cids(mm, false);
	if (dir)
		switch_mode(mm, sh, dir);
	if (!mm->own_percpu)
		t->own = get_cid(mm, sh); /* per-task: it owns one from birth */
	if (t->own == CIDK_CID_NONE)
		t->own = OWN_UNSET;
	cidk__unlock(&mm->mutex);
	if (!fixed(mm, CIDK_CID_FIX_FORK))
		list_add_task(mm, t);
}

/*
 * The exiting task's CPU when the exit switches the mm back to per-task
 * (rq_lock held, the mode already per-task with TRANSIT).  With W3 its
 * CID goes back to the pool -- without FEB assuming the CPU owns it, so
 * that a CID the task held in transit (its own already given back) is
 * put again with the TRANSIT bit in it; without W3 (the leftover W3
 * removed) the CPU's CID passes to the exiting task, in transit.
 */
static void exit_cpu_cid(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
			 struct cidk_cid_task *t, struct cidk__cid_slot *sl)
{
	if (fixed(mm, CIDK_CID_FIX_W3)) {
		if (!fixed(mm, CIDK_CID_FIX_FEB) || on_cpu(sl->cid)) {
			sl->cid &= ~OWN_ONCPU; /* kept, not UNSET (kernel) */
			put_value(mm, sh, sl->cid);
		}
	} else if (on_cpu(sl->cid)) {
		t->own = own_cid(sl->cid) | OWN_TRANSIT;
		sl->cid = t->own;
	}
}

/*
 * sched_mm_cid_exit: @t stops being a user; its own CID (task-owned or in
 * transit) goes back to the pool, a CPU's stays with the CPU.  @t may
 * still run on its CPU (cidk__cid_exit_running, as in the kernel) or be
 * switched out already (cidk_cid_exit: the simulator's and the leases'
 * order).  The last user's exit on its CPU switches no mode and walks
 * nothing, as the kernel's, whose mm goes away; a lease domain outlives
 * its users, so there (not running) the last exit still switches back.
 */
static void ownership_exit(struct cidk_cid_mm *mm, struct cidk_cid_task *t)
{
	struct cidk__cid_shard *sh = cidk__shard(mm, 0);
	struct cidk__cid_slot *sl;
	bool running;
	int dir = 0;

	cidk__lock(&mm->mutex);
	sl = task_rq_lock(mm, t);
	running = sl->curr == t;
	t->active = false;
	if (on_task(t->own) || in_transit(t->own))
		cidk__cid_put(mm, sh, own_cid(t->own));
	t->own = OWN_UNSET;
	rq_unlock(sl);
	/* the kernel's last user walks nothing: its mm goes away */
	if (cidk__sub(&mm->nr_users, 1) != 1 || !running)
		dir = update_max_cids(mm, false);
	if (dir < 0) {
		cidk__st_add(sh, ST_MODE_SWITCHES, 1);
		set_mode(mm, OWN_TRANSIT);
		if (running) {
			sl = rq_lock(mm, t->cpu);
			exit_cpu_cid(mm, sh, t, sl);
			rq_unlock(sl);
		}
		fixup_cpus_to_tasks(mm, sh);
	} else if (dir > 0) {
		switch_mode(mm, sh, dir);
	}
	cidk__unlock(&mm->mutex);
	list_del_task(mm, t);
}

/* mm_update_cpus_allowed (+ the deferred mode switch, done here) */
static unsigned int ownership_affinity(struct cidk_cid_mm *mm,
				       const struct cidk_mask *allowed)
{
	struct cidk__cid_shard *sh = cidk__shard(mm, 0);
	unsigned int gained;
	int dir;

	cidk__lock(&mm->mutex);
	gained = cidk__cid_grow_union(mm, allowed);
	if (gained) {
		dir = update_max_cids(mm, true);
		if (dir)
			switch_mode(mm, sh, dir);
	}
	cidk__unlock(&mm->mutex);
	return gained;
}

const struct cidk__cid_ops cidk__ownership_ops = {
	.name = "ownership",
	.switch_in = ownership_switch_in,
	.switch_out = ownership_switch_out,
	.migrate = ownership_migrate,
	.fork = ownership_fork,
	.exit = ownership_exit,
	.affinity = ownership_affinity,
};

/* ---- the invariant checker's part --------------------------------------------- */

#include <errno.h>
#include <stdlib.h>


/*
 * Every CID is owned at most once -- by a task (plain, or in transit) or
 * by a CPU -- its bit is set exactly when it is owned, a running task
 * uses the CID it or its CPU owns, a task not running holds nothing in
 * transit, and no CID leaks.  Single-threaded, at a quiescent point.
 */
int cidk__ownership_check(const struct cidk_cid_mm *mm,
			  struct cidk_cid_task *const *tasks, unsigned int n,
			  char *why, size_t whylen)
{
	unsigned int nr = mm->nr_cpu_ids;
	unsigned int *owner = malloc(sizeof(*owner) * nr);
	int rc = 0;

	if (!owner)
		return -ENOMEM;
	if (mm->bad_put) {
		rc = cidk__cid_why(why, whylen,
			 "a CID given back out of range: %#x (CID %u with flag bits "
			 "%#x), a clear_bit() past the bitmap",
			 mm->bad_put, own_cid(mm->bad_put),
			 mm->bad_put & (OWN_ONCPU | OWN_TRANSIT));
		goto out;
	}
	for (unsigned int c = 0; c < nr; c++)
		owner[c] = CIDK_CID_NONE;
#define CPU_OWNER 0x80000000u
	for (unsigned int c = 0; c < nr; c++) {
		unsigned int v = mm->slots[c].cid;

		if (!on_cpu(v))
			continue;
		if (own_cid(v) >= nr) {
			rc = cidk__cid_why(why, whylen, "CPU %u owns CID %u >= nr_cpu_ids %u",
				 c, own_cid(v), nr);
			goto out;
		}
		owner[own_cid(v)] = c | CPU_OWNER;
	}
	for (unsigned int i = 0; i < n; i++) {
		const struct cidk_cid_task *t = tasks[i];
		unsigned int v = t->own, cid = own_cid(v);

		if (!t->running && in_transit(v)) {
			rc = cidk__cid_why(why, whylen,
				 "task %u is not running but holds CID %u in transit",
				 i, cid);
			goto out;
		}
		if (t->running && cid != t->cid) {
			rc = cidk__cid_why(why, whylen,
				 "running task %u uses CID %u but its record says %u",
				 i, t->cid, cid);
			goto out;
		}
		if (on_cpu(v)) {
			if (t->running && mm->slots[t->cpu].cid != v) {
				rc = cidk__cid_why(why, whylen,
					 "running task %u uses CPU CID %u that CPU %u does not own",
					 i, cid, t->cpu);
				goto out;
			}
			continue;
		}
		if (!on_task(v) && !in_transit(v))
			continue;
		if (cid >= nr) {
			rc = cidk__cid_why(why, whylen, "task %u owns CID %u >= nr_cpu_ids %u",
				 i, cid, nr);
			goto out;
		}
		if (owner[cid] != CIDK_CID_NONE) {
			rc = cidk__cid_why(why, whylen,
				 "CID %u owned twice: by task %u and by %s %u", cid, i,
				 (owner[cid] & CPU_OWNER) ? "CPU" : "task",
				 owner[cid] & ~CPU_OWNER);
			goto out;
		}
		owner[cid] = i;
	}
	for (unsigned int c = 0; c < nr; c++) {
		bool set = cidk_mask_test_atomic(mm->cidmask, c);

		if (set && owner[c] == CIDK_CID_NONE) {
			rc = cidk__cid_why(why, whylen,
				 "CID %u leaked: set in the bitmap, owned by no task or CPU",
				 c);
			goto out;
		}
		if (!set && owner[c] != CIDK_CID_NONE) {
			rc = cidk__cid_why(why, whylen,
				 "CID %u owned by %s %u but clear in the bitmap", c,
				 (owner[c] & CPU_OWNER) ? "CPU" : "task",
				 owner[c] & ~CPU_OWNER);
			goto out;
		}
	}
#undef CPU_OWNER
out:
	free(owner);
	return rc;
}
