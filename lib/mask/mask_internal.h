/* SPDX-License-Identifier: MIT */
/* Helpers shared by the files of lib/mask/; not part of the API. */
#ifndef CIDKIT_MASK_INTERNAL_H
#define CIDKIT_MASK_INTERNAL_H

#include <cidkit/mask.h>

/* The valid bits of the last word of an nbits mask (all ones if full). */
static inline unsigned long cidk__mask_last_word(unsigned int nbits)
{
	unsigned int r = nbits % CIDK_BITS_PER_LONG;

	return r ? (1UL << r) - 1 : ~0UL;
}

/* @n ones starting at bit @off of a word; 1 <= n, off + n <= BITS_PER_LONG */
static inline unsigned long cidk__mask_run(unsigned int off, unsigned int n)
{
	unsigned long ones = n == CIDK_BITS_PER_LONG ? ~0UL : (1UL << n) - 1;

	return ones << off;
}

/*
 * Weight loops: x86-64's baseline has no popcnt instruction, so gcc calls a
 * table-driven helper (27 instructions a word under callgrind).  Build a
 * popcnt clone too and let the dynamic loader pick it (ifunc) where the CPU
 * has it.  Elsewhere the attribute is empty: clang 14's target_clones
 * leaves the symbols undefined when linked from a static archive, and the
 * sanitizers' interceptors do not expect ifuncs.
 */
#if defined(__x86_64__) && defined(__ELF__) && !defined(__clang__) && \
	!defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define CIDK__POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define CIDK__POPCNT_CLONES
#endif

/*
 * The check of cidk_mask_union_count() (lib/mask/atomic.c), one way at a
 * time, for its tests: relaxed atomic loads one word at a time (every
 * architecture), SSE2 or AVX2 vector loads (x86-64).  The public function
 * takes AVX2 where the CPU has it, else SSE2 on x86-64, else the scalar
 * way.  cidk__mask_union_count_isa() returns UINT_MAX for a way this build
 * or CPU lacks (cidk__mask_union_isa_available() says which).
 */
enum cidk__union_isa {
	CIDK__UNION_SCALAR,
	CIDK__UNION_SSE2,
	CIDK__UNION_AVX2,
	CIDK__UNION_NR,
};

bool cidk__mask_union_isa_available(enum cidk__union_isa isa);
unsigned int cidk__mask_union_count_isa(struct cidk_mask *dst,
					const struct cidk_mask *src,
					enum cidk__union_isa isa);

#endif /* CIDKIT_MASK_INTERNAL_H */
