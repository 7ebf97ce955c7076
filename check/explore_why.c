/* SPDX-License-Identifier: MIT */
/*
 * check/explore_why.c - why an execution failed, in words: a step on an
 * address outside the shared state, threads that cannot go on.
 */
#include <stdio.h>

#include "explore_int.h"

static const char *const op_names[] = {
	[CIDK__OP_LOAD] = "load", [CIDK__OP_STORE] = "store",
	[CIDK__OP_RMW] = "rmw", [CIDK__OP_CAS] = "cas",
	[CIDK__OP_LOCK] = "lock", [CIDK__OP_UNLOCK] = "unlock",
};

/* @tid's pending step would touch memory outside the shared state. */
void chk_xp_corrupt_why(unsigned int tid, char *why, size_t len)
{
	const struct thr *t = &X.t[tid];

	snprintf(why, len,
		 "%s's next step, %s at %s:%u %s, is on an address outside "
		 "the shared state (an index out of range, or a CID with flag "
		 "bits left in it); it was not run",
		 X.m->thread_name(X.m->ctx, tid), op_names[t->op],
		 chk_short_file(t->site.file), t->site.line,
		 t->site.func ? t->site.func : "?");
}

/*
 * Nothing can run, and every thread left waits at the start of an event
 * (the model does not enable it: its CPU is taken, it is not forked):
 * the scenario's script cannot finish, whatever the code under test does.
 */
bool chk_xp_only_events_wait(void)
{
	for (unsigned int i = 0; i < X.m->nthreads; i++)
		if (!X.t[i].finished && X.t[i].op != CHK_OP_START &&
		    X.t[i].op != CHK_OP_EVENT)
			return false;
	return true;
}

/* Why thread @i, not finished, cannot take its next step, in words. */
size_t chk_xp_wait_why(unsigned int i, char *why, size_t len)
{
	const struct thr *t = &X.t[i];
	const char *name = X.m->thread_name(X.m->ctx, i);

	if (t->op == CIDK__OP_SPIN)
		return (size_t)snprintf(why, len,
			"%s spins in %s (%s:%u) and no other thread can change what it waits for",
			name, t->site.func, chk_short_file(t->site.file),
			t->site.line);
	if (t->op == CIDK__OP_LOCK) {
		const char *holder = "?";
		char buf[64];
		const char *an = X.m->addr_name ?
			X.m->addr_name(X.m->ctx, t->addr, buf, sizeof(buf)) : NULL;

		for (unsigned int j = 0; j < X.nlocks; j++)
			if (X.lock_addr[j] == t->addr &&
			    X.lock_holder[j] != NO_THREAD)
				holder = X.m->thread_name(X.m->ctx,
							  X.lock_holder[j]);
		return (size_t)snprintf(why, len,
			"%s waits in %s (%s:%u) for lock %s, held by %s",
			name, t->site.func, chk_short_file(t->site.file),
			t->site.line, an ? an : "?", holder);
	}
	{
		char buf[96];
		const char *w = X.m->waiting ?
			X.m->waiting(X.m->ctx, i, buf, sizeof(buf)) : NULL;

		return (size_t)snprintf(why, len, "%s %s", name,
					w ? w : "cannot start its next event");
	}
}

void chk_xp_liveness_why(char *why, size_t len)
{
	size_t n = 0;

	for (unsigned int i = 0; i < X.m->nthreads && n < len; i++) {
		if (X.t[i].finished)
			continue;
		if (n)
			n += (size_t)snprintf(why + n, len - n, "; ");
		if (n < len)
			n += chk_xp_wait_why(i, why + n, len - n);
	}
}
