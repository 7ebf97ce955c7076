/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench call [--calls N] [--reps R] [--json]
 */
#include <string.h>

#include "bench_call.h"
#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"

static const char about[] =
	"What a domain-affine call costs, domains = each CPU, this thread bound\n"
	"to the first CPU (A), side by side (the ways interleaved in every\n"
	"repetition, N calls each way):\n"
	"  plain_call         fn(arg) through a pointer, the floor\n"
	"  call_on_local      cidk_call_on() to A's domain: runs inline\n"
	"  handoff_same_cpu   cidk_call_handoff() to A's worker (same CPU)\n"
	"  handoff_other_cpu  cidk_call_on() to B's domain: B's worker\n"
	"ns per call, median and min-max over R repetitions, and ratios to\n"
	"call_on_local.\n";

int cmd_bench_call(int argc, char **argv)
{
	unsigned int calls = 2000, reps = 21;
	struct bench_call_result r;
	bool json = false;
	double base;
	struct opt opts[] = {
		{ OPT_UINT("calls", 0, &calls, 1, 10000000, "N",
			   "calls per way per repetition") },
		{ OPT_UINT("reps", 0, &reps, 1, 100000, "R", "repetitions") },
		{ OPT_FLAG("json", 0, &json, "one JSON object") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { "bench call", about, NULL, NULL, 0, 0, opts };
	struct jw j;
	int rc, nways, first;

	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	rc = bench_call_run(calls, reps, &r);
	if (rc)
		return cli_error("bench call: %s", strerror(-rc));
	nways = r.cpu_b >= 0 ? BENCH_CALL_NR : BENCH_CALL_NR - 1;
	base = r.ns[BENCH_CALL_DIRECT].median;

	if (json) {
		jw_init(&j, stdout);
		jw_obj(&j);
		jw_kuint(&j, "calls", r.calls);
		jw_kuint(&j, "reps", r.reps);
		jw_kint(&j, "cpu_a", r.cpu_a);
		jw_kint(&j, "cpu_b", r.cpu_b);
		for (int w = 0; w < nways; w++) {
			jw_key(&j, bench_call_way_name[w]);
			jw_obj(&j);
			jw_knum(&j, "median_ns", r.ns[w].median, 1);
			jw_knum(&j, "min_ns", r.ns[w].min, 1);
			jw_knum(&j, "max_ns", r.ns[w].max, 1);
			jw_knum(&j, "ratio", base > 0 ? r.ns[w].median / base : 0, 2);
			jw_obj_end(&j);
		}
		jw_obj_end(&j);
		jw_end(&j);
		return CLI_EXIT_OK;
	}
	printf("domain-affine calls: domains = each CPU (%u), caller bound to "
	       "CPU %d, other CPU %d\n%u calls per way x %u reps, interleaved "
	       "(shared VM: noisy; compare the ratios)\n\n",
	       r.ncpus, r.cpu_a, r.cpu_b, r.calls, r.reps);
	printf("%-20s %12s %12s %12s %10s\n", "way", "median ns", "min ns",
	       "max ns", "ratio");
	for (int w = 0; w < nways; w++)
		printf("%-20s %12.1f %12.1f %12.1f %9.1fx\n",
		       bench_call_way_name[w], r.ns[w].median, r.ns[w].min,
		       r.ns[w].max, base > 0 ? r.ns[w].median / base : 0);
	if (r.cpu_b < 0)
		printf("(one CPU only: no other CPU to hand off to)\n");
	printf("\nratio = median / call_on_local median\n");
	return CLI_EXIT_OK;
}
