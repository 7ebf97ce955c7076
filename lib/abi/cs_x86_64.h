/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/cs_x86_64.h - the checks' own critical sections on x86-64
 * (included by cs.c only): their bodies, built from cidkit/arch/x86_64.h
 * (descriptor, arming, signature, spin-wait hint: cs.c's ABI_CS_START,
 * CIDK__RSEQ_FAILURE, CIDK__ARCH_RELAX_ASM).
 *
 * Layout: 1 = start_ip, 7 = after the first load (the end of the broken
 * "cs-short" descriptor), 2 = post-commit, 4 = abort_ip.  The commit is
 * one non-locked "addq $1" to *count.  rcx counts the spins, rax carries
 * the descriptor's address.
 *
 * @END: the label the descriptor ends at; @SIG: the signature word;
 * @EARLY / @LATE: where the counter store goes (write-early puts it first).
 */
/* The abort handler after the signature (label 4): ret = -1, on to 6. */
#define ABI_CS_ABORT(SIG)                                                    \
	CIDK__RSEQ_FAILURE(SIG)                                              \
	"movl $-1, %k[ret]\n\t"                                              \
	"jmp 6f\n\t"                                                         \
	".popsection\n"

#define ABI_CS_INC "addq $1, (%[count])\n\t"

/* The rseq_cs field as a memory operand (ABI_CS_START, cs.c). */
#define ABI_CS_FIELD "(%[cs])"

#define ABI_CS_ASM(SECT, END, SIG, EARLY, LATE)                              \
	__asm__ __volatile__(ABI_CS_START(SECT, END) EARLY                   \
			     "movl (%[first]), %k[r1]\n"                     \
			     "7:\n\t"                                        \
			     "movq %[spins], %%rcx\n"                        \
			     "5:\n\t"                                        \
			     "decq %%rcx\n\t"                                \
			     "jnz 5b\n\t"                                    \
			     "movl (%[last]), %k[r2]\n\t" LATE               \
			     "2:\n\t"                                        \
			     ABI_CS_ABORT(SIG)                               \
			     "6:\n\t"                                        \
			     : [ret] "+r"(ret), [r1] "=&r"(r1), [r2] "=&r"(r2) \
			     : [cs] "r"(c->rseq_cs), [first] "r"(c->first),  \
			       [last] "r"(c->last), [count] "r"(c->count),   \
			       [spins] "r"(spins)                            \
			     : "rax", "rcx", "cc", "memory")

/*
 * The probe's section (cs.c: cidk__abi_cs_wait): publish the attempt id
 * (a plain store inside), spin until *rel holds it (at most @spins turns),
 * then commit by storing the id to *commit.  1 = start_ip, 2 =
 * post-commit, 4 = abort_ip; a spin that runs out leaves through 9 (after
 * the section, no commit: ret 1).
 */
#define ABI_WAIT_ASM(SIG)                                                    \
	__asm__ __volatile__(ABI_CS_START(ABI_CS_SECT_GOOD, "2f")            \
			     "movl %[id], (%[pub])\n\t"                      \
			     "movq %[spins], %%rcx\n"                        \
			     "5:\n\t"                                        \
			     "cmpl %[id], (%[rel])\n\t"                      \
			     "je 8f\n\t"                                     \
			     CIDK__ARCH_RELAX_ASM "\n\t"                     \
			     "decq %%rcx\n\t"                                \
			     "jnz 5b\n\t"                                    \
			     "jmp 9f\n"                                      \
			     "8:\n\t"                                        \
			     "movl %[id], (%[commit])\n"                     \
			     "2:\n\t"                                        \
			     "jmp 6f\n"                                      \
			     "9:\n\t"                                        \
			     "movl $1, %k[ret]\n\t"                          \
			     "jmp 6f\n\t"                                    \
			     ABI_CS_ABORT(SIG)                               \
			     "6:\n\t"                                        \
			     : [ret] "+r"(ret)                               \
			     : [cs] "r"(w->rseq_cs), [pub] "r"(w->pub),      \
			       [rel] "r"(w->rel), [commit] "r"(w->commit),   \
			       [id] "r"(w->id), [spins] "r"(spins)           \
			     : "rax", "rcx", "cc", "memory")
