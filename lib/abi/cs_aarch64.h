/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/cs_aarch64.h - the checks' own critical sections on aarch64
 * (included by cs.c only): their bodies, built from cidkit/arch/aarch64.h
 * (descriptor, arming, signature, spin-wait hint).  The first load is a
 * load-acquire (ldar) so that the second cannot be satisfied before it
 * (the membarrier check compares two words written in order by another
 * CPU).
 *
 * Layout and parameters as in cs_x86_64.h; x13 counts the spins, x14
 * carries the counter, x15 the descriptor's address.
 */
/* The abort handler after the signature (label 4): ret = -1, on to 6. */
#define ABI_CS_ABORT(SIG)                                                    \
	CIDK__RSEQ_FAILURE(SIG)                                              \
	"mov %w[ret], #-1\n\t"                                               \
	"b 6f\n\t"                                                           \
	".popsection\n"

#define ABI_CS_INC                                                           \
	"ldr x14, [%[count]]\n\t"                                            \
	"add x14, x14, #1\n\t"                                               \
	"str x14, [%[count]]\n\t"

/* The rseq_cs field as a memory operand (ABI_CS_START, cs.c). */
#define ABI_CS_FIELD "[%[cs]]"

#define ABI_CS_ASM(SECT, END, SIG, EARLY, LATE)                              \
	__asm__ __volatile__(ABI_CS_START(SECT, END) EARLY                   \
                                                                             \
			     "ldar %w[r1], [%[first]]\n"                     \
			     "7:\n\t"                                        \
			     "mov x13, %[spins]\n"                           \
			     "5:\n\t"                                        \
			     "subs x13, x13, #1\n\t"                         \
			     "b.ne 5b\n\t"                                   \
			     "ldr %w[r2], [%[last]]\n\t" LATE                \
			     "2:\n\t"                                        \
			     ABI_CS_ABORT(SIG)                               \
			     "6:\n\t"                                        \
			     : [ret] "+r"(ret), [r1] "=&r"(r1), [r2] "=&r"(r2) \
			     : [cs] "r"(c->rseq_cs), [first] "r"(c->first),  \
			       [last] "r"(c->last), [count] "r"(c->count),   \
			       [spins] "r"(spins)                            \
			     : "x13", "x14", "x15", "cc", "memory")

/*
 * The probe's section (cs.c: cidk__abi_cs_wait): publish the attempt id
 * (a plain store inside), spin until *rel holds it (at most @spins turns),
 * then commit by storing the id to *commit.  1 = start_ip, 2 =
 * post-commit, 4 = abort_ip; a spin that runs out leaves through 9 (after
 * the section, no commit: ret 1).
 */
#define ABI_WAIT_ASM(SIG)                                                    \
	__asm__ __volatile__(ABI_CS_START(ABI_CS_SECT_GOOD, "2f")            \
			     "str %w[id], [%[pub]]\n\t"                      \
			     "mov x13, %[spins]\n"                           \
			     "5:\n\t"                                        \
			     "ldr w14, [%[rel]]\n\t"                         \
			     "cmp w14, %w[id]\n\t"                           \
			     "b.eq 8f\n\t"                                   \
			     CIDK__ARCH_RELAX_ASM "\n\t"                     \
			     "subs x13, x13, #1\n\t"                         \
			     "b.ne 5b\n\t"                                   \
			     "b 9f\n"                                        \
			     "8:\n\t"                                        \
			     "str %w[id], [%[commit]]\n"                     \
			     "2:\n\t"                                        \
			     "b 6f\n"                                        \
			     "9:\n\t"                                        \
			     "mov %w[ret], #1\n\t"                           \
			     "b 6f\n\t"                                      \
			     ABI_CS_ABORT(SIG)                               \
			     "6:\n\t"                                        \
			     : [ret] "+r"(ret)                               \
			     : [cs] "r"(w->rseq_cs), [pub] "r"(w->pub),      \
			       [rel] "r"(w->rel), [commit] "r"(w->commit),   \
			       [id] "r"(w->id), [spins] "r"(spins)           \
			     : "x13", "x14", "x15", "cc", "memory")
