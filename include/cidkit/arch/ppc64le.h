/* SPDX-License-Identifier: MIT */
/*
 * cidkit/arch/ppc64le.h - the 64-bit little-endian POWER (ELFv2) rseq
 * critical sections behind cidkit/percpu.h (GCC or Clang).  Internal:
 * include <cidkit/percpu.h>, which includes this header there; alone it
 * compiles to nothing elsewhere.  It provides every section
 * cidkit/arch/x86_64.h lists (the first four and the operations of issue
 * 37), with the same results.
 *
 * The powerpc rules of the rseq ABI, as this file keeps them (public
 * sources: the kernel's tools/testing/selftests/rseq/rseq-ppc.h, with
 * "rseq/selftests: Provide powerpc" of the rseq series, Linux 4.18;
 * librseq's include/rseq/arch/ppc.h; glibc's
 * sysdeps/unix/sysv/linux/powerpc/bits/rseq.h):
 *  - the signature: 0x0fe5000b, "twui r5,11" (a trap), a 4-byte word in
 *    native byte order right before each abort handler (on ppc64le the
 *    bytes 0b 00 e5 0f: still that instruction); the handlers live in
 *    section __rseq_failure and branch back with b (+-32 MiB);
 *  - the descriptor (struct rseq_cs: version 0, flags 0, start_ip,
 *    post_commit_offset, abort_ip) is 32-byte aligned in section
 *    __rseq_cs, its address also in __rseq_cs_ptr_array; it is stored
 *    with one 64-bit std into the area's rseq_cs field before start_ip
 *    (label 1).  Its address is formed PC-relative -- bcl 20,31 (the form
 *    that leaves the return-address predictor alone), mflr, addis/addi
 *    with @ha/@l of the distance -- where librseq loads the absolute
 *    address (lis/ori @highest...): no text relocation in a shared
 *    library, no dependence on r2 (the TOC pointer inline assembly cannot
 *    count on).  The link register is therefore clobbered;
 *  - the thread pointer is r13 (the 64-bit ABI's; GCC 12 has no
 *    __builtin_thread_pointer here: cidk__thread_pointer() in
 *    cidkit/rseq.h reads the register);
 *  - the index: the add reads it inside the section (lwz, compared
 *    unsigned with cmplw); the compare-and-store and pop re-check the
 *    index read before (cmpw against @i) inside the section;
 *  - the commit is one store, the last instruction of the section; POWER
 *    has no memory add, so the add is ld, add, std (the commit); the
 *    compare-and-store's store, and the commit of the issue-37 release
 *    forms, follows an lwsync (a release, as librseq's release forms
 *    use); the other commits are plain.
 * Registers r17-r19 (call-saved: the compiler saves them) and cr7 are the
 * sections' scratch; addresses are "b" operands (never r0, which reads as
 * 0 in a base position).
 */
#ifndef CIDKIT_ARCH_PPC64LE_H
#define CIDKIT_ARCH_PPC64LE_H

#if defined(__powerpc64__) && defined(__GNUC__) && \
	defined(__LITTLE_ENDIAN__)

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <cidkit/rseq.h> /* cidk__thread_pointer() */

#define CIDK_PERCPU_HAVE_RSEQ 1

#include <cidkit/arch/common.h>

/*
 * The signature before every abort handler, the one literal of it (glibc
 * registers the same): "twui r5,11" (a trap), a 4-byte word in native
 * (little-endian) byte order.
 */
#define CIDK__ARCH_RSEQ_SIG 0x0fe5000b
#define CIDK_PERCPU_RSEQ_SIG ((uint32_t)CIDK__ARCH_RSEQ_SIG)
#define CIDK__ARCH_SIG_ASM(sig)                                               \
	".balign 4\n\t"                                                       \
	".long " sig "\n"

/*
 * The spin-wait hint (cidk__cpu_relax, cidkit/arch/select.h): the
 * kernel's HMT_low(); HMT_medium(), SMT priority down and back up.
 */
#define CIDK__ARCH_RELAX_ASM "or 1,1,1\n\tor 2,2,2"

#ifndef CIDK__PERCPU_INLINE
#define CIDK__PERCPU_INLINE static inline __attribute__((always_inline))
#endif

/*
 * The descriptor's address (label 3, PC-relative through label 9, in r17;
 * lr clobbered), then @store, the instruction that stores r17 into
 * rseq_cs.  CIDK__ARCH_STORE_CS(cs_mem) (CIDK__RSEQ_ARM, common.h): an
 * std to the memory operand @cs_mem; the counter's add stores with stdx.
 */
#define CIDK__PERCPU_PPC_STORE(store)                                         \
	"bcl 20, 31, 9f\n"                                                    \
	"9:\n\t"                                                              \
	"mflr %%r17\n\t"                                                      \
	"addis %%r17, %%r17, (3b - 9b)@ha\n\t"                                \
	"addi %%r17, %%r17, (3b - 9b)@l\n\t"                                  \
	store "\n"

#define CIDK__ARCH_STORE_CS(cs_mem) CIDK__PERCPU_PPC_STORE("std %%r17, " cs_mem)

/*
 * post_commit_ip (label 2), then the signature and the abort handler
 * (label 4) in __rseq_failure, which branches to the C label @aborted.
 */
#define CIDK__PERCPU_PPC_END                                                  \
	"2:\n\t"                                                              \
	CIDK__RSEQ_FAILURE(CIDK__RSEQ_SIG_TEXT)                               \
	"b %l[aborted]\n\t"                                                   \
	".popsection\n\t"

#define CIDK__PERCPU_PPC_CLOBBERS "r17", "r18", "r19", "cr7", "lr", "memory"

/*
 * The add: the index (loaded by @ix_load into r18) read inside the
 * section, bounds-checked against @n, times the stride is the copy's
 * offset from @base; load, add, store (the commit).
 */
#define CIDK__PERCPU_PPC_ADD(cs_store, ix_load)                               \
	CIDK__RSEQ_CS_DESC_DEFAULT                                            \
	CIDK__PERCPU_PPC_STORE(cs_store)                                      \
	"1:\n\t"                                                              \
	ix_load "\n\t"                                                        \
	"cmplw %%cr7, %%r18, %[n]\n\t"                                        \
	"bge- %%cr7, %l[range]\n\t"                                           \
	"mulld %%r18, %%r18, %[stride]\n\t"                                   \
	"ldx %%r19, %[base], %%r18\n\t"                                       \
	"add %%r19, %%r19, %[d]\n\t"                                          \
	"stdx %%r19, %[base], %%r18\n\t"                                      \
	CIDK__PERCPU_PPC_END

/* The add's statement, for the index at offset @off of the area @a. */
#define CIDK__PERCPU_PPC_ADD_ASM(off)                                         \
	__asm__ goto(CIDK__PERCPU_PPC_ADD("std %%r17, 8(%[a])",               \
					  "lwz %%r18, " off "(%[a])")         \
		     : : [a] "b"(a), [n] "r"(n), [stride] "r"(stride),        \
		       [base] "b"(base), [d] "r"(delta)                       \
		     : CIDK__PERCPU_PPC_CLOBBERS : aborted, range)

/* Returns 0 (added), -1 (aborted: retry) or -ERANGE (index >= @n). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_add(char *base, size_t stride,
					    unsigned int n, intptr_t delta,
					    ptrdiff_t rs, int mm_cid)
{
	char *a = (char *)cidk__thread_pointer() + rs;

	if (mm_cid)
		CIDK__PERCPU_PPC_ADD_ASM("24");
	else
		CIDK__PERCPU_PPC_ADD_ASM("4");
	return 0;
aborted:
	return -1;
range:
	return -ERANGE;
}

/*
 * The same add with the fields' offsets from the thread pointer in
 * registers (@cs: rseq_cs, @ix: the index), as a cidk_percpu_counter
 * keeps them (indexed addressing from r13: one statement for both
 * indexings).
 */
CIDK__PERCPU_INLINE int cidk__percpu_cs_add_at(unsigned char *base,
					       size_t stride, unsigned int n,
					       intptr_t delta, ptrdiff_t cs,
					       ptrdiff_t ix)
{
	__asm__ goto(CIDK__PERCPU_PPC_ADD("stdx %%r17, %%r13, %[cs]",
					  "lwzx %%r18, %%r13, %[ix]")
		     : : [cs] "r"(cs), [ix] "r"(ix), [n] "r"(n),
		       [stride] "r"(stride), [base] "b"(base), [d] "r"(delta)
		     : CIDK__PERCPU_PPC_CLOBBERS : aborted, range);
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
#define CIDK__PERCPU_PPC_BEGIN(off)                                           \
	CIDK__RSEQ_START("8(%[a])")                            \
	"lwz %%r18, " off "(%[a])\n\t"                                        \
	"cmpw %%cr7, %%r18, %[i]\n\t"                                         \
	"bne- %%cr7, %l[moved]\n\t"

#define CIDK__PERCPU_PPC_CMPEQV_ASM(off)                                      \
	__asm__ goto(CIDK__PERCPU_PPC_BEGIN(off)                              \
		     "ld %%r18, 0(%[v])\n\t"                                  \
		     "cmpd %%cr7, %%r18, %[e]\n\t"                            \
		     "bne- %%cr7, %l[differs]\n\t"                            \
		     "lwsync\n\t"                                             \
		     "std %[nv], 0(%[v])\n\t"                                 \
		     CIDK__PERCPU_PPC_END                                     \
		     : : [a] "b"(a), [i] "r"(i), [v] "b"(v), [e] "r"(expect), \
		       [nv] "r"(newv)                                         \
		     : CIDK__PERCPU_PPC_CLOBBERS : aborted, moved, differs)

/*
 * if (*v == expect) *v = newv (the store, after an lwsync, commits).
 * Returns 0 (stored), 1 (*v differed), -1 (aborted) or -2 (the index is
 * no longer @i); a result other than 0 stored nothing.
 */
CIDK__PERCPU_INLINE int cidk__percpu_cs_cmpeqv_storev(intptr_t *v,
						      intptr_t expect,
						      intptr_t newv,
						      unsigned int i,
						      ptrdiff_t rs, int mm_cid)
{
	char *a = (char *)cidk__thread_pointer() + rs;

	if (mm_cid)
		CIDK__PERCPU_PPC_CMPEQV_ASM("24");
	else
		CIDK__PERCPU_PPC_CMPEQV_ASM("4");
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
#define CIDK__PERCPU_PPC_POP_ASM(off)                                         \
	__asm__ goto(CIDK__PERCPU_PPC_BEGIN(off)                              \
		     "ld %%r18, 0(%[v])\n\t"                                  \
		     "cmpdi %%cr7, %%r18, 0\n\t"                              \
		     "beq- %%cr7, %l[empty]\n\t"                              \
		     "ld %%r19, 0(%%r18)\n\t"                                 \
		     "std %%r19, 0(%[v])\n\t"                                 \
		     CIDK__PERCPU_PPC_END                                     \
		     "std %%r18, 0(%[out])\n\t"                               \
		     : : [a] "b"(a), [i] "r"(i), [v] "b"(v), [out] "b"(out)   \
		     : CIDK__PERCPU_PPC_CLOBBERS : aborted, moved, empty)

/* Returns 0 (popped into *@out), 1 (empty), -1 (aborted), -2 (moved). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_pop(intptr_t *v, intptr_t *out,
					    unsigned int i, ptrdiff_t rs,
					    int mm_cid)
{
	char *a = (char *)cidk__thread_pointer() + rs;

	if (mm_cid)
		CIDK__PERCPU_PPC_POP_ASM("24");
	else
		CIDK__PERCPU_PPC_POP_ASM("4");
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
 * first (CIDK__PERCPU_PPC_BEGIN) and leaves through asm goto: 0
 * committed, 1 a comparison failed (nothing stored), -1 aborted, -2 the
 * index is no longer @i.  One statement per operation, instantiated for
 * the two indexings (the offset string); the commit is the last store,
 * preceded by an lwsync in the release forms (@rel, a constant after
 * inlining, picks the statement).  Scratch: r17 (free once the
 * descriptor's address is stored), r18, r19, cr7.
 */
#define CIDK__PERCPU_PPC_CMP                                                  \
	"ld %%r18, 0(%[v])\n\t"                                               \
	"cmpd %%cr7, %%r18, %[e]\n\t"                                         \
	"bne- %%cr7, %l[differs]\n\t"

#define CIDK__PERCPU_PPC_STMT(off, body, ...)                                 \
	__asm__ goto(CIDK__PERCPU_PPC_BEGIN(off) body CIDK__PERCPU_PPC_END    \
		     : : [a] "b"(a), [i] "r"(i), __VA_ARGS__                  \
		     : CIDK__PERCPU_PPC_CLOBBERS : aborted, moved, differs)

#define CIDK__PERCPU_PPC_BOTH(body, ...)                                      \
	do {                                                                  \
		if (mm_cid)                                                   \
			CIDK__PERCPU_PPC_STMT("24", body, __VA_ARGS__);       \
		else                                                          \
			CIDK__PERCPU_PPC_STMT("4", body, __VA_ARGS__);        \
	} while (0)

/* Release (an lwsync before the commit) or relaxed form of one body. */
#define CIDK__PERCPU_PPC_REL(body_rel, body_plain, ...)                       \
	do {                                                                  \
		if (rel)                                                      \
			CIDK__PERCPU_PPC_BOTH(body_rel, __VA_ARGS__);         \
		else                                                          \
			CIDK__PERCPU_PPC_BOTH(body_plain, __VA_ARGS__);       \
	} while (0)

#define CIDK__PERCPU_PPC_RESULTS                                              \
	return 0;                                                             \
differs:                                                                      \
	return 1;                                                             \
aborted:                                                                      \
	return -1;                                                            \
moved:                                                                        \
	return -2

#define CIDK__PERCPU_PPC_AREA char *a = (char *)cidk__thread_pointer() + rs

/* *v += delta: load, add, store (the commit). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_add_on(intptr_t *v, intptr_t delta,
					       unsigned int i, ptrdiff_t rs,
					       int mm_cid)
{
	CIDK__PERCPU_PPC_AREA;

	CIDK__PERCPU_PPC_BOTH("ld %%r18, 0(%[v])\n\t"
			      "add %%r18, %%r18, %[d]\n\t"
			      "std %%r18, 0(%[v])\n\t",
			      [v] "b"(v), [d] "r"(delta));
	CIDK__PERCPU_PPC_RESULTS;
}

/* if (*v != expect) fail; *v = newv (after an lwsync when @rel). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_cbne_store(intptr_t *v,
						   intptr_t expect,
						   intptr_t newv, int rel,
						   unsigned int i,
						   ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_PPC_AREA;

	CIDK__PERCPU_PPC_REL(CIDK__PERCPU_PPC_CMP
			     "lwsync\n\t"
			     "std %[n], 0(%[v])\n\t",
			     CIDK__PERCPU_PPC_CMP
			     "std %[n], 0(%[v])\n\t",
			     [v] "b"(v), [e] "r"(expect), [n] "r"(newv));
	CIDK__PERCPU_PPC_RESULTS;
}

/* if (*v != expect || *v2 != expect2) fail; *v = newv. */
CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_cbne_store(intptr_t *v, intptr_t expect, intptr_t *v2,
				intptr_t expect2, intptr_t newv,
				unsigned int i, ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_PPC_AREA;

	CIDK__PERCPU_PPC_BOTH(CIDK__PERCPU_PPC_CMP
			      "ld %%r19, 0(%[v2])\n\t"
			      "cmpd %%cr7, %%r19, %[e2]\n\t"
			      "bne- %%cr7, %l[differs]\n\t"
			      "std %[n], 0(%[v])\n\t",
			      [v] "b"(v), [e] "r"(expect), [v2] "b"(v2),
			      [e2] "r"(expect2), [n] "r"(newv));
	CIDK__PERCPU_PPC_RESULTS;
}

/* if (*v != expect) fail; *v2 = newv2 (an attempt); *v = newv. */
CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_store_store(intptr_t *v, intptr_t expect, intptr_t *v2,
				 intptr_t newv2, intptr_t newv, int rel,
				 unsigned int i, ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_PPC_AREA;

	CIDK__PERCPU_PPC_REL(CIDK__PERCPU_PPC_CMP
			     "std %[n2], 0(%[v2])\n\t"
			     "lwsync\n\t"
			     "std %[n], 0(%[v])\n\t",
			     CIDK__PERCPU_PPC_CMP
			     "std %[n2], 0(%[v2])\n\t"
			     "std %[n], 0(%[v])\n\t",
			     [v] "b"(v), [e] "r"(expect), [v2] "b"(v2),
			     [n2] "r"(newv2), [n] "r"(newv));
	CIDK__PERCPU_PPC_RESULTS;
}

/*
 * The copy of @len bytes @src -> @dst: 8 bytes at a time, then the rest
 * byte by byte (r17 the count, r18 the data; labels 5-7, as 9 is the
 * arming's).
 */
#define CIDK__PERCPU_PPC_COPY                                                 \
	"li %%r17, 0\n"                                                       \
	"5:\n\t"                                                              \
	"addi %%r18, %%r17, 8\n\t"                                            \
	"cmpld %%cr7, %%r18, %[len]\n\t"                                      \
	"bgt- %%cr7, 7f\n\t"                                                  \
	"ldx %%r18, %[src], %%r17\n\t"                                        \
	"stdx %%r18, %[dst], %%r17\n\t"                                       \
	"addi %%r17, %%r17, 8\n\t"                                            \
	"b 5b\n"                                                              \
	"7:\n\t"                                                              \
	"cmpld %%cr7, %%r17, %[len]\n\t"                                      \
	"bge- %%cr7, 6f\n\t"                                                  \
	"lbzx %%r18, %[src], %%r17\n\t"                                       \
	"stbx %%r18, %[dst], %%r17\n\t"                                       \
	"addi %%r17, %%r17, 1\n\t"                                            \
	"b 7b\n"                                                              \
	"6:\n\t"

/* if (*v != expect) fail; copy (an attempt); *v = newv. */
CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_memcpy_store(intptr_t *v, intptr_t expect, void *dst,
				  const void *src, size_t len, intptr_t newv,
				  int rel, unsigned int i, ptrdiff_t rs,
				  int mm_cid)
{
	CIDK__PERCPU_PPC_AREA;

	CIDK__PERCPU_PPC_REL(CIDK__PERCPU_PPC_CMP CIDK__PERCPU_PPC_COPY
			     "lwsync\n\t"
			     "std %[n], 0(%[v])\n\t",
			     CIDK__PERCPU_PPC_CMP CIDK__PERCPU_PPC_COPY
			     "std %[n], 0(%[v])\n\t",
			     [v] "b"(v), [e] "r"(expect), [dst] "b"(dst),
			     [src] "b"(src), [len] "r"(len), [n] "r"(newv));
	CIDK__PERCPU_PPC_RESULTS;
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
	CIDK__PERCPU_PPC_AREA;

	CIDK__PERCPU_PPC_BOTH("ld %%r18, 0(%[v])\n\t"
			      "cmpd %%cr7, %%r18, %[e]\n\t"
			      "beq- %%cr7, %l[differs]\n\t"
			      "std %%r18, 0(%[out])\n\t"
			      "ldx %%r19, %%r18, %[off]\n\t"
			      "std %%r19, 0(%[v])\n\t",
			      [v] "b"(v), [e] "r"(expectnot), [off] "r"(off),
			      [out] "b"(out));
	CIDK__PERCPU_PPC_RESULTS;
}

/* **(intptr_t **)(*v + off) += inc: three loads, an add, the store. */
CIDK__PERCPU_INLINE int cidk__percpu_cs_deref_add(intptr_t *v, ptrdiff_t off,
						  intptr_t inc, unsigned int i,
						  ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_PPC_AREA;

	CIDK__PERCPU_PPC_BOTH("ld %%r18, 0(%[v])\n\t"
			      "ldx %%r18, %%r18, %[off]\n\t"
			      "ld %%r19, 0(%%r18)\n\t"
			      "add %%r19, %%r19, %[d]\n\t"
			      "std %%r19, 0(%%r18)\n\t",
			      [v] "b"(v), [off] "r"(off), [d] "r"(inc));
	CIDK__PERCPU_PPC_RESULTS;
}

#endif /* __powerpc64__ && __GNUC__ && __LITTLE_ENDIAN__ */

#endif /* CIDKIT_ARCH_PPC64LE_H */
