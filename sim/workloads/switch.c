/* SPDX-License-Identifier: MIT */
/*
 * The switch scenario: the mm CPU-mask traffic of every context switch
 * (clear on the previous mm, set on the next), with and without skipping
 * the idle mm, and the CID-bitmap atomics each policy adds per switch.
 */
#include <string.h>

#include "cidkit_lab.h"
#include "sim_workload.h"

int cidk_sim_switch(const struct cidk_sim_sched_params *p,
		    struct cidk_sim_switch_result *r, struct cidk_topo_err *err)
{
	const struct sim_sched_stats *st;
	uint64_t t0 = cidk__now_ns();
	struct wl w;
	double n;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = wl_setup(&w, p, err);
	if (!rc)
		rc = sim_sched_run(&w.s, p->duration_ns);
	if (rc)
		goto out;
	st = &w.s.st;
	n = st->switches ? (double)st->switches : 1;
	r->nr_cpus = cidk_topo_nr_online(w.m.topo);
	r->switches = st->switches;
	r->mask_atomics_per_switch = st->mask_atomics / n;
	r->mask_transfers_per_switch = st->mask_transfers / n;
	r->idle_transfers_per_switch = st->idle_mask_transfers / n;
	r->mask_ns_per_switch = st->mask_ns / n;
	/* the CID counters of every mm of the workload: sums, and maxima */
	for (unsigned int i = 0; i < w.s.nr_mms; i++) {
		struct cidk_cid_stats one;

		cidk_cid_stats(w.s.mms[i]->cid, &one);
		r->stats.bitmap_rmw += one.bitmap_rmw;
		r->stats.bitmap_search += one.bitmap_search;
		r->stats.compaction_calls += one.compaction_calls;
		r->stats.compaction_cpus += one.compaction_cpus;
		r->stats.compaction_releases += one.compaction_releases;
		r->stats.deferred_releases += one.deferred_releases;
		r->stats.handovers += one.handovers;
		r->stats.cid_changes += one.cid_changes;
		r->stats.allocations += one.allocations;
		r->stats.slot_rmw += one.slot_rmw;
		r->stats.migrate_moves += one.migrate_moves;
		r->stats.mode_switches += one.mode_switches;
		r->stats.fixup_walks += one.fixup_walks;
		r->stats.fixup_visits += one.fixup_visits;
		r->stats.transit_drops += one.transit_drops;
		r->stats.stalls += one.stalls;
		if (one.compaction_max_cpus > r->stats.compaction_max_cpus)
			r->stats.compaction_max_cpus = one.compaction_max_cpus;
		if (one.max_cid > r->stats.max_cid)
			r->stats.max_cid = one.max_cid;
	}
	r->cid_rmw_per_switch = r->stats.bitmap_rmw / n;
	r->handovers_per_switch = r->stats.handovers / n;
	r->events = w.s.e.processed;
out:
	wl_teardown(&w);
	r->host_seconds = (double)(cidk__now_ns() - t0) / 1e9;
	return rc;
}
