/* SPDX-License-Identifier: MIT */
/*
 * check/explore_replay.c - one execution by the directives of --replay
 * (chk_opts.replay; see chk.h for what they mean).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "explore_int.h"

static void replay_next(void)
{
	X.ri++;
	X.rn = 0;
	X.rpicked = X.rinside = false;
}

/* Has the current directive done what it says? */
static bool replay_done(const struct chk_replay *d, const struct thr *t,
			bool can)
{
	if (d->until) {
		bool in = !t->finished && t->site.func &&
			  !strcmp(t->site.func, d->until);

		X.rn += in && !X.rinside;
		X.rinside = in;
		return X.rn == d->nth;
	}
	if (d->events) {
		X.rn += X.rpicked &&
			(t->finished || t->op == CHK_OP_EVENT);
		return X.rn == d->events;
	}
	if (d->steps)
		return X.rn == d->steps;
	return !can; /* as long as it can */
}

/*
 * A T@FUNC[*K] directive whose thread finished first: it never reached
 * FUNC (a misspelt name?), or reached it fewer than K times.
 */
static void replay_until_why(const struct chk_replay *d)
{
	const char *name = X.m->thread_name(X.m->ctx, d->tid);

	if (!X.rn)
		snprintf(X.replay_err, sizeof(X.replay_err),
			 "directive %u: %s finished without reaching function "
			 "'%s' (no step of %s is in a function of that name)",
			 X.ri + 1, name, d->until, name);
	else
		snprintf(X.replay_err, sizeof(X.replay_err),
			 "directive %u: %s entered function '%s' %lu time(s), "
			 "then finished (the directive asks for %lu)",
			 X.ri + 1, name, d->until, X.rn, d->nth);
}

/*
 * The replay's choice among the enabled threads @e: the current
 * directive's thread, or after the last one the thread that ran last
 * (no preemption) or the first enabled.  -EINVAL when a directive cannot
 * be followed; 1 at a stop directive.
 */
int chk_xp_replay_pick(uint8_t e, unsigned int last, unsigned int *c)
{
	while (X.ri < X.o->nreplay) {
		const struct chk_replay *d = &X.o->replay[X.ri];
		const struct thr *t = &X.t[d->tid];
		bool can = e & (1u << d->tid);
		const char *name;

		if (d->stop) {
			X.ri++;
			return 1;
		}
		if (replay_done(d, t, can)) {
			replay_next();
			continue;
		}
		if (!can) {
			if (d->until && t->finished) {
				replay_until_why(d);
				return -EINVAL;
			}
			name = X.m->thread_name(X.m->ctx, d->tid);
			snprintf(X.replay_err, sizeof(X.replay_err),
				 "directive %u: %s %s before it was done",
				 X.ri + 1, name,
				 t->finished ? "finished" : "cannot run");
			return -EINVAL;
		}
		X.rn += !d->until && !d->events;
		X.rpicked = true;
		*c = d->tid;
		return 0;
	}
	*c = last != NO_THREAD && (e & (1u << last)) ? last
						     : (unsigned int)__builtin_ctz(e);
	return 0;
}

/* One execution by the directives; its trace is kept, violation or not. */
int chk_xp_replay(struct chk_result *r)
{
	struct exec_out out;
	int rc = chk_xp_run_one(&out, REPLAY);

	if (rc == -EINVAL) {
		snprintf(r->why, sizeof(r->why), "%s", X.replay_err);
		return rc;
	}
	if (rc)
		return rc;
	r->schedules = 1;
	r->steps = X.nlog;
	if (out.violation) {
		X.states_kept = true;
		return chk_xp_keep(r, &out);
	}
	out.step_cut |= out.starved; /* one schedule: cut, whatever the cycle */
	/* the directive whose thread ran the execution's last step: its
	 * last count comes after that step, when no pick asks for it */
	while (X.ri < X.o->nreplay && !X.o->replay[X.ri].stop &&
	       replay_done(&X.o->replay[X.ri], &X.t[X.o->replay[X.ri].tid],
			   false))
		replay_next();
	if (X.ri < X.o->nreplay && !out.step_cut) {
		if (!X.o->replay[X.ri].until) {
			snprintf(r->why, sizeof(r->why),
				 "directive %u: every thread finished before it",
				 X.ri + 1);
			return -EINVAL;
		}
		/* the last thread finished inside an unfinished @FUNC */
		replay_until_why(&X.o->replay[X.ri]);
		snprintf(r->why, sizeof(r->why), "%s", X.replay_err);
		return -EINVAL;
	}
	r->stopped = X.rstop;
	if (out.step_cut) {
		r->step_cuts = 1;
		r->verdict = CHK_LIMIT;
	}
	X.states_kept = true;
	return chk_xp_save_trace(r);
}
