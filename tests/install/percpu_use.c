/* SPDX-License-Identifier: MIT */
/*
 * tests/install/percpu_use.c - every per-CPU operation of cidkit/percpu.h
 * once, so that headers.sh can compile and assemble the critical
 * sections of an architecture other than the host's (aarch64 on an
 * x86-64 machine: the header alone compiles them to nothing there).
 */
#include <cidkit/percpu.h>

int percpu_use(struct cidk_pool *pool, cidk_pool_handle h,
	       struct cidk_percpu_node *node);

/* The operations of issue 37, each form and indexing once. */
static int percpu_use_ops(struct cidk_pool *pool, cidk_pool_handle h,
			  intptr_t *w)
{
	enum cidk_percpu_index x = CIDK_PERCPU_CPU_ID, y = CIDK_PERCPU_MM_CID;
	int i = cidk_percpu_index_read(x), rc = 0;
	unsigned int u = i < 0 ? 0 : (unsigned int)i;
	intptr_t out = 0;

	rc |= cidk_percpu_add_on(pool, h, y, u, 1);
	rc |= cidk_percpu_cmpeqv_storev_relaxed_on(pool, h, x, u, 0, 1);
	rc |= cidk_percpu_cmpeqv_cmpeqv_storev_on(pool, h, y, u, 0, w, 0, 1);
	rc |= cidk_percpu_cmpeqv_trystorev_storev_on(pool, h, x, u, 0, w, 1, 2);
	rc |= cidk_percpu_cmpeqv_trystorev_storev_release_on(pool, h, y, u, 0,
							     w, 1, 2);
	rc |= cidk_percpu_cmpeqv_trymemcpy_storev_on(pool, h, x, u, 0, w,
						     w + 1, 8, 1);
	rc |= cidk_percpu_cmpeqv_trymemcpy_storev_release_on(pool, h, y, u, 0,
							     w, w + 1, 8, 1);
	rc |= cidk_percpu_cmpnev_storeoffp_load(pool, h, x, 0, 8, &out);
	rc |= cidk_percpu_cmpnev_storeoffp_load_on(pool, h, y, u, 0, 8, &out);
	rc |= cidk_percpu_offset_deref_addv(pool, h, y, 8, 1);
	rc |= cidk_percpu_offset_deref_addv_on(pool, h, x, u, 8, 1);
	return rc | (out != 0);
}

int percpu_use(struct cidk_pool *pool, cidk_pool_handle h,
	       struct cidk_percpu_node *node)
{
	struct cidk_percpu_counter c;
	int rc = 0;

	rc |= cidk_percpu_add(pool, h, 1);
	rc |= cidk_percpu_add_index(pool, h, CIDK_PERCPU_CPU_ID, -1);
	if (!cidk_percpu_counter_init(&c, pool, h, CIDK_PERCPU_MM_CID))
		rc |= cidk_percpu_counter_add(&c, 2);
	rc |= cidk_percpu_cmpeqv_storev(pool, h, CIDK_PERCPU_CPU_ID, 0, 0, 1);
	rc |= cidk_percpu_list_push(pool, h, CIDK_PERCPU_MM_CID, node);
	rc |= cidk_percpu_list_pop(pool, h, CIDK_PERCPU_CPU_ID) == node;
	return rc | percpu_use_ops(pool, h, (intptr_t *)node);
}
