/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/cs_s390x.h - the checks' critical section on s390x (included by
 * cs.c only).
 *
 * The rseq ABI's rules on s390x, as cidkit/arch/s390x.h keeps them
 * (sources named there): the descriptor (ABI_CS_DESC, cs.c, native
 * big-endian .long/.quad), its address formed with larl and stored with
 * one 64-bit stg into the area's 64-bit rseq_cs field before start_ip;
 * the 4 bytes before abort_ip are the signature 0xb2ff0fff ("trap4"); the
 * handler lives in section __rseq_failure and branches back with jg.
 * z/Architecture does not reorder loads with loads (nor stores with
 * stores), so the two loads need no fence between them.
 *
 * Layout and parameters as in cs_x86_64.h; r1 counts the spins, r0
 * carries the descriptor's address, then the counter.
 */
/* The signature before the abort handler (label 4): ret = -1, on to label 6. */
#define ABI_CS_ABORT(SIG)                                                    \
	".pushsection __rseq_failure, \"ax\"\n\t"                             \
	".balign 4\n\t"                                                       \
	".long " SIG "\n"                                                     \
	"4:\n\t"                                                              \
	"lhi %[ret], -1\n\t"                                                  \
	"jg 6f\n\t"                                                           \
	".popsection\n"

#define ABI_CS_INC                                                           \
	"lg %%r0, 0(%[count])\n\t"                                           \
	"aghi %%r0, 1\n\t"                                                   \
	"stg %%r0, 0(%[count])\n\t"

#define ABI_CS_ASM(SECT, END, SIG, EARLY, LATE)                                 \
	__asm__ __volatile__(ABI_CS_DESC(SECT, END)                              \
			     "larl %%r0, 3b\n\t"                             \
			     "stg %%r0, 0(%[cs])\n"                          \
			     "1:\n\t" EARLY                                  \
			     "l %[r1], 0(%[first])\n"                        \
			     "7:\n\t"                                        \
			     "lgr %%r1, %[spins]\n"                          \
			     "5:\n\t"                                        \
			     "brctg %%r1, 5b\n\t"                            \
			     "l %[r2], 0(%[last])\n\t" LATE                  \
			     "2:\n\t"                                        \
			     ABI_CS_ABORT(SIG)                               \
			     "6:\n\t"                                        \
			     : [ret] "+d"(ret), [r1] "=&d"(r1), [r2] "=&d"(r2) \
			     : [cs] "a"(c->rseq_cs), [first] "a"(c->first),  \
			       [last] "a"(c->last), [count] "a"(c->count),   \
			       [spins] "d"(spins)                            \
			     : "r0", "r1", "cc", "memory")

/*
 * The descriptors' section: __rseq_cs, except the no-sig variant's, kept
 * apart so that tools (and tests/unit/percpu_api.c) that validate every
 * descriptor of a binary do not find the deliberately wrong one.
 */
#define ABI_CS_SECT_GOOD "__rseq_cs"
#define ABI_CS_SECT_BROKEN "__rseq_cs_broken"

#define ABI_CS_SIG_GOOD "0xb2ff0fff"
#define ABI_CS_SIG_BAD "0xb2ff0ffe"

/*
 * The probe's section (cs.c: cidk__abi_cs_wait): publish the attempt id
 * (a plain store inside), spin until *rel holds it (at most @spins
 * turns), then commit by storing the id to *commit.  1 = start_ip, 2 =
 * post-commit, 4 = abort_ip; a spin that runs out leaves through 9
 * (after the section, no commit: ret 1).
 */
#define ABI_WAIT_ASM(SIG)                                                    \
	__asm__ __volatile__(ABI_CS_DESC(ABI_CS_SECT_GOOD, "2f")                \
			     "larl %%r0, 3b\n\t"                             \
			     "stg %%r0, 0(%[cs])\n"                          \
			     "1:\n\t"                                        \
			     "st %[id], 0(%[pub])\n\t"                       \
			     "lgr %%r1, %[spins]\n"                          \
			     "5:\n\t"                                        \
			     "c %[id], 0(%[rel])\n\t"                        \
			     "je 8f\n\t"                                     \
			     "brctg %%r1, 5b\n\t"                            \
			     "j 9f\n"                                        \
			     "8:\n\t"                                        \
			     "st %[id], 0(%[commit])\n"                      \
			     "2:\n\t"                                        \
			     "j 6f\n"                                        \
			     "9:\n\t"                                        \
			     "lhi %[ret], 1\n\t"                             \
			     "j 6f\n\t"                                      \
			     ABI_CS_ABORT(SIG)                               \
			     "6:\n\t"                                        \
			     : [ret] "+d"(ret)                               \
			     : [cs] "a"(w->rseq_cs), [pub] "a"(w->pub),      \
			       [rel] "a"(w->rel), [commit] "a"(w->commit),   \
			       [id] "d"(w->id), [spins] "d"(spins)           \
			     : "r0", "r1", "cc", "memory")
