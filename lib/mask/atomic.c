/* SPDX-License-Identifier: MIT */
/*
 * cidk_mask_union_count(): the mm's allowed-CPUs union.
 *
 * Workload: called whenever a task's affinity is set; in the common case
 * the union already holds every allowed CPU and nothing changes, so the
 * pass must cost no more than reading both masks once.  It scans the two
 * masks in blocks of words, with relaxed atomic loads of @dst (other callers
 * may be setting bits in it), and only for a word where @src has bits @dst
 * lacks does it pay for a fetch_or, counting the bits that the fetch_or,
 * and not a concurrent caller, turned on.
 */
#include <stdatomic.h>

#include <cidkit/mask.h>

_Static_assert(sizeof(_Atomic unsigned long) == sizeof(unsigned long),
	       "atomic view of mask words must have the same size");
_Static_assert(ATOMIC_LONG_LOCK_FREE == 2, "atomic long must be lock-free");

/* Load word @j of @dst: relaxed, other callers may be setting bits. */
static inline unsigned long dst_word(struct cidk_mask *dst, unsigned int j)
{
	return atomic_load_explicit(cidk__mask_aword(dst, j),
				    memory_order_relaxed);
}

/*
 * Bits of src that dst lacks in words [i, end), OR-ed together: the cheap
 * check.  Unrolled by four with independent accumulators, because atomic
 * loads are never vectorised and one accumulator is a dependency chain.
 */
static inline unsigned long block_missing(struct cidk_mask *dst,
					  const struct cidk_mask *src,
					  unsigned int i, unsigned int end)
{
	const unsigned long *s = src->bits;
	unsigned long m0 = 0, m1 = 0, m2 = 0, m3 = 0;
	unsigned int j = i;

	for (; j + 4 <= end; j += 4) {
		m0 |= s[j] & ~dst_word(dst, j);
		m1 |= s[j + 1] & ~dst_word(dst, j + 1);
		m2 |= s[j + 2] & ~dst_word(dst, j + 2);
		m3 |= s[j + 3] & ~dst_word(dst, j + 3);
	}
	for (; j < end; j++)
		m0 |= s[j] & ~dst_word(dst, j);
	return m0 | m1 | m2 | m3;
}

static unsigned int block_fold(struct cidk_mask *dst,
			       const struct cidk_mask *src, unsigned int i,
			       unsigned int end)
{
	unsigned int count = 0;

	for (unsigned int j = i; j < end; j++) {
		unsigned long add, old;

		add = src->bits[j] & ~dst_word(dst, j);
		if (!add)
			continue;
		old = atomic_fetch_or(cidk__mask_aword(dst, j), add);
		count += (unsigned int)__builtin_popcountl(add & ~old);
	}
	return count;
}

unsigned int cidk_mask_union_count(struct cidk_mask *dst,
				   const struct cidk_mask *src)
{
	/* 16 words = two cache lines of each mask per check. */
	enum { BLOCK = 16 };
	unsigned int nwords = dst->nwords;
	unsigned int full = nwords - nwords % BLOCK;
	unsigned int count = 0;

	/* Full blocks have a constant trip count: the check unrolls. */
	for (unsigned int i = 0; i < full; i += BLOCK)
		if (block_missing(dst, src, i, i + BLOCK))
			count += block_fold(dst, src, i, i + BLOCK);
	if (full < nwords && block_missing(dst, src, full, nwords))
		count += block_fold(dst, src, full, nwords);
	return count;
}
