/* SPDX-License-Identifier: MIT */
/*
 * cidkit/arch/unported.h - the issue-37 operations' critical sections on
 * an architecture whose header does not write them yet (riscv64, ppc64le,
 * s390x: their headers include this one).  Internal: included by those
 * headers only.
 *
 * Each stands for the section cidkit/arch/x86_64.h lists under "the
 * operations of issue 37" and returns -ENOSYS, nothing stored: the
 * generic layer's retry loops pass it through (it is neither -1, an
 * abort, nor -2, a changed index), so on the rseq path these operations
 * return -ENOSYS to the caller.  They do not fall back to the atomic
 * path on their own: an atomic read-modify-write of a word that a
 * critical section of another thread loads and stores is not atomic with
 * that section, and the two paths never run at the same time in one
 * process (cidkit/percpu.h, "Paths").  A program that needs them on these
 * architectures today runs with CIDK_PERCPU=atomic.  Every other
 * operation (add, the counter's add, compare-and-store, list push and
 * pop) runs its rseq section as on x86-64.
 */
#ifndef CIDKIT_ARCH_UNPORTED_H
#define CIDKIT_ARCH_UNPORTED_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#ifndef CIDK__PERCPU_INLINE
#define CIDK__PERCPU_INLINE static inline __attribute__((always_inline))
#endif

CIDK__PERCPU_INLINE int cidk__percpu_cs_add_on(intptr_t *v, intptr_t delta,
					       unsigned int i, ptrdiff_t rs,
					       int mm_cid)
{
	(void)v, (void)delta, (void)i, (void)rs, (void)mm_cid;
	return -ENOSYS;
}

CIDK__PERCPU_INLINE int cidk__percpu_cs_cbne_store(intptr_t *v,
						   intptr_t expect,
						   intptr_t newv, int rel,
						   unsigned int i,
						   ptrdiff_t rs, int mm_cid)
{
	(void)v, (void)expect, (void)newv, (void)rel, (void)i, (void)rs;
	(void)mm_cid;
	return -ENOSYS;
}

CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_cbne_store(intptr_t *v, intptr_t expect, intptr_t *v2,
				intptr_t expect2, intptr_t newv,
				unsigned int i, ptrdiff_t rs, int mm_cid)
{
	(void)v, (void)expect, (void)v2, (void)expect2, (void)newv, (void)i;
	(void)rs, (void)mm_cid;
	return -ENOSYS;
}

CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_store_store(intptr_t *v, intptr_t expect, intptr_t *v2,
				 intptr_t newv2, intptr_t newv, int rel,
				 unsigned int i, ptrdiff_t rs, int mm_cid)
{
	(void)v, (void)expect, (void)v2, (void)newv2, (void)newv, (void)rel;
	(void)i, (void)rs, (void)mm_cid;
	return -ENOSYS;
}

CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_memcpy_store(intptr_t *v, intptr_t expect, void *dst,
				  const void *src, size_t len, intptr_t newv,
				  int rel, unsigned int i, ptrdiff_t rs,
				  int mm_cid)
{
	(void)v, (void)expect, (void)dst, (void)src, (void)len, (void)newv;
	(void)rel, (void)i, (void)rs, (void)mm_cid;
	return -ENOSYS;
}

CIDK__PERCPU_INLINE int cidk__percpu_cs_cbeq_pop(intptr_t *v,
						 intptr_t expectnot,
						 ptrdiff_t off, intptr_t *out,
						 unsigned int i, ptrdiff_t rs,
						 int mm_cid)
{
	(void)v, (void)expectnot, (void)off, (void)out, (void)i, (void)rs;
	(void)mm_cid;
	return -ENOSYS;
}

CIDK__PERCPU_INLINE int cidk__percpu_cs_deref_add(intptr_t *v, ptrdiff_t off,
						  intptr_t inc, unsigned int i,
						  ptrdiff_t rs, int mm_cid)
{
	(void)v, (void)off, (void)inc, (void)i, (void)rs, (void)mm_cid;
	return -ENOSYS;
}

#endif /* CIDKIT_ARCH_UNPORTED_H */
