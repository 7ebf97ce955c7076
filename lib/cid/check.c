/* SPDX-License-Identifier: MIT */
/*
 * lib/cid/check.c - the invariant checker (tests, debug builds).
 *
 * What it proves, for the live tasks the caller lists:
 *   - a task that is not running holds no CID;
 *   - a running task holds a CID, below nr_cpu_ids and nr_cpus_allowed
 *     (and below min(nr_cpus_allowed, nr_users) when strict), whose bitmap
 *     bit is set;
 *   - no CID is held twice: not by two running tasks, not by two slots,
 *     not by a running task and an idle slot of another CPU;
 *   - slots (lazy family): LAZY_PUT only with BUSY, a BUSY slot's CID is
 *     held by a running task on that CPU;
 *   - no CID leaks: every set bit is owned by a running task or a slot.
 * O(n + nr_cpu_ids); single-threaded (reads with relaxed loads).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cid/cid_internal.h"

int cidk__cid_why(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

#define OWNER_SLOT 0x80000000u /* owner[] entry: slot index | OWNER_SLOT */

int cidk_cid_check(const struct cidk_cid_mm *mm,
		   struct cidk_cid_task *const *tasks, unsigned int n,
		   bool strict, char *why, size_t whylen)
{
	unsigned int nr = mm->nr_cpu_ids;
	bool own = mm->p.kind == CIDK_CID_OWNERSHIP;
	/* ownership's bound is nr_cpu_ids: its fallback allocates up to it */
	unsigned int allowed = own ? nr : cidk__load_u(&mm->nr_cpus_allowed);
	unsigned int max_cids = cidk_cid_max_cids(mm);
	bool lazy = cidk__is_lazy_family(mm);
	unsigned int *owner; /* CID -> task index, or slot | OWNER_SLOT */
	int rc = 0;

	if (why && whylen)
		why[0] = '\0';
	owner = malloc(sizeof(*owner) * nr);
	if (!owner)
		return -ENOMEM;
	for (unsigned int c = 0; c < nr; c++)
		owner[c] = CIDK_CID_NONE;

	for (unsigned int i = 0; i < n; i++) {
		const struct cidk_cid_task *t = tasks[i];
		unsigned int cid = t->cid;

		if (!t->running) {
			if (cid != CIDK_CID_NONE) {
				rc = cidk__cid_why(why, whylen,
					  "task %u is not running but holds CID %u",
					  i, cid);
				goto out;
			}
			continue;
		}
		if (cid == CIDK_CID_NONE) {
			rc = cidk__cid_why(why, whylen, "running task %u holds no CID", i);
			goto out;
		}
		if (cid >= nr || cid >= allowed) {
			rc = cidk__cid_why(why, whylen,
				  "task %u holds CID %u >= nr_cpus_allowed %u (nr_cpu_ids %u)",
				  i, cid, allowed, nr);
			goto out;
		}
		if (strict && cid >= max_cids) {
			rc = cidk__cid_why(why, whylen,
				  "task %u holds CID %u >= min(nr_cpus_allowed, nr_users) = %u",
				  i, cid, max_cids);
			goto out;
		}
		if (!cidk_mask_test_atomic(mm->cidmask, cid)) {
			rc = cidk__cid_why(why, whylen,
				  "task %u holds CID %u whose bitmap bit is clear",
				  i, cid);
			goto out;
		}
		if (owner[cid] != CIDK_CID_NONE) {
			rc = cidk__cid_why(why, whylen,
				  "CID %u held twice: by running tasks %u and %u",
				  cid, owner[cid], i);
			goto out;
		}
		owner[cid] = i;
	}

	for (unsigned int c = 0; lazy && c < nr; c++) {
		unsigned int s = cidk__load_u(&mm->slots[c].word);
		unsigned int cid = s & SLOT_CID_MASK, o;

		if (s == SLOT_UNSET)
			continue;
		if ((s & SLOT_LAZY_PUT) && !(s & SLOT_BUSY)) {
			rc = cidk__cid_why(why, whylen, "CPU %u: LAZY_PUT on an idle slot", c);
			goto out;
		}
		if (cid >= nr || !cidk_mask_test_atomic(mm->cidmask, cid)) {
			rc = cidk__cid_why(why, whylen,
				  "CPU %u: slot CID %u not set in the bitmap", c,
				  cid);
			goto out;
		}
		o = owner[cid];
		if (s & SLOT_BUSY) {
			if (o == CIDK_CID_NONE || (o & OWNER_SLOT) ||
			    tasks[o]->cpu != c) {
				rc = cidk__cid_why(why, whylen,
					  "CPU %u: busy slot CID %u not held by a task running there",
					  c, cid);
				goto out;
			}
		} else if (o != CIDK_CID_NONE) {
			rc = cidk__cid_why(why, whylen,
				  "CID %u held twice: idle on CPU %u and by %s %u",
				  cid, c, (o & OWNER_SLOT) ? "CPU" : "task",
				  o & ~OWNER_SLOT);
			goto out;
		}
		owner[cid] = c | OWNER_SLOT;
	}

	if (own) {
		rc = cidk__ownership_check(mm, tasks, n, why, whylen);
		goto out;
	}
	for (unsigned int c = 0; c < nr; c++)
		if (cidk_mask_test_atomic(mm->cidmask, c) &&
		    owner[c] == CIDK_CID_NONE) {
			rc = cidk__cid_why(why, whylen,
				  "CID %u leaked: set in the bitmap, owned by no task or CPU",
				  c);
			goto out;
		}
out:
	free(owner);
	return rc;
}
