/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/cs_riscv64.h - the checks' own critical sections on riscv64
 * (included by cs.c only): their bodies, built from cidkit/arch/riscv64.h
 * (descriptor, arming, signature, spin-wait hint).  The handler leaves
 * with "jump 6f, t6" (auipc + jalr, out of reach of nothing).  The first
 * load is followed by "fence r, r" so that the second cannot be satisfied
 * before it (the membarrier check compares two words written in order by
 * another CPU).
 *
 * Layout and parameters as in cs_x86_64.h; t5 counts the spins, t4
 * carries the counter, t6 the descriptor's address.
 */
/* The abort handler after the signature (label 4): ret = -1, on to 6. */
#define ABI_CS_ABORT(SIG)                                                    \
	CIDK__RSEQ_FAILURE(SIG)                                              \
	"li %[ret], -1\n\t"                                                  \
	"jump 6f, t6\n\t"                                                    \
	".popsection\n"

#define ABI_CS_INC                                                           \
	"ld t4, 0(%[count])\n\t"                                             \
	"addi t4, t4, 1\n\t"                                                 \
	"sd t4, 0(%[count])\n\t"

/* The rseq_cs field as a memory operand (ABI_CS_START, cs.c). */
#define ABI_CS_FIELD "0(%[cs])"

#define ABI_CS_ASM(SECT, END, SIG, EARLY, LATE)                              \
	__asm__ __volatile__(ABI_CS_START(SECT, END) EARLY                   \
			     "lw %[r1], 0(%[first])\n\t"                     \
			     "fence r, r\n"                                  \
			     "7:\n\t"                                        \
			     "mv t5, %[spins]\n"                             \
			     "5:\n\t"                                        \
			     "addi t5, t5, -1\n\t"                           \
			     "bnez t5, 5b\n\t"                               \
			     "lw %[r2], 0(%[last])\n\t" LATE                 \
			     "2:\n\t"                                        \
			     ABI_CS_ABORT(SIG)                               \
			     "6:\n\t"                                        \
			     : [ret] "+r"(ret), [r1] "=&r"(r1), [r2] "=&r"(r2) \
			     : [cs] "r"(c->rseq_cs), [first] "r"(c->first),  \
			       [last] "r"(c->last), [count] "r"(c->count),   \
			       [spins] "r"(spins)                            \
			     : "t4", "t5", "t6", "memory")

/*
 * The probe's section (cs.c: cidk__abi_cs_wait): publish the attempt id
 * (a plain store inside), spin until *rel holds it (at most @spins turns,
 * each with Zihintpause's pause, a no-op hint without it), then commit by
 * storing the id to *commit.  1 = start_ip, 2 = post-commit, 4 =
 * abort_ip; a spin that runs out leaves through 9 (after the section, no
 * commit: ret 1).  The id is compared sign-extended, as lw loads it.
 */
#define ABI_WAIT_ASM(SIG)                                                    \
	__asm__ __volatile__(ABI_CS_START(ABI_CS_SECT_GOOD, "2f")            \
			     "sw %[id], 0(%[pub])\n\t"                       \
			     "mv t5, %[spins]\n"                             \
			     "5:\n\t"                                        \
			     "lw t4, 0(%[rel])\n\t"                          \
			     "beq t4, %[id], 8f\n\t"                         \
			     CIDK__ARCH_RELAX_ASM "\n\t"                     \
			     "addi t5, t5, -1\n\t"                           \
			     "bnez t5, 5b\n\t"                               \
			     "j 9f\n"                                        \
			     "8:\n\t"                                        \
			     "sw %[id], 0(%[commit])\n"                      \
			     "2:\n\t"                                        \
			     "j 6f\n"                                        \
			     "9:\n\t"                                        \
			     "li %[ret], 1\n\t"                              \
			     "j 6f\n\t"                                      \
			     ABI_CS_ABORT(SIG)                               \
			     "6:\n\t"                                        \
			     : [ret] "+r"(ret)                               \
			     : [cs] "r"(w->rseq_cs), [pub] "r"(w->pub),      \
			       [rel] "r"(w->rel), [commit] "r"(w->commit),   \
			       [id] "r"((intptr_t)(int32_t)w->id),           \
			       [spins] "r"(spins)                            \
			     : "t4", "t5", "t6", "memory")
