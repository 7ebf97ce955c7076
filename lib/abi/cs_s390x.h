/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/cs_s390x.h - the checks' own critical sections on s390x
 * (included by cs.c only): their bodies, built from cidkit/arch/s390x.h
 * (descriptor, arming, signature).  The handler branches back with jg.
 * z/Architecture does not reorder loads with loads (nor stores with
 * stores), so the two loads need no fence between them.
 *
 * Layout and parameters as in cs_x86_64.h; r1 counts the spins, r0
 * carries the descriptor's address, then the counter.
 */
/* The abort handler after the signature (label 4): ret = -1, on to 6. */
#define ABI_CS_ABORT(SIG)                                                    \
	CIDK__RSEQ_FAILURE(SIG)                                              \
	"lhi %[ret], -1\n\t"                                                 \
	"jg 6f\n\t"                                                          \
	".popsection\n"

#define ABI_CS_INC                                                           \
	"lg %%r0, 0(%[count])\n\t"                                           \
	"aghi %%r0, 1\n\t"                                                   \
	"stg %%r0, 0(%[count])\n\t"

/* The rseq_cs field as a memory operand (ABI_CS_START, cs.c). */
#define ABI_CS_FIELD "0(%[cs])"

#define ABI_CS_ASM(SECT, END, SIG, EARLY, LATE)                              \
	__asm__ __volatile__(ABI_CS_START(SECT, END) EARLY                   \
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
 * The probe's section (cs.c: cidk__abi_cs_wait): publish the attempt id
 * (a plain store inside), spin until *rel holds it (at most @spins
 * turns), then commit by storing the id to *commit.  1 = start_ip, 2 =
 * post-commit, 4 = abort_ip; a spin that runs out leaves through 9
 * (after the section, no commit: ret 1).
 */
#define ABI_WAIT_ASM(SIG)                                                    \
	__asm__ __volatile__(ABI_CS_START(ABI_CS_SECT_GOOD, "2f")            \
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
