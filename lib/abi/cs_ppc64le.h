/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/cs_ppc64le.h - the checks' own critical sections on 64-bit
 * little-endian POWER (included by cs.c only): their bodies, built from
 * cidkit/arch/ppc64le.h (descriptor, arming -- the link register is
 * clobbered --, signature, spin-wait hint).  The first load is followed
 * by lwsync so that the second cannot be satisfied before it (the
 * membarrier check compares two words written in order by another CPU).
 *
 * Layout and parameters as in cs_x86_64.h; r18 counts the spins, r19
 * carries the counter, r17 the descriptor's address, cr7 the compares.
 */
/* The abort handler after the signature (label 4): ret = -1, on to 6. */
#define ABI_CS_ABORT(SIG)                                                    \
	CIDK__RSEQ_FAILURE(SIG)                                              \
	"li %[ret], -1\n\t"                                                  \
	"b 6f\n\t"                                                           \
	".popsection\n"

#define ABI_CS_INC                                                           \
	"ld %%r19, 0(%[count])\n\t"                                          \
	"addi %%r19, %%r19, 1\n\t"                                           \
	"std %%r19, 0(%[count])\n\t"

/* The rseq_cs field as a memory operand (ABI_CS_START, cs.c). */
#define ABI_CS_FIELD "0(%[cs])"

#define ABI_CS_ASM(SECT, END, SIG, EARLY, LATE)                              \
	__asm__ __volatile__(ABI_CS_START(SECT, END) EARLY                   \
			     "lwz %[r1], 0(%[first])\n\t"                    \
			     "lwsync\n"                                      \
			     "7:\n\t"                                        \
			     "mr %%r18, %[spins]\n"                          \
			     "5:\n\t"                                        \
			     "addi %%r18, %%r18, -1\n\t"                     \
			     "cmpdi %%cr7, %%r18, 0\n\t"                     \
			     "bne %%cr7, 5b\n\t"                             \
			     "lwz %[r2], 0(%[last])\n\t" LATE                \
			     "2:\n\t"                                        \
			     ABI_CS_ABORT(SIG)                               \
			     "6:\n\t"                                        \
			     : [ret] "+r"(ret), [r1] "=&r"(r1), [r2] "=&r"(r2) \
			     : [cs] "b"(c->rseq_cs), [first] "b"(c->first),  \
			       [last] "b"(c->last), [count] "b"(c->count),   \
			       [spins] "r"(spins)                            \
			     : "r17", "r18", "r19", "cr7", "lr", "memory")

/*
 * The probe's section (cs.c: cidk__abi_cs_wait): publish the attempt id
 * (a plain store inside), spin until *rel holds it (at most @spins turns,
 * each with the SMT priority lowered and raised again, as the kernel's
 * cpu_relax), then commit by storing the id to *commit.  1 = start_ip,
 * 2 = post-commit, 4 = abort_ip; a spin that runs out leaves through 9
 * (after the section, no commit: ret 1).
 */
#define ABI_WAIT_ASM(SIG)                                                    \
	__asm__ __volatile__(ABI_CS_START(ABI_CS_SECT_GOOD, "2f")            \
			     "stw %[id], 0(%[pub])\n\t"                      \
			     "mr %%r18, %[spins]\n"                          \
			     "5:\n\t"                                        \
			     "lwz %%r19, 0(%[rel])\n\t"                      \
			     "cmpw %%cr7, %%r19, %[id]\n\t"                  \
			     "beq %%cr7, 8f\n\t"                             \
			     CIDK__ARCH_RELAX_ASM "\n\t"                     \
			     "addi %%r18, %%r18, -1\n\t"                     \
			     "cmpdi %%cr7, %%r18, 0\n\t"                     \
			     "bne %%cr7, 5b\n\t"                             \
			     "b 9f\n"                                        \
			     "8:\n\t"                                        \
			     "stw %[id], 0(%[commit])\n"                     \
			     "2:\n\t"                                        \
			     "b 6f\n"                                        \
			     "9:\n\t"                                        \
			     "li %[ret], 1\n\t"                              \
			     "b 6f\n\t"                                      \
			     ABI_CS_ABORT(SIG)                               \
			     "6:\n\t"                                        \
			     : [ret] "+r"(ret)                               \
			     : [cs] "b"(w->rseq_cs), [pub] "b"(w->pub),      \
			       [rel] "b"(w->rel), [commit] "b"(w->commit),   \
			       [id] "r"(w->id), [spins] "r"(spins)           \
			     : "r17", "r18", "r19", "cr7", "lr", "memory")
