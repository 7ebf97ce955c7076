/* SPDX-License-Identifier: MIT */
/*
 * atomic_ref.c - the reference for mask.h's atomic bit operations: the C11
 * code they had before the header became C++-safe (stdatomic operations on
 * an _Atomic view of the word).  headers.sh compiles this and
 * atomic_use.c (the header's functions, as C and as C++) and requires the
 * same instructions, function by function.
 */
#include <stdatomic.h>
#include <stdbool.h>

#include <cidkit/mask.h>

void f_set(struct cidk_mask *m, unsigned int b);
void f_clear(struct cidk_mask *m, unsigned int b);
bool f_test(const struct cidk_mask *m, unsigned int b);
bool f_tas(struct cidk_mask *m, unsigned int b);
bool f_tac(struct cidk_mask *m, unsigned int b);

/* The header's code before, verbatim but for the names. */
static inline _Atomic unsigned long *ref_aword(struct cidk_mask *m,
					       unsigned int word)
{
	return (_Atomic unsigned long *)&m->bits[word];
}

void f_set(struct cidk_mask *m, unsigned int bit)
{
	atomic_fetch_or(ref_aword(m, cidk__bit_word(bit)),
			cidk__bit_mask(bit));
}

void f_clear(struct cidk_mask *m, unsigned int bit)
{
	atomic_fetch_and(ref_aword(m, cidk__bit_word(bit)),
			 ~cidk__bit_mask(bit));
}

bool f_test(const struct cidk_mask *m, unsigned int bit)
{
	return (atomic_load_explicit(
			ref_aword((struct cidk_mask *)m, cidk__bit_word(bit)),
			memory_order_acquire) &
		cidk__bit_mask(bit)) != 0;
}

bool f_tas(struct cidk_mask *m, unsigned int bit)
{
	unsigned long b = cidk__bit_mask(bit);

	return (atomic_fetch_or(ref_aword(m, cidk__bit_word(bit)), b) & b) != 0;
}

bool f_tac(struct cidk_mask *m, unsigned int bit)
{
	unsigned long b = cidk__bit_mask(bit);

	return (atomic_fetch_and(ref_aword(m, cidk__bit_word(bit)), ~b) &
		b) != 0;
}
