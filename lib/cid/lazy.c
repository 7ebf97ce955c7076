/* SPDX-License-Identifier: MIT */
/*
 * lib/cid/lazy.c - the lazy family (lazy, lazy-batched, cache-local): each
 * (mm, CPU) slot keeps the CID it last used, with the time of last use; a
 * task switching in on that CPU reuses it without touching the bitmap, and
 * a switch-out leaves it with the CPU.  A compaction scan, at most once per
 * scan period per mm, releases slot CIDs unused for more than the expiry,
 * then slot CIDs at or above the number of CIDs in use; a CID whose CPU is
 * running the mm right now gets a LAZY_PUT mark instead, which the running
 * owner honours at its next switch-out.  lazy-batched visits at most
 * `batch` CPUs per call and resumes where it stopped; the period applies
 * only when a new full pass starts.  lazy is lazy-batched with one batch.
 *
 * Sources (public; the facts are the kernel's, the code is ours): the
 * lazy-era mm_cid code of Linux 6.4 to 6.18 -- mm_cid_get(), switch_mm_cid()
 * and mm_cid_put_lazy() (switch), task_mm_cid_work() with
 * sched_mm_cid_remote_clear_old()/_weight() (the scan),
 * sched_mm_cid_migrate_to() with __sched_mm_cid_migrate_from_fetch_cid()
 * and _try_steal_cid() (migration), sched_mm_cid_exit_signals() with
 * mm_cid_put() (exit) -- and, for cache-local, "sched: Improve cache
 * locality of RSEQ concurrency IDs for intermittent workloads" (M.
 * Desnoyers, Dec 2024, merged for 6.15), which added recent_cid, the mm's
 * allowed union and the recent-CID rules of migration.
 *
 * Kernel-faithful:
 *   - exit: the exiting task's CPU gives its CID back (mm_cid_put() on the
 *     CPU the task last ran on), so that a leader left alone converges at
 *     the first due scan after the others exit, not after the expiry;
 *   - migration of a sleeping task from `from` to `to`: nothing when the
 *     destination already has a CID (cache-local: or a recent CID) and the
 *     mm has at least as many users as allowed CPUs; else the task's own
 *     CID, idle in the source slot, is taken from it (the source's recent
 *     CID cleared) and either moved to the empty destination or, when the
 *     destination has one already, given back to the pool;
 *   - a slot's CID is reused at switch-in with no bound check: CIDs stay
 *     below nr_cpus_allowed (every new one is allocated below it, and the
 *     union only grows), and come back below min(nr_cpus_allowed,
 *     nr_users) only through the scan, as in the kernel (docs/cid.md).
 * Departures, each for a reason:
 *   - lazy compares users with the mm's nr_cpus_allowed where the 6.4
 *     kernel used the migrating task's own nr_cpus_allowed (a task here
 *     has no mask of its own; cache-local's kernel uses the mm's too), and
 *     only cache-local counts a destination's recent CID as "set" (recent
 *     CIDs arrived with that series; lazy keeps them only as a hint);
 *   - a moved CID keeps the source's time of last use (the kernel stamps
 *     the destination with its runqueue clock: the migrate operation gets
 *     no time here), so it may expire one period sooner;
 *   - exit of a task whose CPU's slot is BUSY with another thread of the
 *     mm (leases only: the kernel's exiting task runs on its CPU) releases
 *     nothing; the scan's weight pass takes that CID back;
 *   - when every CID below nr_cpus_allowed is owned (leases: more threads
 *     inside than CPUs), a switch-in takes an idle slot's CID of another
 *     CPU (steal) instead of spinning as the kernel's __mm_cid_try_get()
 *     does; each slot is tried once, then the switch-in reports NONE.
 *
 * Concurrency: the slot word is claimed with compare-and-swap.  BUSY marks
 * the task that runs with the slot's CID; a second task on the same CPU
 * (a lease thread preempted by another, which the kernel never sees) finds
 * the slot BUSY and takes a CID of its own from the bitmap, which it parks
 * in the slot at switch-out if the slot is empty by then, else releases.
 * The scan, migration and exit release only idle slots (CAS to UNSET,
 * then clear the bit); the scan only marks BUSY ones.  Only the task that
 * owns it stamps a slot's time.  Every shared step goes through
 * cid_atomic.h.
 *
 * Progress: every loop is bounded.  A BUSY slot holding the switching-out
 * task's CID can change under it only once (the scan adds LAZY_PUT), so
 * that CAS loop runs at most twice; the other CAS loops give up after
 * SLOT_TRIES failures (each failure is another thread's progress) and fall
 * back to something always safe: take a new CID, give the CID back to the
 * bitmap, or leave the slot to the next scan.
 *
 * Cost: a switch-in that hits its slot is one slot CAS; a switch-out one slot
 * CAS and a store of the time; no bitmap RMW.  The scan visits min(batch,
 * nr_cpu_ids) slots twice, reads the bitmap once, adds its releases once.
 */
#include "cid/cid_internal.h"
#include "cid/lease_fast.h"

/* CAS attempts on a slot that keeps changing before a loop gives up. */
#define SLOT_TRIES 4

static unsigned int lazy_steal(struct cidk_cid_mm *mm,
			       struct cidk__cid_shard *sh);

static unsigned int take_new(struct cidk_cid_mm *mm,
			     struct cidk__cid_shard *sh, unsigned int cpu)
{
	if (mm->p.kind == CIDK_CID_CACHE_LOCAL)
		return cidk__cache_local_take(mm, sh, cpu);
	return cidk__cid_take_lowest(mm, sh,
				     cidk__ld(&mm->nr_cpus_allowed));
}

static bool slot_cas(struct cidk__cid_shard *sh, struct cidk__cid_slot *slot,
		     unsigned int *expected, unsigned int desired)
{
	cidk__st_add(sh, ST_SLOT_RMW, 1);
	return cidk__cas(&slot->word, expected, desired);
}

static bool slot_idle(unsigned int s)
{
	return s != SLOT_UNSET && !(s & SLOT_BUSY);
}

unsigned int cidk__lazy_switch_in(struct cidk_cid_mm *mm,
				  struct cidk_cid_task *t, unsigned int cpu,
				  uint64_t now)
{
	struct cidk__cid_slot *slot = &mm->slots[cpu];
	struct cidk__cid_shard *sh = cidk__shard(mm, cpu);
	unsigned int s = cidk__ld(&slot->word);
	unsigned int cid;

	/*
	 * An idle slot never carries LAZY_PUT: its CID is ours to reuse,
	 * whatever the bound is now (mm_cid_get() does no bound check).
	 */
	for (unsigned int i = 0; i < SLOT_TRIES && slot_idle(s); i++) {
		if (slot_cas(sh, slot, &s, s | SLOT_BUSY)) {
			cidk__st64(&slot->time, now);
			cidk__st_add(sh, ST_HANDOVERS, 1);
			cidk__cid_note_in(mm, sh, t, cpu, s);
			return s;
		}
	}

	cid = take_new(mm, sh, cpu);
	if (cid == CIDK_CID_NONE)
		cid = lazy_steal(mm, sh);
	if (cid == CIDK_CID_NONE)
		return cid;
	if (s == SLOT_UNSET) {
		unsigned int unset = SLOT_UNSET;

		/* the slot's time is stamped only by the task that owns it */
		if (slot_cas(sh, slot, &unset, cid | SLOT_BUSY)) {
			cidk__st64(&slot->time, now);
			cidk__st(&slot->recent, cid);
		}
	}
	cidk__cid_note_in(mm, sh, t, cpu, cid);
	return cid;
}

void cidk__lazy_switch_out(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			   uint64_t now)
{
	struct cidk__cid_slot *slot = &mm->slots[t->cpu];
	struct cidk__cid_shard *sh = cidk__shard(mm, t->cpu);
	unsigned int cid = t->cid;
	unsigned int s = cidk__ld(&slot->word);

	/* the slot's CID: keep it with the CPU, or honour LAZY_PUT */
	while ((s & SLOT_CID_MASK) == cid && (s & SLOT_BUSY)) {
		if (s & SLOT_LAZY_PUT) {
			if (slot_cas(sh, slot, &s, SLOT_UNSET)) {
				cidk__cid_put(mm, sh, cid);
				return;
			}
			continue; /* cannot happen: LAZY_PUT is the last change */
		}
		cidk__st64(&slot->time, now); /* before the CAS publishes it idle */
		if (slot_cas(sh, slot, &s, cid))
			return;
		/* the scan marked it LAZY_PUT meanwhile: once, at most */
	}
	/* a CID of our own: park it in an empty slot, else give it back */
	for (unsigned int i = 0; i < SLOT_TRIES && s == SLOT_UNSET; i++) {
		cidk__st64(&slot->time, now);
		if (slot_cas(sh, slot, &s, cid)) {
			cidk__st(&slot->recent, cid);
			return;
		}
	}
	cidk__cid_put(mm, sh, cid);
}

/*
 * Every CID below the bound is owned: take one parked idle in some CPU's
 * slot (its bit stays set: it is ours now).  One CAS per slot at most.
 */
static unsigned int lazy_steal(struct cidk_cid_mm *mm,
			       struct cidk__cid_shard *sh)
{
	for (unsigned int c = 0; c < mm->nr_cpu_ids; c++) {
		struct cidk__cid_slot *slot = &mm->slots[c];
		unsigned int s = cidk__ld(&slot->word);

		if (slot_idle(s) && slot_cas(sh, slot, &s, SLOT_UNSET))
			return s;
	}
	return CIDK_CID_NONE;
}

/*
 * sched_mm_cid_migrate_to(): the not running @t moves from @from to @to.
 * Its own CID, idle in @from's slot, leaves that slot (whose recent CID
 * is cleared) and goes to @to's slot when that one is empty, else back to
 * the pool -- unless @to has a CID already and the mm has at least as
 * many users as allowed CPUs (user space may then expect CIDs up to
 * nr_cpus_allowed: nothing moves).
 */
void cidk__lazy_migrate(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			unsigned int from, unsigned int to)
{
	struct cidk__cid_slot *src = &mm->slots[from], *dst = &mm->slots[to];
	struct cidk__cid_shard *sh = cidk__shard(mm, to);
	unsigned int s, unset = SLOT_UNSET;
	bool dst_set;
	uint64_t time;

	if (from == to || t->last_cid == CIDK_CID_NONE)
		return;
	dst_set = cidk__ld(&dst->word) != SLOT_UNSET ||
		  (mm->p.kind == CIDK_CID_CACHE_LOCAL &&
		   cidk__ld(&dst->recent) != CIDK_CID_NONE);
	if (dst_set && cidk__ld(&mm->nr_users) >= cidk__ld(&mm->nr_cpus_allowed))
		return;
	/* only the task's own CID, idle on the source (BUSY: a task runs there) */
	s = cidk__ld(&src->word);
	if (s != t->last_cid)
		return;
	time = cidk__ld64(&src->time);
	if (!slot_cas(sh, src, &s, SLOT_UNSET))
		return;
	cidk__st(&src->recent, CIDK_CID_NONE);
	if (!dst_set) {
		cidk__st64(&dst->time, time);
		if (slot_cas(sh, dst, &unset, s)) {
			cidk__st(&dst->recent, s);
			cidk__st_add(sh, ST_MIGRATE_MOVES, 1);
			return;
		}
	}
	/* the destination has a CID (or took one meanwhile): free ours */
	cidk__cid_put(mm, sh, s);
}

/*
 * sched_mm_cid_exit_signals(): @t (switched out already) leaves; the CPU
 * it last ran on gives back its CID, as mm_cid_put() does on the exiting
 * task's CPU.  A task that never ran has no CPU; a slot BUSY with another
 * thread (leases) keeps its CID (see the header).
 */
static void lazy_exit(struct cidk_cid_mm *mm, struct cidk_cid_task *t)
{
	struct cidk__cid_slot *slot = &mm->slots[t->cpu];
	struct cidk__cid_shard *sh = cidk__shard(mm, t->cpu);

	if (t->last_cid != CIDK_CID_NONE) {
		unsigned int s = cidk__ld(&slot->word);

		if (slot_idle(s) && slot_cas(sh, slot, &s, SLOT_UNSET))
			cidk__cid_put(mm, sh, s);
	}
	cidk__sub(&mm->nr_users, 1);
}

/* ---- the compaction scan -------------------------------------------------- */

/*
 * Release the slot CID @s of @slot (idle, but for mutate.py's lazy-scan-busy);
 * false when the slot changed.
 */
static bool release_idle(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
			 struct cidk__cid_slot *slot, unsigned int *s)
{
	unsigned int cid = *s & SLOT_CID_MASK;

	if (!slot_cas(sh, slot, s, SLOT_UNSET))
		return false;
	cidk__cid_put(mm, sh, cid);
	cidk__st_add(sh, ST_COMPACTION_RELEASES, 1);
	return true;
}

/* true when it released the slot's CID */
static bool clear_old(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
		      struct cidk__cid_slot *slot, uint64_t now)
{
	unsigned int s = cidk__ld(&slot->word);
	uint64_t last;

	if (s == SLOT_UNSET)
		return false;
	if (s & SLOT_BUSY) { /* in use right now: it is recent */
		cidk__st64(&slot->time, now);
		return false;
	}
	last = cidk__ld64(&slot->time);
	if (now <= last || now - last <= mm->p.expiry_ns)
		return false;
	/* if it changed, it was just used */
	return release_idle(mm, sh, slot, &s);
}

/* true when it released the slot's CID or marked it LAZY_PUT */
static bool clear_weight(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
			 struct cidk__cid_slot *slot, unsigned int weight)
{
	unsigned int s = cidk__ld(&slot->word);

	for (unsigned int i = 0; i < SLOT_TRIES; i++) {
		if (s == SLOT_UNSET || (s & SLOT_LAZY_PUT) ||
		    (s & SLOT_CID_MASK) < weight)
			return false;
		if (s & SLOT_BUSY) {
			if (slot_cas(sh, slot, &s, s | SLOT_LAZY_PUT)) {
				cidk__st_add(sh, ST_DEFERRED_RELEASES, 1);
				return true;
			}
		} else if (release_idle(mm, sh, slot, &s)) {
			return true;
		}
	}
	/* the slot keeps changing: the next pass will see it again */
	return false;
}

unsigned int cidk__lazy_scan(struct cidk_cid_mm *mm, unsigned int cpu,
			     uint64_t now)
{
	struct cidk__cid_shard *sh = cidk__shard(mm, cpu);
	unsigned int n = mm->nr_cpu_ids, lo, hi, weight, released = 0;
	unsigned int pos = cidk__ld(&mm->scan_pos);
	struct cidk__cid_slot *slots;

	if (pos == 0) {
		uint64_t next = cidk__ld64(&mm->next_scan);

		if (next && now < next)
			return 0; /* the common case: not due */
		/* arm (first call) or claim the start of a new pass */
		if (!cidk__cas64(&mm->next_scan, &next,
				 now + mm->p.scan_period_ns) ||
		    !next)
			return 0;
		lo = 0;
		hi = mm->p.batch < n ? mm->p.batch : n;
		cidk__st(&mm->scan_pos, hi == n ? 0 : hi);
	} else {
		lo = pos;
		hi = n - pos > mm->p.batch ? pos + mm->p.batch : n;
		if (!cidk__cas(&mm->scan_pos, &pos, hi == n ? 0 : hi))
			return 0;
	}

	/*
	 * The kernel's two for_each_possible_cpu() loops.  Most slots are
	 * UNSET (a few threads on many CPUs), so a visit is mostly a load
	 * and a compare: the slots' address is read once, not per slot (a
	 * visit's stores could alias mm->slots), and the loops are unrolled.
	 */
	slots = mm->slots;
#pragma GCC unroll 4
	for (struct cidk__cid_slot *slot = slots + lo; slot < slots + hi; slot++)
		released += clear_old(mm, sh, slot, now);
	weight = cidk__cid_weight(mm);
#pragma GCC unroll 4
	for (struct cidk__cid_slot *slot = slots + lo; slot < slots + hi; slot++)
		released += clear_weight(mm, sh, slot, weight);
	if (released) /* the mm's total (mm.c): a statistic, not a step */
		atomic_fetch_add_explicit(
			&cidk__cid_totals(mm)->v[ST_COMPACTION_RELEASES],
			released, memory_order_relaxed);

	cidk__st_add(sh, ST_COMPACTION_CALLS, 1);
	cidk__st_add(sh, ST_COMPACTION_CPUS, hi - lo);
	cidk__st_max(sh, ST_COMPACTION_MAX_CPUS, hi - lo);
	return hi - lo;
}

/* ---- leases' fast path (lease_fast.h) ------------------------------------- */

static bool lazy_lease_claim(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			     unsigned int cpu)
{
	if (!cidk__lazy_lease_claim(mm, t, cpu))
		return false;
	cidk__cid_count_lease_fast(mm, cpu, 1);
	return true;
}

static bool lazy_lease_release(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			       uint64_t now)
{
	return cidk__lazy_lease_release(mm, t, now);
}

/* ---- the tables ------------------------------------------------------------ */

static void lazy_migrate_op(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			    unsigned int from, unsigned int to)
{
	cidk__lazy_migrate(mm, t, from, to);
	t->cpu = to;
}

#define LAZY_OPS(NAME)                                \
	{                                             \
		.name = NAME,                         \
		.switch_in = cidk__lazy_switch_in,    \
		.switch_out = cidk__lazy_switch_out,  \
		.scan = cidk__lazy_scan,              \
		.migrate = lazy_migrate_op,           \
		.exit = lazy_exit,                    \
		.lease_claim = lazy_lease_claim,      \
		.lease_release = lazy_lease_release,  \
	}

const struct cidk__cid_ops cidk__lazy_ops = LAZY_OPS("lazy");
const struct cidk__cid_ops cidk__lazy_batched_ops = LAZY_OPS("lazy-batched");
const struct cidk__cid_ops cidk__cache_local_ops = LAZY_OPS("cache-local");
