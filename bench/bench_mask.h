/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_mask.h - folding one allowed-CPUs mask into an mm's union,
 * three ways, measured side by side (the mm allowed-CPUs discussion):
 *   1. union_count: only the bits of A not in B, atomically, counted;
 *   2. per-bit: an atomic test-and-set for every set bit of A;
 *   3. locked: under a mutex, B |= A, then weight(B);
 * and memcmp of the two bitmaps as the memory-bandwidth floor.
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
};

struct bench_mask_result {
	unsigned int bits, reps;
	struct cidk__summary ns[BENCH_MASK_NR];
	unsigned int weight; /* weight each way ended with, all equal */
};

/*
 * bench_mask_run - @reps repetitions, the ways interleaved within each one.
 * Returns 0, -EINVAL (bits or reps 0) or -ENOMEM.
 */
int bench_mask_run(unsigned int bits, unsigned int reps,
		   struct bench_mask_result *res);

extern const char *const bench_mask_way_name[BENCH_MASK_NR];

#endif /* CIDKIT_BENCH_MASK_H */
