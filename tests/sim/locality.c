/* SPDX-License-Identifier: MIT */
/*
 * The locality scenario: exact costs where the model makes them exact,
 * determinism, and the invariants every policy keeps.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <cidkit/sim.h>

#include "sim_machine.h"
#include "tap.h"

static struct cidk_sim_locality_result run(const char *config, unsigned int delay_ms,
					   int policy, uint64_t seed, int *rc)
{
	struct cidk_sim_locality_params p;
	struct cidk_sim_locality_result r;
	struct cidk_topo_err err;

	cidk_sim_locality_defaults(&p);
	p.config = config;
	p.delay_ns = (uint64_t)delay_ms * 1000000;
	p.policy = policy;
	p.rounds = 6;
	p.seed = seed;
	*rc = cidk_sim_locality(&p, &r, &err);
	return r;
}

int main(void)
{
	const struct sim_costs *c = sim_costs_for("epyc-9654-2s");
	double hot = 256 * (c->compute_ns + c->l2_ns / c->mlp);
	struct cidk_sim_locality_result a, b;
	int rc, rc2;

	/*
	 * 8 threads, 5 ms apart: with the order reshuffled every round, a
	 * thread waits at most 14 bursts (last of one round, first of the
	 * next but one) = 70 ms + a few us, under the 100 ms private_keep:
	 * every measured burst is a private hit.
	 */
	a = run("8c1l3", 5, CIDK_SIM_PER_CPU, 1, &rc);
	ok(rc == 0 && a.nr_threads == 8 && a.bursts == 5 * 8,
	   "per-cpu 8c1l3: 8 threads, 5 measured rounds (rc %d)", rc);
	ok(fabs(a.ns_per_burst - hot) < 1e-6,
	   "per-cpu, 5 ms: every burst is a private hit (%.3f == %.3f)",
	   a.ns_per_burst, hot);
	ok(a.cid_changes == 0 && a.max_cid < 8, "per-cpu: areas never change");

	a = run("8c1l3", 5, CIDK_CID_CACHE_LOCAL, 1, &rc);
	ok(rc == 0 && fabs(a.ns_per_burst - hot) < 1e-6 && a.cid_changes == 0,
	   "cache-local, 5 ms: each thread keeps its CID, private hits (%.1f)",
	   a.ns_per_burst);

	/*
	 * inherit: a task tries its last CID first, but one task at a time
	 * means every task's last CID is 0 - it shares one area, like bitmap.
	 */
	a = run("8c1l3", 5, CIDK_CID_INHERIT, 1, &rc);
	ok(rc == 0 && a.max_cid == 0 && a.ns_per_burst > 1.5 * hot,
	   "inherit, one thread at a time: all share CID 0 (max %u, %.0f ns)",
	   a.max_cid, a.ns_per_burst);

	a = run("8c1l3", 5, CIDK_CID_BITMAP, 1, &rc);
	ok(rc == 0 && a.max_cid == 0,
	   "bitmap: one thread at a time always gets CID 0 (max %u)", a.max_cid);
	ok(a.ns_per_burst > 1.5 * hot,
	   "bitmap: CID 0's area moves between cores: %.0f > 1.5 x %.0f",
	   a.ns_per_burst, hot);

	for (int pol = CIDK_SIM_PER_CPU; pol < CIDK_CID_NR_POLICIES; pol++) {
		a = run("24c24l3", 200, pol, 5, &rc);
		b = run("24c24l3", 200, pol, 5, &rc2);
		ok(rc == 0 && rc2 == 0 && !memcmp(&a.stats, &b.stats, sizeof(a.stats)) &&
			   a.ns_per_burst == b.ns_per_burst &&
			   a.cid_changes == b.cid_changes && a.events == b.events,
		   "%s: same seed, same result", pol < 0 ? "per-cpu" :
		   cidk_cid_policy_name((enum cidk_cid_policy_kind)pol));
		ok(a.bound_violations == 0 && (pol == CIDK_SIM_PER_CPU || a.max_cid < 24),
		   "%s: CIDs stay below min(nr_cpus_allowed, nr_users) = 24 (max %u)",
		   pol < 0 ? "per-cpu" : cidk_cid_policy_name((enum cidk_cid_policy_kind)pol),
		   a.max_cid);
	}
	a = run("24c24l3", 200, CIDK_CID_LAZY, 5, &rc);
	b = run("24c24l3", 200, CIDK_CID_LAZY, 6, &rc2);
	ok(rc == 0 && rc2 == 0 && a.ns_per_burst != b.ns_per_burst &&
		   fabs(a.ns_per_burst - b.ns_per_burst) < 0.25 * a.ns_per_burst,
	   "another seed differs only slightly (%.0f vs %.0f)", a.ns_per_burst,
	   b.ns_per_burst);
	a = run("nope", 10, CIDK_CID_LAZY, 1, &rc);
	ok(rc == -EINVAL, "unknown config is -EINVAL");
	return done_testing();
}
