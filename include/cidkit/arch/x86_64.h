/* SPDX-License-Identifier: MIT */
/*
 * cidkit/arch/x86_64.h - the x86-64 rseq critical sections behind
 * cidkit/percpu.h.  Internal: include <cidkit/percpu.h>, which includes
 * this header on x86-64 with GCC or Clang; alone it compiles to nothing
 * elsewhere.
 *
 * What an architecture header provides (the generic layer in percpu.h
 * calls nothing else):
 *   the pieces cidkit/arch/common.h builds every section from, each
 *   written once here: CIDK__ARCH_RSEQ_SIG (the signature's one literal),
 *   CIDK__ARCH_SIG_ASM(sig), CIDK__ARCH_STORE_CS(cs_mem) and
 *   CIDK__ARCH_RELAX_ASM (the spin-wait hint of cidk__cpu_relax());
 *   CIDK_PERCPU_HAVE_RSEQ 1, CIDK_PERCPU_RSEQ_SIG (the signature before
 *   every abort handler, as a uint32_t),
 *   cidk__percpu_cs_add(base, stride, n, delta, rs, mm_cid)
 *   cidk__percpu_cs_add_at(base, stride, n, delta, cs, ix)
 *   cidk__percpu_cs_cmpeqv_storev(v, expect, newv, i, rs, mm_cid)
 *   cidk__percpu_cs_pop(v, out, i, rs, mm_cid)
 * and the operations of issue 37 (librseq's set, include/rseq/pseudocode.h
 * there), each a section that first checks that the index is still @i:
 *   cidk__percpu_cs_add_on(v, delta, i, rs, mm_cid)
 *       *v += delta                      (librseq: load_add_store)
 *   cidk__percpu_cs_cbne_store(v, expect, newv, rel, i, rs, mm_cid)
 *       if (*v != expect) 1; *v = newv   (load_cbne_store)
 *   cidk__percpu_cs_cbne_cbne_store(v, expect, v2, expect2, newv, i, rs,
 *                                   mm_cid)
 *       if (*v != expect || *v2 != expect2) 1; *v = newv
 *                                        (load_cbne_load_cbne_store)
 *   cidk__percpu_cs_cbne_store_store(v, expect, v2, newv2, newv, rel, i,
 *                                    rs, mm_cid)
 *       if (*v != expect) 1; *v2 = newv2; *v = newv
 *                                        (load_cbne_store_store)
 *   cidk__percpu_cs_cbne_memcpy_store(v, expect, dst, src, len, newv, rel,
 *                                     i, rs, mm_cid)
 *       if (*v != expect) 1; copy len bytes src -> dst (any alignment,
 *       len may be 0); *v = newv         (load_cbne_memcpy_store)
 *   cidk__percpu_cs_cbeq_pop(v, expectnot, off, out, i, rs, mm_cid)
 *       h = *v; if (h == expectnot) 1; *out = h; *v = *(h + off)
 *                                        (load_cbeq_store_add_load_store)
 *   cidk__percpu_cs_deref_add(v, off, inc, i, rs, mm_cid)
 *       **(intptr_t **)(*v + off) += inc (load_add_load_load_add_store)
 * each returning 0 (committed), 1 (a comparison failed; nothing stored),
 * -1 (aborted: the caller counts it and retries) or -2 (the index is not
 * @i; nothing stored).  @rel (a constant after inlining) asks that the
 * commit be a store-release: every store before it, the section's and
 * the caller's, visible to whoever sees @newv (on x86-64 every store is,
 * so it is ignored here).  The last store of each body is the commit, at
 * post_commit_ip; the earlier stores ("attempts") may be redone after an
 * abort.  A port writes three pieces once (the head that arms and checks
 * the index, the compare of *v, the tail with the abort handler) and one
 * body per operation, instantiated for the two index offsets.
 * @rs is the rseq area's
 * offset from the thread pointer (cidk_percpu_rseq_off), @mm_cid selects
 * the index field (mm_cid at 24, else cpu_id at 4), @cs and @ix are the
 * rseq_cs field's and the index's offsets from the thread pointer.
 *
 * x86-64: the thread pointer is %fs's base, so each field is one
 * %fs-relative operand.  The signature is the 4-byte immediate of
 * "ud1 0x53053053(%rip), %edi" (the one glibc registers with), whose
 * last four bytes are the value.
 *
 * Layout of each section: the descriptor (32-byte aligned, in section
 * __rseq_cs, its address also in __rseq_cs_ptr_array for debuggers), the
 * store of its address into rseq_cs, start_ip (label 1), the index check,
 * the body, the commit instruction ending at post_commit_ip (label 2).
 * The abort handler lives in section __rseq_failure after the signature,
 * so the fast path falls through without a taken branch.  The kernel
 * clears rseq_cs lazily; nothing is stored after the commit.
 *
 * GNU inline assembly (__asm__, asm goto): GCC or Clang only.
 */
#ifndef CIDKIT_ARCH_X86_64_H
#define CIDKIT_ARCH_X86_64_H

#if defined(__x86_64__) && defined(__GNUC__)

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#define CIDK_PERCPU_HAVE_RSEQ 1

#include <cidkit/arch/common.h>

/*
 * The signature before every abort handler, the one literal of it (glibc
 * registers the same): the 4-byte displacement of "ud1 <sig>(%rip), %edi"
 * (0f b9 3d), so that a disassembler sees one trapping instruction.
 */
#define CIDK__ARCH_RSEQ_SIG 0x53053053
#define CIDK_PERCPU_RSEQ_SIG ((uint32_t)CIDK__ARCH_RSEQ_SIG)
#define CIDK__ARCH_SIG_ASM(sig)                                               \
	".byte 0x0f, 0xb9, 0x3d\n\t"                                          \
	".long " sig "\n"

/* The spin-wait hint (cidk__cpu_relax, cidkit/arch/select.h). */
#define CIDK__ARCH_RELAX_ASM "pause"

/*
 * The compilers count each line of an asm statement as an instruction when
 * they decide what to inline, so the critical sections (a dozen directives
 * for three instructions) would become calls: force them inline.
 */
#ifndef CIDK__PERCPU_INLINE
#define CIDK__PERCPU_INLINE static inline __attribute__((always_inline))
#endif

/*
 * The descriptor's address (label 3, RIP-relative) stored into the
 * rseq_cs field at the memory operand @cs_mem (CIDK__RSEQ_ARM,
 * cidkit/arch/common.h).  Scratch: rax.
 */
#define CIDK__ARCH_STORE_CS(cs_mem)                                           \
	"leaq 3b(%%rip), %%rax\n\t"                                           \
	"movq %%rax, " cs_mem "\n"

/* The field at @op (an offset from %fs, as text) as a memory operand. */
#define CIDK__PERCPU_CS_ARM(op) CIDK__RSEQ_START("%%fs:" op)

/* The signature the kernel checks before the abort handler (label 4). */
#define CIDK__PERCPU_CS_ABORT CIDK__RSEQ_FAILURE(CIDK__RSEQ_SIG_TEXT)

#define CIDK__PERCPU_CS_BEGIN(off_op)                                         \
	CIDK__PERCPU_CS_ARM("8(%[rs])")                                       \
	"cmpl %[i], %%fs:" off_op "(%[rs])\n\t"                               \
	"jne 5f\n\t"

#define CIDK__PERCPU_CS_END                                                   \
	"2:\n\t"                                                              \
	CIDK__PERCPU_CS_ABORT                                                 \
	"movl $-1, %k[ret]\n\t"                                               \
	"jmp 6f\n"                                                            \
	"5:\n\t"                                                              \
	"movl $-2, %k[ret]\n\t"                                               \
	"jmp 6f\n\t"                                                          \
	".popsection\n"                                                       \
	"6:\n\t"

/*
 * The add, the hot path: the index is read inside the section (so it
 * needs no second check: a migration, or a change of mm_cid, comes with
 * the preemption that aborts the section), bounds-checked, scaled by the
 * stride and added with one non-locked instruction, the commit.  Leaves
 * through asm goto to @aborted (kernel abort) or @range (index >= @n), so
 * the fast path tests no status.  @base is the copy of CID 0.  (Reading
 * the index before the section and comparing it inside, as librseq does,
 * measured 1.3 ns against 1.0 ns here: two more instructions; see
 * docs/percpu.md.)
 */
#define CIDK__PERCPU_CS_ADD(cs_op, ix_op)                                     \
	CIDK__PERCPU_CS_ARM(cs_op)                                            \
	"movl %%fs:" ix_op ", %%eax\n\t"                                       \
	"cmpl %[n], %%eax\n\t"                                                \
	"jae %l[range]\n\t"                                                   \
	"imulq %[stride], %%rax\n\t"                                          \
	"addq %[d], (%[base], %%rax)\n"                                       \
	"2:\n\t"                                                              \
	CIDK__PERCPU_CS_ABORT                                                 \
	"jmp %l[aborted]\n\t"                                                 \
	".popsection\n\t"

/* The add's statement, for the index at offset @off_op of the area. */
#define CIDK__PERCPU_ADD_ASM(off_op)                                          \
	__asm__ goto(CIDK__PERCPU_CS_ADD("8(%[rs])", off_op "(%[rs])")        \
		     : : [rs] "r"(rs), [n] "r"(n),                            \
		       [stride] "r"(stride), [base] "r"(base), [d] "er"(delta) \
		     : "rax", "cc", "memory" : aborted, range)

/* Returns 0 (added), -1 (aborted: retry) or -ERANGE (index >= @n). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_add(char *base, size_t stride,
					    unsigned int n, intptr_t delta,
					    ptrdiff_t rs, int mm_cid)
{
	if (mm_cid)
		CIDK__PERCPU_ADD_ASM("24");
	else
		CIDK__PERCPU_ADD_ASM("4");
	return 0;
aborted:
	return -1;
range:
	return -ERANGE;
}

/*
 * The same add with the two fields' offsets from the thread pointer in
 * registers (@cs: rseq_cs, @ix: the index), as a cidk_percpu_counter keeps
 * them: one statement serves both indexings.
 */
CIDK__PERCPU_INLINE int cidk__percpu_cs_add_at(unsigned char *base,
					       size_t stride, unsigned int n,
					       intptr_t delta, ptrdiff_t cs,
					       ptrdiff_t ix)
{
	__asm__ goto(CIDK__PERCPU_CS_ADD("(%[cs])", "(%[ix])")
		     : : [cs] "r"(cs), [ix] "r"(ix), [n] "r"(n),
		       [stride] "r"(stride), [base] "r"(base), [d] "er"(delta)
		     : "rax", "cc", "memory" : aborted, range);
	return 0;
aborted:
	return -1;
range:
	return -ERANGE;
}

/*
 * The critical sections with an index chosen before (compare-and-store,
 * pop).  Each returns 0 (committed), 1 (comparison failed, nothing
 * stored), -1 (aborted by the kernel) or -2 (the index had changed before
 * the section started); a negative result stored nothing.  @i is the
 * index the caller read and computed @v from.
 *
 * The two operations' statements, for the index at offset @off_op of the
 * area (the two indexings differ only in that offset, a string in the
 * instruction, so each operation is written once and instantiated twice).
 */
#define CIDK__PERCPU_CMPEQV_ASM(off_op)                                       \
	__asm__ __volatile__(CIDK__PERCPU_CS_BEGIN(off_op)                    \
			     "cmpq %[v], %[e]\n\t"                            \
			     "jne 7f\n\t"                                      \
			     "movq %[n], %[v]\n\t"                             \
			     CIDK__PERCPU_CS_END                              \
			     "jmp 8f\n"                                        \
			     "7:\n\t"                                          \
			     "movl $1, %k[ret]\n"                              \
			     "8:\n\t"                                          \
			     : [ret] "+r"(ret), [v] "+m"(*v)                  \
			     : [rs] "r"(rs), [i] "r"(i),                      \
			       [e] "r"(expect), [n] "r"(newv)                 \
			     : "rax", "cc", "memory")

#define CIDK__PERCPU_POP_ASM(off_op)                                          \
	__asm__ __volatile__(CIDK__PERCPU_CS_BEGIN(off_op)                    \
			     "movq %[v], %[h]\n\t"                             \
			     "testq %[h], %[h]\n\t"                            \
			     "jz 7f\n\t"                                       \
			     "movq (%[h]), %%rax\n\t"                          \
			     "movq %%rax, %[v]\n\t"                            \
			     CIDK__PERCPU_CS_END                              \
			     "jmp 8f\n"                                        \
			     "7:\n\t"                                          \
			     "movl $1, %k[ret]\n"                              \
			     "8:\n\t"                                          \
			     : [ret] "+r"(ret), [v] "+m"(*v),                 \
			       [h] "=&r"(head)                                \
			     : [rs] "r"(rs), [i] "r"(i)                       \
			     : "rax", "cc", "memory")

/*
 * if (*v == expect) *v = newv (the store commits).  A plain store: x86
 * keeps stores in order, so data written before is visible to whoever
 * next sees @newv.
 */
CIDK__PERCPU_INLINE int cidk__percpu_cs_cmpeqv_storev(intptr_t *v,
						      intptr_t expect,
						      intptr_t newv,
						      unsigned int i,
						      ptrdiff_t rs, int mm_cid)
{
	int ret = 0;

	if (mm_cid)
		CIDK__PERCPU_CMPEQV_ASM("24");
	else
		CIDK__PERCPU_CMPEQV_ASM("4");
	return ret;
}

/*
 * Pop: head = *v; if (!head) fail; *v = head->next (the store commits);
 * *out = head.
 */
CIDK__PERCPU_INLINE int cidk__percpu_cs_pop(intptr_t *v, intptr_t *out,
					    unsigned int i, ptrdiff_t rs,
					    int mm_cid)
{
	int ret = 0;
	intptr_t head = 0;

	if (mm_cid)
		CIDK__PERCPU_POP_ASM("24");
	else
		CIDK__PERCPU_POP_ASM("4");
	*out = head;
	return ret;
}

/*
 * The operations of issue 37, librseq's set (include/rseq/pseudocode.h),
 * each a section that checks the index the caller chose (@i) first, as
 * the compare-and-store above does, and leaves through asm goto: 0
 * committed, 1 a comparison failed (nothing stored), -1 aborted by the
 * kernel, -2 the index is no longer @i (nothing stored).  Three pieces
 * written once: the head (arm, check the index: CIDK__PERCPU_X86_ON), the
 * compare of *v with @expect (CIDK__PERCPU_X86_CMP), the tail
 * (post_commit_ip, signature, abort handler: CIDK__PERCPU_X86_TAIL);
 * each operation is its body between them, one asm statement per
 * operation instantiated for the two indexings (the offset string).  On
 * x86 every store is a release (TSO), so the relaxed and release forms
 * are the same instructions (@rel is ignored).  Scratch: rax, rcx.
 */
#define CIDK__PERCPU_X86_ON(off_op)                                           \
	CIDK__PERCPU_CS_ARM("8(%[rs])")                                       \
	"cmpl %[i], %%fs:" off_op "(%[rs])\n\t"                               \
	"jne %l[moved]\n\t"

#define CIDK__PERCPU_X86_CMP                                                  \
	"cmpq %[e], (%[v])\n\t"                                               \
	"jne %l[differs]\n\t"

#define CIDK__PERCPU_X86_TAIL                                                 \
	"2:\n\t"                                                              \
	CIDK__PERCPU_CS_ABORT                                                 \
	"jmp %l[aborted]\n\t"                                                 \
	".popsection\n\t"

/* The statement: head, @body, tail; operands common to all plus @in. */
#define CIDK__PERCPU_X86_STMT(off_op, body, ...)                              \
	__asm__ goto(CIDK__PERCPU_X86_ON(off_op) body CIDK__PERCPU_X86_TAIL   \
		     : : [rs] "r"(rs), [i] "r"(i), __VA_ARGS__                \
		     : "rax", "rcx", "cc", "memory"                           \
		     : aborted, moved, differs)

/* Both indexings of one statement: the mm_cid field at 24, cpu_id at 4. */
#define CIDK__PERCPU_X86_BOTH(body, ...)                                      \
	do {                                                                  \
		if (mm_cid)                                                   \
			CIDK__PERCPU_X86_STMT("24", body, __VA_ARGS__);       \
		else                                                          \
			CIDK__PERCPU_X86_STMT("4", body, __VA_ARGS__);        \
	} while (0)

/* The labels every such function ends with. */
#define CIDK__PERCPU_X86_RESULTS                                              \
	return 0;                                                             \
differs:                                                                      \
	return 1;                                                             \
aborted:                                                                      \
	return -1;                                                            \
moved:                                                                        \
	return -2

/* *v += delta (one non-locked add, the commit). */
CIDK__PERCPU_INLINE int cidk__percpu_cs_add_on(intptr_t *v, intptr_t delta,
					       unsigned int i, ptrdiff_t rs,
					       int mm_cid)
{
	CIDK__PERCPU_X86_BOTH("addq %[d], (%[v])\n\t",
			      [v] "r"(v), [d] "er"(delta));
	CIDK__PERCPU_X86_RESULTS;
}

/* if (*v != expect) fail; *v = newv. */
CIDK__PERCPU_INLINE int cidk__percpu_cs_cbne_store(intptr_t *v,
						   intptr_t expect,
						   intptr_t newv, int rel,
						   unsigned int i,
						   ptrdiff_t rs, int mm_cid)
{
	(void)rel;
	CIDK__PERCPU_X86_BOTH(CIDK__PERCPU_X86_CMP "movq %[n], (%[v])\n\t",
			      [v] "r"(v), [e] "r"(expect), [n] "r"(newv));
	CIDK__PERCPU_X86_RESULTS;
}

/* if (*v != expect || *v2 != expect2) fail; *v = newv. */
CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_cbne_store(intptr_t *v, intptr_t expect, intptr_t *v2,
				intptr_t expect2, intptr_t newv,
				unsigned int i, ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_X86_BOTH(CIDK__PERCPU_X86_CMP
			      "cmpq %[e2], (%[v2])\n\t"
			      "jne %l[differs]\n\t"
			      "movq %[n], (%[v])\n\t",
			      [v] "r"(v), [e] "r"(expect), [v2] "r"(v2),
			      [e2] "r"(expect2), [n] "r"(newv));
	CIDK__PERCPU_X86_RESULTS;
}

/* if (*v != expect) fail; *v2 = newv2 (an attempt); *v = newv. */
CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_store_store(intptr_t *v, intptr_t expect, intptr_t *v2,
				 intptr_t newv2, intptr_t newv, int rel,
				 unsigned int i, ptrdiff_t rs, int mm_cid)
{
	(void)rel;
	CIDK__PERCPU_X86_BOTH(CIDK__PERCPU_X86_CMP
			      "movq %[n2], (%[v2])\n\t"
			      "movq %[n], (%[v])\n\t",
			      [v] "r"(v), [e] "r"(expect), [v2] "r"(v2),
			      [n2] "r"(newv2), [n] "r"(newv));
	CIDK__PERCPU_X86_RESULTS;
}

/*
 * if (*v != expect) fail; copy @len bytes @src -> @dst (an attempt: 8
 * bytes at a time, then the rest byte by byte); *v = newv.
 */
CIDK__PERCPU_INLINE int
cidk__percpu_cs_cbne_memcpy_store(intptr_t *v, intptr_t expect, void *dst,
				  const void *src, size_t len, intptr_t newv,
				  int rel, unsigned int i, ptrdiff_t rs,
				  int mm_cid)
{
	(void)rel;
	CIDK__PERCPU_X86_BOTH(CIDK__PERCPU_X86_CMP
			      "xorl %%ecx, %%ecx\n"
			      "9:\n\t"
			      "leaq 8(%%rcx), %%rax\n\t"
			      "cmpq %[len], %%rax\n\t"
			      "ja 11f\n\t"
			      "movq (%[src], %%rcx), %%rax\n\t"
			      "movq %%rax, (%[dst], %%rcx)\n\t"
			      "addq $8, %%rcx\n\t"
			      "jmp 9b\n"
			      "11:\n\t"
			      "cmpq %[len], %%rcx\n\t"
			      "jae 10f\n\t"
			      "movb (%[src], %%rcx), %%al\n\t"
			      "movb %%al, (%[dst], %%rcx)\n\t"
			      "incq %%rcx\n\t"
			      "jmp 11b\n"
			      "10:\n\t"
			      "movq %[n], (%[v])\n\t",
			      [v] "r"(v), [e] "r"(expect), [dst] "r"(dst),
			      [src] "r"(src), [len] "r"(len), [n] "r"(newv));
	CIDK__PERCPU_X86_RESULTS;
}

/*
 * Pop at an offset: head = *v; if (head == expectnot) fail; *out = head
 * (an attempt); *v = *(intptr_t *)(head + off).
 */
CIDK__PERCPU_INLINE int cidk__percpu_cs_cbeq_pop(intptr_t *v,
						 intptr_t expectnot,
						 ptrdiff_t off, intptr_t *out,
						 unsigned int i, ptrdiff_t rs,
						 int mm_cid)
{
	CIDK__PERCPU_X86_BOTH("movq (%[v]), %%rax\n\t"
			      "cmpq %[e], %%rax\n\t"
			      "je %l[differs]\n\t"
			      "movq %%rax, (%[out])\n\t"
			      "movq (%%rax, %[off]), %%rax\n\t"
			      "movq %%rax, (%[v])\n\t",
			      [v] "r"(v), [e] "r"(expectnot), [off] "r"(off),
			      [out] "r"(out));
	CIDK__PERCPU_X86_RESULTS;
}

/* Offset dereference add: **(intptr_t **)(*v + off) += inc. */
CIDK__PERCPU_INLINE int cidk__percpu_cs_deref_add(intptr_t *v, ptrdiff_t off,
						  intptr_t inc, unsigned int i,
						  ptrdiff_t rs, int mm_cid)
{
	CIDK__PERCPU_X86_BOTH("movq (%[v]), %%rax\n\t"
			      "movq (%%rax, %[off]), %%rax\n\t"
			      "addq %[d], (%%rax)\n\t",
			      [v] "r"(v), [off] "r"(off), [d] "er"(inc));
	CIDK__PERCPU_X86_RESULTS;
}

#endif /* __x86_64__ && __GNUC__ */

#endif /* CIDKIT_ARCH_X86_64_H */
