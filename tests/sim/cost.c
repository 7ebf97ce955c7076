/* SPDX-License-Identifier: MIT */
/*
 * The cache cost model, per distance class, on the EPYC 9654 preset: each
 * expectation is computed here from the documented constants, so a change
 * of the model's rules (not of a constant) shows.
 */
#include <math.h>
#include <string.h>

#include "sim_machine.h"
#include "tap.h"

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9 * (fabs(a) + fabs(b) + 1);
}

int main(void)
{
	struct sim_machine m;
	struct cidk_topo_err err;
	const struct sim_costs *c;
	struct sim_region r = { SIM_NOBODY, 0 };
	const unsigned int L = 256; /* 16 kB */
	const uint64_t ms = 1000000;
	double per;

	if (sim_machine_init(&m, "epyc-9654-2s", &err)) {
		ok(0, "machine epyc-9654-2s: %s %s", err.path, err.msg);
		return done_testing();
	}
	c = m.costs;
	ok(m.nr_cpu_ids == 384, "epyc-9654-2s has 384 CPUs");

	per = c->compute_ns + c->dram_ns / c->mlp;
	ok(near(sim_region_cost(&m, &r, 0, 0, L), L * per),
	   "never-written region costs DRAM");

	sim_region_write(&r, 0, 1000);
	per = c->compute_ns + c->l2_ns / c->mlp;
	ok(near(sim_region_cost(&m, &r, 0, 1000 + 10 * ms, L), L * per),
	   "same CPU, fresh: private L2");
	ok(near(sim_region_cost(&m, &r, 192, 1000 + 10 * ms, L), L * per),
	   "SMT sibling (CPU 192 of CPU 0), fresh: private L2");
	per = c->compute_ns + c->l3_ns / c->mlp;
	ok(near(sim_region_cost(&m, &r, 0, 1000 + 200 * ms, L), L * per),
	   "same CPU after 200 ms idle: flushed to the LLC");

	per = c->compute_ns + c->c2c_llc_ns / c->mlp;
	ok(near(sim_region_cost(&m, &r, 5, 1000 + ms, L), L * per),
	   "same LLC (CPU 5), fresh: core to core");
	per = c->compute_ns + c->l3_ns / c->mlp;
	ok(near(sim_region_cost(&m, &r, 5, 1000 + 200 * ms, L), L * per),
	   "same LLC, old: LLC hit");
	per = c->compute_ns + c->c2c_pkg_ns / c->mlp;
	ok(near(sim_region_cost(&m, &r, 8, 1000 + ms, L), L * per) &&
		   near(sim_region_cost(&m, &r, 8, 1000 + 999 * ms, L), L * per),
	   "other LLC of the package (CPU 8): cross-CCD, fresh or old");
	per = c->compute_ns + c->c2c_remote_ns / c->mlp;
	ok(near(sim_region_cost(&m, &r, 96, 1000 + ms, L), L * per),
	   "other package (CPU 96): socket to socket");

	ok(c->l2_ns < c->l3_ns && c->l3_ns < c->c2c_llc_ns &&
		   c->c2c_llc_ns < c->c2c_pkg_ns && c->c2c_pkg_ns < c->c2c_remote_ns,
	   "latencies grow with distance");
	ok(near(sim_scan_cost(&m, 0, 10), 10 * sim_scan_cost(&m, 0, 1)) &&
		   sim_scan_cost(&m, 0, 1) > 2 * m.lat[CIDK_DIST_LLC] &&
		   near(sim_scan_visit_cost(&m, 0, 96), 2 * c->c2c_remote_ns),
	   "scan cost is per CPU visited, mostly remote slots");
	{
		/* the O(1) mean against the plain O(CPUs) one */
		unsigned int bad = 0, other;

		for (unsigned int cpu = 0; cpu < m.nr_cpu_ids; cpu += 37) {
			double sum = 0;

			cidk_mask_for_each(other, cidk_topo_online(m.topo))
				sum += sim_scan_visit_cost(&m, cpu, other);
			bad += !near(sim_scan_cost(&m, cpu, 1), sum / m.nr_cpu_ids);
		}
		ok(!bad, "mean slot-visit cost from group sizes == plain mean");
		ok(near(sim_scan_range_cost(&m, 5, 0, m.nr_cpu_ids),
			sim_scan_cost(&m, 5, m.nr_cpu_ids)),
		   "a whole pass priced CPU by CPU == nr_cpus mean visits");
		ok(near(sim_scan_range_cost(&m, 0, 8, 8), 8 * 2 * c->c2c_pkg_ns) &&
			   near(sim_scan_range_cost(&m, 0, 96, 8),
				8 * 2 * c->c2c_remote_ns) &&
			   near(sim_scan_range_cost(&m, 0, 380, 100),
				4 * 2 * c->c2c_remote_ns),
		   "a batch is priced by where it lies (other CCD, other socket; clipped at nr_cpu_ids)");
	}
	{
		/*
		 * The cached rows against the plain walk, bit for bit (the
		 * simulator's output must not depend on the cache): every
		 * scanner of a stride, full passes, batches, clipped ranges,
		 * each asked twice (cold row, then warm).
		 */
		static const unsigned int firsts[] = { 0, 1, 15, 16, 191, 368, 383 };
		static const unsigned int counts[] = { 1, 8, 16, 32, 384, 400 };
		double **rows = m.visit_row;
		unsigned int differ = 0, tried = 0;

		for (unsigned int cpu = 0; cpu < m.nr_cpu_ids; cpu += 7)
			for (unsigned int f = 0; f < 7; f++)
				for (unsigned int k = 0; k < 6; k++)
					for (int pass = 0; pass < 2; pass++) {
						double cached, walked;

						m.visit_row = rows;
						cached = sim_scan_range_cost(&m, cpu, firsts[f], counts[k]);
						m.visit_row = NULL;
						walked = sim_scan_range_cost(&m, cpu, firsts[f], counts[k]);
						differ += memcmp(&cached, &walked, sizeof(double)) != 0;
						tried++;
					}
		m.visit_row = rows;
		ok(rows && !differ, "cached scan rows == the walk, bit for bit (%u ranges)", tried);
	}
	sim_machine_fini(&m);
	/*
	 * sim_distance() (the machine's table of pairs) and sim_distance_keys()
	 * (its precomputed group ids, what machines too large for a table use) are
	 * cidk_topo_distance() on every pair of CPUs, on shapes with SMT,
	 * clusters, dies, several LLCs and packages.
	 */
	sim_machine_fini(&m);
	{
		static const char *const specs[] = {
			"epyc-9654-2s", "power-360", "2s8c2t:llc=2", "1s16c2t:llc=8:cluster=4",
			"4s4c:llc=2:die=2", "1s6c",
		};

		for (unsigned int k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
			unsigned long pairs = 0, bad = 0;

			if (sim_machine_init(&m, specs[k], &err)) {
				ok(0, "machine %s: %s %s", specs[k], err.path, err.msg);
				continue;
			}
			for (unsigned int a = 0; a <= m.nr_cpu_ids; a++)
				for (unsigned int b = 0; b <= m.nr_cpu_ids; b++, pairs++) {
					enum cidk_topo_dist d = cidk_topo_distance(m.topo, a, b);

					bad += sim_distance(&m, a, b) != d;
					bad += sim_distance_keys(&m, a, b) != d;
				}
			ok(bad == 0 && pairs > 1 && m.dist,
			   "%s: sim_distance (its table) and sim_distance_keys == cidk_topo_distance on %lu pairs (%lu differ)",
			   specs[k], pairs, bad);
			sim_machine_fini(&m);
		}
	}
	/*
	 * sim_machine_get/put: a put machine serves the next get of its spec;
	 * two gets at once build two; another spec builds anew; a bad one fails.
	 */
	{
		struct sim_machine *a = NULL, *b = NULL, *x = NULL;

		ok(!sim_machine_get(&a, "2s8c", &err) &&
			   !sim_machine_get(&b, "2s8c", &err) && a != b &&
			   a->nr_cpu_ids == 16 && !strcmp(b->spec, "2s8c"),
		   "sim_machine_get: two at once are two machines");
		sim_machine_put(a); /* kept */
		sim_machine_put(b); /* kept, a freed */
		ok(!sim_machine_get(&x, "2s8c", &err) && x == b,
		   "sim_machine_get: the machine put last serves its spec again");
		/* its on-demand rows are as a new machine computes them */
		sim_scan_range_cost(x, 3, 0, x->nr_cpu_ids);
		sim_machine_put(x);
		ok(!sim_machine_get(&x, "2s8c", &err) && x == b && x->visit_row[3],
		   "sim_machine_get: ... with what it computed on demand");
		if (!sim_machine_init(&m, "2s8c", &err)) {
			ok(sim_scan_range_cost(&m, 3, 0, m.nr_cpu_ids) ==
				   x->visit_row[3][x->nr_cpu_ids] &&
				   sim_scan_range_cost(&m, 3, 5, 7) ==
					   sim_scan_range_cost(x, 3, 5, 7),
			   "a reused machine prices a scan as a new one, bit for bit");
			sim_machine_fini(&m);
		}
		sim_machine_put(x);
		ok(!sim_machine_get(&x, "1s6c", &err) && x->nr_cpu_ids == 6 &&
			   !strcmp(x->spec, "1s6c"),
		   "sim_machine_get: another spec, a new machine");
		sim_machine_put(x);
		x = NULL;
		ok(sim_machine_get(&x, "9s9q", &err) < 0 && !x && err.msg[0],
		   "sim_machine_get: a bad spec fails with a message");
	}
	return done_testing();
}
