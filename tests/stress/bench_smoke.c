/* SPDX-License-Identifier: MIT */
/*
 * Smoke test of the real-hardware benchmarks at tiny sizes (also under
 * ThreadSanitizer): bench burst with every mode, 3 rounds, 1 ms delay, on
 * (up to) two CPUs, and bench pipe with threads and processes.
 *
 * burst: every available mode ran every burst; cpu mode used exactly each
 * thread's own CPU; every lease CID stayed below its bound (and the pool);
 * with one thread at a time, bitmap and inherit hand out CID 0 only (the
 * lowest free bit; inherit's "last CID" of each task is 0 since tasks never
 * overlap), while cache-local spreads to one CID per thread.  An injected
 * fault (every bound lowered to 1) must show up as out-of-bounds bursts.
 * pipe: every placement measured, at least one switch per round trip on
 * one CPU, and a side that cannot be pinned fails cleanly (no hang).
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include <cidkit/mask.h>

#include "bench_burst.h"
#include "bench_pipe.h"
#include "tap.h"

#define ROUNDS 3u

static struct cidk_mask *first_cpus(unsigned int want, unsigned int *n)
{
	struct cidk_mask *m = cidk_mask_alloc(CPU_SETSIZE);
	cpu_set_t set;

	*n = 0;
	if (!m || sched_getaffinity(0, sizeof(set), &set))
		return m;
	for (unsigned int c = 0; c < CPU_SETSIZE && *n < want; c++)
		if (CPU_ISSET(c, &set)) {
			cidk_mask_set(m, c);
			(*n)++;
		}
	return m;
}

static const struct bench_burst_mode_result *
find_mode(const struct bench_burst_result *r, const char *name)
{
	struct bench_burst_mode want;

	if (bench_burst_mode_parse(name, &want))
		return NULL;
	for (unsigned int m = 0; m < r->nr_modes; m++)
		if (r->mode[m].mode.index == want.index &&
		    (want.index != BENCH_BURST_LEASE ||
		     r->mode[m].mode.policy == want.policy))
			return &r->mode[m];
	return NULL;
}

static void test_mode_names(void)
{
	struct bench_burst_mode all[BENCH_BURST_MAX_MODES], m;
	unsigned int n = bench_burst_all_modes(all);
	char name[BENCH_BURST_NAME_MAX];
	bool round_trip = true;

	ok(n == 2 + CIDK_CID_NR_POLICIES, "all modes: cpu, kernel-cid and %u leases (%u)",
	   CIDK_CID_NR_POLICIES, n);
	for (unsigned int i = 0; i < n; i++) {
		bench_burst_mode_name(&all[i], name);
		if (bench_burst_mode_parse(name, &m) || m.index != all[i].index ||
		    (m.index == BENCH_BURST_LEASE && m.policy != all[i].policy))
			round_trip = false;
	}
	ok(round_trip, "every mode name parses back to its mode");
	ok(bench_burst_mode_parse("lease:nope", &m) == -EINVAL &&
		   bench_burst_mode_parse("lease:", &m) == -EINVAL &&
		   bench_burst_mode_parse("CPU", &m) == -EINVAL &&
		   bench_burst_mode_parse("", &m) == -EINVAL,
	   "unknown mode names are -EINVAL");
}

static void test_burst(const struct cidk_mask *cpus, unsigned int t)
{
	struct bench_burst_config cfg = { .cpus = cpus, .rounds = ROUNDS,
					  .delay_ns = 1000000, .bytes = 16384,
					  .seed = 7 };
	struct bench_burst_result r;
	int rc;

	cfg.nr_modes = bench_burst_all_modes(cfg.modes);
	rc = bench_burst_run(&cfg, &r);
	ok(rc == 0, "burst: %u threads, %u rounds, every mode (rc %d)", t,
	   ROUNDS, rc);
	if (rc)
		return;
	ok(r.nr_threads == t && r.nr_modes == cfg.nr_modes,
	   "burst: result has %u threads and %u modes", t, cfg.nr_modes);
	/* the probe may find no slot under heavy load: only sanity here */
	diag("line probe: %.0f ns before, %.0f after", r.line_rtt_before_ns,
	     r.line_rtt_after_ns);
	ok(r.line_rtt_before_ns >= 0 && r.line_rtt_before_ns < 1e9 &&
		   r.line_rtt_after_ns >= 0 && r.line_rtt_after_ns < 1e9 &&
		   (t >= 2 || (r.line_rtt_before_ns == 0 &&
			       r.line_rtt_after_ns == 0)),
	   "burst: line probe results are plausible (0 with one thread)");
	for (unsigned int m = 0; m < r.nr_modes; m++) {
		const struct bench_burst_mode_result *mr = &r.mode[m];
		char name[BENCH_BURST_NAME_MAX];

		bench_burst_mode_name(&mr->mode, name);
		if (!mr->available) {
			ok(mr->mode.index == BENCH_BURST_KERNEL_CID &&
				   mr->bursts == 0,
			   "%s: unavailable (no mm_cid here), no bursts", name);
			continue;
		}
		ok(mr->bursts == (uint64_t)ROUNDS * t && mr->ns.min > 0 &&
			   mr->hot_ns.min > 0,
		   "%s: %llu bursts (want %u), each timed", name,
		   (unsigned long long)mr->bursts, ROUNDS * t);
		ok(mr->distinct >= 1 && mr->max_index >= 0 &&
			   (unsigned int)mr->max_index < r.pool_cids &&
			   mr->skipped == 0,
		   "%s: CIDs %u distinct, largest %d, inside the pool of %u",
		   name, mr->distinct, mr->max_index, r.pool_cids);
		if (mr->mode.index == BENCH_BURST_LEASE)
			ok(mr->out_of_bounds == 0 &&
				   (unsigned int)mr->max_index < mr->bound &&
				   mr->bound <= t,
			   "%s: every lease CID below the bound %u (threads %u)",
			   name, mr->bound, t);
	}

	{
		const struct bench_burst_mode_result *cpu = find_mode(&r, "cpu");
		bool own = cpu != NULL;

		for (unsigned int i = 0; own && i < t; i++)
			own = cidk_mask_weight(cpu->thread_used[i]) == 1 &&
			      cidk_mask_test(cpu->thread_used[i],
					     r.thread_cpu[i]);
		ok(own, "cpu: every thread indexed exactly its own CPU");
	}
	{
		const struct bench_burst_mode_result *b = find_mode(&r, "lease:bitmap");
		const struct bench_burst_mode_result *in = find_mode(&r, "lease:inherit");
		const struct bench_burst_mode_result *cl = find_mode(&r, "lease:cache-local");

		ok(b && b->distinct == 1 && b->max_index == 0,
		   "lease:bitmap: one thread at a time always gets CID 0");
		ok(in && in->distinct == 1 && in->max_index == 0,
		   "lease:inherit: tasks never overlap, so every task's last CID is 0");
		ok(cl && cl->distinct == t,
		   "lease:cache-local: spreads to one CID per thread (%u, want %u)",
		   cl ? cl->distinct : 0, t);
	}
	bench_burst_result_free(&r);

	/* Injected fault: every bound lowered to 1 must be noticed. */
	if (t >= 2) {
		cfg.nr_modes = 0;
		bench_burst_mode_parse("cpu", &cfg.modes[cfg.nr_modes++]);
		bench_burst_mode_parse("lease:cache-local",
				       &cfg.modes[cfg.nr_modes++]);
		cfg.rounds = 1;
		cfg.bound_limit = 1;
		rc = bench_burst_run(&cfg, &r);
		ok(rc == 0 && r.mode[0].out_of_bounds >= 1 &&
			   r.mode[1].out_of_bounds >= 1 && r.mode[1].bound == 1,
		   "fault injected (bounds lowered to 1): the CID-1 bursts are "
		   "counted out of bounds (cpu %llu, cache-local %llu)",
		   rc ? 0ull : (unsigned long long)r.mode[0].out_of_bounds,
		   rc ? 0ull : (unsigned long long)r.mode[1].out_of_bounds);
		if (!rc)
			bench_burst_result_free(&r);
	}
}

static void test_burst_errors(const struct cidk_mask *cpus)
{
	struct bench_burst_config cfg = { .cpus = cpus, .rounds = 1,
					  .bytes = 64 };
	struct bench_burst_result r;
	struct cidk_mask *bad = cidk_mask_alloc(CPU_SETSIZE);
	cpu_set_t set;
	unsigned int c;

	cfg.nr_modes = bench_burst_all_modes(cfg.modes);
	cfg.rounds = 0;
	ok(bench_burst_run(&cfg, &r) == -EINVAL, "burst: 0 rounds is -EINVAL");
	cfg.rounds = 1;
	cfg.bytes = 0;
	ok(bench_burst_run(&cfg, &r) == -EINVAL, "burst: 0 bytes is -EINVAL");
	cfg.bytes = 64;
	cfg.modes[1] = cfg.modes[0];
	ok(bench_burst_run(&cfg, &r) == -EINVAL,
	   "burst: a duplicate mode is -EINVAL");
	cfg.nr_modes = bench_burst_all_modes(cfg.modes);

	/* a CPU this process may not use: the worker cannot pin itself */
	if (bad && !sched_getaffinity(0, sizeof(set), &set)) {
		for (c = 0; c < CPU_SETSIZE && CPU_ISSET(c, &set); c++)
			;
		if (c < CPU_SETSIZE) {
			cidk_mask_set(bad, c);
			cfg.cpus = bad;
			ok(bench_burst_run(&cfg, &r) == -EINVAL,
			   "burst: CPU %u (not allowed) fails with -EINVAL", c);
		}
	}
	cidk_mask_free(bad);
}

static void test_pipe(const struct cidk_mask *cpus, unsigned int t,
		      bool processes)
{
	unsigned int a = cidk_mask_next(cpus, 0);
	struct bench_pipe_config cfg = {
		.loops = 300, .runs = 2, .processes = processes, .cpu_a = a,
		.cpu_b = t >= 2 ? cidk_mask_next(cpus, a + 1) : a,
		.two_cpus = t >= 2,
	};
	const char *what = processes ? "processes" : "threads";
	struct bench_pipe_result r;
	cpu_set_t set;
	int rc = bench_pipe_run(&cfg, &r);

	ok(rc == 0, "pipe (%s): runs (rc %d)", what, rc);
	if (rc)
		return;
	for (int p = 0; p < BENCH_PIPE_NR; p++) {
		bool want = p != BENCH_PIPE_TWO_CPUS || t >= 2;

		ok(r.p[p].measured == want &&
			   (!want || (r.p[p].us.n == cfg.runs &&
				      r.p[p].us.min > 0)),
		   "pipe (%s): %s %s", what, bench_pipe_placement_name[p],
		   want ? "measured in every run" : "skipped on one CPU");
	}
	ok(r.p[BENCH_PIPE_SAME_CPU].voluntary +
			   r.p[BENCH_PIPE_SAME_CPU].involuntary >=
		   (uint64_t)cfg.loops * cfg.runs,
	   "pipe (%s): on one CPU at least one switch per round trip "
	   "(%llu voluntary + %llu involuntary for %u)",
	   what, (unsigned long long)r.p[BENCH_PIPE_SAME_CPU].voluntary,
	   (unsigned long long)r.p[BENCH_PIPE_SAME_CPU].involuntary,
	   cfg.loops * cfg.runs);
	ok(!strcmp(r.rusage_scope,
		   processes ? "RUSAGE_SELF" : "RUSAGE_THREAD"),
	   "pipe (%s): switches from %s", what, r.rusage_scope);

	/* A side that cannot pin itself: an error, not a hang. */
	if (!sched_getaffinity(0, sizeof(set), &set)) {
		unsigned int c;

		for (c = 0; c < CPU_SETSIZE && CPU_ISSET(c, &set); c++)
			;
		if (c < CPU_SETSIZE) {
			cfg.cpu_b = c;
			cfg.two_cpus = true;
			ok(bench_pipe_run(&cfg, &r) == -EINVAL,
			   "pipe (%s): a side pinned to CPU %u (not allowed) "
			   "fails with -EINVAL, its partner does not hang",
			   what, c);
		}
	}
	cfg.cpu_b = cfg.cpu_a;
	cfg.two_cpus = true;
	ok(bench_pipe_run(&cfg, &r) == -EINVAL,
	   "pipe (%s): two CPUs that are the same CPU is -EINVAL", what);
	cfg.two_cpus = false;
	cfg.loops = 0;
	ok(bench_pipe_run(&cfg, &r) == -EINVAL, "pipe (%s): 0 loops is -EINVAL",
	   what);
}

int main(void)
{
	unsigned int t;
	struct cidk_mask *cpus = first_cpus(2, &t);

	if (!cpus || !t)
		skip_all("cannot read this process's CPUs");
	diag("%u CPU(s) used", t);
	test_mode_names();
	test_burst(cpus, t);
	test_burst_errors(cpus);
	test_pipe(cpus, t, false);
	test_pipe(cpus, t, true);
	cidk_mask_free(cpus);
	return done_testing();
}
