/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench call [--calls N] [--reps R] [--json]
 */
#include <getopt.h>
#include <string.h>

#include "bench_call.h"
#include "cli.h"
#include "cmds.h"

static const char usage[] =
	"usage: cidkit bench call [--calls N] [--reps R] [--json]\n"
	"\n"
	"What a domain-affine call costs, domains = each CPU, this thread bound\n"
	"to the first CPU (A), side by side (the ways interleaved in every\n"
	"repetition, N calls each way):\n"
	"  plain_call         fn(arg) through a pointer, the floor\n"
	"  call_on_local      cidk_call_on() to A's domain: runs inline\n"
	"  handoff_same_cpu   cidk_call_handoff() to A's worker (same CPU)\n"
	"  handoff_other_cpu  cidk_call_on() to B's domain: B's worker\n"
	"ns per call, median and min-max over R repetitions, and ratios to\n"
	"call_on_local.\n"
	"\n"
	"  --calls N  calls per way per repetition (default 2000)\n"
	"  --reps R   repetitions (default 21)\n"
	"  --json     one JSON object\n";

int cmd_bench_call(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "calls", required_argument, NULL, 'n' },
		{ "reps", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int calls = 2000, reps = 21;
	struct bench_call_result r;
	bool json = false;
	double base;
	int c, rc, nways;

	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (cli_parse_uint("bench call: --calls", optarg, 1,
					   10000000, &calls))
				return CLI_EXIT_USAGE;
			break;
		case 'r':
			if (cli_parse_uint("bench call: --reps", optarg, 1,
					   100000, &reps))
				return CLI_EXIT_USAGE;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return CLI_EXIT_OK;
		default:
			return cli_bad_option("bench call", argv, c);
		}
	}
	if (optind != argc)
		return cli_extra_arg("bench call", argv[optind]);
	rc = bench_call_run(calls, reps, &r);
	if (rc)
		return cli_error("bench call: %s", strerror(-rc));
	nways = r.cpu_b >= 0 ? BENCH_CALL_NR : BENCH_CALL_NR - 1;
	base = r.ns[BENCH_CALL_DIRECT].median;

	if (json) {
		printf("{\"calls\": %u, \"reps\": %u, \"cpu_a\": %d, "
		       "\"cpu_b\": %d",
		       r.calls, r.reps, r.cpu_a, r.cpu_b);
		for (int w = 0; w < nways; w++)
			printf(", \"%s\": {\"median_ns\": %.1f, \"min_ns\": "
			       "%.1f, \"max_ns\": %.1f, \"ratio\": %.2f}",
			       bench_call_way_name[w], r.ns[w].median,
			       r.ns[w].min, r.ns[w].max,
			       base > 0 ? r.ns[w].median / base : 0);
		puts("}");
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
