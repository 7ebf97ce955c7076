/* SPDX-License-Identifier: MIT */
/*
 * Bit search.  One word-scanning loop, specialised per combinator by an
 * inline helper whose "op" argument is a constant at every call site (the
 * kernel's _find_next_bit() is built the same way).  Not found is nbits.
 */
#include <cidkit/mask.h>

#include "mask/mask_internal.h"

enum find_op { FIND_PLAIN, FIND_ZERO, FIND_AND, FIND_ANDNOT };

static inline unsigned long fetch_word(enum find_op op,
				       const struct cidk_mask *a,
				       const struct cidk_mask *b,
				       unsigned int i)
{
	switch (op) {
	case FIND_ZERO:
		return ~a->bits[i];
	case FIND_AND:
		return a->bits[i] & b->bits[i];
	case FIND_ANDNOT:
		return a->bits[i] & ~b->bits[i];
	case FIND_PLAIN:
	default:
		return a->bits[i];
	}
}

static inline unsigned int find_next(enum find_op op,
				     const struct cidk_mask *a,
				     const struct cidk_mask *b,
				     unsigned int start)
{
	unsigned int nbits = a->nbits;
	unsigned int i;
	unsigned long w;

	if (start >= nbits)
		return nbits;
	i = start / CIDK_BITS_PER_LONG;
	w = fetch_word(op, a, b, i) & (~0UL << (start % CIDK_BITS_PER_LONG));
	while (!w) {
		if (++i >= a->nwords)
			return nbits;
		w = fetch_word(op, a, b, i);
	}
	start = i * CIDK_BITS_PER_LONG + (unsigned int)__builtin_ctzl(w);
	/* FIND_ZERO sees the always-zero tail bits as zeros: clamp. */
	return start < nbits ? start : nbits;
}

unsigned int cidk_mask_next(const struct cidk_mask *m, unsigned int start)
{
	return find_next(FIND_PLAIN, m, NULL, start);
}

unsigned int cidk_mask_next_zero(const struct cidk_mask *m, unsigned int start)
{
	return find_next(FIND_ZERO, m, NULL, start);
}

unsigned int cidk_mask_next_and(const struct cidk_mask *a,
				const struct cidk_mask *b, unsigned int start)
{
	return find_next(FIND_AND, a, b, start);
}

unsigned int cidk_mask_next_andnot(const struct cidk_mask *a,
				   const struct cidk_mask *b,
				   unsigned int start)
{
	return find_next(FIND_ANDNOT, a, b, start);
}

unsigned int cidk_mask_last(const struct cidk_mask *m)
{
	for (unsigned int i = m->nwords; i-- > 0;)
		if (m->bits[i])
			return i * CIDK_BITS_PER_LONG + CIDK_BITS_PER_LONG - 1 -
			       (unsigned int)__builtin_clzl(m->bits[i]);
	return m->nbits;
}

unsigned int cidk_mask_nth(const struct cidk_mask *m, unsigned int n)
{
	for (unsigned int i = 0; i < m->nwords; i++) {
		unsigned long w = m->bits[i];
		unsigned int c = (unsigned int)__builtin_popcountl(w);

		if (n >= c) {
			n -= c;
			continue;
		}
		while (n--)
			w &= w - 1; /* drop the lowest set bit */
		return i * CIDK_BITS_PER_LONG + (unsigned int)__builtin_ctzl(w);
	}
	return m->nbits;
}
