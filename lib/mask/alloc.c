/* SPDX-License-Identifier: MIT */
/*
 * Mask life cycle.  Allocation is rare; the words start on a cache line so
 * that a mask shared between CPUs (an mm's CID bitmap, its allowed-CPUs
 * union) does not share its first line with a neighbour's data.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/mask.h>

#define MASK_ALIGN 64

static size_t mask_bytes(unsigned int nbits)
{
	size_t sz = sizeof(struct cidk_mask) +
		    CIDK_BITS_TO_LONGS(nbits) * sizeof(unsigned long);

	return (sz + MASK_ALIGN - 1) / MASK_ALIGN * MASK_ALIGN;
}

struct cidk_mask *cidk_mask_alloc(unsigned int nbits)
{
	struct cidk_mask *m;
	size_t sz;

	if (nbits > CIDK_MASK_MAX_BITS) {
		errno = EINVAL;
		return NULL;
	}
	sz = mask_bytes(nbits);
	m = aligned_alloc(MASK_ALIGN, sz);
	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	memset(m, 0, sz);
	m->nbits = nbits;
	m->nwords = CIDK_BITS_TO_LONGS(nbits);
	return m;
}

void cidk_mask_free(struct cidk_mask *m)
{
	free(m);
}

struct cidk_mask *cidk_mask_dup(const struct cidk_mask *m)
{
	struct cidk_mask *d = cidk_mask_alloc(m->nbits);

	if (d)
		cidk_mask_copy(d, m);
	return d;
}
