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
#include "abi/abi_impl.h"

/*
 * The descriptor (label 3: version 0, flags 0, start_ip = label 1, the
 * section ending at @END, abort_ip = label 4) in section @SECT, and its
 * address in @SECT_ptr_array, for tools: one home for every
 * architecture's sections (cs_<arch>.h).
 */
#define ABI_CS_DESC(SECT, END)                                               \
	".pushsection " SECT ", \"aw\"\n\t"                                   \
	".balign 32\n"                                                        \
	"3:\n\t"                                                              \
	".long 0, 0\n\t"                                                      \
	".quad 1f, " END " - 1f, 4f\n\t"                                      \
	".popsection\n\t"                                                     \
	".pushsection " SECT "_ptr_array, \"aw\"\n\t"                         \
	".quad 3b\n\t"                                                        \
	".popsection\n\t"

#if defined(__x86_64__) && defined(__GNUC__)
#include "abi/cs_x86_64.h"
#define ABI_CS_HAVE 1
#elif defined(__aarch64__) && defined(__GNUC__)
#include "abi/cs_aarch64.h"
#define ABI_CS_HAVE 1
#elif defined(__riscv) && __riscv_xlen == 64 && defined(__GNUC__)
#include "abi/cs_riscv64.h"
#define ABI_CS_HAVE 1
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__) && defined(__GNUC__)
#include "abi/cs_ppc64le.h"
#define ABI_CS_HAVE 1
#elif defined(__s390x__) && defined(__GNUC__)
#include "abi/cs_s390x.h"
#define ABI_CS_HAVE 1
#else
#define ABI_CS_HAVE 0
#endif

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
