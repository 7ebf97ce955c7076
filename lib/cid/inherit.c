/* SPDX-License-Identifier: MIT */
/*
 * lib/cid/inherit.c - the inherit policy: no per-CPU expiry and no scan.
 * A task switching in tries, in order, its own last CID, the CPU's last
 * CID, then the lowest free bit -- all below max_cid = min(nr_cpus_allowed,
 * nr_users).  When the task switched out and the task switched in share
 * the mm, the CID passes from one to the other without touching the bitmap.
 * Compactness comes from the bound.
 *
 * Cost: a switch-in is one bitmap RMW when the task's (or the CPU's) last
 * CID is free, else a search and an RMW; a switch-out one RMW; a same-mm
 * switch none.  The per-task and per-CPU last CIDs are hints: ownership is
 * the bitmap bit, claimed with test-and-set.
 *
 * Invariant: a running task's CID is below max_cid at the time it was
 * taken (a shrinking nr_users may leave it above until its next switch).
 */
#include "cid/cid_internal.h"

static bool try_hint(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
		     unsigned int cid, unsigned int max_cid)
{
	return cid < max_cid && cidk__cid_try_take(mm, sh, cid);
}

static unsigned int inherit_switch_in(struct cidk_cid_mm *mm,
				      struct cidk_cid_task *t, unsigned int cpu,
				      uint64_t now)
{
	struct cidk__cid_shard *sh = cidk__shard(mm, cpu);
	unsigned int max_cid = cidk__mm_max_cids(mm);
	unsigned int cid = t->last_cid, cpu_cid;

	(void)now;
	if (try_hint(mm, sh, cid, max_cid))
		goto got;
	cpu_cid = cidk__ld(&mm->slots[cpu].recent);
	if (cpu_cid != cid && try_hint(mm, sh, cpu_cid, max_cid)) {
		cid = cpu_cid;
		goto got;
	}
	cid = cidk__cid_take_lowest(mm, sh, max_cid);
	if (cid == CIDK_CID_NONE)
		return cid;
got:
	cidk__cid_note_in(mm, sh, t, cpu, cid);
	return cid;
}

static void inherit_switch_out(struct cidk_cid_mm *mm,
			       struct cidk_cid_task *t, uint64_t now)
{
	(void)now;
	cidk__st(&mm->slots[t->cpu].recent, t->cid);
	cidk__cid_put(mm, cidk__shard(mm, t->cpu), t->cid);
}

static bool inherit_handover(struct cidk_cid_mm *mm, struct cidk_cid_task *prev,
			     struct cidk_cid_task *next, unsigned int cpu)
{
	struct cidk__cid_shard *sh = cidk__shard(mm, cpu);
	unsigned int cid = prev->cid;

	if (cid == CIDK_CID_NONE || cid >= cidk__mm_max_cids(mm))
		return false;
	prev->cid = CIDK_CID_NONE;
	prev->running = false;
	cidk__st(&mm->slots[cpu].recent, cid);
	cidk__st_add(sh, ST_HANDOVERS, 1);
	cidk__cid_note_in(mm, sh, next, cpu, cid);
	return true;
}

const struct cidk__cid_ops cidk__inherit_ops = {
	.name = "inherit",
	.switch_in = inherit_switch_in,
	.switch_out = inherit_switch_out,
	.handover = inherit_handover,
};
