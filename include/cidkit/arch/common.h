/* SPDX-License-Identifier: MIT */
/*
 * cidkit/arch/common.h - the pieces of an rseq critical section that are
 * the same on every architecture, written once: the descriptor and its
 * sections, the abort handler's section, and the signature as text for
 * the assembler.  Internal: the architecture headers (cidkit/arch/<arch>.h)
 * include it, and lib/abi builds its check sections from the same macros;
 * a program includes <cidkit/percpu.h>.
 *
 * The rseq ABI (uapi linux/rseq.h, "Restartable sequences system call",
 * merged for Linux 4.18, 2018): a critical section is described by a
 * struct rseq_cs {u32 version = 0; u32 flags = 0; u64 start_ip;
 * u64 post_commit_offset; u64 abort_ip}, 32-byte aligned; the thread
 * stores its address into its area's rseq_cs field before start_ip; the
 * 4 bytes right before abort_ip must be the signature the area was
 * registered with, or the kernel kills the thread at the first abort.
 * Every architecture cidkit supports is 64-bit, so the three addresses
 * are .quad everywhere.
 *
 * Label convention of every section (the macros below rely on it):
 *   1 start_ip     2 post_commit_ip (or another label named as @end)
 *   3 the descriptor                4 abort_ip (after the signature)
 * What each architecture header adds (cidkit/arch/x86_64.h lists the
 * whole contract): CIDK__ARCH_RSEQ_SIG (the signature, one literal, no
 * suffix), CIDK__ARCH_SIG_ASM(sig) (the bytes before abort_ip for the
 * signature text @sig: an instruction that traps, where the ISA has one),
 * CIDK__ARCH_STORE_CS(cs_mem) (label 3's address stored into the rseq_cs
 * field at the memory operand @cs_mem, through the architecture's scratch
 * register), and CIDK__ARCH_RELAX_ASM (the spin-wait hint,
 * cidk__cpu_relax(); optional).
 */
#ifndef CIDKIT_ARCH_COMMON_H
#define CIDKIT_ARCH_COMMON_H

/* A macro's value as a string literal (the signature, for the assembler). */
#define CIDK__ARCH_STR_(x) #x
#define CIDK__ARCH_STR(x) CIDK__ARCH_STR_(x)

/*
 * The descriptor (label 3: version 0, flags 0, start_ip = label 1,
 * post_commit_offset = @end - label 1, abort_ip = label 4) in section
 * @sect, 32-byte aligned, and its address in @sect "_ptr_array" (for
 * debuggers and for the tests that check every descriptor of a binary).
 * The library's sections use CIDK__RSEQ_CS_DESC_DEFAULT; lib/abi names
 * another section for its deliberately broken variant, and another @end.
 */
#define CIDK__RSEQ_CS_DESC(sect, end)                                         \
	".pushsection " sect ", \"aw\"\n\t"                                   \
	".balign 32\n"                                                        \
	"3:\n\t"                                                              \
	".long 0, 0\n\t"                                                      \
	".quad 1f, " end " - 1f, 4f\n\t"                                      \
	".popsection\n\t"                                                     \
	".pushsection " sect "_ptr_array, \"aw\"\n\t"                         \
	".quad 3b\n\t"                                                        \
	".popsection\n\t"

#define CIDK__RSEQ_CS_DESC_DEFAULT CIDK__RSEQ_CS_DESC("__rseq_cs", "2f")

/*
 * Arm a section: the descriptor @desc (CIDK__RSEQ_CS_DESC), its address
 * stored into the rseq_cs field at the memory operand @cs_mem, then
 * start_ip (label 1).  CIDK__RSEQ_START: with the library's descriptor.
 */
#define CIDK__RSEQ_ARM(desc, cs_mem) desc CIDK__ARCH_STORE_CS(cs_mem) "1:\n\t"
#define CIDK__RSEQ_START(cs_mem)                                              \
	CIDK__RSEQ_ARM(CIDK__RSEQ_CS_DESC_DEFAULT, cs_mem)

/* The signature the library registers and emits, as assembler text. */
#define CIDK__RSEQ_SIG_TEXT CIDK__ARCH_STR(CIDK__ARCH_RSEQ_SIG)

/*
 * The abort handler's head, out of the fast path: section
 * __rseq_failure, the signature @sig (assembler text: normally
 * CIDK__RSEQ_SIG_TEXT) and label 4, abort_ip.  The handler's
 * instructions follow; it ends with ".popsection".
 */
#define CIDK__RSEQ_FAILURE(sig)                                               \
	".pushsection __rseq_failure, \"ax\"\n\t"                             \
	CIDK__ARCH_SIG_ASM(sig)                                               \
	"4:\n\t"

#endif /* CIDKIT_ARCH_COMMON_H */
