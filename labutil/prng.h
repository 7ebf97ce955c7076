/* SPDX-License-Identifier: MIT */
/*
 * labutil/prng.h - a small deterministic PRNG (xoshiro256** seeded by
 * splitmix64), our own so that the simulator's output depends only on
 * --seed, never on the C library's rand().  Lab only: not in libcidkit
 * (labutil/meson.build).
 */
#ifndef CIDKIT_LABUTIL_PRNG_H
#define CIDKIT_LABUTIL_PRNG_H

#include <stdint.h>

struct cidk__prng {
	uint64_t s[4];
};

void cidk__prng_seed(struct cidk__prng *r, uint64_t seed);
uint64_t cidk__prng_next(struct cidk__prng *r);
/* uniform in [0, bound), bound > 0, without modulo bias */
uint64_t cidk__prng_below(struct cidk__prng *r, uint64_t bound);
/* Fisher-Yates shuffle of n unsigned ints */
void cidk__prng_shuffle(struct cidk__prng *r, unsigned int *v, unsigned int n);

#endif /* CIDKIT_LABUTIL_PRNG_H */
