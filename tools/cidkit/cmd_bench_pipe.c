/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench pipe [--loops N] [--runs R] [--processes] [--cpus LIST] [--json]
 */
#include <errno.h>
#include <string.h>

#include <cidkit/mask.h>

#include "bench_pipe.h"
#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"
#include "cpus_opt.h"

#define PIPE_MAX_LOOPS 10000000u
#define PIPE_MAX_RUNS 1000u
/* loops x runs x 3 placements, at >= 1 µs each: keep it under ~15 min */
#define PIPE_MAX_TOTAL 300000000ull

static const char about[] =
	"The context-switch round trip: two threads (or, with --processes, two\n"
	"forked processes, so that each switch also changes mm) pass one byte\n"
	"back and forth through two pipes.  Each run times N round trips after\n"
	"a warm-up; R runs of each placement, interleaved:\n"
	"  same CPU   both pinned to the first CPU\n"
	"  two CPUs   one on the first CPU, one on the second\n"
	"  unpinned   both free on the CPUs this process may use\n"
	"Prints microseconds per round trip (median, min-max over runs) and\n"
	"the voluntary/involuntary context switches of both sides (getrusage:\n"
	"RUSAGE_THREAD per thread, or RUSAGE_SELF in each process).\n";

static void print_json(const struct bench_pipe_result *r)
{
	const struct bench_pipe_config *c = &r->cfg;
	const char *key[BENCH_PIPE_NR] = { "same_cpu", "two_cpus",
					   "unpinned" };

	struct jw j;

	jw_init(&j, stdout);
	jw_obj(&j);
	jw_kstr(&j, "sides", c->processes ? "processes" : "threads");
	jw_kuint(&j, "loops", c->loops);
	jw_kuint(&j, "runs", c->runs);
	jw_kuint(&j, "cpu_a", c->cpu_a);
	if (c->two_cpus)
		jw_kuint(&j, "cpu_b", c->cpu_b);
	else
		jw_knull(&j, "cpu_b");
	jw_kstr(&j, "rusage", r->rusage_scope);
	jw_key(&j, "placements");
	jw_obj(&j);
	for (int p = 0; p < BENCH_PIPE_NR; p++) {
		const struct bench_pipe_placement_result *pr = &r->p[p];
		double rts = (double)c->loops * c->runs;

		jw_break(&j, "\n  ");
		jw_key(&j, key[p]);
		if (!pr->measured) {
			jw_null(&j);
			continue;
		}
		jw_obj(&j);
		jw_knum(&j, "median_us", pr->us.median, 3);
		jw_knum(&j, "min_us", pr->us.min, 3);
		jw_knum(&j, "max_us", pr->us.max, 3);
		jw_kuint(&j, "voluntary", pr->voluntary);
		jw_kuint(&j, "involuntary", pr->involuntary);
		jw_knum(&j, "voluntary_per_round_trip", (double)pr->voluntary / rts, 3);
		jw_knum(&j, "involuntary_per_round_trip",
			(double)pr->involuntary / rts, 4);
		jw_obj_end(&j);
	}
	jw_obj_end(&j);
	jw_obj_end(&j);
	jw_end(&j);
}

static void print_human(const struct bench_pipe_result *r)
{
	const struct bench_pipe_config *c = &r->cfg;
	double rts = (double)c->loops * c->runs;

	printf("pipe round trip between two %s, %u round trips x %u runs per "
	       "placement (interleaved)\n",
	       c->processes ? "processes" : "threads", c->loops, c->runs);
	if (c->two_cpus)
		printf("CPUs: same = %u, two = %u and %u\n\n", c->cpu_a,
		       c->cpu_a, c->cpu_b);
	else
		printf("CPUs: same = %u (one CPU given: no 'two CPUs' row)\n\n",
		       c->cpu_a);
	printf("%-10s %10s %10s %10s %12s %14s\n", "placement", "median us",
	       "min us", "max us", "vol/trip", "invol (total)");
	for (int p = 0; p < BENCH_PIPE_NR; p++) {
		const struct bench_pipe_placement_result *pr = &r->p[p];

		if (!pr->measured)
			continue;
		printf("%-10s %10.2f %10.2f %10.2f %12.2f %14llu\n",
		       bench_pipe_placement_name[p], pr->us.median, pr->us.min,
		       pr->us.max, (double)pr->voluntary / rts,
		       (unsigned long long)pr->involuntary);
	}
	printf("\nswitches: getrusage(%s) of both sides around their timed "
	       "loops, all runs\n",
	       r->rusage_scope);
}

int cmd_bench_pipe(int argc, char **argv)
{
	struct bench_pipe_config cfg = { .loops = 2000, .runs = 11 };
	struct cidk_mask *allowed = NULL, *cpus = NULL;
	const char *cpus_arg = NULL;
	struct bench_pipe_result res;
	bool json = false;
	struct opt opts[] = {
		{ OPT_UINT("loops", 0, &cfg.loops, 1, PIPE_MAX_LOOPS, "N",
			   "round trips per run") },
		{ OPT_UINT("runs", 0, &cfg.runs, 1, PIPE_MAX_RUNS, "R",
			   "runs per placement") },
		{ OPT_FLAG("processes", 0, &cfg.processes,
			   "two processes instead of two threads") },
		{ OPT_STRING("cpus", 0, &cpus_arg, "LIST",
			     "one or two allowed CPUs, a cpulist; with one, "
			     "'two CPUs' is skipped"),
		  .def = "the first two allowed CPUs" },
		{ OPT_FLAG("json", 0, &json, "one JSON object instead of the table") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { "bench pipe", about, NULL, NULL, 0, 0, opts };
	int rc, first;

	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	rc = CLI_EXIT_USAGE;
	if ((unsigned long long)cfg.loops * cfg.runs * BENCH_PIPE_NR >
	    PIPE_MAX_TOTAL)
		return cli_error("bench pipe: --loops %u x --runs %u is too many "
				 "round trips (at most %llu in all)",
				 cfg.loops, cfg.runs,
				 PIPE_MAX_TOTAL / BENCH_PIPE_NR);

	allowed = cpus_opt_allowed("bench pipe");
	if (!allowed)
		goto out;
	if (cpus_arg) {
		cpus = cpus_opt_parse("bench pipe: --cpus", cpus_arg, allowed);
		if (!cpus)
			goto out;
		if (cidk_mask_weight(cpus) > 2) {
			rc = cli_error("bench pipe: --cpus: give one or two CPUs, "
				       "not %u", cidk_mask_weight(cpus));
			goto out;
		}
	} else {
		cpus = allowed; /* the first two of them */
	}
	cfg.cpu_a = cidk_mask_next(cpus, 0);
	cfg.cpu_b = cidk_mask_next(cpus, cfg.cpu_a + 1);
	cfg.two_cpus = cfg.cpu_b < cpus->nbits;
	if (!cfg.two_cpus)
		cfg.cpu_b = cfg.cpu_a;

	rc = bench_pipe_run(&cfg, &res);
	if (rc) {
		rc = cli_fail("bench pipe: %s", strerror(-rc));
		goto out;
	}
	if (json)
		print_json(&res);
	else
		print_human(&res);
	rc = CLI_EXIT_OK;
out:
	if (cpus != allowed)
		cidk_mask_free(cpus);
	cidk_mask_free(allowed);
	return rc;
}
