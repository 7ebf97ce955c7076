/* SPDX-License-Identifier: MIT */
/*
 * The scheduler scenarios with counts known by hand:
 *   switch: a 4-CPU ping-pong of two process pairs - every CPU alternates
 *     task and idle, so each switch updates two mm masks (clear prev, set
 *     next): 2 atomics per switch; skipping the idle mm leaves 1, and since
 *     each process's mask is only ever written by its own CPU, no line moves;
 *   scan: on 128 CPUs a lazy pass visits 128 CPUs in one call, a batched
 *     one 16 per call, and a batch of the other socket costs ~11x one of
 *     the scanner's own;
 *   compaction-test: on 4 CPUs the leader converges where it must, the
 *     lazy family at the first due scan after the exits, inherit and
 *     ownership at the leader's next switch-in (their bound, no scan);
 *   ownership: tasks own their CIDs, so the ping-pong does no bitmap RMW;
 *     under messaging with more threads than CPUs the mm runs per-CPU.
 */
#include <math.h>

#include <cidkit/sim.h>

#include "sim_machine.h"
#include "tap.h"

static void switch_counts(void)
{
	struct cidk_sim_sched_params p;
	struct cidk_sim_switch_result r[2];
	struct cidk_topo_err err;
	int rc[2];

	cidk_sim_sched_defaults(&p);
	p.machine = "1s4c1t";
	p.workload = CIDK_SIM_RR;
	p.cpus = 4;
	p.processes = true;
	p.policy = CIDK_CID_BITMAP;
	p.duration_ns = 2000000;
	for (int skip = 0; skip < 2; skip++) {
		p.skip_idle_mm = skip;
		rc[skip] = cidk_sim_switch(&p, &r[skip], &err);
	}
	ok(rc[0] == 0 && rc[1] == 0 && r[0].switches > 1000,
	   "4-CPU ping-pong ran (%llu switches)", (unsigned long long)r[0].switches);
	ok(r[0].mask_atomics_per_switch == 2.0,
	   "updating the idle mm: exactly 2 mask atomics per switch (%.4f)",
	   r[0].mask_atomics_per_switch);
	ok(r[1].mask_atomics_per_switch == 1.0,
	   "skipping the idle mm: exactly 1 (%.4f)", r[1].mask_atomics_per_switch);
	ok(r[1].mask_transfers_per_switch == 0.0 &&
		   r[1].idle_transfers_per_switch == 0.0,
	   "skipping: no mask line ever moves between CPUs (%.4f)",
	   r[1].mask_transfers_per_switch);
	ok(r[0].idle_transfers_per_switch > 0.5 &&
		   r[0].mask_transfers_per_switch == r[0].idle_transfers_per_switch,
	   "updating: every transfer is the idle mm's line (%.3f per switch)",
	   r[0].idle_transfers_per_switch);
	ok(r[0].switches == r[1].switches && r[0].mask_ns_per_switch > r[1].mask_ns_per_switch,
	   "same schedule both ways; skipping is cheaper (%.1f vs %.1f ns)",
	   r[0].mask_ns_per_switch, r[1].mask_ns_per_switch);
	ok(r[0].cid_rmw_per_switch == 1.0,
	   "bitmap policy, one task per mm and CPU: 1 CID-bitmap RMW per switch (%.4f)",
	   r[0].cid_rmw_per_switch);

	p.policy = CIDK_CID_OWNERSHIP;
	p.skip_idle_mm = true;
	rc[0] = cidk_sim_switch(&p, &r[0], &err);
	ok(rc[0] == 0 && r[0].switches == r[1].switches &&
		   r[0].stats.bitmap_rmw == 4 && r[0].stats.mode_switches == 0,
	   "ownership, the same ping-pong: 4 bitmap RMWs in all, one per fork "
	   "(%llu): no switch does any, no mode switch",
	   (unsigned long long)r[0].stats.bitmap_rmw);
}

/* messaging: more threads of one mm than CPUs, so ownership runs per-CPU */
static void ownership_messaging(void)
{
	struct cidk_sim_sched_params p;
	struct cidk_sim_switch_result r;
	struct cidk_topo_err err;
	int rc;

	cidk_sim_sched_defaults(&p);
	p.machine = "1s4c1t";
	p.workload = CIDK_SIM_MESSAGING;
	p.policy = CIDK_CID_OWNERSHIP;
	p.duration_ns = 20000000;
	rc = cidk_sim_switch(&p, &r, &err);
	diag("ownership, messaging on 4 CPUs: %llu switches, %llu mode switches, "
	     "%llu walks, %.4f CID-bitmap RMWs per switch, largest CID %llu",
	     (unsigned long long)r.switches,
	     (unsigned long long)r.stats.mode_switches,
	     (unsigned long long)r.stats.fixup_walks, r.cid_rmw_per_switch,
	     (unsigned long long)r.stats.max_cid);
	ok(rc == 0 && r.switches > 1000 && r.stats.mode_switches >= 1 &&
		   r.stats.fixup_walks == r.stats.mode_switches &&
		   r.stats.max_cid < 4,
	   "ownership, messaging with more threads than 4 CPUs: per-CPU mode "
	   "(%llu switches, %llu walks), CIDs below 4 (max %llu)",
	   (unsigned long long)r.stats.mode_switches,
	   (unsigned long long)r.stats.fixup_walks,
	   (unsigned long long)r.stats.max_cid);
}

static void scan_counts(void)
{
	struct cidk_sim_sched_params p;
	struct cidk_sim_scan_result r;
	struct cidk_topo_err err;
	struct sim_machine m;
	double visit;
	int rc;

	sim_machine_init(&m, "2s32c2t", &err);
	cidk_sim_sched_defaults(&p);
	p.workload = CIDK_SIM_PERIODIC;
	p.duration_ns = 350 * 1000000ull;
	p.policy = CIDK_CID_LAZY;
	rc = cidk_sim_scan(&p, &r, &err);
	visit = sim_scan_cost(&m, 0, 1);
	ok(rc == 0 && r.calls >= 3 && r.stats.compaction_max_cpus == 128 &&
		   r.passes == r.calls,
	   "lazy on 128 CPUs: each call is a full pass of 128 CPUs (%llu calls)",
	   (unsigned long long)r.calls);
	ok(r.max_us * 1000 > 127 * visit && r.max_us * 1000 < 129 * 2 * visit,
	   "a full pass costs ~128 visits (%.2f us, visit %.1f ns)", r.max_us, visit);
	ok(r.bound == 128 && r.max_cid < 128, "CIDs stay below the bound (%u < %u)",
	   r.max_cid, r.bound);

	p.policy = CIDK_CID_LAZY_BATCHED;
	p.batch = 16;
	p.trigger = CIDK_CID_SCAN_TICK; /* calls from CPUs all over the machine */
	rc = cidk_sim_scan(&p, &r, &err);
	ok(rc == 0 && r.stats.compaction_max_cpus == 16 &&
		   r.stats.compaction_cpus == 16 * r.calls &&
		   r.calls >= 8 * r.passes && r.passes >= 2,
	   "lazy-batched 16: 16 CPUs per call, 8 calls per pass (%llu calls, %llu passes)",
	   (unsigned long long)r.calls, (unsigned long long)r.passes);
	ok(r.max_us < 0.3 * 128 * 2 * visit / 1000,
	   "a batched call costs a fraction of a full pass (%.2f us)", r.max_us);
	ok(r.p50_us * 5 < r.max_us,
	   "batches of the scanner's socket are far cheaper than the other's (p50 %.2f, max %.2f us)",
	   r.p50_us, r.max_us);

	p.policy = CIDK_CID_INHERIT;
	rc = cidk_sim_scan(&p, &r, &err);
	ok(rc == 0 && r.calls == 0 && r.stats.compaction_calls == 0,
	   "inherit never scans");
	p.policy = CIDK_CID_OWNERSHIP;
	rc = cidk_sim_scan(&p, &r, &err);
	ok(rc == 0 && r.calls == 0 && r.stats.compaction_calls == 0 &&
		   r.max_cid < r.bound,
	   "ownership never scans; CIDs stay below the bound (%u < %u)",
	   r.max_cid, r.bound);
	sim_machine_fini(&m);
}

static void compaction_counts(void)
{
	static const enum cidk_cid_policy_kind pols[] = {
		CIDK_CID_BITMAP, CIDK_CID_LAZY, CIDK_CID_LAZY_BATCHED,
		CIDK_CID_CACHE_LOCAL, CIDK_CID_INHERIT, CIDK_CID_OWNERSHIP,
	};
	struct cidk_sim_sched_params p;
	struct cidk_sim_compaction_result r;
	struct cidk_topo_err err;

	cidk_sim_sched_defaults(&p);
	p.machine = "1s4c1t";
	p.trigger = CIDK_CID_SCAN_RETURN_TO_USER;
	for (size_t i = 0; i < sizeof(pols) / sizeof(pols[0]); i++) {
		int rc;

		p.policy = pols[i];
		rc = cidk_sim_compaction(&p, 2000000000ull, &r, &err);
		ok(rc == 0 && r.nr_cpus == 4 && r.passed,
		   "compaction-test, 4 CPUs, %s, return-to-user: leader (CID %u) sees 0 after %.3f ms",
		   cidk_cid_policy_name(pols[i]), r.leader_cid, r.converge_ms);
	}
	/*
	 * The exits give the followers' CIDs back (as the kernel's
	 * sched_mm_cid_exit_signals does), so the first due scan after them
	 * converges the leader: passes are due 100 ms apart from the first
	 * return to user (< 1 ms), so one is due within 1 ms after the exits
	 * at 200 ms; the leader runs it at its next burst and sees CID 0 at
	 * the burst after that.  Waiting for the followers' slots to expire
	 * (100 ms) would fail this bound.
	 */
	for (int k = CIDK_CID_LAZY; k <= CIDK_CID_CACHE_LOCAL; k++) {
		p.policy = (enum cidk_cid_policy_kind)k;
		cidk_sim_compaction(&p, 2000000000ull, &r, &err);
		ok(r.leader_cid >= 2 && r.converge_ms > 10 &&
			   r.converge_ms <= 2 * 10 + 1,
		   "%s: a leader with CID %u converges at the first due scan after the exits, within two leader periods (%.3f ms)",
		   cidk_cid_policy_name(p.policy), r.leader_cid, r.converge_ms);
	}
	p.policy = CIDK_CID_INHERIT;
	cidk_sim_compaction(&p, 2000000000ull, &r, &err);
	ok(r.converge_ms <= 10 + 1,
	   "inherit: at the leader's next switch, its bound is 1 (%.3f ms)",
	   r.converge_ms);
	p.policy = CIDK_CID_OWNERSHIP;
	cidk_sim_compaction(&p, 2000000000ull, &r, &err);
	ok(r.leader_cid >= 2 && r.converge_ms <= 10 + 1,
	   "ownership: the leader's CID %u >= max_cids 1 converges at its next "
	   "switch-in (%.3f ms)", r.leader_cid, r.converge_ms);
}

int main(void)
{
	switch_counts();
	ownership_messaging();
	scan_counts();
	compaction_counts();
	return done_testing();
}
