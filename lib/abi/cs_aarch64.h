/* SPDX-License-Identifier: MIT */
/* The signature before the abort handler (label 4): ret = -1, on to label 6. */
#define ABI_CS_ABORT(SIG)                                                    \
	".pushsection __rseq_failure, \"ax\"\n\t"       \
	".inst " SIG "\n"                               \
	"4:\n\t"                                        \
	"mov %w[ret], #-1\n\t"                          \
	"b 6f\n\t"                                      \
	".popsection\n"

/*
 * lib/abi/cs_aarch64.h - the checks' critical section on aarch64 (included
 * by cs.c only).
 *
 * The rseq ABI's rules on aarch64: the same descriptor (32-byte aligned,
 * section __rseq_cs), its address formed with adrp/add and stored into the
 * area's rseq_cs field before start_ip; the 4 bytes before abort_ip are
 * the signature 0xd428bc00 emitted as an instruction word (".inst": a
 * "brk #0x45e0", so that falling into it traps), in code byte order as
 * the kernel reads it.  The first load is a load-acquire (ldar) so that
 * the second cannot be satisfied before it (the membarrier check compares
 * two words written in order by another CPU).
 *
 * Layout and parameters as in cs_x86_64.h; x13 counts the spins, x14
 * carries the counter, x15 the descriptor's address.
 */
#define ABI_CS_INC                                                           \
	"ldr x14, [%[count]]\n\t"                                            \
	"add x14, x14, #1\n\t"                                               \
	"str x14, [%[count]]\n\t"

#define ABI_CS_ASM(SECT, END, SIG, EARLY, LATE)                                 \
	__asm__ __volatile__(ABI_CS_DESC(SECT, END)                              \
			     "adrp x15, 3b\n\t"                              \
			     "add x15, x15, :lo12:3b\n\t"                    \
			     "str x15, [%[cs]]\n"                            \
			     "1:\n\t" EARLY                                  \
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
 * The descriptors' section: __rseq_cs, except the no-sig variant's, kept
 * apart so that tools (and tests/unit/percpu_api.c) that validate every
 * descriptor of a binary do not find the deliberately wrong one.
 */
#define ABI_CS_SECT_GOOD "__rseq_cs"
#define ABI_CS_SECT_BROKEN "__rseq_cs_broken"

#define ABI_CS_SIG_GOOD "0xd428bc00"
#define ABI_CS_SIG_BAD "0xd428bc01"

/*
 * The probe's section (cs.c: cidk__abi_cs_wait): publish the attempt id
 * (a plain store inside), spin until *rel holds it (at most @spins turns),
 * then commit by storing the id to *commit.  1 = start_ip, 2 =
 * post-commit, 4 = abort_ip; a spin that runs out leaves through 9 (after
 * the section, no commit: ret 1).
 */
#define ABI_WAIT_ASM(SIG)                                                    \
	__asm__ __volatile__(ABI_CS_DESC(ABI_CS_SECT_GOOD, "2f")                \
			     "adrp x15, 3b\n\t"                              \
			     "add x15, x15, :lo12:3b\n\t"                    \
			     "str x15, [%[cs]]\n"                            \
			     "1:\n\t"                                        \
			     "str %w[id], [%[pub]]\n\t"                      \
			     "mov x13, %[spins]\n"                           \
			     "5:\n\t"                                        \
			     "ldr w14, [%[rel]]\n\t"                         \
			     "cmp w14, %w[id]\n\t"                           \
			     "b.eq 8f\n\t"                                   \
			     "yield\n\t"                                     \
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
