/* SPDX-License-Identifier: MIT */
/*
 * lib/cid/switch.c - the scheduler events, dispatched to the policies, and
 * the policy names.
 *
 * Workload: cidk_cid_switch() is the hot path (every context switch of the
 * simulator, every lease enter and exit); it dispatches with a switch on
 * the policy kind, which the compiler turns into a jump table.  tick and
 * return_to_user are hot too but almost always return after one relaxed
 * load (the scan is not due).
 */
#include <errno.h>
#include <string.h>

#include "cid/cid_internal.h"

static inline bool mm_is_inherit(const struct cidk_cid_mm *mm)
{
	return mm->p.kind == CIDK_CID_INHERIT;
}

static const char *const names[CIDK_CID_NR_POLICIES] = {
	[CIDK_CID_BITMAP] = "bitmap",
	[CIDK_CID_LAZY] = "lazy",
	[CIDK_CID_LAZY_BATCHED] = "lazy-batched",
	[CIDK_CID_CACHE_LOCAL] = "cache-local",
	[CIDK_CID_INHERIT] = "inherit",
};

const char *cidk_cid_policy_name(enum cidk_cid_policy_kind kind)
{
	if ((unsigned int)kind >= CIDK_CID_NR_POLICIES)
		return NULL;
	return names[kind];
}

int cidk_cid_policy_parse(const char *name, enum cidk_cid_policy_kind *kind)
{
	if (!name)
		return -EINVAL;
	for (int k = 0; k < CIDK_CID_NR_POLICIES; k++)
		if (!strcmp(name, names[k])) {
			*kind = (enum cidk_cid_policy_kind)k;
			return 0;
		}
	return -EINVAL;
}

void cidk__cid_note_in(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
		       struct cidk_cid_task *t, unsigned int cpu,
		       unsigned int cid)
{
	(void)mm;
	cidk__st_add(sh, ST_ALLOCATIONS, 1);
	if (t->last_cid != CIDK_CID_NONE && t->last_cid != cid)
		cidk__st_add(sh, ST_CID_CHANGES, 1);
	cidk__st_max(sh, ST_MAX_CID, (uint64_t)cid + 1);
	t->cid = cid;
	t->last_cid = cid;
	t->cpu = cpu;
	t->running = true;
}

unsigned int cidk__cid_try_switch_in(struct cidk_cid_mm *mm,
				     struct cidk_cid_task *t, unsigned int cpu,
				     uint64_t now)
{
	unsigned int cid = CIDK_CID_NONE;

	switch (mm->p.kind) {
	case CIDK_CID_BITMAP:
		cid = cidk__bitmap_switch_in(mm, t, cpu);
		break;
	case CIDK_CID_LAZY:
	case CIDK_CID_LAZY_BATCHED:
	case CIDK_CID_CACHE_LOCAL:
		cid = cidk__lazy_switch_in(mm, t, cpu, now);
		break;
	case CIDK_CID_INHERIT:
	default:
		cid = cidk__inherit_switch_in(mm, t, cpu);
		break;
	}
	return cid;
}

static void switch_out(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
		       uint64_t now)
{
	if (!t->running)
		return;
	if (t->cid != CIDK_CID_NONE) {
		switch (mm->p.kind) {
		case CIDK_CID_BITMAP:
			cidk__bitmap_switch_out(mm, t);
			break;
		case CIDK_CID_LAZY:
		case CIDK_CID_LAZY_BATCHED:
		case CIDK_CID_CACHE_LOCAL:
			cidk__lazy_switch_out(mm, t, now);
			break;
		case CIDK_CID_INHERIT:
		default:
			cidk__inherit_switch_out(mm, t);
			break;
		}
	}
	t->cid = CIDK_CID_NONE;
	t->running = false;
}

/*
 * The public switch-in never fails: when the policy's bound is exhausted
 * (a driver ran more tasks at once than the mm's CPUs, or raced), it falls
 * back to the lowest free CID below nr_cpu_ids -- a bound violation the
 * checker reports -- and, under concurrent drivers, retries for a while.
 */
static unsigned int switch_in(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			      unsigned int cpu, uint64_t now)
{
	for (unsigned long tries = 0; tries < (1ul << 20); tries++) {
		unsigned int cid = cidk__cid_try_switch_in(mm, t, cpu, now);
		struct cidk__cid_shard *sh;

		if (cid != CIDK_CID_NONE)
			return cid;
		sh = cidk__shard(mm, cpu);
		cid = cidk__cid_take_lowest(mm, sh, mm->nr_cpu_ids);
		if (cid != CIDK_CID_NONE) {
			cidk__cid_note_in(mm, sh, t, cpu, cid);
			return cid;
		}
	}
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
	    mm_is_inherit(prev_mm) && prev->running && !next->running &&
	    cidk__inherit_handover(prev_mm, prev, next, cpu))
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
	if (mm->p.trigger != CIDK_CID_SCAN_TICK || mm_is_inherit(mm) ||
	    mm->p.kind == CIDK_CID_BITMAP)
		return 0;
	return cidk__lazy_scan(mm, cpu, now);
}

unsigned int cidk_cid_return_to_user(struct cidk_cid_mm *mm,
				     struct cidk_cid_task *t,
				     unsigned int cpu, uint64_t now)
{
	(void)t;
	if (mm->p.trigger != CIDK_CID_SCAN_RETURN_TO_USER ||
	    mm_is_inherit(mm) || mm->p.kind == CIDK_CID_BITMAP)
		return 0;
	return cidk__lazy_scan(mm, cpu, now);
}

void cidk_cid_migrate(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
		      unsigned int from, unsigned int to, uint64_t now)
{
	(void)now;
	if (t->running || from >= mm->nr_cpu_ids || to >= mm->nr_cpu_ids)
		return;
	if (mm->p.kind != CIDK_CID_BITMAP && !mm_is_inherit(mm))
		cidk__lazy_migrate(mm, t, from, to);
	t->cpu = to;
}
