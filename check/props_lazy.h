/* SPDX-License-Identifier: MIT */
/*
 * check/props_lazy.h - the lazy family's locality promises (lazy,
 * lazy-batched, cache-local), for props.c: what each event does to the
 * per-CPU slots, the bitmap and the scan's schedule when it runs alone
 * (docs/check.md, "What each policy promises").  props.c embeds the state
 * in its own (so the state cache sees it) and calls the hooks.
 */
#ifndef CIDKIT_CHECK_PROPS_LAZY_H
#define CIDKIT_CHECK_PROPS_LAZY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chk.h"
#include "props.h"

/* Scenarios with more CPUs are not checked by these properties. */
#define PL_CPUS 8

struct pl_slot {
	unsigned int word, recent;
	uint64_t time;
};

/* The state an event of a task began with (zero when none runs). */
struct pl_begin {
	struct pl_slot slot[PL_CPUS];
	unsigned long bm;
	uint64_t next_scan, now;
	unsigned int scan_pos, users, allowed;
	unsigned int cid; /* the task's CID in user space, or NONE */
	bool running, alone, valid;
};

struct props_lazy {
	bool off; /* leases, or too many CPUs: not checked */
	/* cl-count: cache-local's nr_cids_used after the last step */
	unsigned int used;
	/* per task, the property's own record: the CID of its last
	 * switch-in and the CPU it last ran on or was migrated to */
	unsigned int last_cid[CHK_MAX_THREADS];
	unsigned int cpu[CHK_MAX_THREADS];
	struct pl_begin b[CHK_MAX_THREADS];
};

struct cidk_cid_mm;

void props_lazy_reset(struct props_lazy *pl, const struct props_view *v,
		      const struct cidk_cid_mm *mm);
/* @alone: no other task's event under way as this one begins. */
void props_lazy_begin(struct props_lazy *pl, const struct props_view *v,
		      const struct cidk_cid_mm *mm, unsigned int tid,
		      const struct scn_event *e, bool alone);
/* @alone: no other task stepped during the event.  0, or -1 and @why. */
int props_lazy_end(struct props_lazy *pl, const struct props_view *v,
		   const struct cidk_cid_mm *mm, unsigned int tid,
		   const struct scn_event *e, bool alone, char *why,
		   size_t len);

/* After every step of any task (cl-count).  0, or -1 and @why. */
int props_lazy_step(struct props_lazy *pl, const struct cidk_cid_mm *mm,
		    char *why, size_t len);

#endif /* CIDKIT_CHECK_PROPS_LAZY_H */
