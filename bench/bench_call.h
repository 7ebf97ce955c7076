/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_call.h - what a domain-affine call costs, side by side in
 * one run, domains = each CPU of this machine, the caller bound to CPU A:
 *   1. plain:          fn(arg), the floor;
 *   2. direct:         cidk_call_on() to A's domain (local: runs inline);
 *   3. handoff_same:   cidk_call_handoff() to A's worker (same CPU: two
 *                      context switches per call);
 *   4. handoff_other:  cidk_call_on() to B's domain (a worker on another
 *                      CPU: a cross-CPU wake-up or a spinning worker).
 */
#ifndef CIDKIT_BENCH_CALL_H
#define CIDKIT_BENCH_CALL_H

#include <stdbool.h>

#include "stats.h"

enum bench_call_way {
	BENCH_CALL_PLAIN,
	BENCH_CALL_DIRECT,
	BENCH_CALL_HANDOFF_SAME,
	BENCH_CALL_HANDOFF_OTHER,
	BENCH_CALL_NR,
};

struct bench_call_result {
	unsigned int calls, reps;
	int cpu_a, cpu_b; /* cpu_b -1: one CPU only, no other way */
	unsigned int ncpus;
	struct cidk__summary ns[BENCH_CALL_NR]; /* ns per call */
	unsigned long ran;			/* fn ran this often */
};

/*
 * bench_call_run - @reps repetitions of @calls calls each way, the ways
 * interleaved (rotating order) within each repetition.  The calling
 * thread's affinity is restored afterwards.
 * Returns 0, -EINVAL (calls or reps 0), -ENOMEM, or a cidk_call error.
 */
int bench_call_run(unsigned int calls, unsigned int reps,
		   struct bench_call_result *res);

extern const char *const bench_call_way_name[BENCH_CALL_NR];

#endif /* CIDKIT_BENCH_CALL_H */
