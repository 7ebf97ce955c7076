/* SPDX-License-Identifier: MIT */
/*
 * cidkit/arch/aarch64.h - the arm64 rseq critical sections behind
 * cidkit/percpu.h (little-endian aarch64, GCC or Clang).  Internal:
 * include <cidkit/percpu.h>, which includes this header there; alone it
 * compiles to nothing elsewhere.  It provides what cidkit/arch/x86_64.h
 * lists, with the same results.
 *
 * The arm64 rules of the rseq ABI, as this file keeps them:
 *  - the signature: the 4 bytes before every abort handler are the value
 *    registered with rseq(2); glibc registers 0xd428bc00 ("brk #0x45e0",
 *    a trap should anything ever jump there), emitted with .inst so that
 *    it is an instruction word.  The handlers live in section
 *    __rseq_failure (code, out of the fast path) and end in an
 *    unconditional branch back to the C function (B reaches +-128 MiB and
 *    the linker adds a veneer beyond; a conditional branch could not
 *    leave the function's section safely, so every conditional branch
 *    here goes to a C label of the same function, through asm goto);
 *  - the descriptor (struct rseq_cs: version 0, flags 0, start_ip,
 *    post_commit_offset, abort_ip) is 32-byte aligned in its own section
 *    __rseq_cs, its address also in __rseq_cs_ptr_array;
 *  - arming: its address, formed PC-relative (adrp + add :lo12:), is
 *    stored into the area's rseq_cs field (offset 8) before start_ip
 *    (label 1); everything from label 1 to the commit is restarted from
 *    the abort handler if the kernel preempts, migrates or signals the
 *    thread in between;
 *  - the index: the add reads it inside the section (so no re-check is
 *    needed: a change comes with the preemption that aborts), the
 *    compare-and-store and pop compare the index read before against the
 *    area's current one inside the section and leave when it differs;
 *  - the commit is one store, the last instruction of the section, its
 *    end post_commit_ip (label 2).  arm64 has no non-locked memory add,
 *    so the add is load, add, store with the store committing; the
 *    compare-and-store commits with a store-release (stlr), so data
 *    written before it is visible to whoever sees the new value, as x86's
 *    ordered stores give there; pop's commit is a plain store;
 *  - the operations of issue 37 (listed in cidkit/arch/x86_64.h) commit
 *    with str, or stlr when the constant @rel asks for release; their
 *    compares branch to C labels (b.ne/b.eq to differs, moved), the
 *    memcpy loop copies 8 bytes with ldr/str (unaligned accesses are
 *    allowed on normal memory), then bytes.
 * Registers x13-x15 are the sections' scratch (clobbered); the thread
 * pointer is tpidr_el0 (__builtin_thread_pointer()).
 */
#ifndef CIDKIT_ARCH_AARCH64_H
#define CIDKIT_ARCH_AARCH64_H

#if defined(__aarch64__) && defined(__GNUC__) && !defined(__AARCH64EB__)

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#define CIDK_PERCPU_HAVE_RSEQ 1

#include <cidkit/arch/common.h>

/*
 * The signature before every abort handler, the one literal of it (glibc
 * registers the same): "brk #0x45e0", emitted with .inst so that it is an
 * instruction word in code byte order, as the kernel reads it.
 */
#define CIDK__ARCH_RSEQ_SIG 0xd428bc00
#define CIDK_PERCPU_RSEQ_SIG ((uint32_t)CIDK__ARCH_RSEQ_SIG)
#define CIDK__ARCH_SIG_ASM(sig)                                               \
	".balign 4\n\t"                                                       \
	".inst " sig "\n"

/* The spin-wait hint (cidk__cpu_relax, cidkit/arch/select.h). */
#define CIDK__ARCH_RELAX_ASM "yield"

#ifndef CIDK__PERCPU_INLINE
#define CIDK__PERCPU_INLINE static inline __attribute__((always_inline))
#endif

/*
 * The descriptor's address (label 3, adrp + add :lo12:, in x15) stored
 * into the rseq_cs field at the memory operand @cs_mem (CIDK__RSEQ_ARM,
 * common.h).
 */
#define CIDK__ARCH_STORE_CS(cs_mem)                                           \
	"adrp x15, 3b\n\t"                                                    \
	"add x15, x15, :lo12:3b\n\t"                                          \
	"str x15, " cs_mem "\n"

/*
 * post_commit_ip (label 2), then the signature and the abort handler
 * (label 4) in __rseq_failure, which branches to the C label @aborted.
 */
#define CIDK__PERCPU_A64_END                                                  \
	"2:\n\t"                                                              \
	CIDK__RSEQ_FAILURE(CIDK__RSEQ_SIG_TEXT)                               \
	"b %l[aborted]\n\t"                                                   \
	".popsection\n\t"

/*
 * The add: the index (a 32-bit load through @ix_op) read inside the
 * section, bounds-checked against @n, times the stride plus the base is
 * the copy; load, add, store (the commit).
 */
#define CIDK__PERCPU_A64_ADD(cs_op, ix_op)                                    \
	CIDK__RSEQ_START(cs_op)                               \
	"ldr w14, " ix_op "\n\t"                                              \
	"cmp w14, %w[n]\n\t"                                                  \
	"b.hs %l[range]\n\t"                                                  \
	"madd x14, x14, %[stride], %[base]\n\t"                               \
	"ldr x13, [x14]\n\t"                                                  \
	"add x13, x13, %[d]\n\t"                                              \
	"str x13, [x14]\n\t"                                                  \
	CIDK__PERCPU_A64_END

/* The add's statement, for the index at offset @off of the area @a. */
#define CIDK__PERCPU_A64_ADD_ASM(off)                                         \
	__asm__ goto(CIDK__PERCPU_A64_ADD("[%[a], #8]", "[%[a], #" off "]")   \
		     : : [a] "r"(a), [n] "r"(n), [stride] "r"(stride),        \
		       [base] "r"(base), [d] "r"(delta)                       \
		     : "x13", "x14", "x15", "cc", "memory" : aborted, range)

/* Returns 0 (added), -1 (aborted: retry) or -ERANGE (index >= @n). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_add(char *base, size_t stride,
					    unsigned int n, intptr_t delta,
					    ptrdiff_t rs, int mm_cid)
{
	char *a = (char *)__builtin_thread_pointer() + rs;

	if (mm_cid)
		CIDK__PERCPU_A64_ADD_ASM("24");
	else
		CIDK__PERCPU_A64_ADD_ASM("4");
	return 0;
aborted:
	return -1;
range:
	return -ERANGE;
}

/*
 * The same add with the fields' offsets from the thread pointer in
 * registers (@cs: rseq_cs, @ix: the index), as a cidk_percpu_counter
 * keeps them (register-offset addressing: one statement for both
 * indexings).
 */
CIDK__PERCPU_INLINE int cidk__percpu_cs_add_at(unsigned char *base,
					       size_t stride, unsigned int n,
					       intptr_t delta, ptrdiff_t cs,
					       ptrdiff_t ix)
{
	__asm__ goto(CIDK__PERCPU_A64_ADD("[%[tp], %[cs]]", "[%[tp], %[ix]]")
		     : : [tp] "r"(__builtin_thread_pointer()), [cs] "r"(cs),
		       [ix] "r"(ix), [n] "r"(n), [stride] "r"(stride),
		       [base] "r"(base), [d] "r"(delta)
		     : "x13", "x14", "x15", "cc", "memory" : aborted, range);
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
#define CIDK__PERCPU_A64_BEGIN(off)                                           \
	CIDK__RSEQ_START("[%[a], #8]")                           \
	"ldr w14, [%[a], #" off "]\n\t"                                       \
	"cmp w14, %w[i]\n\t"                                                  \
	"b.ne %l[moved]\n\t"

#define CIDK__PERCPU_A64_CMPEQV_ASM(off)                                      \
	__asm__ goto(CIDK__PERCPU_A64_BEGIN(off)                              \
		     "ldr x14, [%[v]]\n\t"                                    \
		     "cmp x14, %[e]\n\t"                                      \
		     "b.ne %l[differs]\n\t"                                   \
		     "stlr %[nv], [%[v]]\n\t"                                 \
		     CIDK__PERCPU_A64_END                                     \
		     : : [a] "r"(a), [i] "r"(i), [v] "r"(v), [e] "r"(expect), \
		       [nv] "r"(newv)                                         \
		     : "x13", "x14", "x15", "cc", "memory"                    \
		     : aborted, moved, differs)

/*
 * if (*v == expect) *v = newv (the store-release commits).  Returns 0
 * (stored), 1 (*v differed), -1 (aborted) or -2 (the index is no longer
 * @i); a result other than 0 stored nothing.
 */
CIDK__PERCPU_INLINE int cidk__percpu_cs_cmpeqv_storev(intptr_t *v,
						      intptr_t expect,
						      intptr_t newv,
						      unsigned int i,
						      ptrdiff_t rs, int mm_cid)
{
	char *a = (char *)__builtin_thread_pointer() + rs;

	if (mm_cid)
		CIDK__PERCPU_A64_CMPEQV_ASM("24");
	else
		CIDK__PERCPU_A64_CMPEQV_ASM("4");
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
#define CIDK__PERCPU_A64_POP_ASM(off)                                         \
	__asm__ goto(CIDK__PERCPU_A64_BEGIN(off)                              \
		     "ldr x14, [%[v]]\n\t"                                    \
		     "cbz x14, %l[empty]\n\t"                                 \
		     "ldr x13, [x14]\n\t"                                     \
		     "str x13, [%[v]]\n\t"                                    \
		     CIDK__PERCPU_A64_END                                     \
		     "str x14, [%[out]]\n\t"                                  \
		     : : [a] "r"(a), [i] "r"(i), [v] "r"(v), [out] "r"(out)   \
		     : "x13", "x14", "x15", "cc", "memory"                    \
		     : aborted, moved, empty)

/* Returns 0 (popped into *@out), 1 (empty), -1 (aborted), -2 (moved). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_pop(intptr_t *v, intptr_t *out,
					    unsigned int i, ptrdiff_t rs,
					    int mm_cid)
{
	char *a = (char *)__builtin_thread_pointer() + rs;

	if (mm_cid)
		CIDK__PERCPU_A64_POP_ASM("24");
	else
		CIDK__PERCPU_A64_POP_ASM("4");
	return 0;
empty:
	return 1;
aborted:
	return -1;
moved:
	return -2;
}

/*
 * The operations of issue 37 (librseq's set), each: the head (arm, check
 * the index @i: CIDK__PERCPU_A64_BEGIN), a body, the tail
 * (CIDK__PERCPU_A64_END); one asm goto statement per operation,
 * instantiated for the two indexings by the offset string, leaving to
 * the C labels differs (1), aborted (-1), moved (-2).  The commit of the
 * forms with a release variant is @st: "stlr" (release) or "str"
 * (relaxed), chosen by the constant @rel.  Scratch: x13-x15.
 */
#define CIDK__PERCPU_A64_CMP                                                  \
	"ldr x14, [%[v]]\n\t"                                                 \
	"cmp x14, %[e]\n\t"                                                   \
	"b.ne %l[differs]\n\t"

#define CIDK__PERCPU_A64_STMT(off, body, ...)                                 \
	__asm__ goto(CIDK__PERCPU_A64_BEGIN(off) body CIDK__PERCPU_A64_END    \
		     : : [a] "r"(a), [i] "r"(i), __VA_ARGS__                  \
		     : "x13", "x14", "x15", "cc", "memory"                    \
		     : aborted, moved, differs)

#define CIDK__PERCPU_A64_BOTH(body, ...)                                      \
	do {                                                                  \
		if (mm_cid)                                                   \
			CIDK__PERCPU_A64_STMT("24", body, __VA_ARGS__);       \
		else                                                          \
			CIDK__PERCPU_A64_STMT("4", body, __VA_ARGS__);        \
	} while (0)

/* Relaxed or release commit of one statement (a constant after inlining). */
#define CIDK__PERCPU_A64_REL(body_rel, body_plain, ...)                       \
	do {                                                                  \
		if (rel)                                                      \
			CIDK__PERCPU_A64_BOTH(body_rel, __VA_ARGS__);         \
		else                                                          \
			CIDK__PERCPU_A64_BOTH(body_plain, __VA_ARGS__);       \
	} while (0)

#define CIDK__PERCPU_A64_RESULTS                                              \
	return 0;                                                             \
differs:                                                                      \
	return 1;                                                             \
aborted:                                                                      \
	return -1;                                                            \
moved:                                                                        \
	return -2

#define CIDK__PERCPU_A64_AREA char *a = (char *)__builtin_thread_pointer() + rs

/* *v += delta: load, add, store (the commit). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_add_on(intptr_t *v, intptr_t delta,
					       unsigned int i, ptrdiff_t rs,
					       int mm_cid)
{
	CIDK__PERCPU_A64_AREA;

	CIDK__PERCPU_A64_BOTH("ldr x13, [%[v]]\n\t"
			      "add x13, x13, %[d]\n\t"
			      "str x13, [%[v]]\n\t",
			      [v] "r"(v), [d] "r"(delta));
	CIDK__PERCPU_A64_RESULTS;
}

/* if (*v != expect) fail; *v = newv (str, or stlr when @rel). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_cbne_store(intptr_t *v,
						   intptr_t expect,
						   intptr_t newv, int rel,
						   unsigned int i,
						   ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_A64_AREA;

	CIDK__PERCPU_A64_REL(CIDK__PERCPU_A64_CMP "stlr %[n], [%[v]]\n\t",
			     CIDK__PERCPU_A64_CMP "str %[n], [%[v]]\n\t",
			     [v] "r"(v), [e] "r"(expect), [n] "r"(newv));
	CIDK__PERCPU_A64_RESULTS;
}

/* if (*v != expect || *v2 != expect2) fail; *v = newv. */
CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_cbne_store(intptr_t *v, intptr_t expect, intptr_t *v2,
				intptr_t expect2, intptr_t newv,
				unsigned int i, ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_A64_AREA;

	CIDK__PERCPU_A64_BOTH(CIDK__PERCPU_A64_CMP
			      "ldr x13, [%[v2]]\n\t"
			      "cmp x13, %[e2]\n\t"
			      "b.ne %l[differs]\n\t"
			      "str %[n], [%[v]]\n\t",
			      [v] "r"(v), [e] "r"(expect), [v2] "r"(v2),
			      [e2] "r"(expect2), [n] "r"(newv));
	CIDK__PERCPU_A64_RESULTS;
}

/* if (*v != expect) fail; *v2 = newv2 (an attempt); *v = newv. */
CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_store_store(intptr_t *v, intptr_t expect, intptr_t *v2,
				 intptr_t newv2, intptr_t newv, int rel,
				 unsigned int i, ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_A64_AREA;

	CIDK__PERCPU_A64_REL(CIDK__PERCPU_A64_CMP
			     "str %[n2], [%[v2]]\n\t"
			     "stlr %[n], [%[v]]\n\t",
			     CIDK__PERCPU_A64_CMP
			     "str %[n2], [%[v2]]\n\t"
			     "str %[n], [%[v]]\n\t",
			     [v] "r"(v), [e] "r"(expect), [v2] "r"(v2),
			     [n2] "r"(newv2), [n] "r"(newv));
	CIDK__PERCPU_A64_RESULTS;
}

/*
 * The copy of @len bytes @src -> @dst: 8 bytes at a time, then the rest
 * byte by byte (x13 the count, x14 the data).
 */
#define CIDK__PERCPU_A64_COPY                                                 \
	"mov x13, #0\n"                                                       \
	"9:\n\t"                                                              \
	"add x14, x13, #8\n\t"                                                \
	"cmp x14, %[len]\n\t"                                                 \
	"b.hi 11f\n\t"                                                        \
	"ldr x14, [%[src], x13]\n\t"                                          \
	"str x14, [%[dst], x13]\n\t"                                          \
	"add x13, x13, #8\n\t"                                                \
	"b 9b\n"                                                              \
	"11:\n\t"                                                             \
	"cmp x13, %[len]\n\t"                                                 \
	"b.hs 10f\n\t"                                                        \
	"ldrb w14, [%[src], x13]\n\t"                                         \
	"strb w14, [%[dst], x13]\n\t"                                         \
	"add x13, x13, #1\n\t"                                                \
	"b 11b\n"                                                             \
	"10:\n\t"

/* if (*v != expect) fail; copy (an attempt); *v = newv. */
CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_memcpy_store(intptr_t *v, intptr_t expect, void *dst,
				  const void *src, size_t len, intptr_t newv,
				  int rel, unsigned int i, ptrdiff_t rs,
				  int mm_cid)
{
	CIDK__PERCPU_A64_AREA;

	CIDK__PERCPU_A64_REL(CIDK__PERCPU_A64_CMP CIDK__PERCPU_A64_COPY
			     "stlr %[n], [%[v]]\n\t",
			     CIDK__PERCPU_A64_CMP CIDK__PERCPU_A64_COPY
			     "str %[n], [%[v]]\n\t",
			     [v] "r"(v), [e] "r"(expect), [dst] "r"(dst),
			     [src] "r"(src), [len] "r"(len), [n] "r"(newv));
	CIDK__PERCPU_A64_RESULTS;
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
	CIDK__PERCPU_A64_AREA;

	CIDK__PERCPU_A64_BOTH("ldr x14, [%[v]]\n\t"
			      "cmp x14, %[e]\n\t"
			      "b.eq %l[differs]\n\t"
			      "str x14, [%[out]]\n\t"
			      "ldr x13, [x14, %[off]]\n\t"
			      "str x13, [%[v]]\n\t",
			      [v] "r"(v), [e] "r"(expectnot), [off] "r"(off),
			      [out] "r"(out));
	CIDK__PERCPU_A64_RESULTS;
}

/* **(intptr_t **)(*v + off) += inc: three loads, an add, the store. */
CIDK__PERCPU_INLINE int cidk__percpu_cs_deref_add(intptr_t *v, ptrdiff_t off,
						  intptr_t inc, unsigned int i,
						  ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_A64_AREA;

	CIDK__PERCPU_A64_BOTH("ldr x14, [%[v]]\n\t"
			      "ldr x14, [x14, %[off]]\n\t"
			      "ldr x13, [x14]\n\t"
			      "add x13, x13, %[d]\n\t"
			      "str x13, [x14]\n\t",
			      [v] "r"(v), [off] "r"(off), [d] "r"(inc));
	CIDK__PERCPU_A64_RESULTS;
}

#endif /* __aarch64__ && __GNUC__ && !__AARCH64EB__ */

#endif /* CIDKIT_ARCH_AARCH64_H */
