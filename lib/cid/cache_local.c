/* SPDX-License-Identifier: MIT */
/*
 * lib/cid/cache_local.c - the cache-local policy's allocation.  The slots,
 * their expiry and the compaction scan are the lazy policy's (lazy.c); what
 * differs is where a CPU without a slot CID gets one:
 *   1. its *recent* CID (kept in the slot even after the scan released it),
 *      if it is below nr_cids_used and its bit is free: the CID's data is
 *      still in this CPU's cache;
 *   2. while nr_cids_used < min(nr_cpus_allowed, nr_users), the next
 *      never-used CID (nr_cids_used claimed with compare-and-swap), which
 *      spreads CIDs over the CPUs instead of piling them on the lowest;
 *   3. the lowest free CID below nr_cpus_allowed.
 * nr_cids_used first shrinks to min(nr_cpus_allowed, nr_users) when users
 * left, so that a leader left alone does not keep reusing a high CID.
 *
 * Cost: step 1 is one bitmap RMW; step 2 one CAS on the mm's counter and one
 * bitmap RMW, at most max_cids times in the mm's life; step 3 a search and
 * an RMW.  nr_cpus_allowed is the weight of the allowed-CPUs union, kept by
 * cidk_mask_union_count() in mm.c.
 */
#include "cid/cid_internal.h"

unsigned int cidk__cache_local_take(struct cidk_cid_mm *mm,
				    struct cidk__cid_shard *sh,
				    unsigned int cpu)
{
	unsigned int allowed = cidk__load_u(&mm->nr_cpus_allowed);
	unsigned int users = cidk__load_u(&mm->nr_users);
	unsigned int max = allowed < users ? allowed : users;
	unsigned int used = cidk__load_u(&mm->nr_cids_used);
	unsigned int cid;

	/*
	 * After users (or allowed CPUs) shrank, shrink nr_cids_used with them,
	 * so that expansion starts again from the new bound and a recent CID
	 * above it is not reused.
	 */
	while (used > max) {
		cidk__st_add(sh, ST_SLOT_RMW, 1);
		if (atomic_compare_exchange_strong(&mm->nr_cids_used, &used,
						   max)) {
			used = max;
			break;
		}
	}
	cid = cidk__load_u(&mm->slots[cpu].recent);
	/* (a BUSY slot still holding its recent CID: no need to try it) */
	if (cid < used &&
	    (cidk__load_u(&mm->slots[cpu].word) & SLOT_CID_MASK) != cid &&
	    cidk__cid_try_take(mm, sh, cid))
		return cid;

	cid = used;
	while (cid < max) {
		cidk__st_add(sh, ST_SLOT_RMW, 1);
		if (!atomic_compare_exchange_strong(&mm->nr_cids_used, &cid,
						    cid + 1))
			continue;
		if (cidk__cid_try_take(mm, sh, cid))
			return cid;
		cid++;
	}
	return cidk__cid_take_lowest(mm, sh, allowed);
}
