/* SPDX-License-Identifier: MIT */
/*
 * tests/check/statecache_selftest.c - the state cache (check/statecache.h)
 * on a model small enough to work out by hand.  A loads x and keeps it in
 * a local across its next event, which may start only once B has
 * finished; B stores x = 1, then x = 0; then A stores y = the local.  The
 * final check wants y == 0.  Every schedule ends in the same shared state
 * when B finishes (x = 0, y = 0, A waiting for its event, B last), but A's
 * local is 1 exactly when its load ran between B's two stores -- which
 * takes one explorer switch (B starts, stores 1, A starts*, loads 1, B
 * stores 0, A begins its event, stores y = 1: 7 steps).  A cache that
 * took the shared state and the pending steps for the whole state would
 * skip that schedule at B's last store, as a state seen before (with A's
 * local 0), and pass.  With A storing 0 instead of its local (NOLOCAL),
 * the two states are one: the cache must skip the second visit (an
 * execution it ends still counts as a schedule: fewer steps).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chk.h"
#include "statecache.h"
#include "tap.h"

static struct {
	bool nolocal;
	_Atomic unsigned int x, y;
	bool await, bdone; /* A waits at its event; B finished */
} M;

static void reset(void *ctx)
{
	(void)ctx;
	atomic_store(&M.x, 0);
	atomic_store(&M.y, 0);
	M.await = false;
	M.bdone = false;
}

static void thread(void *ctx, unsigned int tid)
{
	(void)ctx;
	if (tid == 0) {
		unsigned int a = cidk__ld(&M.x);

		M.await = true;
		chk_event();
		M.await = false;
		cidk__st(&M.y, M.nolocal ? 0 : a);
	} else {
		cidk__st(&M.x, 1);
		cidk__st(&M.x, 0);
		M.bdone = true;
	}
}

static bool enabled(void *ctx, unsigned int tid)
{
	(void)ctx;
	return tid != 0 || !M.await || M.bdone; /* A's event waits for B */
}

static int check_final(void *ctx, char *why, size_t len)
{
	(void)ctx;
	if (atomic_load(&M.y)) {
		snprintf(why, len, "y is %u", atomic_load(&M.y));
		return -1;
	}
	return 0;
}

static void full_state(void *ctx, struct chk_fp *f)
{
	(void)ctx;
	chk_fp_u64(f, atomic_load(&M.x));
	chk_fp_u64(f, atomic_load(&M.y));
	chk_fp_u64(f, (uint64_t)M.await << 1 | M.bdone);
}

static uint64_t state_hash(void *ctx)
{
	(void)ctx;
	return atomic_load(&M.x) | (uint64_t)atomic_load(&M.y) << 8 |
	       (uint64_t)M.await << 16 | (uint64_t)M.bdone << 17;
}

static const char *name(void *ctx, unsigned int tid)
{
	(void)ctx;
	return tid ? "B" : "A";
}

static const struct chk_model model = {
	.nthreads = 2,
	.reset = reset,
	.thread = thread,
	.enabled = enabled,
	.check_final = check_final,
	.thread_name = name,
	.state_hash = state_hash,
	.full_state = full_state,
};

/* "BBA*..": the trace's threads, * after a switch (one at a time) */
static const char *tids(const struct chk_result *r)
{
	static char buf[2][64];
	static unsigned int k;
	char *b = buf[k++ & 1];
	size_t n = 0;

	for (unsigned int i = 0; i < r->trace_len && n + 3 < 64; i++) {
		b[n++] = r->trace[i].tid ? 'B' : 'A';
		if (r->trace[i].preempt)
			b[n++] = '*';
	}
	b[n] = '\0';
	return b;
}

static void run(bool nolocal, bool cache, struct chk_result *r)
{
	struct chk_opts o;

	memset(&o, 0, sizeof(o));
	o.preemptions = 2;
	o.max_steps = 1000;
	o.sleep_sets = true;
	o.keep_searching = true;
	o.state_cache = cache;
	M.nolocal = nolocal;
	if (chk_explore(&model, &o, r))
		abort();
}

int main(void)
{
	struct chk_result r0, r1;

	if (!chk_state_cache_available()) {
		printf("1..0 # SKIP no state cache in this build (ASan's fake "
		       "stacks, or no x86-64 coroutine switch)\n");
		return 0;
	}
	run(false, false, &r0);
	ok(r0.verdict == CHK_VIOLATION && r0.bound == 1 &&
	   r0.trace_len == 7 && r0.trace_preemptions == 1,
	   "without the cache: y = 1 in 7 steps with 1 explorer switch "
	   "(verdict %d, bound %u, %u steps, %u switches)", r0.verdict,
	   r0.bound, r0.trace_len, r0.trace_preemptions);
	run(false, true, &r1);
	ok(r1.verdict == CHK_VIOLATION && r1.bound == 1 &&
	   r1.trace_len == 7 && r1.trace_preemptions == 1,
	   "with the cache: the same violation -- A's local, on its stack, "
	   "tells the two states apart (verdict %d, bound %u, %u steps)",
	   r1.verdict, r1.bound, r1.trace_len);
	ok(!strcmp(tids(&r0), "BBA*ABAA") && !strcmp(tids(&r1), "BBA*ABAA"),
	   "the same trace, by hand: B starts, stores 1; A starts (the "
	   "switch), loads 1; B stores 0; A begins, stores 1 (%s, %s)",
	   tids(&r0), tids(&r1));
	chk_result_free(&r0);
	chk_result_free(&r1);

	run(true, false, &r0);
	run(true, true, &r1);
	ok(r0.verdict == CHK_PASS && r1.verdict == CHK_PASS &&
	   r0.states == r1.states,
	   "A stores 0: a pass with and without the cache, the same %lu "
	   "distinct states (%lu with the cache)", r0.states, r1.states);
	ok(r1.cache_hits >= 1 && r1.schedules <= r0.schedules &&
	   r1.steps < r0.steps,
	   "... and the cache skips the state B's last store reaches again "
	   "(%lu hits; schedules %lu -> %lu, steps %lu -> %lu)",
	   r1.cache_hits, r0.schedules, r1.schedules, r0.steps, r1.steps);
	chk_result_free(&r0);
	chk_result_free(&r1);
	return done_testing();
}
