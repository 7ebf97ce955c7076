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

unsigned int cidk_mask_union_count(struct cidk_mask *dst,
				   const struct cidk_mask *src)
{
	enum { BLOCK = 8 };
	unsigned int nwords = dst->nwords;
	unsigned int count = 0;
	unsigned int i = 0;

	while (i < nwords) {
		unsigned int end = i + BLOCK < nwords ? i + BLOCK : nwords;
		unsigned long missing = 0;

		/* Cheap check of a whole block first: usually nothing is new. */
		for (unsigned int j = i; j < end; j++)
			missing |= src->bits[j] &
				   ~atomic_load_explicit(cidk__mask_aword(dst, j),
							 memory_order_relaxed);
		if (missing) {
			for (unsigned int j = i; j < end; j++) {
				unsigned long add, old;

				add = src->bits[j] &
				      ~atomic_load_explicit(cidk__mask_aword(dst, j),
							    memory_order_relaxed);
				if (!add)
					continue;
				old = atomic_fetch_or(cidk__mask_aword(dst, j), add);
				count += (unsigned int)__builtin_popcountl(add & ~old);
			}
		}
		i = end;
	}
	return count;
}
