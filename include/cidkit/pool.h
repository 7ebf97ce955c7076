/* SPDX-License-Identifier: MIT */
/*
 * cidkit/pool.h - per-CID memory pools: allocate an object once, get one
 * copy per CID at a fixed stride.
 *
 *   pool = cidk_pool_create(max_cids, stride);
 *   h    = cidk_pool_alloc(pool, sizeof(long), alignof(long), &init);  // >= 0
 *   p    = cidk_pool_ptr(pool, h, cid);   // base + cid * stride + h
 *
 * Layout: one region of `stride` bytes per CID, regions back to back.  The
 * stride is a multiple of CIDK_POOL_LINE and the base is page aligned, so
 * each CID's region starts on a cache line and no line holds bytes of two
 * CIDs.  A handle is an offset inside a region, valid for every CID.
 * Memory comes from an anonymous mapping: pages of CIDs never touched (and
 * never initialised with a non-zero value) cost no physical memory.
 *
 * Workload: create/alloc are rare (setup); cidk_pool_ptr is the hot path
 * (one multiply-add, inline).  There is no per-object free: a pool is a
 * bump allocator released as a whole by cidk_pool_destroy.
 *
 * Synchronisation table (may two threads run these at the same time?):
 *
 *               | ptr | alloc | used | destroy
 *   ptr         | yes | yes   | yes  | no
 *   alloc       | yes | yes   | yes  | no
 *   used        | yes | yes   | yes  | no
 *   destroy     | no  | no    | no   | no
 *
 * alloc serialises on a mutex inside the pool; a handle must reach another
 * thread through that thread's own synchronisation (as any pointer would)
 * before it dereferences the copies, whose initial values were written
 * before alloc returned.  Accesses to the copies are the caller's business
 * (typically one CID = one owner at a time, e.g. under a CID lease).
 */
#ifndef CIDKIT_POOL_H
#define CIDKIT_POOL_H

#include <stddef.h>
#include <stdint.h>

#include <cidkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The cache-line size the layout guarantees separation for (bytes). */
#define CIDK_POOL_LINE 64u
/* Largest alignment cidk_pool_alloc accepts (the base's alignment). */
#define CIDK_POOL_MAX_ALIGN 4096u

/* A handle: the offset of an object inside every CID's region (>= 0). */
typedef ptrdiff_t cidk_pool_handle;

/* Read-only after creation except through the functions below. */
struct cidk_pool {
	unsigned char *base;   /* page aligned; max_cids * stride bytes */
	size_t stride;         /* bytes per CID, a multiple of CIDK_POOL_LINE */
	unsigned int max_cids; /* CIDs 0 .. max_cids-1 have a copy */
	size_t map_len;        /* bytes mapped */
	void *priv;            /* internal: allocation state */
};

/*
 * cidk_pool_create - a pool with one region of @stride bytes for each of
 * @max_cids CIDs.  @stride is rounded up to a multiple of CIDK_POOL_LINE.
 * Returns the pool, or NULL with errno: EINVAL (@max_cids or @stride is 0),
 * EOVERFLOW (max_cids * stride does not fit in size_t), ENOMEM.
 * MT-safe (creates a new object).
 */
CIDK_EXPORT struct cidk_pool *cidk_pool_create(unsigned int max_cids,
					       size_t stride);

/* cidk_pool_destroy - unmap every copy and free the pool; NULL is a no-op. */
CIDK_EXPORT void cidk_pool_destroy(struct cidk_pool *pool);

/*
 * cidk_pool_alloc - reserve @size bytes aligned to @align in every CID's
 * region and copy @init (@size bytes; NULL means all zero) into every copy.
 * @align must be a power of two <= CIDK_POOL_MAX_ALIGN; an alignment larger
 * than CIDK_POOL_LINE also requires the stride to be a multiple of it (so
 * that every copy, not only CID 0's, is aligned).
 * Returns the handle (>= 0), or a negative errno with the pool unchanged:
 * -EINVAL (NULL @pool, @size 0, bad @align),
 * -ENOSPC (the region has no room left for @size at @align).
 * MT-safe (serialised inside the pool).
 */
CIDK_EXPORT cidk_pool_handle cidk_pool_alloc(struct cidk_pool *pool,
					     size_t size, size_t align,
					     const void *init);

/* cidk_pool_used - bytes of each region handed out so far (with padding). */
CIDK_EXPORT size_t cidk_pool_used(struct cidk_pool *pool);

/*
 * cidk_pool_ptr - the address of @cid's copy of the object @h.
 * No checks (hot path): @cid < max_cids and @h from cidk_pool_alloc on
 * this pool are the caller's contract.  MT-safe.
 */
static inline void *cidk_pool_ptr(const struct cidk_pool *pool,
				  cidk_pool_handle h, unsigned int cid)
{
	return pool->base + (size_t)cid * pool->stride + h;
}

#ifdef __cplusplus
}
#endif

#endif /* CIDKIT_POOL_H */
