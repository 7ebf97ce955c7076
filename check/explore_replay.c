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

/* The directive as written: "T1:25", "T1/2", "T1", "T1~1". */
static void directive_str(const struct chk_replay *d, char *buf, size_t len)
{
	const char *name = X.m->thread_name(X.m->ctx, d->tid);

	if (d->way)
		snprintf(buf, len, "%s~%u", name, d->way);
	else if (d->steps)
		snprintf(buf, len, "%s:%lu", name, d->steps);
	else if (d->events)
		snprintf(buf, len, "%s/%lu", name, d->events);
	else
		snprintf(buf, len, "%s", name);
}

/*
 * A directive whose thread finished, or cannot run, before it did what
 * the directive asks: how far it got, and why it stopped.  Step counts
 * are the code's: a line written under another policy, variant or mutant
 * counts other steps (the same events are other steps), so it says so;
 * event directives (T/N) are the same under every policy.
 */
static void replay_short_why(const struct chk_replay *d, const struct thr *t)
{
	const char *name = X.m->thread_name(X.m->ctx, d->tid);
	char dir[48];
	size_t n;

	directive_str(d, dir, sizeof(dir));
	n = (size_t)snprintf(X.replay_err, sizeof(X.replay_err),
			     "directive %u (%s): ", X.ri + 1, dir);
	if (d->steps)
		n += (size_t)snprintf(X.replay_err + n, sizeof(X.replay_err) - n,
				      "%s ran %lu of its %lu step(s) and ", name,
				      X.rn, d->steps);
	else if (d->events)
		n += (size_t)snprintf(X.replay_err + n, sizeof(X.replay_err) - n,
				      "%s finished %lu of its %lu event(s) and ",
				      name, X.rn, d->events);
	if (n >= sizeof(X.replay_err))
		return;
	if (t->finished)
		n += (size_t)snprintf(X.replay_err + n, sizeof(X.replay_err) - n,
				      "%s finished: it has no more steps",
				      d->steps || d->events ? "then" : name);
	else
		n += chk_xp_wait_why(d->tid, X.replay_err + n,
				     sizeof(X.replay_err) - n);
	if (d->steps && n < sizeof(X.replay_err))
		snprintf(X.replay_err + n, sizeof(X.replay_err) - n,
			 "; step counts are this code's (--policy, a mutant's build): "
			 "a line found under another one runs here only where "
			 "their steps agree; T/N counts events, the same "
			 "under every policy");
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
			replay_short_why(d, t);
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
