/* SPDX-License-Identifier: MIT */
/*
 * cidkit/arch/select.h - this machine's architecture header, and what
 * every file of cidkit takes from it.  Internal: <cidkit/percpu.h>
 * includes it; the library's spin loops and lib/abi include it too, so
 * that each per-architecture mechanism has one home (cidkit/arch/<arch>.h,
 * librseq's include/rseq/arch/<arch>.h being the model):
 *   CIDK_PERCPU_HAVE_RSEQ   1 where the critical sections are written
 *                           (x86-64, little-endian aarch64, riscv64,
 *                           little-endian ppc64, s390x; GCC or Clang),
 *                           else 0
 *   CIDK_PERCPU_RSEQ_SIG    the signature before every abort handler,
 *                           as a uint32_t (defined only where
 *                           CIDK_PERCPU_HAVE_RSEQ is 1)
 *   CIDK__RSEQ_SIG_DEFAULT  the signature to register an area with: the
 *                           one above, else glibc's x86 value (no section
 *                           of ours runs there, so any word would do)
 *   cidk__cpu_relax()       the spin-wait hint (x86 pause, arm64 yield,
 *                           riscv Zihintpause pause, ppc64 SMT priority
 *                           low then medium; a compiler barrier elsewhere)
 */
#ifndef CIDKIT_ARCH_SELECT_H
#define CIDKIT_ARCH_SELECT_H

#if defined(__GNUC__) && defined(__x86_64__)
#include <cidkit/arch/x86_64.h>
#elif defined(__GNUC__) && defined(__aarch64__) && !defined(__AARCH64EB__)
#include <cidkit/arch/aarch64.h>
#elif defined(__GNUC__) && defined(__riscv) && __riscv_xlen == 64
#include <cidkit/arch/riscv64.h>
#elif defined(__GNUC__) && defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#include <cidkit/arch/ppc64le.h>
#elif defined(__GNUC__) && defined(__s390x__)
#include <cidkit/arch/s390x.h>
#else
#define CIDK_PERCPU_HAVE_RSEQ 0
#if defined(__GNUC__) && defined(__i386__)
#define CIDK__ARCH_RELAX_ASM "pause"
#endif
#endif

#if CIDK_PERCPU_HAVE_RSEQ
#define CIDK__RSEQ_SIG_DEFAULT CIDK_PERCPU_RSEQ_SIG
#else
#define CIDK__RSEQ_SIG_DEFAULT 0x53053053u
#endif

/*
 * cidk__cpu_relax - one turn of a spin-wait loop: tell the core that the
 * thread is waiting (another SMT thread may use it; x86 also avoids the
 * memory-order mis-speculation at loop exit), and re-read memory.
 */
static inline void cidk__cpu_relax(void)
{
#if defined(CIDK__ARCH_RELAX_ASM)
	__asm__ __volatile__(CIDK__ARCH_RELAX_ASM ::: "memory");
#elif defined(__GNUC__)
	__asm__ __volatile__("" ::: "memory");
#endif
}

#endif /* CIDKIT_ARCH_SELECT_H */
