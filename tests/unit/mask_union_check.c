/* SPDX-License-Identifier: MIT */
/*
 * cidk_mask_union_count()'s check, each way it has (lib/mask/atomic.c:
 * relaxed scalar loads everywhere; SSE2 and AVX2 vector loads on x86-64):
 * the check reads blocks of 16 words and decides whether a block needs the
 * fold, so a lane, a block or the tail it does not look at loses bits
 * silently.  For sizes around the block (16 words = 1024 bits) and the
 * word, every word in turn lacks one bit of a full @src (the bit moves
 * within the word too): the call must return 1 and leave @dst full;
 * then with nothing missing it must return 0.  The expected values are by
 * construction: one bit was removed.
 */
#include <limits.h>

#include <cidkit/mask.h>

#include "cidkit_lab.h"
#include "tap.h"

static const char *const isa_name[CIDK__UNION_NR] = {
	[CIDK__UNION_SCALAR] = "scalar",
	[CIDK__UNION_SSE2] = "sse2",
	[CIDK__UNION_AVX2] = "avx2",
};

static void one_size(enum cidk__union_isa isa, unsigned int nbits)
{
	struct cidk_mask *src = cidk_mask_alloc(nbits);
	struct cidk_mask *dst = cidk_mask_alloc(nbits);
	unsigned int words = CIDK_BITS_TO_LONGS(nbits), bad = 0, first = nbits;
	unsigned int got = 0, again = 0;

	cidk_mask_fill(src);
	for (unsigned int j = 0; j < words; j++) {
		/* bit 63, 0, then walking through the word; within nbits */
		unsigned int off = j == 0 ? 63 : j == 1 ? 0 : (j * 13) % 64;
		unsigned int bit = j * 64 + off;

		if (bit >= nbits)
			bit = nbits - 1;
		cidk_mask_fill(dst);
		cidk_mask_clear(dst, bit);
		got = cidk__mask_union_count_isa(dst, src, isa);
		again = cidk__mask_union_count_isa(dst, src, isa);
		if (got != 1 || again != 0 || !cidk_mask_full(dst)) {
			if (!bad)
				first = bit;
			bad++;
		}
	}
	ok(!bad, "%s, %u bits: each of %u words missing one bit: found and "
	   "counted once, then nothing (%u wrong, first at bit %u)",
	   isa_name[isa], nbits, words, bad, first);

	/* sparse src: only the missing bits, one per block at its last word */
	cidk_mask_zero(src);
	cidk_mask_fill(dst);
	for (unsigned int j = 15; j < words; j += 16) {
		cidk_mask_set(src, j * 64 + 5);
		cidk_mask_clear(dst, j * 64 + 5);
	}
	{
		unsigned int want = words / 16;

		got = cidk__mask_union_count_isa(dst, src, isa);
		ok(got == want && cidk_mask_full(dst),
		   "%s, %u bits: a sparse src adds its %u bits (got %u)",
		   isa_name[isa], nbits, want, got);
	}
	cidk_mask_free(src);
	cidk_mask_free(dst);
}

int main(void)
{
	static const unsigned int sizes[] = { 1, 63, 64, 65, 1023, 1024,
					      1025, 2047, 2048, 2111, 4097,
					      20011 };

	for (int isa = 0; isa < CIDK__UNION_NR; isa++) {
		if (!cidk__mask_union_isa_available(isa)) {
			struct cidk_mask *m = cidk_mask_alloc(64);

			ok(cidk__mask_union_count_isa(m, m, isa) == UINT_MAX,
			   "%s: not in this build or CPU, and refused",
			   isa_name[isa]);
			cidk_mask_free(m);
			continue;
		}
		for (unsigned int k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
			one_size(isa, sizes[k]);
	}
	return done_testing();
}
