/* SPDX-License-Identifier: MIT */
/*
 * lib/cid/lease_fast.h - the lazy family's fast path for leases: a thread
 * entering again where its last CID waits for it, and leaving.
 *
 * The kernel's task reuses its CPU's CID with no atomic at all: the
 * runqueue lock and disabled preemption make the slot the CPU's alone.  A
 * lease thread can be preempted by another one on the same CPU, so it
 * claims the slot, as cheaply as that allows:
 *   enter: one CAS expecting the slot idle with the thread's last CID (no
 *          load first); any other word: false, and the full switch-in;
 *   exit:  the slot still exactly CID|BUSY: the time, then a release store
 *          of the idle CID; anything else (LAZY_PUT, another CID): false,
 *          and the full switch-out.
 * The one race this leaves, a departure: a scan's LAZY_PUT landing between
 * the exit's load and its store is overwritten.  The CID then stays parked
 * idle in the slot -- owned by the slot, never by two -- and the next scan
 * pass that finds it at or above the weight releases it itself: that
 * compaction comes one scan period later (deferred_releases counted it
 * anyway).  mm_cid_put_lazy() never loses the mark (cmpxchg); a second
 * RMW per pair is what not losing it would cost here.  The enter stamps
 * no time: a BUSY slot's time is never read (clear_old() overwrites it),
 * and the exit stamps it.
 *
 * Inline, for lease.c (which counts its fast enters itself, see
 * cidk__cid_count_lease_fast); lazy.c puts them in the ops table
 * (lease_claim, lease_release) for every other caller, the checker's
 * enter and leave events included, so the checker explores this very
 * code.
 */
#ifndef CIDKIT_LIB_CID_LEASE_FAST_H
#define CIDKIT_LIB_CID_LEASE_FAST_H

#include "cid/cid_internal.h"

static inline bool cidk__lazy_lease_claim(struct cidk_cid_mm *mm,
					  struct cidk_cid_task *t,
					  unsigned int cpu)
{
	struct cidk__cid_slot *slot = &mm->slots[cpu];
	unsigned int s = t->last_cid;

	/* (a NONE last CID never matches: no slot word is all ones) */
	if (!cidk__cas(&slot->word, &s, s | SLOT_BUSY))
		return false;
	t->cid = s;
	t->cpu = cpu;
	t->running = true;
	return true;
}

static inline bool cidk__lazy_lease_release(struct cidk_cid_mm *mm,
					    struct cidk_cid_task *t,
					    uint64_t now)
{
	struct cidk__cid_slot *slot = &mm->slots[t->cpu];
	unsigned int cid = t->cid;

	if (cidk__ld(&slot->word) != (cid | SLOT_BUSY))
		return false;
	cidk__st64(&slot->time, now);
	cidk__st_rel(&slot->word, cid);
	t->cid = CIDK_CID_NONE;
	t->running = false;
	return true;
}

#endif /* CIDKIT_LIB_CID_LEASE_FAST_H */
