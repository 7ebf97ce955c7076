/* SPDX-License-Identifier: MIT */
/*
 * lib/pool/pool.c - per-CID memory pools (include/cidkit/pool.h).
 *
 * Invariants: base, stride, max_cids and map_len never change after
 * create; stride % CIDK_POOL_LINE == 0; base is page aligned; 0 <= used <=
 * stride; bytes [0, used) of every region belong to handed-out objects (or
 * their alignment padding), bytes [used, stride) of every region are zero.
 * Workload: create/alloc/destroy are setup-time; nothing here is hot.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cidkit/pool.h>

struct pool_priv {
	pthread_mutex_t lock;
	size_t used; /* guarded by lock */
};

struct cidk_pool *cidk_pool_create(unsigned int max_cids, size_t stride)
{
	struct cidk_pool *pool = NULL;
	struct pool_priv *priv = NULL;
	void *map;
	int err;

	if (!max_cids || !stride) {
		err = EINVAL;
		goto fail;
	}
	if (stride > SIZE_MAX - (CIDK_POOL_LINE - 1)) {
		err = EOVERFLOW;
		goto fail;
	}
	stride = (stride + CIDK_POOL_LINE - 1) & ~(size_t)(CIDK_POOL_LINE - 1);
	if (stride > SIZE_MAX / max_cids) {
		err = EOVERFLOW;
		goto fail;
	}
	pool = calloc(1, sizeof(*pool));
	priv = calloc(1, sizeof(*priv));
	if (!pool || !priv) {
		err = ENOMEM;
		goto fail;
	}
	err = pthread_mutex_init(&priv->lock, NULL);
	if (err)
		goto fail;
	pool->map_len = stride * max_cids;
	map = mmap(NULL, pool->map_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		err = ENOMEM;
		pthread_mutex_destroy(&priv->lock);
		goto fail;
	}
	pool->base = map;
	pool->stride = stride;
	pool->max_cids = max_cids;
	pool->priv = priv;
	return pool;
fail:
	free(priv);
	free(pool);
	errno = err;
	return NULL;
}

void cidk_pool_destroy(struct cidk_pool *pool)
{
	struct pool_priv *priv;

	if (!pool)
		return;
	priv = pool->priv;
	munmap(pool->base, pool->map_len);
	pthread_mutex_destroy(&priv->lock);
	free(priv);
	free(pool);
}

static int align_ok(const struct cidk_pool *pool, size_t align)
{
	if (!align || (align & (align - 1)) || align > CIDK_POOL_MAX_ALIGN)
		return 0;
	return align <= CIDK_POOL_LINE || pool->stride % align == 0;
}

cidk_pool_handle cidk_pool_alloc(struct cidk_pool *pool, size_t size,
				 size_t align, const void *init)
{
	struct pool_priv *priv;
	size_t off;
	cidk_pool_handle rc;
	unsigned int cid;

	if (!pool || !size || !align_ok(pool, align))
		return -EINVAL;
	priv = pool->priv;
	pthread_mutex_lock(&priv->lock);
	off = (priv->used + align - 1) & ~(align - 1);
	if (off < priv->used || off > pool->stride ||
	    size > pool->stride - off || off > (size_t)PTRDIFF_MAX) {
		rc = -ENOSPC;
		goto out;
	}
	/* The region beyond `used` is still zero: only a non-zero value
	 * needs copying (and touching every CID's pages). */
	if (init) {
		for (cid = 0; cid < pool->max_cids; cid++)
			memcpy(pool->base + (size_t)cid * pool->stride + off,
			       init, size);
	}
	priv->used = off + size;
	rc = (cidk_pool_handle)off;
out:
	pthread_mutex_unlock(&priv->lock);
	return rc;
}

size_t cidk_pool_used(struct cidk_pool *pool)
{
	struct pool_priv *priv;
	size_t used;

	if (!pool)
		return 0;
	priv = pool->priv;
	pthread_mutex_lock(&priv->lock);
	used = priv->used;
	pthread_mutex_unlock(&priv->lock);
	return used;
}
