/* SPDX-License-Identifier: MIT */
/*
 * check/explore_cache.c - the explorer's side of the state cache: what
 * the state before a step is (statecache.h says what the cache keeps).
 */
#include <stdint.h>

#include "explore_int.h"

bool chk_state_cache_available(void)
{
#if defined(CHK_ASAN) || !defined(__x86_64__)
	return false;
#else
	return true;
#endif
}

/*
 * The whole state before step @step, the last thread @last: the model's
 * (full_state), every thread's (finished, pending step, SPIN able to run,
 * stack) and the scheduler's (the depth, the last thread).
 */
void chk_xp_state_fp(struct chk_fp *f, unsigned long step, unsigned int last)
{
	for (unsigned int i = 0; i < X.m->nthreads; i++)
		if (X.stack_dirty & (1u << i))
			sc_stack_fp(&X.t[i].co, X.t[i].finished,
				    &X.stack_fp[i]);
	X.stack_dirty = 0;
	chk_fp_init(f);
	chk_fp_u64(f, step);
	chk_fp_u64(f, last);
	for (unsigned int i = 0; i < X.m->nthreads; i++) {
		const struct thr *t = &X.t[i];

		chk_fp_u64(f, (uint64_t)(unsigned int)t->op << 2 |
				      (uint64_t)t->finished << 1 |
				      (t->spin_epoch == X.write_epoch));
		chk_fp_u64(f, (uint64_t)(uintptr_t)t->addr);
		chk_fp_u64(f, (uint64_t)(uintptr_t)t->site.file);
		chk_fp_u64(f, (uint64_t)(uintptr_t)t->site.func ^
				      (uint64_t)t->site.line << 48);
		chk_fp_u64(f, X.stack_fp[i].a);
		chk_fp_u64(f, X.stack_fp[i].b);
	}
	X.m->full_state(X.m->ctx, f);
}

/* An execution met max_steps: the states on its path are explored again. */
void chk_xp_cache_taint(unsigned long step)
{
	for (unsigned long i = 0; i < step; i++)
		sc_taint(X.sc, &X.nodes[i].fp);
}
