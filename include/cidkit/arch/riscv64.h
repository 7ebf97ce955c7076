/* SPDX-License-Identifier: MIT */
/*
 * cidkit/arch/riscv64.h - the RISC-V 64-bit rseq critical sections behind
 * cidkit/percpu.h (little-endian rv64, GCC or Clang).  Internal: include
 * <cidkit/percpu.h>, which includes this header there; alone it compiles
 * to nothing elsewhere.  It provides every section cidkit/arch/x86_64.h
 * lists (the first four and the operations of issue 37), with the same
 * results.
 *
 * The RISC-V rules of the rseq ABI, as this file keeps them (public
 * sources: the kernel's tools/testing/selftests/rseq/rseq-riscv.h, added
 * with "rseq/selftests: Add support for RISC-V", Linux 5.17; librseq's
 * include/rseq/arch/riscv.h; glibc's sysdeps/unix/sysv/linux/riscv/bits/rseq.h):
 *  - the signature: 0xf1401073, "csrw mhartid, x0" (an instruction that
 *    traps in every mode: RISC-V's ebreak has no immediate to tell it
 *    apart), emitted as a 4-byte-aligned word right before each abort
 *    handler, which lives in section __rseq_failure and leaves with
 *    "jump label, t6" (auipc + jalr: +-2 GiB, so that a large static
 *    binary cannot put the handler out of a jal's +-1 MiB);
 *  - the descriptor (struct rseq_cs: version 0, flags 0, start_ip,
 *    post_commit_offset, abort_ip) is 32-byte aligned in section
 *    __rseq_cs, its address also in __rseq_cs_ptr_array; its address is
 *    formed PC-relative (lla: auipc + addi, no GOT) and stored with one
 *    64-bit sd into the area's rseq_cs field before start_ip (label 1);
 *  - the thread pointer is register tp (__builtin_thread_pointer());
 *  - the index: the add reads it inside the section with lwu (zero-
 *    extended, compared unsigned with @n); the compare-and-store and pop
 *    re-check the index read before with lw against @i passed sign-
 *    extended, as the RV64 ABI keeps 32-bit values in registers;
 *  - the commit is one store, the last instruction of the section; RISC-V
 *    has no memory add, so the add is ld, add, sd (the commit); the
 *    compare-and-store's store, and the commit of the issue-37 release
 *    forms, is preceded by "fence rw, w" (a release, as librseq's
 *    release forms and x86's ordered stores give); the other commits are
 *    plain.
 * Registers t4-t6 are the sections' scratch (clobbered).  The linker may
 * relax code around the sections; the descriptor's "2f - 1f" is then a
 * pair of ADD64/SUB64 relocations, which it keeps right.
 */
#ifndef CIDKIT_ARCH_RISCV64_H
#define CIDKIT_ARCH_RISCV64_H

#if defined(__riscv) && __riscv_xlen == 64 && defined(__GNUC__)

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#define CIDK_PERCPU_HAVE_RSEQ 1

#include <cidkit/arch/common.h>

/*
 * The signature before every abort handler, the one literal of it:
 * "csrw mhartid, x0" (a trap in every mode), a 4-byte word.
 */
#define CIDK__ARCH_RSEQ_SIG 0xf1401073
#define CIDK_PERCPU_RSEQ_SIG ((uint32_t)CIDK__ARCH_RSEQ_SIG)
#define CIDK__ARCH_SIG_ASM(sig)                                               \
	".balign 4\n\t"                                                       \
	".long " sig "\n"

/*
 * The spin-wait hint (cidk__cpu_relax, cidkit/arch/select.h): Zihintpause's
 * pause, encoded so that any assembler takes it (fence w,0: a no-op hint
 * on a core without the extension).
 */
#define CIDK__ARCH_RELAX_ASM ".4byte 0x0100000f"

#ifndef CIDK__PERCPU_INLINE
#define CIDK__PERCPU_INLINE static inline __attribute__((always_inline))
#endif

/*
 * The descriptor's address (label 3, lla, in t6) stored into the rseq_cs
 * field at the memory operand @cs_mem (CIDK__RSEQ_ARM, common.h).
 */
#define CIDK__ARCH_STORE_CS(cs_mem)                                           \
	"lla t6, 3b\n\t"                                                      \
	"sd t6, " cs_mem "\n"

/*
 * post_commit_ip (label 2), then the signature and the abort handler
 * (label 4) in __rseq_failure, which jumps to the C label @aborted.
 */
#define CIDK__PERCPU_RV_END                                                   \
	"2:\n\t"                                                              \
	CIDK__RSEQ_FAILURE(CIDK__RSEQ_SIG_TEXT)                               \
	"jump %l[aborted], t6\n\t"                                            \
	".popsection\n\t"

/*
 * The add: the index (lwu through @ix_op) read inside the section,
 * bounds-checked against @n, times the stride plus the base is the copy;
 * load, add, store (the commit).
 */
#define CIDK__PERCPU_RV_ADD(cs_op, ix_op)                                     \
	CIDK__RSEQ_START(cs_op)                                            \
	"lwu t5, " ix_op "\n\t"                                               \
	"bgeu t5, %[n], %l[range]\n\t"                                        \
	"mul t5, t5, %[stride]\n\t"                                           \
	"add t5, t5, %[base]\n\t"                                             \
	"ld t4, 0(t5)\n\t"                                                    \
	"add t4, t4, %[d]\n\t"                                                \
	"sd t4, 0(t5)\n\t"                                                    \
	CIDK__PERCPU_RV_END

/* The add's statement, for the index at offset @off of the area @a. */
#define CIDK__PERCPU_RV_ADD_ASM(off)                                          \
	__asm__ goto(CIDK__PERCPU_RV_ADD("8(%[a])", off "(%[a])")              \
		     : : [a] "r"(a), [n] "r"((uintptr_t)n),                   \
		       [stride] "r"(stride), [base] "r"(base), [d] "r"(delta) \
		     : "t4", "t5", "t6", "memory" : aborted, range)

/* Returns 0 (added), -1 (aborted: retry) or -ERANGE (index >= @n). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_add(char *base, size_t stride,
					    unsigned int n, intptr_t delta,
					    ptrdiff_t rs, int mm_cid)
{
	char *a = (char *)__builtin_thread_pointer() + rs;

	if (mm_cid)
		CIDK__PERCPU_RV_ADD_ASM("24");
	else
		CIDK__PERCPU_RV_ADD_ASM("4");
	return 0;
aborted:
	return -1;
range:
	return -ERANGE;
}

/*
 * The same add with the fields' offsets from the thread pointer (@cs:
 * rseq_cs, @ix: the index), as a cidk_percpu_counter keeps them: the two
 * addresses are formed before the section, one statement serves both
 * indexings.
 */
CIDK__PERCPU_INLINE int cidk__percpu_cs_add_at(unsigned char *base,
					       size_t stride, unsigned int n,
					       intptr_t delta, ptrdiff_t cs,
					       ptrdiff_t ix)
{
	char *tp = (char *)__builtin_thread_pointer();

	__asm__ goto(CIDK__PERCPU_RV_ADD("0(%[csp])", "0(%[ixp])")
		     : : [csp] "r"(tp + cs), [ixp] "r"(tp + ix),
		       [n] "r"((uintptr_t)n), [stride] "r"(stride),
		       [base] "r"(base), [d] "r"(delta)
		     : "t4", "t5", "t6", "memory" : aborted, range);
	return 0;
aborted:
	return -1;
range:
	return -ERANGE;
}

/*
 * Arm, then compare the index at offset @off of the area @a with @i (the
 * one the caller read before, sign-extended as lw loads) and leave to
 * @moved when it changed.
 */
#define CIDK__PERCPU_RV_BEGIN(off)                                            \
	CIDK__RSEQ_START("8(%[a])")                                        \
	"lw t5, " off "(%[a])\n\t"                                            \
	"bne t5, %[i], %l[moved]\n\t"

#define CIDK__PERCPU_RV_CMPEQV_ASM(off)                                       \
	__asm__ goto(CIDK__PERCPU_RV_BEGIN(off)                               \
		     "ld t5, 0(%[v])\n\t"                                     \
		     "bne t5, %[e], %l[differs]\n\t"                          \
		     "fence rw, w\n\t"                                        \
		     "sd %[nv], 0(%[v])\n\t"                                  \
		     CIDK__PERCPU_RV_END                                      \
		     : : [a] "r"(a), [i] "r"((intptr_t)(int32_t)i), [v] "r"(v), \
		       [e] "r"(expect), [nv] "r"(newv)                        \
		     : "t4", "t5", "t6", "memory" : aborted, moved, differs)

/*
 * if (*v == expect) *v = newv (the store, after a release fence,
 * commits).  Returns 0 (stored), 1 (*v differed), -1 (aborted) or -2 (the
 * index is no longer @i); a result other than 0 stored nothing.
 */
CIDK__PERCPU_INLINE int cidk__percpu_cs_cmpeqv_storev(intptr_t *v,
						      intptr_t expect,
						      intptr_t newv,
						      unsigned int i,
						      ptrdiff_t rs, int mm_cid)
{
	char *a = (char *)__builtin_thread_pointer() + rs;

	if (mm_cid)
		CIDK__PERCPU_RV_CMPEQV_ASM("24");
	else
		CIDK__PERCPU_RV_CMPEQV_ASM("4");
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
#define CIDK__PERCPU_RV_POP_ASM(off)                                          \
	__asm__ goto(CIDK__PERCPU_RV_BEGIN(off)                               \
		     "ld t5, 0(%[v])\n\t"                                     \
		     "beqz t5, %l[empty]\n\t"                                 \
		     "ld t4, 0(t5)\n\t"                                       \
		     "sd t4, 0(%[v])\n\t"                                     \
		     CIDK__PERCPU_RV_END                                      \
		     "sd t5, 0(%[out])\n\t"                                   \
		     : : [a] "r"(a), [i] "r"((intptr_t)(int32_t)i), [v] "r"(v), \
		       [out] "r"(out)                                         \
		     : "t4", "t5", "t6", "memory" : aborted, moved, empty)

/* Returns 0 (popped into *@out), 1 (empty), -1 (aborted), -2 (moved). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_pop(intptr_t *v, intptr_t *out,
					    unsigned int i, ptrdiff_t rs,
					    int mm_cid)
{
	char *a = (char *)__builtin_thread_pointer() + rs;

	if (mm_cid)
		CIDK__PERCPU_RV_POP_ASM("24");
	else
		CIDK__PERCPU_RV_POP_ASM("4");
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
 * first (CIDK__PERCPU_RV_BEGIN) and leaves through asm goto: 0
 * committed, 1 a comparison failed (nothing stored), -1 aborted, -2 the
 * index is no longer @i.  One statement per operation, instantiated for
 * the two indexings (the offset string); the commit is the last store,
 * preceded by "fence rw, w" in the release forms (@rel, a constant after
 * inlining, picks the statement).  Scratch: t4, t5 (t6 only between
 * start_ip's arming and the commit, where nothing else holds it).
 */
#define CIDK__PERCPU_RV_CMP                                                   \
	"ld t5, 0(%[v])\n\t"                                                  \
	"bne t5, %[e], %l[differs]\n\t"

#define CIDK__PERCPU_RV_STMT(off, body, ...)                                  \
	__asm__ goto(CIDK__PERCPU_RV_BEGIN(off) body CIDK__PERCPU_RV_END      \
		     : : [a] "r"(a), [i] "r"((intptr_t)(int32_t)i),           \
		       __VA_ARGS__                                            \
		     : "t4", "t5", "t6", "memory" : aborted, moved, differs)

#define CIDK__PERCPU_RV_BOTH(body, ...)                                       \
	do {                                                                  \
		if (mm_cid)                                                   \
			CIDK__PERCPU_RV_STMT("24", body, __VA_ARGS__);        \
		else                                                          \
			CIDK__PERCPU_RV_STMT("4", body, __VA_ARGS__);         \
	} while (0)

/* Release (a fence before the commit) or relaxed form of one body. */
#define CIDK__PERCPU_RV_REL(body_rel, body_plain, ...)                        \
	do {                                                                  \
		if (rel)                                                      \
			CIDK__PERCPU_RV_BOTH(body_rel, __VA_ARGS__);          \
		else                                                          \
			CIDK__PERCPU_RV_BOTH(body_plain, __VA_ARGS__);        \
	} while (0)

#define CIDK__PERCPU_RV_RESULTS                                               \
	return 0;                                                             \
differs:                                                                      \
	return 1;                                                             \
aborted:                                                                      \
	return -1;                                                            \
moved:                                                                        \
	return -2

#define CIDK__PERCPU_RV_AREA char *a = (char *)__builtin_thread_pointer() + rs

/* *v += delta: load, add, store (the commit). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_add_on(intptr_t *v, intptr_t delta,
					       unsigned int i, ptrdiff_t rs,
					       int mm_cid)
{
	CIDK__PERCPU_RV_AREA;

	CIDK__PERCPU_RV_BOTH("ld t4, 0(%[v])\n\t"
			     "add t4, t4, %[d]\n\t"
			     "sd t4, 0(%[v])\n\t",
			     [v] "r"(v), [d] "r"(delta));
	CIDK__PERCPU_RV_RESULTS;
}

/* if (*v != expect) fail; *v = newv (after "fence rw, w" when @rel). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_cbne_store(intptr_t *v,
						   intptr_t expect,
						   intptr_t newv, int rel,
						   unsigned int i,
						   ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_RV_AREA;

	CIDK__PERCPU_RV_REL(CIDK__PERCPU_RV_CMP
			    "fence rw, w\n\t"
			    "sd %[n], 0(%[v])\n\t",
			    CIDK__PERCPU_RV_CMP
			    "sd %[n], 0(%[v])\n\t",
			    [v] "r"(v), [e] "r"(expect), [n] "r"(newv));
	CIDK__PERCPU_RV_RESULTS;
}

/* if (*v != expect || *v2 != expect2) fail; *v = newv. */
CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_cbne_store(intptr_t *v, intptr_t expect, intptr_t *v2,
				intptr_t expect2, intptr_t newv,
				unsigned int i, ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_RV_AREA;

	CIDK__PERCPU_RV_BOTH(CIDK__PERCPU_RV_CMP
			     "ld t4, 0(%[v2])\n\t"
			     "bne t4, %[e2], %l[differs]\n\t"
			     "sd %[n], 0(%[v])\n\t",
			     [v] "r"(v), [e] "r"(expect), [v2] "r"(v2),
			     [e2] "r"(expect2), [n] "r"(newv));
	CIDK__PERCPU_RV_RESULTS;
}

/* if (*v != expect) fail; *v2 = newv2 (an attempt); *v = newv. */
CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_store_store(intptr_t *v, intptr_t expect, intptr_t *v2,
				 intptr_t newv2, intptr_t newv, int rel,
				 unsigned int i, ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_RV_AREA;

	CIDK__PERCPU_RV_REL(CIDK__PERCPU_RV_CMP
			    "sd %[n2], 0(%[v2])\n\t"
			    "fence rw, w\n\t"
			    "sd %[n], 0(%[v])\n\t",
			    CIDK__PERCPU_RV_CMP
			    "sd %[n2], 0(%[v2])\n\t"
			    "sd %[n], 0(%[v])\n\t",
			    [v] "r"(v), [e] "r"(expect), [v2] "r"(v2),
			    [n2] "r"(newv2), [n] "r"(newv));
	CIDK__PERCPU_RV_RESULTS;
}

/*
 * The copy of @len bytes @src -> @dst: 8 bytes at a time, then the rest
 * byte by byte (t4 the count, t5 the data, t6 the address).
 */
#define CIDK__PERCPU_RV_COPY                                                  \
	"li t4, 0\n"                                                          \
	"9:\n\t"                                                              \
	"addi t5, t4, 8\n\t"                                                  \
	"bgtu t5, %[len], 11f\n\t"                                            \
	"add t6, %[src], t4\n\t"                                              \
	"ld t5, 0(t6)\n\t"                                                    \
	"add t6, %[dst], t4\n\t"                                              \
	"sd t5, 0(t6)\n\t"                                                    \
	"addi t4, t4, 8\n\t"                                                  \
	"j 9b\n"                                                              \
	"11:\n\t"                                                             \
	"bgeu t4, %[len], 10f\n\t"                                            \
	"add t6, %[src], t4\n\t"                                              \
	"lbu t5, 0(t6)\n\t"                                                   \
	"add t6, %[dst], t4\n\t"                                              \
	"sb t5, 0(t6)\n\t"                                                    \
	"addi t4, t4, 1\n\t"                                                  \
	"j 11b\n"                                                             \
	"10:\n\t"

/* if (*v != expect) fail; copy (an attempt); *v = newv. */
CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_memcpy_store(intptr_t *v, intptr_t expect, void *dst,
				  const void *src, size_t len, intptr_t newv,
				  int rel, unsigned int i, ptrdiff_t rs,
				  int mm_cid)
{
	CIDK__PERCPU_RV_AREA;

	CIDK__PERCPU_RV_REL(CIDK__PERCPU_RV_CMP CIDK__PERCPU_RV_COPY
			    "fence rw, w\n\t"
			    "sd %[n], 0(%[v])\n\t",
			    CIDK__PERCPU_RV_CMP CIDK__PERCPU_RV_COPY
			    "sd %[n], 0(%[v])\n\t",
			    [v] "r"(v), [e] "r"(expect), [dst] "r"(dst),
			    [src] "r"(src), [len] "r"(len), [n] "r"(newv));
	CIDK__PERCPU_RV_RESULTS;
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
	CIDK__PERCPU_RV_AREA;

	CIDK__PERCPU_RV_BOTH("ld t5, 0(%[v])\n\t"
			     "beq t5, %[e], %l[differs]\n\t"
			     "sd t5, 0(%[out])\n\t"
			     "add t4, t5, %[off]\n\t"
			     "ld t4, 0(t4)\n\t"
			     "sd t4, 0(%[v])\n\t",
			     [v] "r"(v), [e] "r"(expectnot), [off] "r"(off),
			     [out] "r"(out));
	CIDK__PERCPU_RV_RESULTS;
}

/* **(intptr_t **)(*v + off) += inc: three loads, an add, the store. */
CIDK__PERCPU_INLINE int cidk__percpu_cs_deref_add(intptr_t *v, ptrdiff_t off,
						  intptr_t inc, unsigned int i,
						  ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_RV_AREA;

	CIDK__PERCPU_RV_BOTH("ld t5, 0(%[v])\n\t"
			     "add t5, t5, %[off]\n\t"
			     "ld t5, 0(t5)\n\t"
			     "ld t4, 0(t5)\n\t"
			     "add t4, t4, %[d]\n\t"
			     "sd t4, 0(t5)\n\t",
			     [v] "r"(v), [off] "r"(off), [d] "r"(inc));
	CIDK__PERCPU_RV_RESULTS;
}

#endif /* __riscv && __riscv_xlen == 64 && __GNUC__ */

#endif /* CIDKIT_ARCH_RISCV64_H */
