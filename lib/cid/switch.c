/* SPDX-License-Identifier: MIT */
/*
 * lib/cid/switch.c - the scheduler events, dispatched to the policies
 * through their tables of operations (cid_internal.h, struct
 * cidk__cid_ops, one per policy file, as the kernel's sched_class).
 *
 * Workload: cidk_cid_switch() is the hot path (every context switch of the
 * simulator, every lease enter and exit): one indirect call per half.
 * tick and return_to_user are hot too but almost always return after one
 * relaxed load (the scan is not due, or the policy has none).
 */
#include <errno.h>
#include <string.h>

#include "cid/cid_internal.h"

void cidk__cid_count_in(struct cidk__cid_shard *sh, struct cidk_cid_task *t,
			unsigned int cid)
{
	cidk__st_add(sh, ST_ALLOCATIONS, 1);
	if (t->last_cid != CIDK_CID_NONE && t->last_cid != cid)
		cidk__st_add(sh, ST_CID_CHANGES, 1);
	cidk__st_max(sh, ST_MAX_CID, (uint64_t)cid + 1);
	t->cid = cid;
	t->last_cid = cid;
	t->running = true;
}

void cidk__cid_note_in(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
		       struct cidk_cid_task *t, unsigned int cpu,
		       unsigned int cid)
{
	(void)mm;
	cidk__cid_count_in(sh, t, cid);
	t->cpu = cpu;
}

unsigned int cidk__cid_try_switch_in(struct cidk_cid_mm *mm,
				     struct cidk_cid_task *t, unsigned int cpu,
				     uint64_t now)
{
	return mm->ops->switch_in(mm, t, cpu, now);
}

static void switch_out(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
		       uint64_t now)
{
	if (!t->running)
		return;
	if (t->cid != CIDK_CID_NONE)
		mm->ops->switch_out(mm, t, now);
	t->cid = CIDK_CID_NONE;
	t->running = false;
}

unsigned int cidk__cid_lease_in(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
				unsigned int cpu, uint64_t now)
{
	if (mm->ops->lease_claim && mm->ops->lease_claim(mm, t, cpu))
		return t->cid;
	return mm->ops->switch_in(mm, t, cpu, now);
}

void cidk__cid_lease_out(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			 uint64_t now)
{
	if (t->running && t->cid != CIDK_CID_NONE && mm->ops->lease_release &&
	    mm->ops->lease_release(mm, t, now))
		return;
	switch_out(mm, t, now);
}

/*
 * The public switch-in.  When the policy finds no CID below its bound,
 * another driver may be between taking a CID out of a per-CPU slot and
 * clearing its bit (an exit, a scan): wait for it, as the kernel's
 * mm_cid_get() does ("while ((cid = __mm_cid_get(rq, t, mm)) < 0)
 * cpu_relax();", Linux 6.4-6.18), but at most CIDK_CID_SWITCH_SPINS pauses
 * (a single-threaded driver that runs more tasks than there are CIDs would
 * wait forever).  Only then fall back to the lowest free CID below
 * nr_cpu_ids -- a bound violation cidk_cid_check() reports -- or, with
 * none at all, run the task without a CID: the caller sees
 * CIDK_CID_NONE, the checker reports it, and the stall is counted.
 * (Falling back at once, before waiting, broke the bound in a race the
 * checker's scenario generator found: an exit on 2 allowed CPUs of 4 took
 * its CID out of its slot and had not cleared the bit yet.)
 */
#define CIDK_CID_SWITCH_SPINS 1024u

static unsigned int switch_in(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			      unsigned int cpu, uint64_t now)
{
	struct cidk__cid_shard *sh = cidk__shard(mm, cpu);

	for (unsigned int spins = 0;; spins++) {
		unsigned int cid = mm->ops->switch_in(mm, t, cpu, now);

		if (cid != CIDK_CID_NONE)
			return cid;
		if (spins == CIDK_CID_SWITCH_SPINS) {
			cid = cidk__cid_take_lowest(mm, sh, mm->nr_cpu_ids);
			if (cid != CIDK_CID_NONE) {
				cidk__cid_note_in(mm, sh, t, cpu, cid);
				return cid;
			}
			break;
		}
		cidk__spin_wait();
	}
	cidk__st_add(sh, ST_STALLS, 1);
	t->running = true; /* the checker reports a running task without CID */
	t->cpu = cpu;
	return CIDK_CID_NONE;
}

unsigned int cidk_cid_switch(unsigned int cpu, struct cidk_cid_mm *prev_mm,
			     struct cidk_cid_task *prev,
			     struct cidk_cid_mm *next_mm,
			     struct cidk_cid_task *next, uint64_t now)
{
	if (prev_mm && prev && next_mm == prev_mm && next &&
	    prev_mm->ops->handover && prev->running && !next->running &&
	    prev_mm->ops->handover(prev_mm, prev, next, cpu))
		return next->cid;
	if (prev_mm && prev)
		switch_out(prev_mm, prev, now);
	if (!next_mm || !next)
		return CIDK_CID_NONE;
	return switch_in(next_mm, next, cpu, now);
}

unsigned int cidk_cid_tick(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			   unsigned int cpu, uint64_t now)
{
	(void)t;
	if (mm->p.trigger != CIDK_CID_SCAN_TICK || !mm->ops->scan)
		return 0;
	return mm->ops->scan(mm, cpu, now);
}

unsigned int cidk_cid_return_to_user(struct cidk_cid_mm *mm,
				     struct cidk_cid_task *t,
				     unsigned int cpu, uint64_t now)
{
	(void)t;
	if (mm->p.trigger != CIDK_CID_SCAN_RETURN_TO_USER || !mm->ops->scan)
		return 0;
	return mm->ops->scan(mm, cpu, now);
}

void cidk_cid_migrate(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
		      unsigned int from, unsigned int to, uint64_t now)
{
	(void)now;
	if (t->running || from >= mm->nr_cpu_ids || to >= mm->nr_cpu_ids)
		return;
	if (mm->ops->migrate)
		mm->ops->migrate(mm, t, from, to);
	else
		t->cpu = to;
}
