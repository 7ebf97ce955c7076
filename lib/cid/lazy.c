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
 * Concurrency: the slot word is claimed with compare-and-swap.  BUSY marks
 * the task that runs with the slot's CID; a second task on the same CPU
 * (a lease thread preempted by another, which the kernel never sees) finds
 * the slot BUSY and takes a CID of its own from the bitmap, which it parks
 * in the slot at switch-out if the slot is empty by then, else releases.
 * The scan releases only idle slots (CAS to UNSET, then clear the bit) and
 * only marks BUSY ones.
 *
 * Cost: a switch-in that hits its slot is one slot CAS; a switch-out one
 * slot CAS and a store of the time; no bitmap RMW.  The scan visits
 * min(batch, nr_cpu_ids) slots twice and reads the bitmap once.
 */
#include "cid/cid_internal.h"

static unsigned int cidk__lazy_steal(struct cidk_cid_mm *mm,
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
	return atomic_compare_exchange_strong(&slot->word, expected, desired);
}

static void set_time(struct cidk__cid_slot *slot, uint64_t now)
{
	atomic_store_explicit(&slot->time, now, memory_order_relaxed);
}

static void set_recent(struct cidk__cid_slot *slot, unsigned int cid)
{
	atomic_store_explicit(&slot->recent, cid, memory_order_relaxed);
}

unsigned int cidk__lazy_switch_in(struct cidk_cid_mm *mm,
				  struct cidk_cid_task *t, unsigned int cpu,
				  uint64_t now)
{
	struct cidk__cid_slot *slot = &mm->slots[cpu];
	struct cidk__cid_shard *sh = cidk__shard(mm, cpu);
	unsigned int s = atomic_load_explicit(&slot->word, memory_order_relaxed);
	unsigned int cid;

	/* An idle slot never carries LAZY_PUT: its CID is ours to reuse. */
	while (s != SLOT_UNSET && !(s & SLOT_BUSY)) {
		if (slot_cas(sh, slot, &s, s | SLOT_BUSY)) {
			set_time(slot, now);
			cidk__st_add(sh, ST_HANDOVERS, 1);
			cidk__cid_note_in(mm, sh, t, cpu, s);
			return s;
		}
	}

	cid = take_new(mm, sh, cpu);
	if (cid == CIDK_CID_NONE)
		cid = cidk__lazy_steal(mm, sh);
	if (cid == CIDK_CID_NONE)
		return cid;
	if (s == SLOT_UNSET) {
		unsigned int unset = SLOT_UNSET;

		if (slot_cas(sh, slot, &unset, cid | SLOT_BUSY))
			set_recent(slot, cid);
	}
	set_time(slot, now);
	cidk__cid_note_in(mm, sh, t, cpu, cid);
	return cid;
}

void cidk__lazy_switch_out(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			   uint64_t now)
{
	struct cidk__cid_slot *slot = &mm->slots[t->cpu];
	struct cidk__cid_shard *sh = cidk__shard(mm, t->cpu);
	unsigned int cid = t->cid;
	unsigned int s = atomic_load_explicit(&slot->word, memory_order_relaxed);

	for (;;) {
		if ((s & SLOT_CID_MASK) == cid && (s & SLOT_BUSY)) {
			/* the slot's CID: keep it with the CPU, or honour LAZY_PUT */
			if (s & SLOT_LAZY_PUT) {
				if (slot_cas(sh, slot, &s, SLOT_UNSET)) {
					cidk__cid_put(mm, sh, cid);
					return;
				}
				continue;
			}
			set_time(slot, now); /* before the CAS publishes it idle */
			if (slot_cas(sh, slot, &s, cid))
				return;
			continue;
		}
		/* a CID of our own: park it in an empty slot, else give it back */
		if (s == SLOT_UNSET) {
			set_time(slot, now);
			if (slot_cas(sh, slot, &s, cid)) {
				set_recent(slot, cid);
				return;
			}
			continue;
		}
		cidk__cid_put(mm, sh, cid);
		return;
	}
}

static unsigned int cidk__lazy_steal(struct cidk_cid_mm *mm,
				     struct cidk__cid_shard *sh)
{
	for (unsigned int c = 0; c < mm->nr_cpu_ids; c++) {
		struct cidk__cid_slot *slot = &mm->slots[c];
		unsigned int s = atomic_load_explicit(&slot->word,
						      memory_order_relaxed);

		while (s != SLOT_UNSET && !(s & SLOT_BUSY))
			if (slot_cas(sh, slot, &s, SLOT_UNSET))
				return s; /* its bit stays set: now ours */
	}
	return CIDK_CID_NONE;
}

void cidk__lazy_migrate(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			unsigned int from, unsigned int to)
{
	struct cidk__cid_slot *src = &mm->slots[from], *dst = &mm->slots[to];
	struct cidk__cid_shard *sh = cidk__shard(mm, to);
	unsigned int s, unset = SLOT_UNSET;
	uint64_t time;

	if (from == to || t->last_cid == CIDK_CID_NONE)
		return;
	s = atomic_load_explicit(&src->word, memory_order_relaxed);
	/* only the task's own CID, idle on the source, to an empty target */
	if (s != t->last_cid ||
	    atomic_load_explicit(&dst->word, memory_order_relaxed) != SLOT_UNSET)
		return;
	time = atomic_load_explicit(&src->time, memory_order_relaxed);
	if (!slot_cas(sh, src, &s, SLOT_UNSET))
		return;
	set_time(dst, time);
	if (slot_cas(sh, dst, &unset, s)) {
		set_recent(dst, s);
		cidk__st_add(sh, ST_MIGRATE_MOVES, 1);
		return;
	}
	/* the target filled meanwhile: put it back where it was, or free it */
	unset = SLOT_UNSET;
	if (!slot_cas(sh, src, &unset, s))
		cidk__cid_put(mm, sh, s);
}

/* ---- the compaction scan -------------------------------------------------- */

/* Release the idle slot CID @s of @slot; false when the slot changed. */
static bool release_idle(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
			 struct cidk__cid_slot *slot, unsigned int *s)
{
	unsigned int cid = *s;

	if (!slot_cas(sh, slot, s, SLOT_UNSET))
		return false;
	cidk__cid_put(mm, sh, cid);
	cidk__st_add(sh, ST_COMPACTION_RELEASES, 1);
	return true;
}

static void clear_old(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
		      unsigned int cpu, uint64_t now)
{
	struct cidk__cid_slot *slot = &mm->slots[cpu];
	unsigned int s = atomic_load_explicit(&slot->word, memory_order_relaxed);
	uint64_t last;

	if (s == SLOT_UNSET)
		return;
	if (s & SLOT_BUSY) { /* in use right now: it is recent */
		set_time(slot, now);
		return;
	}
	last = atomic_load_explicit(&slot->time, memory_order_relaxed);
	if (now <= last || now - last <= mm->p.expiry_ns)
		return;
	release_idle(mm, sh, slot, &s); /* if it changed, it was just used */
}

static void clear_weight(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
			 unsigned int cpu, unsigned int weight)
{
	struct cidk__cid_slot *slot = &mm->slots[cpu];
	unsigned int s = atomic_load_explicit(&slot->word, memory_order_relaxed);

	for (;;) {
		if (s == SLOT_UNSET || (s & SLOT_LAZY_PUT) ||
		    (s & SLOT_CID_MASK) < weight)
			return;
		if (s & SLOT_BUSY) {
			if (slot_cas(sh, slot, &s, s | SLOT_LAZY_PUT)) {
				cidk__st_add(sh, ST_DEFERRED_RELEASES, 1);
				return;
			}
		} else if (release_idle(mm, sh, slot, &s)) {
			return;
		}
	}
}

unsigned int cidk__lazy_scan(struct cidk_cid_mm *mm, unsigned int cpu,
			     uint64_t now)
{
	struct cidk__cid_shard *sh = cidk__shard(mm, cpu);
	unsigned int n = mm->nr_cpu_ids, lo, hi, weight;
	unsigned int pos = atomic_load_explicit(&mm->scan_pos,
						memory_order_relaxed);

	if (pos == 0) {
		uint64_t next = atomic_load_explicit(&mm->next_scan,
						     memory_order_relaxed);

		if (next && now < next)
			return 0; /* the common case: not due */
		/* arm (first call) or claim the start of a new pass */
		if (!atomic_compare_exchange_strong(&mm->next_scan, &next,
						    now + mm->p.scan_period_ns) ||
		    !next)
			return 0;
		lo = 0;
		hi = mm->p.batch < n ? mm->p.batch : n;
		atomic_store_explicit(&mm->scan_pos, hi == n ? 0 : hi,
				      memory_order_relaxed);
	} else {
		lo = pos;
		hi = n - pos > mm->p.batch ? pos + mm->p.batch : n;
		if (!atomic_compare_exchange_strong(&mm->scan_pos, &pos,
						    hi == n ? 0 : hi))
			return 0;
	}

	for (unsigned int c = lo; c < hi; c++)
		clear_old(mm, sh, c, now);
	weight = cidk__cid_weight(mm);
	for (unsigned int c = lo; c < hi; c++)
		clear_weight(mm, sh, c, weight);

	cidk__st_add(sh, ST_COMPACTION_CALLS, 1);
	cidk__st_add(sh, ST_COMPACTION_CPUS, hi - lo);
	cidk__st_max(sh, ST_COMPACTION_MAX_CPUS, hi - lo);
	return hi - lo;
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
	}

const struct cidk__cid_ops cidk__lazy_ops = LAZY_OPS("lazy");
const struct cidk__cid_ops cidk__lazy_batched_ops = LAZY_OPS("lazy-batched");
const struct cidk__cid_ops cidk__cache_local_ops = LAZY_OPS("cache-local");
