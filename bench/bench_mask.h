/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_mask.h - folding one allowed-CPUs mask into an mm's union,
 * three ways, measured side by side (the mm allowed-CPUs discussion):
 *   1. union_count: only the bits of A not in B, atomically, counted;
 *   2. per-bit: an atomic test-and-set for every set bit of A;
 *   3. locked: under a mutex, B |= A, then weight(B);
 * and memcmp of the two bitmaps as the memory-bandwidth floor.
 *
 * Each way keeps its own B and its own count; after every repetition (not
 * timed) the three counts and bitmaps are compared, and before the timed
 * loop the ways run on a union that does change (bench_mask_verify), so a
 * way that computes a wrong result makes the run fail (-EDOM).
 */
#ifndef CIDKIT_BENCH_MASK_H
#define CIDKIT_BENCH_MASK_H

#include "util/stats.h"

enum bench_mask_way {
	BENCH_MASK_UNION_COUNT,
	BENCH_MASK_PER_BIT,
	BENCH_MASK_LOCKED,
	BENCH_MASK_MEMCMP,
	BENCH_MASK_NR,
	BENCH_MASK_NR_WAYS = BENCH_MASK_MEMCMP, /* the ways that compute */
};

struct bench_mask_result {
	unsigned int bits, reps;
	struct cidk__summary ns[BENCH_MASK_NR];
	/* nr_cpus_allowed each way ended with (at the first disagreement) */
	unsigned int weight[BENCH_MASK_NR_WAYS];
	unsigned int compared; /* comparisons of the three ways made, all equal */
	const char *disagreed; /* NULL, or where they differed */
};

/*
 * bench_mask_run - @reps repetitions, the ways interleaved within each one.
 * Returns 0, -EINVAL (bits or reps 0), -ENOMEM, or -EDOM when the ways'
 * counts or bitmaps differ (res->disagreed and res->weight say where).
 */
int bench_mask_run(unsigned int bits, unsigned int reps,
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

extern const char *const bench_mask_way_name[BENCH_MASK_NR];

#endif /* CIDKIT_BENCH_MASK_H */
