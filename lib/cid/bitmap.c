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

static unsigned int bitmap_switch_in(struct cidk_cid_mm *mm,
				     struct cidk_cid_task *t, unsigned int cpu,
				     uint64_t now)
{
	struct cidk__cid_shard *sh = cidk__shard(mm, cpu);
	unsigned int cid;

	(void)now;
	cid = cidk__cid_take_lowest(mm, sh, cidk__ld(&mm->nr_cpus_allowed));
	if (cid != CIDK_CID_NONE)
		cidk__cid_note_in(mm, sh, t, cpu, cid);
	return cid;
}

static void bitmap_switch_out(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			      uint64_t now)
{
	(void)now;
	cidk__cid_put(mm, cidk__shard(mm, t->cpu), t->cid);
}

const struct cidk__cid_ops cidk__bitmap_ops = {
	.name = "bitmap",
	.switch_in = bitmap_switch_in,
	.switch_out = bitmap_switch_out,
};
