/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/cs.c - the one critical section the abort checks run, and its
 * deliberately broken variants (abi_impl.h: cidk__abi_cs_run).
 *
 * The section reads a watched word, spins (so that a preemption, a
 * migration, a signal or a membarrier IPI lands inside it), reads a word
 * again and commits by incrementing a counter with one plain store.  If
 * the kernel keeps its promise, a section that an event interrupted never
 * reaches its commit: a committed run whose two loads differ, or a counter
 * that moved more often than the section committed, is the kernel's (or,
 * for the broken variants, our) failure.
 *
 * The probe's section (cidk__abi_cs_wait, lib/abi/probe.c) is the other
 * shape: it waits inside for another thread's word instead of spinning a
 * fixed count, so that a whole event of the other thread fits in it.
 *
 * Variants (enum cidk__abi_break): cs-short (the descriptor ends after the
 * first load: the spin is not covered), no-sig (a signature one bit off:
 * the kernel must kill the process at the first abort), write-early (the
 * counter store is the first instruction, not the commit).
 */
#include <cidkit/arch/select.h>

#include "abi/abi_impl.h"

/*
 * Everything a section has on every architecture comes from the
 * architecture's header (cidkit/arch/<arch>.h, chosen by select.h): the
 * descriptor and its sections, the arming store, the signature, the
 * spin-wait hint.  cs_<arch>.h hold only the checks' own bodies (the
 * loads, the spin, the commit, the abort handler's result) and name the
 * rseq_cs field's operand (ABI_CS_FIELD).
 *
 * ABI_CS_START: the descriptor in section @SECT ending at label @END,
 * armed, then start_ip.  The descriptors' section is __rseq_cs, except
 * the no-sig variant's, kept apart so that tools (and
 * tests/unit/percpu_api.c) that validate every descriptor of a binary do
 * not find the deliberately wrong one.  The wrong signature is the right
 * one with its low bit flipped (an assembler expression).
 */
#define ABI_CS_START(SECT, END)                                              \
	CIDK__RSEQ_ARM(CIDK__RSEQ_CS_DESC(SECT, END), ABI_CS_FIELD)
#define ABI_CS_SECT_GOOD "__rseq_cs"
#define ABI_CS_SECT_BROKEN "__rseq_cs_broken"
#define ABI_CS_SIG_GOOD CIDK__RSEQ_SIG_TEXT
#define ABI_CS_SIG_BAD "(" CIDK__RSEQ_SIG_TEXT " ^ 1)"

#if CIDK_PERCPU_HAVE_RSEQ && defined(__x86_64__)
#include "abi/cs_x86_64.h"
#elif CIDK_PERCPU_HAVE_RSEQ && defined(__aarch64__)
#include "abi/cs_aarch64.h"
#elif CIDK_PERCPU_HAVE_RSEQ && defined(__riscv)
#include "abi/cs_riscv64.h"
#elif CIDK_PERCPU_HAVE_RSEQ && defined(__powerpc64__)
#include "abi/cs_ppc64le.h"
#elif CIDK_PERCPU_HAVE_RSEQ && defined(__s390x__)
#include "abi/cs_s390x.h"
#endif
#define ABI_CS_HAVE CIDK_PERCPU_HAVE_RSEQ

int cidk__abi_cs_supported(void)
{
	return ABI_CS_HAVE;
}

#if ABI_CS_HAVE
int cidk__abi_cs_run(const struct cidk__abi_cs *c, int32_t *delta)
{
	uint64_t spins = c->spins ? c->spins : 1;
	uint32_t r1 = 0, r2 = 0;
	int ret = 0;

	if (c->breaks & CIDK_ABI_BREAK_CS_SHORT)
		ABI_CS_ASM(ABI_CS_SECT_GOOD, "7f", ABI_CS_SIG_GOOD, "", ABI_CS_INC);
	else if (c->breaks & CIDK_ABI_BREAK_NO_SIG)
		ABI_CS_ASM(ABI_CS_SECT_BROKEN, "2f", ABI_CS_SIG_BAD, "", ABI_CS_INC);
	else if (c->breaks & CIDK_ABI_BREAK_WRITE_EARLY)
		ABI_CS_ASM(ABI_CS_SECT_GOOD, "2f", ABI_CS_SIG_GOOD, ABI_CS_INC, "");
	else
		ABI_CS_ASM(ABI_CS_SECT_GOOD, "2f", ABI_CS_SIG_GOOD, "", ABI_CS_INC);
	if (ret)
		return -1;
	*delta = (int32_t)(r2 - r1);
	return 0;
}

int cidk__abi_cs_wait(const struct cidk__abi_wait *w)
{
	uint64_t spins = w->spins ? w->spins : 1;
	int ret = 0;

	ABI_WAIT_ASM(ABI_CS_SIG_GOOD);
	return ret;
}
#else
int cidk__abi_cs_run(const struct cidk__abi_cs *c, int32_t *delta)
{
	(void)c;
	(void)delta;
	return -1;
}

int cidk__abi_cs_wait(const struct cidk__abi_wait *w)
{
	(void)w;
	return 1;
}
#endif
