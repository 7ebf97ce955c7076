/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench percpu [--threads N] [--iters N] [--reps R] [--json]
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cidkit/percpu.h>

#include "bench_args.h"
#include "bench_percpu.h"
#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"
#include "json.h"
#include "opt.h"

static const char about[] =
	"ns per increment of a per-CPU counter, N threads each doing the\n"
	"increments, in one interleaved run:\n"
	"  rseq-add:cpu     cidk_percpu_add_index(.., CIDK_PERCPU_CPU_ID, 1)\n"
	"  rseq-add:mm_cid  cidk_percpu_add_index(.., CIDK_PERCPU_MM_CID, 1)\n"
	"  atomic-fallback  cidk_percpu_add_atomic: the path without rseq\n"
	"  mm_cid+atomic    the kernel's mm_cid, then an atomic add on its copy\n"
	"  lease:POLICY     cidk_lease_enter, a plain add on the CID's copy,\n"
	"                   cidk_lease_exit (every policy)\n"
	"  shared-atomic    one atomic counter shared by all threads\n"
	"  mutex            one counter under a pthread_mutex\n"
	"the operations of librseq's set (docs/percpu.md), each adding 1:\n"
	"  add_on, cmpeqv_relaxed_on, cmpeqv_cmpeqv_on, trystorev[_release]_on,\n"
	"  trymemcpy16[_release]_on (16 bytes copied), deref_addv (:cpu and\n"
	"  :mm_cid), pop+push (cmpnev_storeoffp_load then cmpeqv_storev, one\n"
	"  pair counted), atomic:OP (the atomic path of OP, called directly)\n"
	"Every repetition checks that the counter grew by exactly N x iters\n"
	"(else: exit 1).  The table shows median, min and max over the\n"
	"repetitions of the mean per-thread CPU ns per increment (thread CPU\n"
	"time: preemption by other work is not counted, nor a mutex waiter's\n"
	"sleep), the ratio to\n"
	"rseq-add:cpu, the path the cidk_percpu rows took (rseq or atomic, see\n"
	"`cidkit cid`) and the critical sections the kernel aborted (all\n"
	"threads, all repetitions).\n";

int cmd_bench_percpu(int argc, char **argv)
{
	static const struct bench_loop_cmd c = {
		"bench percpu", about, "threads",
		"increments per thread per repetition",
		"{\"results\": [{\"what\", \"threads\", \"ns_per_op\", "
		"\"aborts\", \"path\"}, ...]} with the medians",
		1000000,
	};
	struct bench_loop_args a;
	struct bench_percpu_row *rows;
	unsigned int nrows;
	const char *bad = "?";
	double base;
	struct jw j;
	int rc;

	rc = bench_loop_args(&c, argc, argv, &a);
	if (rc)
		return opt_status(rc);

	rc = bench_percpu_run(a.threads, a.iters, a.reps, &rows, &nrows, &bad);
	if (rc == -EIO)
		return cli_fail("bench percpu: %s: the counter's sum is not "
				"threads x iters", bad);
	if (rc)
		return cli_error("bench percpu: %s", strerror(-rc));

	if (a.json) {
		bench_loop_json_begin(&j);
		for (unsigned int i = 0; i < nrows; i++) {
			jw_obj(&j);
			jw_kstr(&j, "what", rows[i].what);
			jw_kuint(&j, "threads", rows[i].threads);
			jw_knum(&j, "ns_per_op", rows[i].ns.median, 3);
			jw_kuint(&j, "aborts", rows[i].aborts);
			jw_kstr(&j, "path", rows[i].path);
			jw_obj_end(&j);
		}
		bench_loop_json_end(&j);
		free(rows);
		return CLI_EXIT_OK;
	}

	printf("per-CPU counter increment, %u threads x %u increments x %u "
	       "reps, interleaved (noisy on a shared machine); sums exact\n\n",
	       a.threads, a.iters, a.reps);
	printf("%-22s %7s %10s %9s %9s %11s %7s %9s\n", "what", "threads",
	       "median ns", "min ns", "max ns", "vs rseq:cpu", "path",
	       "aborts");
	base = rows[0].ns.median;
	for (unsigned int i = 0; i < nrows; i++)
		printf("%-22s %7u %10.2f %9.2f %9.2f %10.2fx %7s %9lu\n",
		       rows[i].what, rows[i].threads, rows[i].ns.median,
		       rows[i].ns.min, rows[i].ns.max,
		       base > 0 ? rows[i].ns.median / base : 0, rows[i].path,
		       rows[i].aborts);
	free(rows);
	return CLI_EXIT_OK;
}
