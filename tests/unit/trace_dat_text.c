/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/trace_dat_text.c - the trace.dat reader (trace/dat.c, through
 * libtracecmd) against trace-cmd's own reading of the same file: the
 * stored `trace-cmd report` text of tests/data/traces/cid-threads3-6.18
 * (trace-cmd's formats, not ours), read by the text reader.  Every event,
 * field by field: kind, CPU, task, the kind's fields -- sched_switch's
 * prev_state (runnable or not, which the replay's migration timing reads)
 * included -- and the time to the microsecond (report rounds to it).
 *
 * Usage: test_trace_dat_text DATA_DIR
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/trace.h>

#include "tap.h"

#define MAXEV 4096

static struct cidk_trace_event dat[MAXEV], txt[MAXEV];

/* Every event of `xz -dc PATH`, or -1. */
static int read_all(const char *path, struct cidk_trace_event *ev)
{
	char cmd[4096];
	struct cidk_trace_reader *r;
	FILE *f;
	int n = 0, rc;

	snprintf(cmd, sizeof(cmd), "xz -dc '%s'", path);
	f = popen(cmd, "r");
	if (!f || cidk_trace_reader_open(f, &r)) {
		if (f)
			pclose(f);
		return -1;
	}
	while (n < MAXEV && (rc = cidk_trace_reader_next(r, &ev[n])) == 1)
		n++;
	if (n == MAXEV || rc != 0)
		n = -1;
	cidk_trace_reader_close(r);
	pclose(f);
	return n;
}

static bool same(const struct cidk_trace_event *a, const struct cidk_trace_event *b)
{
	return a->kind == b->kind && a->cpu == b->cpu && a->pid == b->pid &&
	       (a->ts_ns + 500) / 1000 == (b->ts_ns + 500) / 1000 && a->prev_pid == b->prev_pid &&
	       a->next_pid == b->next_pid && a->prev_runnable == b->prev_runnable &&
	       a->task_pid == b->task_pid && a->child_pid == b->child_pid &&
	       a->orig_cpu == b->orig_cpu && a->dest_cpu == b->dest_cpu &&
	       a->cpu_id == b->cpu_id && a->node_id == b->node_id &&
	       a->mm_cid == b->mm_cid;
}

int main(int argc, char **argv)
{
	char p1[4096], p2[4096];
	int nd, nt, first_diff = -1, runnable = 0, sleeping = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]);
		return 2;
	}
#ifndef CIDKIT_HAVE_TRACECMD
	skip_all("built without libtracecmd: no trace.dat reader");
#endif
	snprintf(p1, sizeof(p1), "%s/cid-threads3-6.18.dat.xz", argv[1]);
	snprintf(p2, sizeof(p2), "%s/cid-threads3-6.18.report.xz", argv[1]);
	nd = read_all(p1, dat);
	nt = read_all(p2, txt);
	ok(nd > 0 && nd == nt, "both readers read the whole trace: %d events (trace.dat), %d (report)",
	   nd, nt);
	for (int i = 0; i < nd && i < nt; i++) {
		if (first_diff < 0 && !same(&dat[i], &txt[i]))
			first_diff = i;
		if (txt[i].kind == CIDK_TRACE_SWITCH) {
			runnable += txt[i].prev_runnable;
			sleeping += !txt[i].prev_runnable;
		}
	}
	if (first_diff >= 0)
		diag("event %d: trace.dat kind %d pid %d ts %" PRIu64 " prev_runnable %d; report kind %d pid %d ts %" PRIu64 " prev_runnable %d",
		     first_diff, dat[first_diff].kind, dat[first_diff].pid,
		     dat[first_diff].ts_ns, dat[first_diff].prev_runnable,
		     txt[first_diff].kind, txt[first_diff].pid,
		     txt[first_diff].ts_ns, txt[first_diff].prev_runnable);
	ok(first_diff < 0 && nd > 0, "every event as trace-cmd reads it, field by field");
	ok(runnable > 0 && sleeping > 0,
	   "the comparison covers both prev_state kinds: %d switches out runnable, %d not",
	   runnable, sleeping);
	return done_testing();
}
