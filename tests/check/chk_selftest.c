/* SPDX-License-Identifier: MIT */
/*
 * tests/check/chk_selftest.c - the explorer on models small enough to know
 * every answer by hand (built with CIDK_CHECKER, like the explorer):
 *   - a counter incremented with a load and a store by two threads: lost
 *     update; the shortest trace is the two loads, then the two stores,
 *     with one preemption, and no schedule without a preemption finds it;
 *   - the same counter with one atomic add, and with a lock: correct;
 *   - two locks taken in opposite orders: a deadlock (liveness);
 *   - a thread spinning on a flag nobody sets: a live lock, and the same
 *     spinner with a thread that sets the flag: passes;
 *   - determinism (same model, same bounds: same trace bytes), sleep sets
 *     agree with the plain search on every verdict here, and PCT finds the
 *     lost update;
 *   - what the bound cuts, counted by hand (ATOMIC: the 6 interleavings of
 *     A's two steps with B's two; AB AB and BA BA need 2 switches);
 *   - --max-steps: a loop that repeats one state for ever is a live lock,
 *     a long run that keeps changing the state is a limit, a cycle that
 *     starves a thread able to run is dropped (another schedule runs it);
 *   - corruption: a step on an index out of range, or on a CID with a flag
 *     bit left in it, is a violation before it runs, never a crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chk.h"
#include "tap.h"

enum kind { RACY, ATOMIC, LOCKED, DEADLOCK, SPIN_ALONE, SPIN_SET,
	    LOOP_ALONE, LOOP_FLAG, LONG_RUN, OUT_OF_RANGE, FLAG_BITS };

static struct {
	enum kind kind;
	_Atomic unsigned int c, l1, l2, flag;
	_Atomic unsigned int arr[4];
} M;

/* an index the compiler cannot see through */
static volatile unsigned int bad_index;

static void reset(void *ctx)
{
	(void)ctx;
	atomic_store(&M.c, 0);
	atomic_store(&M.l1, 0);
	atomic_store(&M.l2, 0);
	atomic_store(&M.flag, 0);
	for (unsigned int i = 0; i < 4; i++)
		atomic_store(&M.arr[i], 0);
}

static void thread(void *ctx, unsigned int tid)
{
	unsigned int v;

	(void)ctx;
	switch (M.kind) {
	case RACY:
		v = cidk__ld(&M.c);
		cidk__st(&M.c, v + 1);
		break;
	case ATOMIC:
		cidk__add(&M.c, 1);
		break;
	case LOCKED:
		cidk__lock(&M.l1);
		v = cidk__ld(&M.c);
		cidk__st(&M.c, v + 1);
		cidk__unlock(&M.l1);
		break;
	case DEADLOCK:
		cidk__lock(tid ? &M.l2 : &M.l1);
		cidk__lock(tid ? &M.l1 : &M.l2);
		cidk__unlock(&M.l1);
		cidk__unlock(&M.l2);
		break;
	case SPIN_ALONE:
	case SPIN_SET:
		if (tid == 0) {
			while (!cidk__ld(&M.flag))
				cidk__spin_wait();
		} else if (M.kind == SPIN_SET) {
			cidk__st(&M.flag, 1);
		}
		break;
	case LOOP_ALONE: /* A stores 1, 0, 1, 0 ... for ever; B: nothing */
	case LOOP_FLAG:	 /* ... until B sets the flag */
		if (tid == 0) {
			while (M.kind == LOOP_ALONE || !cidk__ld(&M.flag)) {
				cidk__st(&M.c, 1);
				cidk__st(&M.c, 0);
			}
		} else if (M.kind == LOOP_FLAG) {
			cidk__st(&M.flag, 1);
		}
		break;
	case LONG_RUN: /* A counts to 100000: a new state every step */
		if (tid == 0)
			for (unsigned int i = 0; i < 100000; i++)
				cidk__add(&M.c, 1);
		break;
	case OUT_OF_RANGE: /* arr[4] of 4 */
	case FLAG_BITS:	   /* arr[1 | 0x40000000]: a CID with a flag bit */
		if (tid == 0) {
			cidk__st(&M.arr[1], 1);
			/* (through an integer: no bounds check of our own) */
			(void)cidk__ld((_Atomic unsigned int *)
				       ((uintptr_t)M.arr +
					bad_index * sizeof(M.arr[0])));
		}
		break;
	}
}

static uint64_t state_hash(void *ctx)
{
	uint64_t h = 0;

	(void)ctx;
	h = atomic_load(&M.c) | (uint64_t)atomic_load(&M.flag) << 32 |
	    (uint64_t)atomic_load(&M.l1) << 40 | (uint64_t)atomic_load(&M.l2) << 48;
	for (unsigned int i = 0; i < 4; i++)
		h = h * 31 + atomic_load(&M.arr[i]);
	return h;
}

static bool addr_valid(void *ctx, const void *a)
{
	(void)ctx;
	return a == &M.c || a == &M.l1 || a == &M.l2 || a == &M.flag ||
	       ((const char *)a >= (const char *)M.arr &&
		(const char *)a < (const char *)(M.arr + 4));
}

static int check_final(void *ctx, char *why, size_t len)
{
	(void)ctx;
	if (M.kind <= LOCKED && atomic_load(&M.c) != 2) {
		snprintf(why, len, "counter is %u, want 2", atomic_load(&M.c));
		return -1;
	}
	return 0;
}

static const char *name(void *ctx, unsigned int tid)
{
	(void)ctx;
	return tid ? "B" : "A";
}

static const char *addr_name(void *ctx, const void *a, char *buf, size_t len)
{
	(void)ctx;
	snprintf(buf, len, "%s", a == &M.c ? "c" : a == &M.l1 ? "l1" :
				 a == &M.l2 ? "l2" : a == &M.flag ? "flag" : "?");
	return buf;
}

static const struct chk_model model = {
	.nthreads = 2,
	.reset = reset,
	.thread = thread,
	.check_final = check_final,
	.thread_name = name,
	.addr_name = addr_name,
	.addr_valid = addr_valid,
	.state_hash = state_hash,
};

static struct chk_opts opts(unsigned int p, bool sleep_sets)
{
	struct chk_opts o;

	memset(&o, 0, sizeof(o));
	o.preemptions = p;
	o.max_steps = 1000;
	o.sleep_sets = sleep_sets;
	o.keep_searching = true;
	return o;
}

static enum chk_verdict run(enum kind k, unsigned int p, bool sleep_sets,
			    struct chk_result *r)
{
	struct chk_opts o = opts(p, sleep_sets);

	M.kind = k;
	if (chk_explore(&model, &o, r))
		abort();
	return r->verdict;
}

static char *trace_text(const struct chk_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	chk_print_trace(f, &model, r);
	fclose(f);
	return buf;
}

int main(void)
{
	struct chk_result r, r2;
	enum chk_verdict v;
	char *a, *b;

	/* the lost update */
	v = run(RACY, 0, true, &r);
	ok(v == CHK_PASS && r.schedules >= 1,
	   "racy counter, no preemption: passes (%lu schedules)", r.schedules);
	chk_result_free(&r);
	v = run(RACY, 2, true, &r);
	ok(v == CHK_VIOLATION &&
	   !strcmp(r.property, "final") && r.bound == 1,
	   "racy counter: violation '%s' (%s) at preemption bound %u",
	   r.property, r.why, r.bound);
	/* A: start, load; B: start, load, store; A: store -- 6 steps */
	ok(r.trace_len == 6 && r.trace_preemptions == 1 &&
	   r.trace[1].op == CIDK__OP_LOAD && r.trace[1].tid == 0 &&
	   r.trace[3].op == CIDK__OP_LOAD && r.trace[3].tid == 1 &&
	   r.trace[4].op == CIDK__OP_STORE && r.trace[5].op == CIDK__OP_STORE &&
	   r.trace[5].tid == 0 && r.trace[5].found == 1 && r.trace[5].left == 1,
	   "racy counter: the shortest trace is both loads before both stores "
	   "(%u steps, %u preemption)", r.trace_len, r.trace_preemptions);
	a = trace_text(&r);
	ok(strstr(a, "load c = 0") && strstr(a, "store c: 1 (unchanged)"),
	   "racy counter: the trace names the word and the values");
	diag("racy counter trace:");
	for (char *line = strtok(b = strdup(a), "\n"); line;
	     line = strtok(NULL, "\n"))
		diag("%s", line);
	free(b);
	run(RACY, 2, true, &r2);
	b = trace_text(&r2);
	ok(!strcmp(a, b) && r.schedules == r2.schedules,
	   "deterministic: the same trace bytes and schedule count twice");
	free(a);
	free(b);
	chk_result_free(&r2);
	v = run(RACY, 2, false, &r2);
	ok(v == CHK_VIOLATION &&
	   r2.trace_len == r.trace_len && r2.schedules >= r.schedules,
	   "without sleep sets: the same violation, %lu schedules vs %lu",
	   r2.schedules, r.schedules);
	chk_result_free(&r2);
	chk_result_free(&r);

	/* correct counters */
	for (int s = 0; s < 2; s++) {
		v = run(ATOMIC, 3, s, &r);
	ok(v == CHK_PASS && r.bound == 3 &&
		   r.schedules >= 2,
		   "atomic add counter passes (sleep sets %d, %lu schedules)", s,
		   r.schedules);
		chk_result_free(&r);
		v = run(LOCKED, 3, s, &r);
	ok(v == CHK_PASS && r.schedules >= 2,
		   "locked counter passes (sleep sets %d, %lu schedules)", s,
		   r.schedules);
		chk_result_free(&r);
	}

	/* liveness */
	v = run(DEADLOCK, 2, true, &r);
	ok(v == CHK_VIOLATION &&
	   !strcmp(r.property, "liveness") && strstr(r.why, "waits") &&
	   strstr(r.why, "held by"),
	   "opposite lock orders: deadlock reported (%s)", r.why);
	chk_result_free(&r);
	v = run(SPIN_ALONE, 2, true, &r);
	ok(v == CHK_VIOLATION &&
	   !strcmp(r.property, "liveness") && strstr(r.why, "spins"),
	   "a spinner nobody releases: live lock reported (%s)", r.why);
	chk_result_free(&r);
	v = run(SPIN_SET, 2, true, &r);
	ok(v == CHK_PASS,
	   "a spinner whose flag another thread sets: passes (%lu schedules)",
	   r.schedules);
	chk_result_free(&r);

	/*
	 * What the bound cuts, by hand.  ATOMIC: A and B each take 2 steps
	 * (start, add).  Bound 1, no sleep set can apply (two writes to c):
	 * AABB, ABBA, BAAB, BBAA run; ABAB and BABA need a second switch,
	 * refused once each (after ABA's prefix AB, after BA): cut 2.  Bound
	 * 2: all 6 run, nothing cut: exhaustive.  RACY at bound 0: AAABBB and
	 * BBBAAA run; at each of the 2 + 2 points where the running thread
	 * could go on, the other is refused: cut 4.
	 */
	/* (the search runs bounds 0, 1, ... in turn: AABB and BBAA at 0) */
	v = run(ATOMIC, 1, true, &r);
	ok(v == CHK_PASS && r.schedules == 2 + 4 && r.cut == 2,
	   "bound 1: 2 + 4 schedules, the bound cut 2 (got %lu, %lu)",
	   r.schedules, r.cut);
	chk_result_free(&r);
	v = run(ATOMIC, 2, true, &r);
	ok(v == CHK_PASS && r.schedules == 2 + 4 + 6 && r.cut == 0 &&
	   !r.step_cuts,
	   "bound 2: all 6 schedules, nothing cut (got %lu, %lu)", r.schedules,
	   r.cut);
	chk_result_free(&r);
	v = run(RACY, 0, false, &r);
	ok(v == CHK_PASS && r.schedules == 2 && r.cut == 4,
	   "racy counter, bound 0: 2 schedules, the bound cut 4 (got %lu, %lu)",
	   r.schedules, r.cut);
	chk_result_free(&r);

	/* --max-steps: a loop, a long run, an unfair cycle */
	v = run(LOOP_ALONE, 0, true, &r);
	ok(v == CHK_VIOLATION && !strcmp(r.property, "liveness") &&
	   strstr(r.why, "no progress") && strstr(r.why, "cycle of 2 step"),
	   "a loop storing 1, 0, 1, 0 for ever: a live lock (%s)", r.why);
	chk_result_free(&r);
	v = run(LONG_RUN, 0, true, &r);
	ok(v == CHK_LIMIT && r.step_cuts == 2 && !r.schedule_limit,
	   "counting to 100000 (max-steps 1000): a limit, 2 executions cut "
	   "(verdict %d, %lu cut)", v, r.step_cuts);
	chk_result_free(&r);
	v = run(LOOP_FLAG, 0, true, &r);
	ok(v == CHK_PASS && r.starved == 1 && !r.step_cuts,
	   "a loop that B's store ends: the schedule that never runs B is "
	   "dropped (%lu), B first passes (verdict %d)", r.starved, v);
	chk_result_free(&r);

	/* corruption: reported, never run */
	bad_index = 4;
	v = run(OUT_OF_RANGE, 0, true, &r);
	ok(v == CHK_VIOLATION && !strcmp(r.property, "corruption") &&
	   strstr(r.why, "outside the shared state") &&
	   strstr(r.why, "next step, load") && r.trace_len == 2 &&
	   r.trace[1].op == CIDK__OP_STORE,
	   "a load of arr[4] of 4: a corruption announced by the step before "
	   "it (2 steps: start, store; got %u), not run (%s)",
	   r.trace_len, r.why);
	chk_result_free(&r);
	bad_index = 1u | 0x40000000u;
	v = run(FLAG_BITS, 2, true, &r);
	ok(v == CHK_VIOLATION && !strcmp(r.property, "corruption") &&
	   r.trace_len == 2,
	   "arr[1 | 0x40000000] (a CID with a flag bit): a corruption, no crash");
	chk_result_free(&r);

	/* PCT */
	{
		struct chk_opts o = opts(0, false);

		o.random = 200;
		o.seed = 7;
		o.pct_depth = 2;
		M.kind = RACY;
		v = chk_explore(&model, &o, &r) ? CHK_LIMIT : r.verdict;
		ok(v == CHK_VIOLATION && r.schedules == 200,
		   "PCT (depth 2, 200 runs) finds the lost update");
		chk_result_free(&r);
		M.kind = ATOMIC;
		v = chk_explore(&model, &o, &r) ? CHK_LIMIT : r.verdict;
		ok(v == CHK_PASS,
		   "PCT on the atomic counter: passes");
		chk_result_free(&r);
	}
	return done_testing();
}
