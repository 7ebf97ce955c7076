/* SPDX-License-Identifier: MIT */
/*
 * Whole-mask operations, one word at a time.
 *
 * Invariant: bits past nbits are zero.  Operations that could create such
 * bits (fill, complement) mask the last word; all others preserve the
 * invariant because their inputs keep it.  The loops are plain so that the
 * compiler vectorises them.
 */
#include <string.h>

#include <cidkit/mask.h>

#include "mask/mask_internal.h"

void cidk_mask_set_range(struct cidk_mask *m, unsigned int start,
			 unsigned int len)
{
	unsigned int end = start + len;

	while (start < end) {
		unsigned int w = start / CIDK_BITS_PER_LONG;
		unsigned int off = start % CIDK_BITS_PER_LONG;
		unsigned int n = CIDK_BITS_PER_LONG - off;

		if (n > end - start)
			n = end - start;
		m->bits[w] |= cidk__mask_run(off, n);
		start += n;
	}
}

void cidk_mask_clear_range(struct cidk_mask *m, unsigned int start,
			   unsigned int len)
{
	unsigned int end = start + len;

	while (start < end) {
		unsigned int w = start / CIDK_BITS_PER_LONG;
		unsigned int off = start % CIDK_BITS_PER_LONG;
		unsigned int n = CIDK_BITS_PER_LONG - off;

		if (n > end - start)
			n = end - start;
		m->bits[w] &= ~cidk__mask_run(off, n);
		start += n;
	}
}

void cidk_mask_zero(struct cidk_mask *m)
{
	memset(m->bits, 0, m->nwords * sizeof(unsigned long));
}

void cidk_mask_fill(struct cidk_mask *m)
{
	if (!m->nwords)
		return;
	memset(m->bits, 0xff, m->nwords * sizeof(unsigned long));
	m->bits[m->nwords - 1] &= cidk__mask_last_word(m->nbits);
}

void cidk_mask_copy(struct cidk_mask *dst, const struct cidk_mask *src)
{
	if (dst != src)
		memcpy(dst->bits, src->bits, dst->nwords * sizeof(unsigned long));
}

bool cidk_mask_and(struct cidk_mask *dst, const struct cidk_mask *a,
		   const struct cidk_mask *b)
{
	unsigned long any = 0;

	for (unsigned int i = 0; i < dst->nwords; i++)
		any |= dst->bits[i] = a->bits[i] & b->bits[i];
	return any != 0;
}

void cidk_mask_or(struct cidk_mask *dst, const struct cidk_mask *a,
		  const struct cidk_mask *b)
{
	for (unsigned int i = 0; i < dst->nwords; i++)
		dst->bits[i] = a->bits[i] | b->bits[i];
}

bool cidk_mask_andnot(struct cidk_mask *dst, const struct cidk_mask *a,
		      const struct cidk_mask *b)
{
	unsigned long any = 0;

	for (unsigned int i = 0; i < dst->nwords; i++)
		any |= dst->bits[i] = a->bits[i] & ~b->bits[i];
	return any != 0;
}

void cidk_mask_xor(struct cidk_mask *dst, const struct cidk_mask *a,
		   const struct cidk_mask *b)
{
	for (unsigned int i = 0; i < dst->nwords; i++)
		dst->bits[i] = a->bits[i] ^ b->bits[i];
}

void cidk_mask_complement(struct cidk_mask *dst, const struct cidk_mask *src)
{
	if (!dst->nwords)
		return;
	for (unsigned int i = 0; i < dst->nwords; i++)
		dst->bits[i] = ~src->bits[i];
	dst->bits[dst->nwords - 1] &= cidk__mask_last_word(dst->nbits);
}

bool cidk_mask_equal(const struct cidk_mask *a, const struct cidk_mask *b)
{
	return memcmp(a->bits, b->bits, a->nwords * sizeof(unsigned long)) == 0;
}

bool cidk_mask_intersects(const struct cidk_mask *a, const struct cidk_mask *b)
{
	for (unsigned int i = 0; i < a->nwords; i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}

bool cidk_mask_subset(const struct cidk_mask *a, const struct cidk_mask *b)
{
	for (unsigned int i = 0; i < a->nwords; i++)
		if (a->bits[i] & ~b->bits[i])
			return false;
	return true;
}

bool cidk_mask_empty(const struct cidk_mask *m)
{
	for (unsigned int i = 0; i < m->nwords; i++)
		if (m->bits[i])
			return false;
	return true;
}

bool cidk_mask_full(const struct cidk_mask *m)
{
	if (!m->nwords)
		return true;
	for (unsigned int i = 0; i + 1 < m->nwords; i++)
		if (~m->bits[i])
			return false;
	return m->bits[m->nwords - 1] == cidk__mask_last_word(m->nbits);
}

CIDK__POPCNT_CLONES
unsigned int cidk_mask_weight(const struct cidk_mask *m)
{
	unsigned int w = 0;

	for (unsigned int i = 0; i < m->nwords; i++)
		w += (unsigned int)__builtin_popcountl(m->bits[i]);
	return w;
}

CIDK__POPCNT_CLONES
unsigned int cidk_mask_weight_and(const struct cidk_mask *a,
				  const struct cidk_mask *b)
{
	unsigned int w = 0;

	for (unsigned int i = 0; i < a->nwords; i++)
		w += (unsigned int)__builtin_popcountl(a->bits[i] & b->bits[i]);
	return w;
}

CIDK__POPCNT_CLONES
unsigned int cidk_mask_weight_andnot(const struct cidk_mask *a,
				     const struct cidk_mask *b)
{
	unsigned int w = 0;

	for (unsigned int i = 0; i < a->nwords; i++)
		w += (unsigned int)__builtin_popcountl(a->bits[i] & ~b->bits[i]);
	return w;
}
