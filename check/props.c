/* SPDX-License-Identifier: MIT */
/*
 * check/props.c - the policies' promises as properties (props.h).  Each
 * has a name, the first word of its violation; docs/check.md gives the
 * source of each promise.  Expected values come from the published
 * design, computed here on their own, never from lib/cid's variables:
 *
 * ownership ([V5], lib/cid/ownership.c's header):
 *   own-mode      the mode follows users and the thresholds: per-task ->
 *                 per-CPU only when users > max_cids = min(opt + opt/4,
 *                 nr_cpu_ids), opt = min(nr_cpus_allowed, users); back only
 *                 when users < pcpu_thrs = min(opt - opt/4, nr_cpu_ids/2),
 *                 recorded at the switch to per-CPU (and again when an
 *                 affinity change widens the allowed set); in between
 *                 (hysteresis) the mode stays.  Checked at the step that
 *                 changes the mode of record, and at quiescence (per-task
 *                 implies users <= max_cids, per-CPU users >= pcpu_thrs, the
 *                 published mode word agrees, the mm's max_cids is the
 *                 formula's for its users and allowed CPUs);
 *   own-keep      in per-task mode with no transition since, a task
 *                 switches in with the CID it owned at its last switch-in
 *                 (nothing takes a task's CID while it sleeps), and keeps
 *                 it, unless convergence exchanges one >= max_cids for one
 *                 below;
 *   own-converge  a switch-in that keeps what the task (per-task) or the
 *                 CPU (per-CPU) owned, with a CID >= max_cids, on a CPU the
 *                 mm ran on before (the kernel's mm_cid_from_task() tests
 *                 cid_on_task(tcid | cpu_cid): on a CPU whose CID is still
 *                 UNSET it skips convergence, so the bound is "at the next
 *                 switch-in on a CPU already used"), while some
 *                 CID below max_cids stayed free all through it (the bitmap
 *                 did not change meanwhile, nor max_cids or the mode), has
 *                 exchanged it: convergence within one switch-in;
 *   own-transit   when no transition runs (quiescence), the mode holds no
 *                 TRANSIT (a task that is not running holding a transit CID:
 *                 cidk_cid_check); a slow-path switch-in inside a
 *                 transition gets a transit CID; a switch-out keeps a
 *                 transit CID only below max_cids with no transition
 *                 ([WOES] 1/4, 4/4); a task running all through a
 *                 transition to per-task holds its CID in transit at its
 *                 end ([V5]) (all under sequential consistency);
 *   own-slot      a running task's CPU records the value it runs with;
 *   own-task-mode per-task mode, no transition: no CPU owns a CID;
 *   own-fork      a task forked in per-task mode owns a CID from birth;
 *   (own-mode also: a transition ends in the other mode);
 *   own-list      at quiescence the mm's task list holds exactly the live
 *                 tasks, each once (the fixup walk's view of the users);
 * every policy (docs/design.md: "nr_users counts the mm's threads"):
 *   users         at quiescence, the mm's users are the live tasks;
 * the lazy family and cache-local (lib/cid/lazy.c's header, [lazy scan]):
 *   lazy-compact  after a tick or return to user that ran a full scan pass
 *                 with no other task stepping meanwhile: no idle slot keeps
 *                 a CID unused for more than the expiry, none keeps a CID at
 *                 or above the number of CIDs in use at the start, and a
 *                 busy slot at or above it is marked LAZY_PUT;
 *   lazy-switch, lazy-migrate, lazy-exit, lazy-scan: what each event that
 *                 ran alone leaves in the slots, the bitmap and the scan's
 *                 schedule; cl-count: cache-local's count of never-used
 *                 CIDs moves up one at a time, after every step, races
 *                 included (check/props_lazy.c);
 *   cl-bound      (cache-local, switch-ins raced or not) a CID a switch-in
 *                 took from the free ones is below min(nr_cpus_allowed,
 *                 users), or was the lowest free one (end_cl_bound()).
 * Slot marks (BUSY only while a task runs there with the slot's CID,
 * LAZY_PUT only with BUSY), never one CID used (or leased) twice, a
 * running task's CID below the policy's bound, nothing leaked:
 * cid_model.c and cidk_cid_check().
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cid/cid_internal.h"
#include "memory.h"
#include "props.h"
#include "props_lazy.h"
#include "statecache.h"

#define ONCPU 0x40000000u
#define TRANSIT 0x20000000u
#define UNSET 0x80000000u

struct props {
	struct props_view v;
	struct cidk_cid_mm *mm;
	char why[CHK_WHY];
	bool bad;
	/* own-mode: the reference's mode and threshold, and what it saw */
	bool ref_percpu;
	unsigned int ref_thrs;
	bool seen_percpu;
	unsigned int seen_allowed;
	/* own-mode: the published ONCPU bit before the transition under way */
	unsigned int pre_oncpu;
	bool in_transition;
	/* own-fork: changes of the mode word, and their count at each begin */
	unsigned long mode_epoch;
	unsigned long begin_mode_epoch[CHK_MAX_THREADS];
	/* a change of the mode word, max_cids or the bitmap: an epoch */
	unsigned long epoch;
	unsigned long bm_version;
	unsigned int seen_mode, seen_max;
	unsigned long seen_bm;
	/* per task */
	unsigned long steps;			/* steps run, every thread */
	unsigned long begin_steps[CHK_MAX_THREADS];
	unsigned long begin_epoch[CHK_MAX_THREADS];
	unsigned long begin_bm_version[CHK_MAX_THREADS];
	unsigned long begin_bm[CHK_MAX_THREADS];
	unsigned int begin_own[CHK_MAX_THREADS], begin_slot[CHK_MAX_THREADS];
	unsigned int begin_mode[CHK_MAX_THREADS], begin_max[CHK_MAX_THREADS];
	uint64_t begin_next_scan[CHK_MAX_THREADS];
	unsigned int begin_weight[CHK_MAX_THREADS];
	bool other_ran[CHK_MAX_THREADS];	/* since its event began */
	/* since its event began, the thread read an older value of a word
	 * own-keep and own-converge judge by (check/memory.h) */
	bool saw_old[CHK_MAX_THREADS];
	bool in_ev[CHK_MAX_THREADS];
	enum scn_ev_kind ev_kind[CHK_MAX_THREADS];
	/* own-transit: in user space since the per-task TRANSIT was published */
	bool across[CHK_MAX_THREADS];
	/* own-keep: the CID a task owned at the end of its last switch-in */
	unsigned int kept_own[CHK_MAX_THREADS];
	unsigned long kept_epoch[CHK_MAX_THREADS];
	bool kept[CHK_MAX_THREADS];
	/* lazy-take, cl-take: the CPU's slot and the counts at a switch-in */
	unsigned int begin_sword[CHK_MAX_THREADS];
	unsigned int begin_recent[CHK_MAX_THREADS];
	unsigned int begin_used[CHK_MAX_THREADS];
	unsigned int begin_users[CHK_MAX_THREADS];
	unsigned int begin_allowed[CHK_MAX_THREADS];
	bool begin_alone[CHK_MAX_THREADS];	/* no other event under way */
	/* cl-take: the reference's nr_cids_used (valid while every
	 * cache-local switch-in since the start ran alone) */
	unsigned int ref_used;
	bool ref_used_valid;
	/* the lazy family's locality promises (props_lazy.c) */
	struct props_lazy lz;
	/* own-union (at the end of this file): each task's CPUs by the
	 * scenario, the CPUs of the mm's users past and present, who has
	 * been a user, an affinity change under way, max_cids last seen */
	uint64_t un_mask[CHK_MAX_THREADS];
	uint64_t un_pend[CHK_MAX_THREADS];
	uint64_t un_ever;
	bool un_user[CHK_MAX_THREADS];
	unsigned int un_max;
	/* cl-bound: during a cache-local switch-in, the highest nr_users and
	 * nr_cpus_allowed, the CIDs free at its start and after every step,
	 * the bits its own steps turned on; the bitmap after the last step */
	unsigned int cb_users[CHK_MAX_THREADS];
	unsigned int cb_allowed[CHK_MAX_THREADS];
	unsigned long cb_free[CHK_MAX_THREADS];
	unsigned long cb_set[CHK_MAX_THREADS];
	unsigned long cb_bm;
};

static void own_union_reset(struct props *pr);
static void own_union_begin(struct props *pr, unsigned int tid,
			    const struct scn_event *e);
static void own_union_end(struct props *pr, unsigned int tid,
			  const struct scn_event *e);
static void own_union_step(struct props *pr);
static void own_union_quiet(struct props *pr);

static unsigned int ld(const _Atomic unsigned int *p)
{
	return atomic_load_explicit(p, memory_order_relaxed);
}

static unsigned int min_u(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

static bool ownership(const struct props *pr)
{
	return pr->v.p->kind == CIDK_CID_OWNERSHIP;
}

/* Without [WOES] 2/4 the mode is two words (lib/cid/ownership.c). */
static bool two_words(const struct props *pr)
{
	return (pr->v.p->reverted & CIDK_CID_FIX_W2) != 0;
}

/* The published mode word: ONCPU and TRANSIT. */
static unsigned int mode_word(const struct props *pr)
{
	if (two_words(pr))
		return (ld(&pr->mm->percpu) ? ONCPU : 0) | ld(&pr->mm->transit);
	return ld(&pr->mm->mode);
}

static unsigned long bitmap(const struct props *pr)
{
	/* scenarios have at most 64 CPUs: one word */
	return __atomic_load_n(&pr->mm->cidmask->bits[0], __ATOMIC_RELAXED);
}

/* [V5]: max_cids and pcpu_thrs for @users and @allowed. */
static unsigned int ref_max(const struct props *pr, unsigned int users,
			    unsigned int allowed)
{
	unsigned int opt = min_u(allowed, users);

	return min_u(opt + opt / 4, pr->mm->nr_cpu_ids);
}

static unsigned int ref_thrs(const struct props *pr, unsigned int users,
			     unsigned int allowed)
{
	unsigned int opt = min_u(allowed, users);

	return min_u(opt - opt / 4, pr->mm->nr_cpu_ids / 2);
}

static int fail(struct props *pr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#include <stdarg.h>

#include "cidkit_lab.h" /* the library's lab-only interface */
static int fail(struct props *pr, const char *fmt, ...)
{
	va_list ap;

	if (pr->bad)
		return -1; /* the first one stands */
	va_start(ap, fmt);
	vsnprintf(pr->why, sizeof(pr->why), fmt, ap);
	va_end(ap);
	pr->bad = true;
	return -1;
}

struct props *props_new(const struct props_view *v)
{
	struct props *pr = calloc(1, sizeof(*pr));

	if (pr)
		pr->v = *v;
	return pr;
}

void props_free(struct props *pr)
{
	free(pr);
}

void props_full_state(const struct props *pr, struct chk_fp *f)
{
	struct props c = *pr;

	/*
	 * From bad on (why matters only once bad is set), with the counters
	 * as what is read of them: steps and begin_steps never are; epoch
	 * and bm_version only as "the same as at X" (they only grow, and X
	 * is set to them).  The rest: raw bytes, so that a field added later
	 * is in (a counter added later only costs cache hits).
	 */
	c.steps = 0;
	c.epoch = 0;
	c.bm_version = 0;
	for (unsigned int i = 0; i < CHK_MAX_THREADS; i++) {
		c.begin_steps[i] = 0;
		c.begin_epoch[i] = pr->begin_epoch[i] != pr->epoch;
		c.kept_epoch[i] = pr->kept_epoch[i] != pr->epoch;
		c.begin_bm_version[i] = pr->begin_bm_version[i] != pr->bm_version;
	}
	chk_fp_bytes(f, &c.bad, sizeof(c) - offsetof(struct props, bad));
}

void props_reset(struct props *pr, struct cidk_cid_mm *mm)
{
	struct props_view v = pr->v;

	memset(pr, 0, sizeof(*pr));
	pr->v = v;
	pr->mm = mm;
	pr->ref_used = ld(&mm->nr_cids_used); /* 0: the forks took none */
	pr->ref_used_valid = true;
	pr->cb_bm = bitmap(pr);
	if (cidk__is_lazy_family(mm))
		props_lazy_reset(&pr->lz, &pr->v, mm);
	if (!ownership(pr))
		return;
	/* the initial forks ran single-threaded: take their outcome as given
	 * only when it agrees with the reference (checked at once) */
	pr->seen_percpu = mm->own_percpu;
	pr->ref_percpu = mm->own_percpu;
	pr->ref_thrs = mm->pcpu_thrs;
	pr->seen_allowed = ld(&mm->nr_cpus_allowed);
	pr->seen_mode = mode_word(pr);
	pr->pre_oncpu = pr->seen_mode & ONCPU;
	pr->seen_max = ld(&mm->max_cids);
	pr->seen_bm = bitmap(pr);
	if (pr->ref_percpu)
		pr->ref_thrs = ref_thrs(pr, ld(&mm->nr_users),
					pr->seen_allowed);
	own_union_reset(pr);
}

/* ---- events ------------------------------------------------------------------ */

static unsigned int slot_weight(const struct props *pr)
{
	return (unsigned int)__builtin_popcountl(bitmap(pr));
}

void props_begin(struct props *pr, unsigned int tid, const struct scn_event *e)
{
	struct cidk_cid_mm *mm = pr->mm;
	const struct cidk_cid_task *t = &pr->v.task[tid];

	pr->begin_steps[tid] = pr->steps;
	pr->in_ev[tid] = true;
	pr->ev_kind[tid] = e->kind;
	pr->other_ran[tid] = false;
	pr->saw_old[tid] = false;
	pr->across[tid] = false;
	pr->begin_epoch[tid] = pr->epoch;
	pr->begin_bm_version[tid] = pr->bm_version;
	pr->begin_bm[tid] = bitmap(pr);
	pr->begin_weight[tid] = slot_weight(pr);
	pr->begin_next_scan[tid] =
		atomic_load_explicit(&mm->next_scan, memory_order_relaxed);
	if (cidk__is_lazy_family(mm) && e->kind == SCN_IN &&
	    e->arg < mm->nr_cpu_ids) {
		pr->begin_sword[tid] = ld(&mm->slots[e->arg].word);
		pr->begin_recent[tid] = ld(&mm->slots[e->arg].recent);
		pr->begin_used[tid] = pr->ref_used_valid ? pr->ref_used :
				      ld(&mm->nr_cids_used);
		pr->begin_users[tid] = ld(&mm->nr_users);
		pr->begin_allowed[tid] = ld(&mm->nr_cpus_allowed);
		pr->begin_alone[tid] = true;
		for (unsigned int i = 0; i < pr->v.s->ntasks; i++)
			if (i != tid && pr->in_ev[i])
				pr->begin_alone[tid] = false;
		pr->cb_users[tid] = pr->begin_users[tid];
		pr->cb_allowed[tid] = pr->begin_allowed[tid];
		pr->cb_free[tid] = ~pr->begin_bm[tid];
		pr->cb_set[tid] = 0;
	}
	if (cidk__is_lazy_family(mm)) {
		bool alone = true;

		for (unsigned int i = 0; i < pr->v.s->ntasks; i++)
			if (i != tid && pr->in_ev[i])
				alone = false;
		props_lazy_begin(&pr->lz, &pr->v, mm, tid, e, alone);
	}
	if (!ownership(pr))
		return;
	pr->begin_own[tid] = t->own;
	pr->begin_slot[tid] = e->kind == SCN_IN ? mm->slots[e->arg].cid : UNSET;
	pr->begin_mode[tid] = mode_word(pr);
	pr->begin_mode_epoch[tid] = pr->mode_epoch;
	pr->begin_max[tid] = ld(&mm->max_cids);
	/* own-keep, across the sleep */
	if (e->kind == SCN_IN && pr->kept[tid] &&
	    pr->kept_epoch[tid] == pr->epoch && !(pr->begin_mode[tid] & ONCPU) &&
	    !(pr->begin_mode[tid] & TRANSIT) && t->own != pr->kept_own[tid])
		fail(pr, "own-keep: %s owned CID %u at its last switch-in and, "
			 "with no mode change since, switches in owning %s",
		     pr->v.s->task[tid].name, pr->kept_own[tid],
		     t->own == UNSET ? "nothing" : "another CID");
	own_union_begin(pr, tid, e);
}

static bool on_task(unsigned int v)
{
	return v < TRANSIT;
}

static bool on_cpu(unsigned int v)
{
	return (v & ONCPU) && v != UNSET;
}

static void end_in(struct props *pr, unsigned int tid, const struct scn_event *e)
{
	struct cidk_cid_mm *mm = pr->mm;
	const struct cidk_cid_task *t = &pr->v.task[tid];
	const char *name = pr->v.s->task[tid].name;
	unsigned int cid = pr->v.user_cid[tid], mode = mode_word(pr);
	unsigned int max = ld(&mm->max_cids), own0 = pr->begin_own[tid];
	bool stable = pr->begin_epoch[tid] == pr->epoch &&
		      pr->begin_mode[tid] == mode && pr->begin_max[tid] == max &&
		      !(mode & TRANSIT) && !pr->saw_old[tid];
	unsigned long free_below;

	pr->kept[tid] = false;
	if (cid == CIDK_CID_NONE || e->lease)
		return;
	/* own-keep: per-task, stable: the same CID, or convergence */
	if (stable && !(mode & ONCPU) && on_task(own0) &&
	    !on_cpu(pr->begin_slot[tid]) && cid != own0 &&
	    !(own0 >= max && cid < max))
		fail(pr, "own-keep: %s owned CID %u and switched in with CID %u "
			 "(max_cids %u, per-task mode, no transition)",
		     name, own0, cid, max);
	/* own-converge */
	free_below = ~pr->begin_bm[tid] &
		     (max >= 64 ? ~0ul : (1ul << max) - 1);
	if (stable && cid >= max && free_below &&
	    pr->begin_bm_version[tid] == pr->bm_version &&
	    bitmap(pr) == pr->begin_bm[tid] &&
	    ((!(mode & ONCPU) && on_task(own0) && own0 == cid &&
	      on_task(pr->begin_slot[tid])) ||
	     ((mode & ONCPU) && on_cpu(pr->begin_slot[tid] & own0))))
		fail(pr, "own-converge: %s switched in keeping CID %u >= max_cids "
			 "%u while CID %u stayed free",
		     name, cid, max, (unsigned int)__builtin_ctzl(free_below));
	/* own-converge: an exchange goes below max_cids (convergence's
	 * search is bounded by it: [V5] mm_cid_converge()'s
	 * mm_get_cid_below(mm, max_cids)).  What is exchanged is what
	 * convergence starts from: per-task, the task's CID; per-CPU, the
	 * CPU's (mm_cid_from_cpu() converges cpu_cid; the task's own is the
	 * CID of the CPU it last ran on, which a task moving to another CPU
	 * leaves there: taking the new CPU's CID is no exchange) */
	if (stable && cid >= max &&
	    ((!(mode & ONCPU) && on_task(own0) && own0 != cid &&
	      on_task(pr->begin_slot[tid])) ||
	     ((mode & ONCPU) && on_cpu(pr->begin_slot[tid] & own0) &&
	      (pr->begin_slot[tid] & ~ONCPU) != cid)))
		fail(pr, "own-converge: %s switched in exchanging CID %u for "
			 "CID %u, not below max_cids %u", name,
		     (mode & ONCPU) ? pr->begin_slot[tid] & ~ONCPU : own0, cid, max);
	/*
	 * own-transit (at switch-in): a switch-in that runs entirely inside
	 * a transition and takes the slow path -- per-task: the task or the
	 * CPU holds no task-owned CID (the kernel's !cid_on_task(tcid |
	 * cpu_cid)); per-CPU: they do not share a CPU-owned one -- leaves the
	 * task holding its CID in transit ([V5] mm_cid_from_task(): "tcid |=
	 * mode & MM_CID_TRANSIT"; [WOES] 1/4 for mm_cid_from_cpu()).
	 */
	if (chk_mem_model() == CHK_MEM_SC &&
	    pr->begin_epoch[tid] == pr->epoch && pr->begin_mode[tid] == mode &&
	    (mode & TRANSIT) &&
	    ((mode & ONCPU) ? !on_cpu(pr->begin_slot[tid] & own0) :
			      !on_task(pr->begin_slot[tid] | own0)) &&
	    !(t->own & TRANSIT))
		fail(pr, "own-transit: %s switched in during a transition "
			 "(mode %#x) without a task CID to keep, and holds %#x, "
			 "not in transit", name, mode, t->own);
	if (!(mode & (ONCPU | TRANSIT)) && on_task(t->own)) {
		pr->kept[tid] = true;
		pr->kept_own[tid] = t->own;
		pr->kept_epoch[tid] = pr->epoch;
	}
}

/*
 * own-transit (at switch-out): a task that switches out holding a CID in
 * transit keeps it only when no transition runs and the CID is below
 * max_cids; otherwise it gives it back ([WOES] 4/4 "Optimize transitional
 * CIDs when scheduling out": mm_cid_schedout() keeps it only when
 * !cid_in_transit(mode) && cid < max_cids).  Checked when the mode word
 * and max_cids did not change during the switch-out.
 */
static void end_out(struct props *pr, unsigned int tid)
{
	const struct cidk_cid_task *t = &pr->v.task[tid];
	unsigned int own0 = pr->begin_own[tid], mode = mode_word(pr);
	unsigned int max = ld(&pr->mm->max_cids), cid = own0 & ~(ONCPU | TRANSIT);

	if (chk_mem_model() != CHK_MEM_SC ||
	    (pr->v.p->reverted & CIDK_CID_FIX_W4) || own0 == UNSET ||
	    !(own0 & TRANSIT) || pr->begin_epoch[tid] != pr->epoch ||
	    pr->begin_mode[tid] != mode || pr->begin_max[tid] != max)
		return;
	if (((mode & TRANSIT) || cid >= max) && t->own != UNSET)
		fail(pr, "own-transit: %s switched out holding CID %u in transit "
			 "with %s, and kept it (%#x)", pr->v.s->task[tid].name,
		     cid, (mode & TRANSIT) ? "a transition running" :
		     "max_cids at or below it", t->own);
}

/*
 * own-fork: a task forked while the mm is in per-task mode, with no
 * transition before, during or at the fork, owns a task CID from birth,
 * its bit set ([V5] sched_mm_cid_fork(); lib/cid/ownership.c's fork:
 * "per-task: it owns one from birth").
 */
static void end_fork(struct props *pr, unsigned int tid, unsigned int child)
{
	unsigned int own;

	if (child >= pr->v.s->ntasks)
		return;
	own = pr->v.task[child].own;
	if (pr->begin_mode[tid] != 0 || mode_word(pr) != 0 ||
	    pr->begin_mode_epoch[tid] != pr->mode_epoch)
		return;
	if (!on_task(own) || own >= 64 || !((bitmap(pr) >> own) & 1))
		fail(pr, "own-fork: %s was forked in per-task mode and owns "
			 "%s", pr->v.s->task[child].name,
		     on_task(own) ? "a CID clear in the bitmap" : "no CID");
}

/* The lowest CID in [@lo, @hi) free in @bm, or @hi. */
static unsigned int lowest_free(unsigned long bm, unsigned int lo,
				unsigned int hi)
{
	for (unsigned int c = lo; c < hi && c < 64; c++)
		if (!(bm & (1ul << c)))
			return c;
	return hi;
}

/*
 * lazy-take and cl-take: which CID a switch-in that ran alone (no other
 * task's event under way when it began, none stepped during it) gets, from the state at its start.  The design
 * (docs/cid.md, "lazy" and "cache-local"; lib/cid/lazy.c's and
 * cache_local.c's headers): an idle slot's CID is reused (lazy-take, the
 * whole family); else lazy takes the lowest free CID below
 * nr_cpus_allowed (lazy-take), and cache-local (cl-take) takes, with
 * bound = min(nr_cpus_allowed, nr_users) and used = min(the count of
 * never-used CIDs handed out, bound) (the count first shrinks to the
 * bound): its slot's recent CID if below used, free and not the slot's own
 * busy CID; else the next never-used CID, the lowest free one in [used,
 * bound), after which the count is that CID + 1 (bound when none is free);
 * else the lowest free below nr_cpus_allowed.  A CID taken into an empty
 * slot becomes the slot's recent CID.  The count is the property's own
 * (from 0, by these rules) while every cache-local switch-in ran alone,
 * else the mm's nr_cids_used read at the start.  Not checked: leases, and
 * a switch-in that finds every CID below nr_cpus_allowed owned (it waits,
 * then steals).
 */
static void end_take(struct props *pr, unsigned int tid,
		     const struct scn_event *e)
{
	struct cidk_cid_mm *mm = pr->mm;
	const char *name = pr->v.s->task[tid].name;
	unsigned int cid = pr->v.user_cid[tid], s = pr->begin_sword[tid];
	unsigned int r = pr->begin_recent[tid];
	unsigned int allowed = pr->begin_allowed[tid];
	unsigned int bound = min_u(allowed, pr->begin_users[tid]);
	unsigned int used = min_u(pr->begin_used[tid], bound);
	unsigned long bm = pr->begin_bm[tid];
	bool cl = pr->v.p->kind == CIDK_CID_CACHE_LOCAL;
	unsigned int want;
	const char *rule;

	if (pr->other_ran[tid] || !pr->begin_alone[tid] || e->lease ||
	    cid == CIDK_CID_NONE || chk_mem_model() != CHK_MEM_SC) {
		pr->ref_used_valid = false;
		return;
	}
	if (s != SLOT_UNSET && !(s & SLOT_BUSY)) {
		want = s & SLOT_CID_MASK;
		rule = "its CPU's idle slot CID";
		cl = false;
	} else if (!cl) {
		want = lowest_free(bm, 0, allowed);
		rule = "the lowest free CID";
	} else if (r < used && (s & SLOT_CID_MASK) != r && r < 64 &&
		   !(bm & (1ul << r))) {
		want = r;
		rule = "its CPU's recent CID (free, below the never-used ones)";
		pr->ref_used = used;
	} else if ((want = lowest_free(bm, used, bound)) < bound) {
		rule = "the next never-used CID";
		pr->ref_used = want + 1;
	} else {
		want = lowest_free(bm, 0, allowed);
		rule = "the lowest free CID";
		pr->ref_used = bound;
	}
	if (want >= allowed) {
		pr->ref_used_valid = false;
		return; /* none free: the switch-in waits, then steals */
	}
	if (cid != want)
		fail(pr, "%s: %s switched in on CPU %u alone with CID %u where "
			 "the policy hands out %s, CID %u (free CIDs %#lx, "
			 "never-used from %u, bound %u)",
		     cl ? "cl-take" : "lazy-take", name, e->arg, cid, rule, want,
		     ~bm & ((allowed >= 64 ? 0ul : 1ul << allowed) - 1),
		     used, bound);
	else if (cl && s == SLOT_UNSET &&
		 ld(&mm->slots[e->arg].word) == (cid | SLOT_BUSY) &&
		 ld(&mm->slots[e->arg].recent) != cid)
		fail(pr, "cl-take: %s took CID %u into CPU %u's empty slot, "
			 "whose recent CID is not it", name, cid, e->arg);
}

/*
 * cl-bound: a CID a cache-local switch-in took from the free ones (a bit
 * its own step turned on), raced or not, is below bound = min(
 * nr_cpus_allowed, nr_users), or was the lowest free CID when it took it.
 * The kernel's __mm_cid_try_get() after "sched: Improve cache locality of
 * RSEQ concurrency IDs for intermittent workloads" (M. Desnoyers, Dec
 * 2024, 6.15) reuses the CPU's recent CID only below max_nr_cid, which its
 * shrink loop leaves at or below min(nr_cpus_allowed, mm_users) as it last
 * read them; it claims a never-used CID only below that bound too; else
 * __mm_cid_get() takes the lowest free bit (docs/cid.md, "cache-local": "a
 * recent CID above the bound is not reused").  lib/cid/cache_local.c the
 * same, its bounded shrink loop clamping what it read to the bound when
 * it lost every race.  The check, from outside: the bound is taken with
 * the highest nr_cpus_allowed and nr_users seen from the event's start
 * to its end (the code read each at some step in between), and "not the
 * lowest free" needs a CID below it free at the start and after every
 * step (the search read one of those states).  Under sequential
 * consistency only; not for leases.
 */
static void cl_bound_step(struct props *pr, unsigned int self)
{
	struct cidk_cid_mm *mm = pr->mm;
	unsigned long bm = bitmap(pr);
	unsigned int users = ld(&mm->nr_users);
	unsigned int allowed = ld(&mm->nr_cpus_allowed);

	for (unsigned int i = 0; i < pr->v.s->ntasks; i++) {
		if (!pr->in_ev[i] || pr->ev_kind[i] != SCN_IN)
			continue;
		if (users > pr->cb_users[i])
			pr->cb_users[i] = users;
		if (allowed > pr->cb_allowed[i])
			pr->cb_allowed[i] = allowed;
		pr->cb_free[i] &= ~bm;
		if (i == self)
			pr->cb_set[i] |= bm & ~pr->cb_bm;
	}
	pr->cb_bm = bm;
}

static void end_cl_bound(struct props *pr, unsigned int tid,
			 const struct scn_event *e)
{
	unsigned int cid = pr->v.user_cid[tid];
	unsigned int bound = min_u(pr->cb_allowed[tid], pr->cb_users[tid]);
	unsigned long below = 0;

	if (!e->lease && cid < 64 && cid >= bound &&
	    (pr->cb_set[tid] & (1ul << cid)) && chk_mem_model() == CHK_MEM_SC)
		below = pr->cb_free[tid] & ((1ul << cid) - 1);
	if (below)
		fail(pr, "cl-bound: %s switched in on CPU %u with CID %u, which "
			 "it took from the free ones, at or above the bound %u "
			 "(min(nr_cpus_allowed, users), the highest during its "
			 "switch-in), while CID %u below it stayed free "
			 "throughout: neither its CPU's recent CID nor a "
			 "never-used one (both below the bound) nor the lowest "
			 "free", pr->v.s->task[tid].name, e->arg, cid, bound,
		     (unsigned int)__builtin_ctzl(below));
	/* (no stale bytes in the state cache's fingerprint) */
	pr->cb_users[tid] = pr->cb_allowed[tid] = 0;
	pr->cb_free[tid] = pr->cb_set[tid] = 0;
}

/* lazy-compact: after an isolated full scan pass by @tid's event. */
static void end_scan(struct props *pr, unsigned int tid)
{
	struct cidk_cid_mm *mm = pr->mm;
	uint64_t next = atomic_load_explicit(&mm->next_scan, memory_order_relaxed);
	uint64_t now;
	unsigned int w = pr->begin_weight[tid];

	if (pr->other_ran[tid] || next == pr->begin_next_scan[tid] ||
	    !pr->begin_next_scan[tid] || ld(&mm->scan_pos) != 0 ||
	    mm->p.batch < mm->nr_cpu_ids || chk_mem_model() != CHK_MEM_SC)
		return; /* no full pass (or armed only), or not alone; or a
			   weak model, where a load may read an older store */
	now = next - mm->p.scan_period_ns;
	for (unsigned int c = 0; c < mm->nr_cpu_ids; c++) {
		const struct cidk__cid_slot *sl = &mm->slots[c];
		unsigned int s = ld(&sl->word), cid = s & SLOT_CID_MASK;
		uint64_t last = atomic_load_explicit(&sl->time,
						     memory_order_relaxed);

		if (s == SLOT_UNSET)
			continue;
		if (!(s & SLOT_BUSY) && now > last && now - last > mm->p.expiry_ns) {
			fail(pr, "lazy-compact: after %s's scan, CPU %u's idle slot "
				 "keeps CID %u unused for %llu ms (expiry %llu ms)",
			     pr->v.s->task[tid].name, c, cid,
			     (unsigned long long)((now - last) / 1000000),
			     (unsigned long long)(mm->p.expiry_ns / 1000000));
			return;
		}
		if (cid >= w && (!(s & SLOT_BUSY) || !(s & SLOT_LAZY_PUT))) {
			fail(pr, "lazy-compact: after %s's scan, CPU %u's %s slot "
				 "keeps CID %u, at or above the %u CIDs in use%s",
			     pr->v.s->task[tid].name, c,
			     (s & SLOT_BUSY) ? "busy" : "idle", cid, w,
			     (s & SLOT_BUSY) ? ", without LAZY_PUT" : "");
			return;
		}
	}
}

void props_end(struct props *pr, unsigned int tid, const struct scn_event *e)
{
	pr->in_ev[tid] = false;
	if (ownership(pr) && e->kind == SCN_IN)
		end_in(pr, tid, e);
	if (ownership(pr) && e->kind == SCN_OUT && !e->lease)
		end_out(pr, tid);
	if (ownership(pr) && e->kind == SCN_FORK)
		end_fork(pr, tid, e->arg);
	if (cidk__is_lazy_family(pr->mm) && e->kind == SCN_IN &&
	    e->arg < pr->mm->nr_cpu_ids)
		end_take(pr, tid, e);
	if (pr->mm->p.kind == CIDK_CID_CACHE_LOCAL && e->kind == SCN_IN &&
	    e->arg < pr->mm->nr_cpu_ids)
		end_cl_bound(pr, tid, e);
	if (cidk__is_lazy_family(pr->mm) &&
	    (e->kind == SCN_TICK || e->kind == SCN_RTU))
		end_scan(pr, tid);
	if (cidk__is_lazy_family(pr->mm)) {
		char why[CHK_WHY];

		if (props_lazy_end(&pr->lz, &pr->v, pr->mm, tid, e,
				   !pr->other_ran[tid], why, sizeof(why)))
			fail(pr, "%s", why);
	}
	if (ownership(pr))
		own_union_end(pr, tid, e);
}

/* ---- steps and quiescence ------------------------------------------------------ */

static void step_mode(struct props *pr)
{
	struct cidk_cid_mm *mm = pr->mm;
	unsigned int users = ld(&mm->nr_users);
	unsigned int allowed = ld(&mm->nr_cpus_allowed);
	unsigned int self = chk_self();
	bool percpu = mm->own_percpu;

	if (allowed != pr->seen_allowed) {
		/* a widening by an affinity change records the threshold anew */
		if (pr->ref_percpu && self < pr->v.s->ntasks && pr->in_ev[self] &&
		    pr->ev_kind[self] == SCN_AFFINITY)
			pr->ref_thrs = ref_thrs(pr, users, allowed);
		pr->seen_allowed = allowed;
	}
	if (percpu == pr->seen_percpu)
		return;
	pr->seen_percpu = percpu;
	if (percpu) {
		unsigned int max = ref_max(pr, users, allowed);

		if (users <= max)
			fail(pr, "own-mode: the mm went per-CPU with %u users, "
				 "not above max_cids %u (min(opt + opt/4, %u), opt "
				 "= min(%u allowed, %u users))",
			     users, max, mm->nr_cpu_ids, allowed, users);
		pr->ref_percpu = true;
		pr->ref_thrs = ref_thrs(pr, users, allowed);
	} else {
		if (users >= pr->ref_thrs)
			fail(pr, "own-mode: the mm went back to per-task with %u "
				 "users, not below pcpu_thrs %u (hysteresis: the "
				 "mode stays from %u to max_cids)",
			     users, pr->ref_thrs, pr->ref_thrs);
		pr->ref_percpu = false;
	}
}

/*
 * A word own-keep and own-converge judge a switch-in by: the mode, max_cids,
 * the bitmap, a CPU's slot.  Under --memory tso/rc11 the switch-in may read
 * an older store of one (the kernel's READ_ONCE() of mm->mm_cid.max_cids
 * under the runqueue lock, not the mutex that orders its writes, allows
 * it); judged by the newest, a convergence put off to the next switch-in
 * would be a violation.  Such a switch-in is not judged by them.
 */
static bool judged_word(const struct props *pr, const void *a)
{
	const struct cidk_cid_mm *mm = pr->mm;

	if (a == &mm->max_cids || a == &mm->mode || a == &mm->percpu ||
	    a == &mm->transit || a == &mm->cidmask->bits[0])
		return true;
	for (unsigned int c = 0; c < mm->nr_cpu_ids; c++)
		if (a == &mm->slots[c].cid)
			return true;
	return false;
}

/*
 * own-transit (end of a CPU->task transition): a task in user space all
 * through it -- from the step that publishes the per-task mode with
 * TRANSIT to the one that clears it, no event of its own between -- holds
 * its CID in transit at the end: the walk met it running on its CPU, and
 * mm_cid_fixup_cpus_to_tasks() hands the CPU's CID to it in transit or
 * sets the transition bit of its own ([V5]: "Ensure it has the
 * transition bit set"), so that its switch-out gives back a CID at or
 * above max_cids ([WOES] 4/4).  Judged here: a plain task CID left so
 * (one left CPU-owned is own-task-mode's).  Sequential consistency only.
 */
static void transit_end(struct props *pr, unsigned int mode)
{
	unsigned int prev = pr->seen_mode, n = pr->v.s->ntasks;

	if (mode == prev)
		return;
	for (unsigned int i = 0; i < n && prev == TRANSIT && !mode; i++)
		if (pr->across[i] && pr->v.alive[i] && pr->v.in_user[i] &&
		    pr->v.user_cid[i] != CIDK_CID_NONE &&
		    chk_mem_model() == CHK_MEM_SC &&
		    on_task(pr->v.task[i].own)) {
			fail(pr, "own-transit: a transition to per-task ended "
				 "while %s ran through it, holding task CID %u, "
				 "not in transit", pr->v.s->task[i].name,
			     pr->v.task[i].own);
			break;
		}
	for (unsigned int i = 0; i < n; i++)
		pr->across[i] = mode == TRANSIT && pr->v.alive[i] &&
				pr->v.in_user[i] && !pr->in_ev[i];
}

int props_step(struct props *pr, char *why, size_t len)
{
	unsigned int self = chk_self();
	const void *old = chk_mem_stale_load();

	pr->steps++;
	if (old && self < pr->v.s->ntasks && pr->in_ev[self] &&
	    judged_word(pr, old))
		pr->saw_old[self] = true;
	for (unsigned int i = 0; i < pr->v.s->ntasks; i++)
		if (i != self)
			pr->other_ran[i] = true;
	if (ownership(pr)) {
		unsigned int mode = mode_word(pr), max = ld(&pr->mm->max_cids);
		unsigned long bm = bitmap(pr);

		/*
		 * own-mode: a transition (TRANSIT published, then cleared) ends
		 * in the other mode: the kernel starts one only when
		 * mm_update_max_cids() says the mode changes ([V5])
		 */
		if (mode & TRANSIT) {
			pr->in_transition = true;
		} else {
			if (pr->in_transition && (mode & ONCPU) == pr->pre_oncpu)
				fail(pr, "own-mode: a transition ended in the mode "
					 "it started from (%s)",
				     (mode & ONCPU) ? "per-CPU" : "per-task");
			pr->in_transition = false;
			pr->pre_oncpu = mode & ONCPU;
		}
		transit_end(pr, mode);
		if (mode != pr->seen_mode)
			pr->mode_epoch++;
		if (mode != pr->seen_mode || max != pr->seen_max) {
			pr->epoch++;
			pr->seen_mode = mode;
			pr->seen_max = max;
		}
		if (bm != pr->seen_bm) {
			pr->bm_version++;
			pr->seen_bm = bm;
		}
		step_mode(pr);
		own_union_step(pr);
	}
	if (pr->mm->p.kind == CIDK_CID_CACHE_LOCAL)
		cl_bound_step(pr, self);
	if (!pr->bad && cidk__is_lazy_family(pr->mm)) {
		char w[CHK_WHY];

		if (props_lazy_step(&pr->lz, pr->mm, w, sizeof(w)))
			fail(pr, "%s", w);
	}
	if (pr->bad) {
		snprintf(why, len, "%s", pr->why);
		return -1;
	}
	return 0;
}

/*
 * own-slot: a running task's CPU records the value the task runs with --
 * CID and flag bits -- in every mode: the kernel's mm_cid_from_task() and
 * mm_cid_from_cpu() end with mm_cid_update_pcpu_cid() and
 * mm_cid_update_task_cid() of one value, and each walk that changes a
 * running task's value writes its CPU's too ([V5]; [WOES] 1/4 for the
 * task->CPU walk's transit).  A task that has exited is not checked (its
 * CPU keeps the CID the exit left there).
 */
static void own_slot(struct props *pr)
{
	const struct cidk_cid_mm *mm = pr->mm;

	for (unsigned int i = 0; i < pr->v.s->ntasks; i++) {
		const struct cidk_cid_task *t = &pr->v.task[i];
		unsigned int sv;

		if (!pr->v.alive[i] || !pr->v.in_user[i] ||
		    t->cpu >= mm->nr_cpu_ids)
			continue;
		sv = mm->slots[t->cpu].cid;
		if (sv != t->own) {
			fail(pr, "own-slot: %s runs on CPU %u holding %#x, where "
				 "the CPU's slot records %#x",
			     pr->v.s->task[i].name, t->cpu, t->own, sv);
			return;
		}
	}
}

/*
 * own-task-mode: in per-task mode with no transition under way, CIDs are
 * strictly task-owned: no CPU's slot holds a CPU-owned value (ONCPU).
 * The CPU->task walk, which runs before TRANSIT is cleared, hands every
 * CPU's CID to the task running there or to the pool, and nothing sets
 * ONCPU while the mode says per-task ([V5] mm_cid_fixup_cpus_to_tasks():
 * "from here on CIDs are strictly task-owned"; [WOES] 3/4 for the exit's
 * own CPU).  A sleeping task's word may still say ONCPU (the value it
 * ran with in per-CPU mode, stale: its next switch-in in per-task mode
 * takes no CID from it), so only the slots, and through own-slot the
 * running tasks, are checked.
 */
static void own_task_mode(struct props *pr)
{
	const struct cidk_cid_mm *mm = pr->mm;

	for (unsigned int c = 0; c < mm->nr_cpu_ids; c++) {
		unsigned int sv = mm->slots[c].cid;

		if (on_cpu(sv)) {
			fail(pr, "own-task-mode: per-task mode, no transition, "
				 "but CPU %u owns CID %u", c, sv & ~(ONCPU | TRANSIT));
			return;
		}
	}
}

/*
 * own-list: between events the mm's task list (the one the task->CPU
 * walk follows) holds every live task exactly once and nothing else: no
 * task lost (a walk would never reach it -- its task CID would stay
 * un-walked in per-CPU mode, the stall of [FORK]), none twice or after
 * its exit, no cycle.  The kernel keeps the same promise for what its
 * walk follows: "sched/mmcid: Avoid full tasklist walks" (T. Gleixner,
 * 2026-03-10, sched-urgent 2026-03-15; 7.2 kernel/sched/core.c
 * sched_mm_cid_add_user()/sched_mm_cid_remove_user()) links a task into
 * mm->mm_cid.user_list exactly when it becomes a user and unlinks it
 * when it stops, under mm_cid.lock, and mm_cid_fixup_tasks_to_cpus()
 * walks that list; before it, the walk followed the thread list, which
 * copy_process() and __unhash_process() keep under tasklist_lock.  Ours
 * is linked before the fork takes the mutex and unlinked after the exit
 * released it (lib/cid/ownership.c), so only quiescence is judged.
 */
static void own_list(struct props *pr)
{
	const struct cidk_cid_task *t = pr->mm->tasks;
	unsigned int n = pr->v.s->ntasks, seen[CHK_MAX_THREADS] = { 0 };

	for (unsigned int k = 0; t; k++, t = t->next) {
		unsigned int i = (unsigned int)(t - pr->v.task);

		if (t < pr->v.task || i >= n) {
			fail(pr, "own-list: the mm's task list holds a pointer "
				 "to no task of the scenario");
			return;
		}
		if (k > n || ++seen[i] > 1) {
			fail(pr, "own-list: %s is on the mm's task list twice%s",
			     pr->v.s->task[i].name, k > n ? " (a cycle)" : "");
			return;
		}
	}
	for (unsigned int i = 0; i < n; i++)
		if (seen[i] != pr->v.alive[i]) {
			fail(pr, pr->v.alive[i] ?
				 "own-list: %s is alive but not on the mm's task "
				 "list (no walk reaches it)" :
				 "own-list: %s is on the mm's task list but not "
				 "alive",
			     pr->v.s->task[i].name);
			return;
		}
}

int props_quiet(struct props *pr, char *why, size_t len)
{
	struct cidk_cid_mm *mm = pr->mm;
	unsigned int live = 0;

	for (unsigned int i = 0; i < pr->v.s->ntasks; i++)
		live += pr->v.alive[i];
	if (!pr->bad && ld(&mm->nr_users) != live)
		fail(pr, "users: the mm counts %u users, %u tasks are alive",
		     ld(&mm->nr_users), live);
	/*
	 * With no user left the mm is going away: the last user's exit
	 * switches no mode and walks nothing, as the kernel's do_exit() path
	 * does (lib/cid/ownership.c), so no mode is promised any more.
	 */
	if (!pr->bad && ownership(pr) && ld(&mm->nr_users)) {
		unsigned int mode = mode_word(pr), users = ld(&mm->nr_users);
		unsigned int allowed = ld(&mm->nr_cpus_allowed);

		if (mode & TRANSIT)
			fail(pr, "own-transit: no transition runs, but the mode "
				 "still says TRANSIT");
		else if (!!(mode & ONCPU) != pr->ref_percpu)
			fail(pr, "own-mode: the mode is %s with %u users where the "
				 "thresholds say %s",
			     (mode & ONCPU) ? "per-CPU" : "per-task", users,
			     pr->ref_percpu ? "per-CPU" : "per-task");
		else if (!pr->ref_percpu && users > ref_max(pr, users, allowed))
			fail(pr, "own-mode: per-task with %u users, above max_cids "
				 "%u", users, ref_max(pr, users, allowed));
		else if (pr->ref_percpu && users < pr->ref_thrs)
			fail(pr, "own-mode: per-CPU with %u users, below pcpu_thrs "
				 "%u", users, pr->ref_thrs);
		else if (ld(&mm->max_cids) != ref_max(pr, users, allowed))
			fail(pr, "own-mode: max_cids is %u with %u users and %u "
				 "allowed CPUs, where min(opt + opt/4, %u) is %u",
			     ld(&mm->max_cids), users, allowed, mm->nr_cpu_ids,
			     ref_max(pr, users, allowed));
	}
	if (!pr->bad && ownership(pr))
		own_slot(pr);
	if (!pr->bad && ownership(pr) && ld(&mm->nr_users) && !mode_word(pr))
		own_task_mode(pr);
	if (!pr->bad && ownership(pr))
		own_union_quiet(pr);
	if (!pr->bad && ownership(pr))
		own_list(pr);
	if (pr->bad) {
		snprintf(why, len, "%s", pr->why);
		return -1;
	}
	return 0;
}

/* ---- own-union ------------------------------------------------------------------ */

/*
 * own-union: the mm's allowed CPUs are the union of its users' CPUs,
 * computed here from the scenario (each task's affinity, then its
 * affinity events), never from the mm's mask.  [V5]'s
 * mm_update_cpus_allowed(): "mm::mm_cid::mm_cpus_allowed is the superset
 * of each threads allowed CPUs mask which means it can only grow";
 * mm_init_cid() starts it from the first task's mask.  A task's CPUs join
 * when it becomes a user (lib/cid/ownership.c's fork grows the union and
 * marks the task active in one critical section: a thread the kernel
 * creates inherits its parent's mask, one of ours may bring new CPUs) and
 * stay after its exit; an affinity change adds its mask by its end.
 * Checked:
 *   at quiescence, nr_cpus_allowed is the weight of that union;
 *   at every step that changes max_cids, it is [V5]'s
 *   __mm_update_max_cids() of the users counted and that union (its
 *   weight with or without the masks of affinity changes under way): a
 *   max_cids computed from CPUs no user has brought yet is one no
 *   schedule of the kernel's stores, and switch-ins read it without the
 *   mutex.
 */
static unsigned int weight64(uint64_t m)
{
	return (unsigned int)__builtin_popcountll(m);
}

static void own_union_reset(struct props *pr)
{
	for (unsigned int i = 0; i < pr->v.s->ntasks; i++) {
		pr->un_mask[i] = scn_task_cpus(pr->v.s, i);
		pr->un_user[i] = pr->v.task[i].active;
		if (pr->un_user[i])
			pr->un_ever |= pr->un_mask[i];
	}
	pr->un_max = ld(&pr->mm->max_cids);
}

static void own_union_begin(struct props *pr, unsigned int tid,
			    const struct scn_event *e)
{
	if (e->kind == SCN_AFFINITY)
		pr->un_pend[tid] = e->mask;
}

static void own_union_end(struct props *pr, unsigned int tid,
			  const struct scn_event *e)
{
	if (e->kind != SCN_AFFINITY)
		return;
	pr->un_pend[tid] = 0;
	pr->un_mask[tid] = e->mask;
	if (pr->un_user[tid])
		pr->un_ever |= e->mask;
}

static void own_union_step(struct props *pr)
{
	unsigned int max = ld(&pr->mm->max_cids), users, lo, hi;
	uint64_t pend = 0;

	for (unsigned int i = 0; i < pr->v.s->ntasks; i++) {
		if (pr->v.task[i].active && !pr->un_user[i]) {
			pr->un_user[i] = true;
			pr->un_ever |= pr->un_mask[i];
		}
		pend |= pr->un_pend[i];
	}
	if (max == pr->un_max)
		return;
	pr->un_max = max;
	users = ld(&pr->mm->nr_users);
	lo = ref_max(pr, users, weight64(pr->un_ever));
	hi = ref_max(pr, users, weight64(pr->un_ever | pend));
	if (users && (max < lo || max > hi))
		fail(pr, "own-union: max_cids became %u with %u users whose "
			 "CPUs are %#llx (%u), where min(opt + opt/4, %u) is %u",
		     max, users, (unsigned long long)pr->un_ever,
		     weight64(pr->un_ever), pr->mm->nr_cpu_ids, lo);
}

static void own_union_quiet(struct props *pr)
{
	unsigned int allowed = ld(&pr->mm->nr_cpus_allowed);

	if (allowed != weight64(pr->un_ever))
		fail(pr, "own-union: the mm counts %u allowed CPUs where its "
			 "users' CPUs are %#llx (%u)", allowed,
		     (unsigned long long)pr->un_ever, weight64(pr->un_ever));
}
