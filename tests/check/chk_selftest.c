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
 *     lost update.
 */
#include <stdlib.h>
#include <string.h>

#include "chk.h"
#include "tap.h"

enum kind { RACY, ATOMIC, LOCKED, DEADLOCK, SPIN_ALONE, SPIN_SET };

static struct {
	enum kind kind;
	_Atomic unsigned int c, l1, l2, flag;
} M;

static void reset(void *ctx)
{
	(void)ctx;
	atomic_store(&M.c, 0);
	atomic_store(&M.l1, 0);
	atomic_store(&M.l2, 0);
	atomic_store(&M.flag, 0);
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
	}
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
