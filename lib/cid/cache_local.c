/* SPDX-License-Identifier: MIT */
/*
 * lib/cid/cache_local.c - the cache-local policy's allocation.  The slots,
 * their expiry and the compaction scan are the lazy policy's (lazy.c); what
 * differs is where a CPU without a slot CID gets one (the kernel's
 * __mm_cid_try_get() after "sched: Improve cache locality of RSEQ
 * concurrency IDs for intermittent workloads", Dec 2024):
 *   1. its *recent* CID (kept in the slot even after the scan released it),
 *      if it is below nr_cids_used and its bit is free: the CID's data is
 *      still in this CPU's cache;
 *   2. while nr_cids_used < min(nr_cpus_allowed, nr_users), the next
 *      never-used CID (nr_cids_used claimed with compare-and-swap), which
 *      spreads CIDs over the CPUs instead of piling them on the lowest;
 *   3. the lowest free CID below nr_cpus_allowed.
 * nr_cids_used (the kernel's max_nr_cid) first shrinks to
 * min(nr_cpus_allowed, nr_users) when users left, so that a leader left
 * alone does not keep reusing a high CID.  Steps 1 and 2 stay below that
 * bound; step 3 and the reuse of a slot's CID (lazy.c) do not, as in the
 * kernel: the scan brings CIDs back under it.
 *
 * Progress: each CAS loop on nr_cids_used gives up after a bounded number
 * of failures (each one is another thread's progress): the shrink is an
 * optimisation, and the expansion falls through to step 3.
 *
 * Cost: step 1 is one bitmap RMW; step 2 one CAS on the mm's counter and one
 * bitmap RMW, at most max_cids times in the mm's life; step 3 a search and
 * an RMW.  nr_cpus_allowed is the weight of the allowed-CPUs union, kept by
 * cidk_mask_union_count() in mm.c.
 */
#include "cid/cid_internal.h"

#define SHRINK_TRIES CIDK__CL_SHRINK_TRIES /* 4: cid_internal.h */

unsigned int cidk__cache_local_take(struct cidk_cid_mm *mm,
				    struct cidk__cid_shard *sh,
				    unsigned int cpu)
{
	unsigned int allowed = cidk__ld(&mm->nr_cpus_allowed);
	unsigned int users = cidk__ld(&mm->nr_users);
	unsigned int max = allowed < users ? allowed : users;
	unsigned int used = cidk__ld(&mm->nr_cids_used);
	unsigned int cid;

	/*
	 * After users (or allowed CPUs) shrank, shrink nr_cids_used with them,
	 * so that expansion starts again from the new bound and a recent CID
	 * above it is not reused.
	 */
	for (unsigned int i = 0; i < SHRINK_TRIES && used > max; i++) {
		cidk__st_add(sh, ST_SLOT_RMW, 1);
		if (cidk__cas(&mm->nr_cids_used, &used, max)) {
			used = max;
			break;
		}
	}
	if (used > max)
		used = max; /* lost every race: bound this call by max anyway */
	cid = cidk__ld(&mm->slots[cpu].recent);
	/* (a BUSY slot still holding its recent CID: no need to try it) */
	if (cid < used &&
	    (cidk__ld(&mm->slots[cpu].word) & SLOT_CID_MASK) != cid &&
	    cidk__cid_try_take(mm, sh, cid))
		return cid;

	/* at most max successful claims, and as many lost races */
	cid = used;
	for (unsigned int i = 0; cid < max && i < CIDK__CL_CLAIMS(max); i++) {
		cidk__st_add(sh, ST_SLOT_RMW, 1);
		if (!cidk__cas(&mm->nr_cids_used, &cid, cid + 1))
			continue;
		if (cidk__cid_try_take(mm, sh, cid))
			return cid;
		cid++;
	}
	return cidk__cid_take_lowest(mm, sh, allowed);
}
