/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench lease [--threads N] [--iters N] [--reps R] [--json]
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_lease.h"
#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "json.h"
#include "opt.h"

static const char about[] =
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
	"lock/unlock) at enter and at exit.  Two references: kernel-mm_cid\n"
	"(reading the kernel's own mm_cid: no enter, no exit) and\n"
	"floor:cas+store (the one CAS and one release store a one-RMW lease\n"
	"cannot go below, on a line of the thread's own).\n";

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
	static const struct bench_loop_cmd c = {
		"bench lease", about, "threads of the second measurement",
		"pairs per thread per repetition",
		"{\"results\": [{\"what\", \"threads\", \"ns_per_pair\", \"pairs\", "
		"\"done\", \"rmw_per_pair\"}, ...]} with the medians; pairs timed and "
		"pairs seen doing their work (a CID in range, the mutex's counter, a won "
		"CAS, an mm_cid read)",
		200000,
	};
	struct bench_loop_args a;
	struct bench_lease_row *rows;
	unsigned int nrows;
	struct jw j;
	int rc;

	rc = bench_loop_args(&c, argc, argv, &a);
	if (rc)
		return opt_status(rc);

	rc = bench_lease_run(a.threads, a.iters, a.reps, &rows, &nrows);
	if (rc)
		return cli_error("bench lease: %s", strerror(-rc));

	if (a.json) {
		bench_loop_json_begin(&j);
		for (unsigned int i = 0; i < nrows; i++) {
			jw_obj(&j);
			jw_kstr(&j, "what", rows[i].what);
			jw_kuint(&j, "threads", rows[i].threads);
			jw_knum(&j, "ns_per_pair", rows[i].ns.median, 2);
			jw_kuint(&j, "pairs", rows[i].pairs);
			jw_kuint(&j, "done", rows[i].done);
			if (rows[i].rmw_per_pair >= 0)
				jw_knum(&j, "rmw_per_pair", rows[i].rmw_per_pair, 2);
			jw_obj_end(&j);
		}
		bench_loop_json_end(&j);
		free(rows);
		return CLI_EXIT_OK;
	}

	printf("CID lease enter+exit, %u pairs/thread x %u reps, interleaved "
	       "(noisy on a shared machine)\n\n",
	       a.iters, a.reps);
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
