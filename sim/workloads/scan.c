/* SPDX-License-Identifier: MIT */
/*
 * The scan scenario: how much latency the lazy policies' compaction work
 * adds to the task that runs it, how long a full pass takes when it is cut
 * into batches, and how compact the CIDs stay meanwhile.  The latency of a
 * call is the machine's cost of the slots it visited, each by its distance
 * from the scanning CPU (sim_scan_range_cost), plus its releases.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cidkit_lab.h"
#include "stats.h"
#include "sim_workload.h"

int cidk_sim_scan(const struct cidk_sim_sched_params *p,
		  struct cidk_sim_scan_result *r, struct cidk_topo_err *err)
{
	struct sim_sched_stats *st;
	uint64_t t0 = cidk__now_ns();
	struct wl w;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = wl_setup(&w, p, err);
	if (rc)
		goto out;
	w.s.sample_mm = w.main_mm;
	w.s.sample_ns = 100 * 1000;
	rc = sim_sched_run(&w.s, p->duration_ns);
	if (rc)
		goto out;

	st = &w.s.st;
	r->nr_cpus = cidk_topo_nr_online(w.m.topo);
	r->nr_tasks = w.ntasks;
	r->calls = st->scan_calls;
	cidk__sort_doubles(st->scan_ns, st->scan_calls);
	r->p50_us = cidk__percentile(st->scan_ns, st->scan_calls, 50) / 1000;
	r->p99_us = cidk__percentile(st->scan_ns, st->scan_calls, 99) / 1000;
	r->max_us = st->scan_calls ? st->scan_ns[st->scan_calls - 1] / 1000 : 0;
	r->passes = st->passes;
	cidk__sort_doubles(st->pass_ns, st->passes);
	r->full_pass_ms = cidk__percentile(st->pass_ns, st->passes, 50) / 1e6;
	r->bound = cidk_cid_max_cids(w.main_mm->cid);
	r->max_cid = st->max_cid_seen;
	if (st->cid_time && r->bound)
		r->max_cid_avg = st->cid_time_sum / (double)st->cid_time / r->bound;
	r->max_cid_max = r->bound ? (double)(st->max_cid_seen + 1) / r->bound : 0;
	cidk_cid_stats(w.main_mm->cid, &r->stats);
	r->switches = st->switches;
	r->events = w.s.e.processed;
out:
	wl_teardown(&w);
	r->host_seconds = (double)(cidk__now_ns() - t0) / 1e9;
	return rc;
}
