/* SPDX-License-Identifier: MIT */
/*
 * check/litmus.h - litmus tests for the explorer's memory models
 * (check/memory.h): small C threads over cid_atomic.h's steps, each with
 * one outcome that the question is about ("may r0 = r1 = 0 be seen?").
 *
 * A litmus test runs as a chk_model whose final check fails exactly on
 * its outcome: the explorer's verdict is the answer (a violation: the
 * outcome is allowed, with the schedule that shows it; a pass, exhaustive:
 * forbidden).  Threads are P0..P3, words x and y (starting at 0), and
 * registers r0..r3.
 */
#ifndef CIDKIT_CHECK_LITMUS_H
#define CIDKIT_CHECK_LITMUS_H

#include <stdbool.h>
#include <stdio.h>

#include "chk.h"

/* Test @i (0.. until NULL): its name ("SB", "MP+fences"...), or NULL. */
const char *litmus_name(unsigned int i);
/* The outcome test @i asks about, e.g. "r0=0 r1=0". */
const char *litmus_outcome(unsigned int i);
/* Its threads, one line each ("P0: x=1; r0=y"). */
const char *litmus_code(unsigned int i);

/*
 * Explore test @i under @memory (enum chk_memory) with @weak_bound weak
 * choices at most, every interleaving (the bound covers its steps), no
 * sleep sets: 0 and *@r (chk_result_free() it), or a negative errno.
 * *@allowed: the outcome was reached.
 */
int litmus_run(unsigned int i, unsigned int memory, unsigned int weak_bound,
	       struct chk_result *r, bool *allowed);

/* One schedule of test @i: @d's @nd directives (chk_opts.replay). */
int litmus_replay(unsigned int i, unsigned int memory,
		  const struct chk_replay *d, unsigned int nd,
		  struct chk_result *r, bool *allowed);

/*
 * The table `cidkit check --litmus` prints: each test's outcome under
 * each model, and the schedules each search ran.  0, or a negative errno.
 */
int litmus_table(FILE *f, unsigned int weak_bound);

#endif /* CIDKIT_CHECK_LITMUS_H */
