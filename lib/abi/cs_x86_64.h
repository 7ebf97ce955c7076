/* SPDX-License-Identifier: MIT */
/* The signature before the abort handler (label 4): ret = -1, on to label 6. */
#define ABI_CS_ABORT(SIG)                                                    \
	".pushsection __rseq_failure, \"ax\"\n\t"       \
	".byte 0x0f, 0xb9, 0x3d\n\t"                    \
	".long " SIG "\n"                               \
	"4:\n\t"                                        \
	"movl $-1, %k[ret]\n\t"                         \
	"jmp 6f\n\t"                                    \
	".popsection\n"

/*
 * lib/abi/cs_x86_64.h - the checks' critical section on x86-64 (included
 * by cs.c only).
 *
 * The rseq ABI's rules on x86-64, as the uapi header and the kernel's
 * selftests state them: a descriptor (struct rseq_cs: version 0, flags 0,
 * start_ip, post_commit_offset, abort_ip), 32-byte aligned, here in its own
 * section __rseq_cs (its address also in __rseq_cs_ptr_array, for tools);
 * its address is stored into the area's rseq_cs field before start_ip; the
 * 4 bytes right before abort_ip are the signature the area was registered
 * with, 0x53053053, here as the displacement of "ud1 disp32(%rip),%edi"
 * (0f b9 3d) so that a disassembler sees one trapping instruction; the
 * handler lives in section __rseq_failure.
 *
 * Layout: 1 = start_ip, 7 = after the first load (the end of the broken
 * "cs-short" descriptor), 2 = post-commit, 4 = abort_ip.  The commit is
 * one non-locked "addq $1" to *count.
 *
 * @END: the label the descriptor ends at; @SIG: the signature word;
 * @EARLY / @LATE: where the counter store goes (write-early puts it first).
 */
#define ABI_CS_INC "addq $1, (%[count])\n\t"

#define ABI_CS_ASM(SECT, END, SIG, EARLY, LATE)                                 \
	__asm__ __volatile__(ABI_CS_DESC(SECT, END)                              \
			     "leaq 3b(%%rip), %%rax\n\t"                     \
			     "movq %%rax, (%[cs])\n"                         \
			     "1:\n\t" EARLY                                  \
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
 * The descriptors' section: __rseq_cs, except the no-sig variant's, kept
 * apart so that tools (and tests/unit/percpu_api.c) that validate every
 * descriptor of a binary do not find the deliberately wrong one.
 */
#define ABI_CS_SECT_GOOD "__rseq_cs"
#define ABI_CS_SECT_BROKEN "__rseq_cs_broken"

#define ABI_CS_SIG_GOOD "0x53053053"
#define ABI_CS_SIG_BAD "0x53053054"

/*
 * The probe's section (cs.c: cidk__abi_cs_wait): publish the attempt id
 * (a plain store inside), spin until *rel holds it (at most @spins turns),
 * then commit by storing the id to *commit.  1 = start_ip, 2 =
 * post-commit, 4 = abort_ip; a spin that runs out leaves through 9 (after
 * the section, no commit: ret 1).
 */
#define ABI_WAIT_ASM(SIG)                                                    \
	__asm__ __volatile__(ABI_CS_DESC(ABI_CS_SECT_GOOD, "2f")                \
			     "leaq 3b(%%rip), %%rax\n\t"                     \
			     "movq %%rax, (%[cs])\n"                         \
			     "1:\n\t"                                        \
			     "movl %[id], (%[pub])\n\t"                      \
			     "movq %[spins], %%rcx\n"                        \
			     "5:\n\t"                                        \
			     "cmpl %[id], (%[rel])\n\t"                      \
			     "je 8f\n\t"                                     \
			     "pause\n\t"                                     \
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
