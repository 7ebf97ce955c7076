/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench lease [--threads N] [--iters N] [--reps R] [--json]
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_lease.h"
#include "cli.h"
#include "cmds.h"

static const char usage[] =
	"usage: cidkit bench lease [--threads N] [--iters N] [--reps R] [--json]\n"
	"\n"
	"ns per CID lease enter/exit pair, for every policy, with 1 thread and\n"
	"with N threads (each thread enters and exits the same domain, whose\n"
	"capacity is the number of possible CPUs), side by side with a shared\n"
	"pthread_mutex lock/unlock pair.  The alternatives run interleaved in\n"
	"each repetition; the table shows median, min and max over repetitions\n"
	"of the mean per-thread ns per pair, the ratio to the mutex, and for\n"
	"leases the atomic RMWs per pair (bitmap + per-CPU slots, from the\n"
	"domain's cost counters; a mutex pair is 2).  Policies: bitmap, lazy,\n"
	"lazy-batched, cache-local, inherit, ownership; ownership's pair does\n"
	"no counted RMW but takes its per-CPU runqueue lock (an uncontended\n"
	"lock/unlock) at enter and at exit.\n"
	"\n"
	"  --threads N  threads of the second measurement (default: online CPUs)\n"
	"  --iters N    pairs per thread per repetition (default 200000)\n"
	"  --reps R     repetitions (default 11)\n"
	"  --json       {\"results\": [{\"what\", \"threads\", \"ns_per_pair\"}, ...]}\n"
	"               with the medians\n";

static double mutex_ns(const struct bench_lease_row *rows, unsigned int n,
		       unsigned int threads)
{
	for (unsigned int i = 0; i < n; i++)
		if (rows[i].threads == threads && !strcmp(rows[i].what, "mutex"))
			return rows[i].ns.median;
	return 0;
}

int cmd_bench_lease(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "iters", required_argument, NULL, 'i' },
		{ "reps", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int threads = online > 0 ? (unsigned int)online : 1;
	unsigned int iters = 200000, reps = 11, nrows;
	struct bench_lease_row *rows;
	bool json = false;
	int c, rc;

	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (cli_parse_uint("bench lease: --threads", optarg, 1,
					   1024, &threads))
				return CLI_EXIT_USAGE;
			break;
		case 'i':
			if (cli_parse_uint("bench lease: --iters", optarg, 1,
					   1000000000, &iters))
				return CLI_EXIT_USAGE;
			break;
		case 'r':
			if (cli_parse_uint("bench lease: --reps", optarg, 1,
					   10000, &reps))
				return CLI_EXIT_USAGE;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return CLI_EXIT_OK;
		default:
			return cli_bad_option("bench lease", argv, c);
		}
	}
	if (optind != argc)
		return cli_extra_arg("bench lease", argv[optind]);

	rc = bench_lease_run(threads, iters, reps, &rows, &nrows);
	if (rc)
		return cli_error("bench lease: %s", strerror(-rc));

	if (json) {
		printf("{\"results\": [");
		for (unsigned int i = 0; i < nrows; i++) {
			printf("%s{\"what\": ", i ? ", " : "");
			cli_json_str(stdout, rows[i].what);
			printf(", \"threads\": %u, \"ns_per_pair\": %.2f}",
			       rows[i].threads, rows[i].ns.median);
		}
		printf("]}\n");
		free(rows);
		return CLI_EXIT_OK;
	}

	printf("CID lease enter+exit, %u pairs/thread x %u reps, interleaved "
	       "(noisy on a shared machine)\n\n",
	       iters, reps);
	printf("%-20s %7s %12s %10s %10s %10s %10s\n", "what", "threads",
	       "median ns", "min ns", "max ns", "vs mutex", "RMW/pair");
	for (unsigned int i = 0; i < nrows; i++) {
		double m = mutex_ns(rows, nrows, rows[i].threads);

		if (i && rows[i].threads != rows[i - 1].threads)
			putchar('\n');
		printf("%-20s %7u %12.1f %10.1f %10.1f %9.2fx", rows[i].what,
		       rows[i].threads, rows[i].ns.median, rows[i].ns.min,
		       rows[i].ns.max, m > 0 ? rows[i].ns.median / m : 0);
		if (rows[i].rmw_per_pair >= 0)
			printf(" %10.2f\n", rows[i].rmw_per_pair);
		else
			printf(" %10s\n", "-");
	}
	free(rows);
	return CLI_EXIT_OK;
}
