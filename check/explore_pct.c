/* SPDX-License-Identifier: MIT */
/*
 * check/explore_pct.c - --random: executions by PCT (Burckhardt et al.,
 * ASPLOS 2010; chk_opts.random), random priorities and change points.
 */

#include "explore_int.h"

int chk_xp_pct(struct chk_result *r)
{
	unsigned long est = 64;
	struct exec_out out;
	int rc = 0;

	cidk__prng_seed(&X.rng, X.o->seed);
	for (unsigned long k = 0; k < X.o->random; k++) {
		unsigned int n = X.m->nthreads;
		unsigned int d = X.o->pct_depth ? X.o->pct_depth : 3;

		/* random distinct priorities above the change points' */
		for (unsigned int i = 0; i < n; i++)
			X.prio[i] = 8 + i;
		for (unsigned int i = n; i > 1; i--) {
			unsigned int j = (unsigned int)cidk__prng_below(&X.rng, i);
			unsigned int tmp = X.prio[i - 1];

			X.prio[i - 1] = X.prio[j];
			X.prio[j] = tmp;
		}
		X.nchange = d - 1 < 8 ? d - 1 : 7;
		for (unsigned int j = 0; j < X.nchange; j++)
			X.change_at[j] = cidk__prng_below(&X.rng, est);
		rc = chk_xp_run_one(&out, PCT);
		if (rc)
			return rc;
		r->schedules++;
		r->steps += X.nlog;
		r->step_cuts += out.step_cut;
		r->starved += out.starved;
		if (X.nlog > est)
			est = X.nlog;
		if (out.violation) {
			rc = chk_xp_keep(r, &out);
			if (rc || !X.o->keep_searching || out.mistake)
				return rc;
		}
		if (X.o->progress && !(r->schedules & 0x3fff))
			X.o->progress(X.o->progress_arg, r->schedules);
	}
	return 0;
}
