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
	return rc | (cidk_percpu_list_pop(pool, h, CIDK_PERCPU_CPU_ID) == node);
}
