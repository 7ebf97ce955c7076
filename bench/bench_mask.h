/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_mask.h - folding one allowed-CPUs mask A into an mm's union B,
 * three ways, measured side by side (the mm allowed-CPUs discussion):
 *   1. union_count: only the bits of A not in B, atomically, counted;
 *   2. per-bit: an atomic test-and-set for every set bit of A;
 *   3. locked: under a mutex, B |= A, then weight(B);
 * and memcmp of A and B as the memory-bandwidth floor.
 *
 * Two scenarios, A full in both:
 *   steady   B full: nothing new (the common case the fold is built for);
 *   growing  B full less @grow bits spread evenly over the mask, restored
 *            (untimed) before every call: @grow new bits each repetition
 *            (memcmp's B stays full, equal to A, so that the floor reads
 *            both masks to the end).
 * Two cache states, set up (untimed) right before every timed call of every
 * way, so that no way's time depends on what ran before it:
 *   warm     A and the way's own B have just been read once, in address
 *            order (a memcmp of the two): both in this core's L2, the last
 *            lines in L1;
 *   cold     every line of A and B flushed from every cache level (x86-64
 *            clflush, aarch64 dc civac; elsewhere not measured).
 * Within a repetition the four ways run in an order rotated by one each
 * repetition.
 *
 * Each way keeps its own B and its own count; after every repetition of
 * every scenario and state (not timed) the three counts and bitmaps are
 * compared, and before the timed loop the ways run on a union that does
 * change (bench_mask_verify), so a way that computes a wrong result makes
 * the run fail (-EDOM).
 */
#ifndef CIDKIT_BENCH_MASK_H
#define CIDKIT_BENCH_MASK_H

#include <stdbool.h>

#include "stats.h"

enum bench_mask_way {
	BENCH_MASK_UNION_COUNT,
	BENCH_MASK_PER_BIT,
	BENCH_MASK_LOCKED,
	BENCH_MASK_MEMCMP,
	BENCH_MASK_NR,
	BENCH_MASK_NR_WAYS = BENCH_MASK_MEMCMP, /* the ways that compute */
};

enum bench_mask_scenario {
	BENCH_MASK_STEADY,
	BENCH_MASK_GROWING,
	BENCH_MASK_NR_SCENARIOS,
};

enum bench_mask_cache {
	BENCH_MASK_WARM,
	BENCH_MASK_COLD,
	BENCH_MASK_NR_CACHE,
};

struct bench_mask_result {
	unsigned int bits, reps, grow;
	bool cold; /* whether the cold state could be set up and was measured */
	/* [scenario][cache][way]; the cold ones all 0 when !cold */
	struct cidk__summary ns[BENCH_MASK_NR_SCENARIOS][BENCH_MASK_NR_CACHE]
			       [BENCH_MASK_NR];
	/* bits each way added in the last repetition of each scenario */
	unsigned int gained[BENCH_MASK_NR_SCENARIOS][BENCH_MASK_NR_WAYS];
	/* nr_cpus_allowed each way ended with (at the first disagreement) */
	unsigned int weight[BENCH_MASK_NR_WAYS];
	unsigned int compared; /* comparisons of the three ways made, all equal */
	const char *disagreed; /* NULL, or where they differed */
};

/*
 * bench_mask_run - @reps repetitions of both scenarios in both cache states,
 * the ways interleaved within each one; @grow new bits per repetition in
 * the growing scenario.  Returns 0, -EINVAL (bits or reps 0, grow 0 or
 * > bits), -ENOMEM, or -EDOM when the ways' counts or bitmaps differ
 * (res->disagreed and res->weight say where).
 */
int bench_mask_run(unsigned int bits, unsigned int reps, unsigned int grow,
		   struct bench_mask_result *res);

/*
 * bench_mask_verify - the three ways on a union that changes: B = every
 * third bit, A = every other bit and the last; each way on its own copy of
 * B.  @fault: -1, or a way whose count is then off by one (the self-test
 * that proves the comparison runs).  Fills res->weight, ->compared and
 * ->disagreed; returns 0, -ENOMEM, or -EDOM when the ways differ.
 */
int bench_mask_verify(unsigned int bits, int fault,
		      struct bench_mask_result *res);

/*
 * bench_mask_grow_bit - the @i-th of the @grow bits (i < grow <= bits) the
 * growing scenario's B lacks: i * bits / grow, evenly spread, all distinct.
 */
unsigned int bench_mask_grow_bit(unsigned int bits, unsigned int grow,
				 unsigned int i);

/* Whether bench_mask_run() can measure the cold state on this build. */
bool bench_mask_cold_supported(void);

extern const char *const bench_mask_way_name[BENCH_MASK_NR];
extern const char *const bench_mask_scenario_name[BENCH_MASK_NR_SCENARIOS];
extern const char *const bench_mask_cache_name[BENCH_MASK_NR_CACHE];

#endif /* CIDKIT_BENCH_MASK_H */
