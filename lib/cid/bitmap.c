/* SPDX-License-Identifier: MIT */
/*
 * lib/cid/bitmap.c - the bitmap policy: on switch-in take the lowest free
 * bit of the mm's CID bitmap, on switch-out give it back.
 *
 * Cost: every switch-in is one search and (at least) one atomic RMW on the
 * shared bitmap, every switch-out one more RMW; no per-CPU state, no scan.
 * The search is bounded by nr_cpus_allowed: at most that many tasks run at
 * once, so a free bit below it always exists for a well-behaved driver.
 */
#include "cid/cid_internal.h"

unsigned int cidk__bitmap_switch_in(struct cidk_cid_mm *mm,
				    struct cidk_cid_task *t, unsigned int cpu)
{
	struct cidk__cid_shard *sh = cidk__shard(mm, cpu);
	unsigned int cid;

	cid = cidk__cid_take_lowest(mm, sh, cidk__load_u(&mm->nr_cpus_allowed));
	if (cid != CIDK_CID_NONE)
		cidk__cid_note_in(mm, sh, t, cpu, cid);
	return cid;
}

void cidk__bitmap_switch_out(struct cidk_cid_mm *mm, struct cidk_cid_task *t)
{
	cidk__cid_put(mm, cidk__shard(mm, t->cpu), t->cid);
}
