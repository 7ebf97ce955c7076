/* SPDX-License-Identifier: MIT */
/*
 * cidkit/arch/s390x.h - the IBM Z (s390x, 64-bit, big-endian) rseq
 * critical sections behind cidkit/percpu.h (GCC or Clang).  Internal:
 * include <cidkit/percpu.h>, which includes this header there; alone it
 * compiles to nothing elsewhere.  It provides every section
 * cidkit/arch/x86_64.h lists (the first four and the operations of issue
 * 37), with the same results.
 *
 * The s390 rules of the rseq ABI, as this file keeps them (public
 * sources: the kernel's tools/testing/selftests/rseq/rseq-s390.h, from
 * "rseq/selftests: add s390 support", Linux 4.20; librseq's
 * include/rseq/arch/s390.h; glibc's sysdeps/unix/sysv/linux/s390/bits/rseq.h):
 *  - the signature: 0xB2FF0FFF, "trap4 4095(%r0)" (Linux never enables
 *    what would let it run: it always traps), a 4-byte word right before
 *    each abort handler; the handlers live in section __rseq_failure and
 *    branch back with jg (brcl: +-4 GiB);
 *  - the descriptor (struct rseq_cs: version 0, flags 0, start_ip,
 *    post_commit_offset, abort_ip) is 32-byte aligned in section
 *    __rseq_cs, its address also in __rseq_cs_ptr_array; its address is
 *    formed PC-relative (larl) and stored into the area's rseq_cs field
 *    with one 64-bit stg before start_ip (label 1);
 *  - big-endian: struct rseq's rseq_cs is a 64-bit field at offset 8
 *    (the uapi's __u64 since "rseq: Remove broken uapi field layout on
 *    32-bit little endian", Linux 6.0, which dropped the ptr32 union that
 *    only 32-bit ABIs had), so the 64-bit store is the whole field on
 *    either byte order; a 32-bit store there would fill its high half.
 *    cpu_id (offset 4) and mm_cid (24) are 32-bit fields read with 32-bit
 *    loads; the signature and the descriptor are emitted in native order
 *    (.long, .quad), as the kernel reads them;
 *  - the thread pointer: access registers a0 (high half) and a1 (low
 *    half), which __builtin_thread_pointer() reads (ear, sllg, ear);
 *  - the index: the add reads it inside the section (llgf, compared
 *    unsigned with clgr); the compare-and-store and pop re-check the index
 *    read before (c against @i) inside the section;
 *  - the commit is one store, the last instruction of the section; the
 *    add is lg, agr, stg (the commit; the interlocked laag would be an
 *    atomic, which the section exists to avoid); z/Architecture keeps
 *    stores in order (as x86 does), so the compare-and-store's plain
 *    store, and the issue-37 release forms' (the same instructions as
 *    the relaxed ones), is already a release; pop's commit is a plain
 *    store.
 * Registers r0 and r1 are the sections' scratch (clobbered); addresses
 * are "a" operands (never r0, which reads as 0 in a base position).
 */
#ifndef CIDKIT_ARCH_S390X_H
#define CIDKIT_ARCH_S390X_H

#if defined(__s390x__) && defined(__GNUC__)

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#define CIDK_PERCPU_HAVE_RSEQ 1

#include <cidkit/arch/common.h>

/*
 * The signature before every abort handler, the one literal of it:
 * "trap4 4095(%r0)" (Linux never enables the trap, so it is an
 * operation exception), a big-endian 4-byte word.
 */
#define CIDK__ARCH_RSEQ_SIG 0xb2ff0fff
#define CIDK_PERCPU_RSEQ_SIG ((uint32_t)CIDK__ARCH_RSEQ_SIG)
#define CIDK__ARCH_SIG_ASM(sig)                                               \
	".balign 4\n\t"                                                       \
	".long " sig "\n"

/*
 * No spin-wait hint on s390x (the kernel's cpu_relax() there is a
 * compiler barrier): cidk__cpu_relax() is one.
 */

#ifndef CIDK__PERCPU_INLINE
#define CIDK__PERCPU_INLINE static inline __attribute__((always_inline))
#endif

/*
 * The descriptor's address (label 3, larl, in r0) stored into the rseq_cs
 * field at the memory operand @cs_mem (CIDK__RSEQ_ARM, common.h).
 */
#define CIDK__ARCH_STORE_CS(cs_mem)                                           \
	"larl %%r0, 3b\n\t"                                                   \
	"stg %%r0, " cs_mem "\n"

/*
 * post_commit_ip (label 2), then the signature and the abort handler
 * (label 4) in __rseq_failure, which jumps to the C label @aborted.
 */
#define CIDK__PERCPU_S390_END                                                 \
	"2:\n\t"                                                              \
	CIDK__RSEQ_FAILURE(CIDK__RSEQ_SIG_TEXT)                               \
	"jg %l[aborted]\n\t"                                                  \
	".popsection\n\t"

/*
 * The add: the index (llgf through @ix_op, zero-extended) read inside the
 * section, bounds-checked against @n, times the stride is the copy's
 * offset from @base; load, add, store (the commit).
 */
#define CIDK__PERCPU_S390_ADD(cs_op, ix_op)                                   \
	CIDK__RSEQ_START(cs_op)                                          \
	"llgf %%r1, " ix_op "\n\t"                                            \
	"clgr %%r1, %[n]\n\t"                                                 \
	"jghe %l[range]\n\t"                                                  \
	"msgr %%r1, %[stride]\n\t"                                            \
	"lg %%r0, 0(%%r1, %[base])\n\t"                                       \
	"agr %%r0, %[d]\n\t"                                                  \
	"stg %%r0, 0(%%r1, %[base])\n\t"                                      \
	CIDK__PERCPU_S390_END

/* The add's statement, for the index at offset @off of the area @a. */
#define CIDK__PERCPU_S390_ADD_ASM(off)                                        \
	__asm__ goto(CIDK__PERCPU_S390_ADD("8(%[a])", off "(%[a])")            \
		     : : [a] "a"(a), [n] "r"((uintptr_t)n),                   \
		       [stride] "r"(stride), [base] "a"(base), [d] "r"(delta) \
		     : "r0", "r1", "cc", "memory" : aborted, range)

/* Returns 0 (added), -1 (aborted: retry) or -ERANGE (index >= @n). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_add(char *base, size_t stride,
					    unsigned int n, intptr_t delta,
					    ptrdiff_t rs, int mm_cid)
{
	char *a = (char *)__builtin_thread_pointer() + rs;

	if (mm_cid)
		CIDK__PERCPU_S390_ADD_ASM("24");
	else
		CIDK__PERCPU_S390_ADD_ASM("4");
	return 0;
aborted:
	return -1;
range:
	return -ERANGE;
}

/*
 * The same add with the fields' offsets from the thread pointer in
 * registers (@cs: rseq_cs, @ix: the index), as a cidk_percpu_counter
 * keeps them (base + index addressing: one statement for both
 * indexings).
 */
CIDK__PERCPU_INLINE int cidk__percpu_cs_add_at(unsigned char *base,
					       size_t stride, unsigned int n,
					       intptr_t delta, ptrdiff_t cs,
					       ptrdiff_t ix)
{
	__asm__ goto(CIDK__PERCPU_S390_ADD("0(%[cs], %[tp])", "0(%[ix], %[tp])")
		     : : [tp] "a"(__builtin_thread_pointer()), [cs] "a"(cs),
		       [ix] "a"(ix), [n] "r"((uintptr_t)n),
		       [stride] "r"(stride), [base] "a"(base), [d] "r"(delta)
		     : "r0", "r1", "cc", "memory" : aborted, range);
	return 0;
aborted:
	return -1;
range:
	return -ERANGE;
}

/*
 * Arm, then compare the index at offset @off of the area @a with @i (the
 * one the caller read before) and leave to @moved when it changed.
 */
#define CIDK__PERCPU_S390_BEGIN(off)                                          \
	CIDK__RSEQ_START("8(%[a])")                                      \
	"c %[i], " off "(%[a])\n\t"                                           \
	"jgne %l[moved]\n\t"

#define CIDK__PERCPU_S390_CMPEQV_ASM(off)                                     \
	__asm__ goto(CIDK__PERCPU_S390_BEGIN(off)                             \
		     "cg %[e], 0(%[v])\n\t"                                   \
		     "jgne %l[differs]\n\t"                                   \
		     "stg %[nv], 0(%[v])\n\t"                                 \
		     CIDK__PERCPU_S390_END                                    \
		     : : [a] "a"(a), [i] "r"(i), [v] "a"(v), [e] "r"(expect), \
		       [nv] "r"(newv)                                         \
		     : "r0", "r1", "cc", "memory" : aborted, moved, differs)

/*
 * if (*v == expect) *v = newv (the store commits; stores stay in order).
 * Returns 0 (stored), 1 (*v differed), -1 (aborted) or -2 (the index is
 * no longer @i); a result other than 0 stored nothing.
 */
CIDK__PERCPU_INLINE int cidk__percpu_cs_cmpeqv_storev(intptr_t *v,
						      intptr_t expect,
						      intptr_t newv,
						      unsigned int i,
						      ptrdiff_t rs, int mm_cid)
{
	char *a = (char *)__builtin_thread_pointer() + rs;

	if (mm_cid)
		CIDK__PERCPU_S390_CMPEQV_ASM("24");
	else
		CIDK__PERCPU_S390_CMPEQV_ASM("4");
	return 0;
differs:
	return 1;
aborted:
	return -1;
moved:
	return -2;
}

/*
 * Pop: head = *v; if (!head) leave; *v = head->next (the commit); then,
 * after the section, *out = head (a store the kernel never restarts).
 */
#define CIDK__PERCPU_S390_POP_ASM(off)                                        \
	__asm__ goto(CIDK__PERCPU_S390_BEGIN(off)                             \
		     "ltg %%r1, 0(%[v])\n\t"                                  \
		     "jge %l[empty]\n\t"                                      \
		     "lg %%r0, 0(%%r1)\n\t"                                   \
		     "stg %%r0, 0(%[v])\n\t"                                  \
		     CIDK__PERCPU_S390_END                                    \
		     "stg %%r1, 0(%[out])\n\t"                                \
		     : : [a] "a"(a), [i] "r"(i), [v] "a"(v), [out] "a"(out)   \
		     : "r0", "r1", "cc", "memory" : aborted, moved, empty)

/* Returns 0 (popped into *@out), 1 (empty), -1 (aborted), -2 (moved). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_pop(intptr_t *v, intptr_t *out,
					    unsigned int i, ptrdiff_t rs,
					    int mm_cid)
{
	char *a = (char *)__builtin_thread_pointer() + rs;

	if (mm_cid)
		CIDK__PERCPU_S390_POP_ASM("24");
	else
		CIDK__PERCPU_S390_POP_ASM("4");
	return 0;
empty:
	return 1;
aborted:
	return -1;
moved:
	return -2;
}

/*
 * The operations of issue 37 (the list at the top of cidkit/arch/x86_64.h,
 * same arguments and results), each a section that checks the index @i
 * first (CIDK__PERCPU_S390_BEGIN) and leaves through asm goto: 0
 * committed, 1 a comparison failed (nothing stored), -1 aborted, -2 the
 * index is no longer @i.  One statement per operation, instantiated for
 * the two indexings (the offset string); the commit is the last store, a
 * plain stg in both forms: z/Architecture keeps stores in order, so it
 * is already a release (@rel is ignored, as on x86-64).  Scratch: r0,
 * r1 (r1 the only one usable as a base or index register).
 */
#define CIDK__PERCPU_S390_CMP                                                 \
	"cg %[e], 0(%[v])\n\t"                                                \
	"jgne %l[differs]\n\t"

#define CIDK__PERCPU_S390_STMT(off, body, ...)                                \
	__asm__ goto(CIDK__PERCPU_S390_BEGIN(off) body CIDK__PERCPU_S390_END  \
		     : : [a] "a"(a), [i] "r"(i), __VA_ARGS__                  \
		     : "r0", "r1", "cc", "memory" : aborted, moved, differs)

#define CIDK__PERCPU_S390_BOTH(body, ...)                                     \
	do {                                                                  \
		if (mm_cid)                                                   \
			CIDK__PERCPU_S390_STMT("24", body, __VA_ARGS__);      \
		else                                                          \
			CIDK__PERCPU_S390_STMT("4", body, __VA_ARGS__);       \
	} while (0)

#define CIDK__PERCPU_S390_RESULTS                                             \
	return 0;                                                             \
differs:                                                                      \
	return 1;                                                             \
aborted:                                                                      \
	return -1;                                                            \
moved:                                                                        \
	return -2

#define CIDK__PERCPU_S390_AREA                                                \
	char *a = (char *)__builtin_thread_pointer() + rs

/* *v += delta: load, add, store (the commit). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_add_on(intptr_t *v, intptr_t delta,
					       unsigned int i, ptrdiff_t rs,
					       int mm_cid)
{
	CIDK__PERCPU_S390_AREA;

	CIDK__PERCPU_S390_BOTH("lg %%r0, 0(%[v])\n\t"
			       "agr %%r0, %[d]\n\t"
			       "stg %%r0, 0(%[v])\n\t",
			       [v] "a"(v), [d] "r"(delta));
	CIDK__PERCPU_S390_RESULTS;
}

/* if (*v != expect) fail; *v = newv. */
CIDK__PERCPU_INLINE int cidk__percpu_cs_cbne_store(intptr_t *v,
						   intptr_t expect,
						   intptr_t newv, int rel,
						   unsigned int i,
						   ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_S390_AREA;

	(void)rel;
	CIDK__PERCPU_S390_BOTH(CIDK__PERCPU_S390_CMP
			       "stg %[n], 0(%[v])\n\t",
			       [v] "a"(v), [e] "r"(expect), [n] "r"(newv));
	CIDK__PERCPU_S390_RESULTS;
}

/* if (*v != expect || *v2 != expect2) fail; *v = newv. */
CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_cbne_store(intptr_t *v, intptr_t expect, intptr_t *v2,
				intptr_t expect2, intptr_t newv,
				unsigned int i, ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_S390_AREA;

	CIDK__PERCPU_S390_BOTH(CIDK__PERCPU_S390_CMP
			       "cg %[e2], 0(%[v2])\n\t"
			       "jgne %l[differs]\n\t"
			       "stg %[n], 0(%[v])\n\t",
			       [v] "a"(v), [e] "r"(expect), [v2] "a"(v2),
			       [e2] "r"(expect2), [n] "r"(newv));
	CIDK__PERCPU_S390_RESULTS;
}

/* if (*v != expect) fail; *v2 = newv2 (an attempt); *v = newv. */
CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_store_store(intptr_t *v, intptr_t expect, intptr_t *v2,
				 intptr_t newv2, intptr_t newv, int rel,
				 unsigned int i, ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_S390_AREA;

	(void)rel;
	CIDK__PERCPU_S390_BOTH(CIDK__PERCPU_S390_CMP
			       "stg %[n2], 0(%[v2])\n\t"
			       "stg %[n], 0(%[v])\n\t",
			       [v] "a"(v), [e] "r"(expect), [v2] "a"(v2),
			       [n2] "r"(newv2), [n] "r"(newv));
	CIDK__PERCPU_S390_RESULTS;
}

/*
 * The copy of @len bytes @src -> @dst: 8 bytes at a time, then the rest
 * byte by byte (r1 the count, an index register; r0 the data).
 */
#define CIDK__PERCPU_S390_COPY                                                \
	"lghi %%r1, 0\n"                                                      \
	"9:\n\t"                                                              \
	"la %%r0, 8(%%r1)\n\t"                                                \
	"clgr %%r0, %[len]\n\t"                                               \
	"jh 11f\n\t"                                                          \
	"lg %%r0, 0(%%r1, %[src])\n\t"                                        \
	"stg %%r0, 0(%%r1, %[dst])\n\t"                                       \
	"aghi %%r1, 8\n\t"                                                    \
	"j 9b\n"                                                              \
	"11:\n\t"                                                             \
	"clgr %%r1, %[len]\n\t"                                               \
	"jhe 10f\n\t"                                                         \
	"llc %%r0, 0(%%r1, %[src])\n\t"                                       \
	"stc %%r0, 0(%%r1, %[dst])\n\t"                                       \
	"aghi %%r1, 1\n\t"                                                    \
	"j 11b\n"                                                             \
	"10:\n\t"

/* if (*v != expect) fail; copy (an attempt); *v = newv. */
CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_memcpy_store(intptr_t *v, intptr_t expect, void *dst,
				  const void *src, size_t len, intptr_t newv,
				  int rel, unsigned int i, ptrdiff_t rs,
				  int mm_cid)
{
	CIDK__PERCPU_S390_AREA;

	(void)rel;
	CIDK__PERCPU_S390_BOTH(CIDK__PERCPU_S390_CMP CIDK__PERCPU_S390_COPY
			       "stg %[n], 0(%[v])\n\t",
			       [v] "a"(v), [e] "r"(expect), [dst] "a"(dst),
			       [src] "a"(src), [len] "r"(len), [n] "r"(newv));
	CIDK__PERCPU_S390_RESULTS;
}

/*
 * head = *v; if (head == expectnot) fail; *out = head (an attempt);
 * *v = *(intptr_t *)(head + off).
 */
CIDK__PERCPU_INLINE int cidk__percpu_cs_cbeq_pop(intptr_t *v,
						 intptr_t expectnot,
						 ptrdiff_t off, intptr_t *out,
						 unsigned int i, ptrdiff_t rs,
						 int mm_cid)
{
	CIDK__PERCPU_S390_AREA;

	CIDK__PERCPU_S390_BOTH("lg %%r1, 0(%[v])\n\t"
			       "cgr %%r1, %[e]\n\t"
			       "jge %l[differs]\n\t"
			       "stg %%r1, 0(%[out])\n\t"
			       "lg %%r0, 0(%[off], %%r1)\n\t"
			       "stg %%r0, 0(%[v])\n\t",
			       [v] "a"(v), [e] "r"(expectnot), [off] "a"(off),
			       [out] "a"(out));
	CIDK__PERCPU_S390_RESULTS;
}

/* **(intptr_t **)(*v + off) += inc: three loads, an add, the store. */
CIDK__PERCPU_INLINE int cidk__percpu_cs_deref_add(intptr_t *v, ptrdiff_t off,
						  intptr_t inc, unsigned int i,
						  ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_S390_AREA;

	CIDK__PERCPU_S390_BOTH("lg %%r1, 0(%[v])\n\t"
			       "lg %%r1, 0(%[off], %%r1)\n\t"
			       "lg %%r0, 0(%%r1)\n\t"
			       "agr %%r0, %[d]\n\t"
			       "stg %%r0, 0(%%r1)\n\t",
			       [v] "a"(v), [off] "a"(off), [d] "r"(inc));
	CIDK__PERCPU_S390_RESULTS;
}

#endif /* __s390x__ && __GNUC__ */

#endif /* CIDKIT_ARCH_S390X_H */
