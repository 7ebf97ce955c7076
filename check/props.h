/* SPDX-License-Identifier: MIT */
/*
 * check/props.h - the promises each policy makes (docs/check.md, "What
 * each policy promises"), checked on every schedule of every scenario on
 * top of cid_model.c's safety, quiescence and final checks.
 *
 * cid_model.c calls the hooks: props_begin/props_end around each event of
 * a task (inside the task's coroutine: they read shared state with plain
 * relaxed loads, never a scheduling point), props_step after every step,
 * props_quiet at every quiescent state and at the end.  A violation's
 * reason starts with the property's name ("own-mode: ...").
 *
 * Single-threaded like the explorer; one props per model.
 */
#ifndef CIDKIT_CHECK_PROPS_H
#define CIDKIT_CHECK_PROPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cidkit/cid.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "scenario.h"

struct props;

/* What the model shares with the properties (its arrays, by index). */
struct props_view {
	const struct scenario *s;
	const struct cidk_cid_params *p;
	struct cidk_cid_task *task;
	const bool *alive;
	const bool *in_user;
	const unsigned int *user_cid;
	const uint64_t *now;		/* the model's clock */
	const unsigned int *scan_ret;	/* what each task's last tick or
					   return to user returned */
};

/* NULL when out of memory. */
struct props *props_new(const struct props_view *v);
void props_free(struct props *pr);

/* Mix the properties' state into @f (the state cache, statecache.h). */
struct chk_fp;
void props_full_state(const struct props *pr, struct chk_fp *f);

/* A new execution on @mm (after the initial forks). */
void props_reset(struct props *pr, struct cidk_cid_mm *mm);

/* Task @tid starts / finished its event @e (inside its coroutine). */
void props_begin(struct props *pr, unsigned int tid, const struct scn_event *e);
void props_end(struct props *pr, unsigned int tid, const struct scn_event *e);

/* After every step; at a quiescent state (and at the end): 0 or -1 + why. */
int props_step(struct props *pr, char *why, size_t len);
int props_quiet(struct props *pr, char *why, size_t len);

#endif /* CIDKIT_CHECK_PROPS_H */
