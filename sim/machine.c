/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sim_machine.h"

/*
 * AMD Zen 4 (EPYC 9004 "Genoa"), 3.7 GHz.  Sources (docs/sim.md has them in
 * full): L2 14 cycles and L3 ~50 cycles (Chips and Cheese, Zen 4 and
 * Genoa-X articles); core-to-core 15-19 ns inside a CCX and up to ~80 ns
 * across CCDs (AnandTech, Zen 4 review, core-to-core latency); ~190 ns
 * socket to socket and ~118 ns DRAM on 2-socket Genoa (Chips and Cheese,
 * Genoa-X socket-to-socket).  compute: a 64-byte line incremented with
 * 16-byte vectors is 4 load-add-store steps, ~4 cycles.  mlp and
 * private_keep are modelling assumptions, stated in docs/sim.md.
 */
static const struct sim_costs zen4 = {
	.name = "zen4-genoa",
	.compute_ns = 4 / 3.7,
	.l2_ns = 14 / 3.7,
	.l3_ns = 50 / 3.7,
	.c2c_llc_ns = 17,
	.c2c_pkg_ns = 80,
	.c2c_remote_ns = 190,
	.dram_ns = 118,
	.mlp = 2,
	.private_keep_ns = 100ull * 1000 * 1000,
};

const struct sim_costs *sim_costs_for(const char *spec)
{
	/*
	 * Every preset and spec uses the Zen 4 constants for now: the
	 * locality table is an EPYC 9654 experiment, and the scan and switch
	 * scenarios compare policies on one machine at a time, so what
	 * matters is the ratio between distance classes, not the family.
	 */
	(void)spec;
	return &zen4;
}

/*
 * sim_distance()'s tables: the levels in cidk_topo_distance()'s order, and
 * from them the distance of every pair (small machines).
 */
static void dist_keys(struct sim_machine *m)
{
	static const enum cidk_topo_level level[SIM_DIST_KEYS] = {
		CIDK_TOPO_SMT, CIDK_TOPO_CLUSTER, CIDK_TOPO_LLC, CIDK_TOPO_DIE,
		CIDK_TOPO_PKG,
	};
	const struct cidk_mask *online = cidk_topo_online(m->topo);

	for (unsigned int c = 0; c < m->nr_cpu_ids; c++) {
		m->dist_online[c] = cidk_mask_test(online, c);
		for (unsigned int i = 0; i < SIM_DIST_KEYS; i++)
			m->dist_key[(size_t)c * SIM_DIST_KEYS + i] =
				cidk_topo_has_level(m->topo, level[i]) ?
					cidk_topo_group_id(m->topo, level[i], c) :
					m->nr_cpu_ids;
	}
	if (!m->dist)
		return;
	/* symmetric: each pair once */
	for (unsigned int a = 0; a < m->nr_cpu_ids; a++)
		for (unsigned int b = 0; b <= a; b++) {
			uint8_t d = (uint8_t)sim_distance_keys(m, a, b);

			m->dist[(size_t)a * m->nr_cpu_ids + b] = d;
			m->dist[(size_t)b * m->nr_cpu_ids + a] = d;
		}
}

int sim_machine_init(struct sim_machine *m, const char *spec,
		     struct cidk_topo_err *err)
{
	const struct sim_costs *c = sim_costs_for(spec);
	int rc;

	memset(m, 0, sizeof(*m));
	rc = cidk_topo_from_spec(spec, &m->topo, err);
	if (rc)
		return rc;
	m->spec = strdup(spec);
	if (!m->spec) {
		sim_machine_fini(m);
		return -ENOMEM;
	}
	m->costs = c;
	m->nr_cpu_ids = cidk_topo_nr_cpu_ids(m->topo);
	m->lat[CIDK_DIST_SAME_CPU] = c->l2_ns;
	m->lat[CIDK_DIST_SMT] = c->l2_ns;
	m->lat[CIDK_DIST_CLUSTER] = c->c2c_llc_ns;
	m->lat[CIDK_DIST_LLC] = c->c2c_llc_ns;
	m->lat[CIDK_DIST_PKG] = c->c2c_pkg_ns;
	m->lat[CIDK_DIST_REMOTE] = c->c2c_remote_ns;
	m->visit_mean = calloc(m->nr_cpu_ids, sizeof(*m->visit_mean));
	if (m->nr_cpu_ids <= SIM_VISIT_ROWS_MAX)
		m->visit_row = calloc(m->nr_cpu_ids, sizeof(*m->visit_row));
	m->dist_key = calloc((size_t)m->nr_cpu_ids * SIM_DIST_KEYS,
			     sizeof(*m->dist_key));
	m->dist_online = calloc(m->nr_cpu_ids, sizeof(*m->dist_online));
	if (m->nr_cpu_ids <= SIM_VISIT_ROWS_MAX)
		m->dist = malloc((size_t)m->nr_cpu_ids * m->nr_cpu_ids);
	if (!m->visit_mean || (m->nr_cpu_ids <= SIM_VISIT_ROWS_MAX && !m->visit_row) ||
	    !m->dist_key || !m->dist_online ||
	    (m->nr_cpu_ids <= SIM_VISIT_ROWS_MAX && !m->dist)) {
		sim_machine_fini(m);
		return -ENOMEM;
	}
	dist_keys(m);
	return 0;
}

void sim_machine_fini(struct sim_machine *m)
{
	cidk_topo_free(m->topo);
	free(m->spec);
	free(m->visit_mean);
	if (m->visit_row)
		for (unsigned int c = 0; c < m->nr_cpu_ids; c++)
			free(m->visit_row[c]);
	free(m->visit_row);
	free(m->dist_key);
	free(m->dist_online);
	free(m->dist);
	m->dist = NULL;
	m->dist_key = NULL;
	m->dist_online = NULL;
	m->spec = NULL;
	m->topo = NULL;
	m->visit_mean = NULL;
	m->visit_row = NULL;
}

/* The machine the last sim_machine_put() left (NULL: none). */
static _Atomic(struct sim_machine *) kept;

static void machine_free(struct sim_machine *m)
{
	if (m) {
		sim_machine_fini(m);
		free(m);
	}
}

int sim_machine_get(struct sim_machine **out, const char *spec,
		    struct cidk_topo_err *err)
{
	struct sim_machine *m = atomic_exchange(&kept, NULL);
	int rc;

	/* "host" is read from sysfs, which may change between runs: rebuilt */
	if (m && spec && strcmp(spec, "host") && !strcmp(m->spec, spec)) {
		*out = m;
		return 0;
	}
	machine_free(m);
	m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	rc = sim_machine_init(m, spec, err);
	if (rc) {
		free(m);
		return rc;
	}
	*out = m;
	return 0;
}

void sim_machine_put(struct sim_machine *m)
{
	if (m)
		machine_free(atomic_exchange(&kept, m));
}

double sim_region_cost(const struct sim_machine *m, const struct sim_region *r,
		       unsigned int cpu, uint64_t now, unsigned int lines)
{
	const struct sim_costs *c = m->costs;
	enum cidk_topo_dist d;
	double lat;

	if (r->last_cpu == SIM_NOBODY) {
		lat = c->dram_ns;
	} else {
		d = sim_distance(m, cpu, r->last_cpu);
		lat = m->lat[d];
		if (now - r->last_time > c->private_keep_ns && d <= CIDK_DIST_LLC)
			lat = c->l3_ns; /* the writer's private caches were flushed */
	}
	return lines * (c->compute_ns + lat / c->mlp);
}

/* Online CPUs in @cpu's group at @level (1 if the level is absent). */
static unsigned int group_weight(const struct sim_machine *m,
				 enum cidk_topo_level level, unsigned int cpu)
{
	/* no full-width copy per group: 65536 one-CPU groups stay cheap */
	unsigned int w = cidk_topo_group_weight(m->topo, level, cpu);

	return w ? w : 1;
}

double sim_scan_cost(struct sim_machine *m, unsigned int cpu,
		     unsigned int visited)
{
	/*
	 * The mean over all online CPUs of the visit cost, from the sizes of
	 * the nested groups around @cpu: O(1) instead of O(CPUs).  The
	 * cluster level shares the LLC's latency, so it needs no term.
	 */
	if (m->visit_mean[cpu] == 0) {
		unsigned int n = cidk_topo_nr_online(m->topo);
		unsigned int smt = group_weight(m, CIDK_TOPO_SMT, cpu);
		unsigned int llc = cidk_topo_has_level(m->topo, CIDK_TOPO_LLC)
					   ? group_weight(m, CIDK_TOPO_LLC, cpu)
					   : smt;
		unsigned int pkg = cidk_topo_has_level(m->topo, CIDK_TOPO_PKG)
					   ? group_weight(m, CIDK_TOPO_PKG, cpu)
					   : n;
		double sum = 2 * (m->lat[CIDK_DIST_SAME_CPU] +
				  (smt - 1) * m->lat[CIDK_DIST_SMT] +
				  (llc - smt) * m->lat[CIDK_DIST_LLC] +
				  (pkg - llc) * m->lat[CIDK_DIST_PKG] +
				  (n - pkg) * m->lat[CIDK_DIST_REMOTE]);

		m->visit_mean[cpu] = sum / n;
	}
	return visited * m->visit_mean[cpu];
}

/* What a scan on @cpu pays to visit possible CPU @c (< nr_cpu_ids). */
static double visit_cost(const struct sim_machine *m, unsigned int cpu,
			 unsigned int c)
{
	/* dist_online[c]: cidk_mask_test(cidk_topo_online(m->topo), c) */
	return m->dist_online[c] ? sim_scan_visit_cost(m, cpu, c)
				 : 2 * m->costs->l3_ns;
}

double sim_scan_range_cost(struct sim_machine *m, unsigned int cpu,
			   unsigned int first, unsigned int count)
{
	unsigned int end = first + count < m->nr_cpu_ids ? first + count
							 : m->nr_cpu_ids;
	const double *row = NULL;
	double ns = 0;

	if (m->visit_row && cpu < m->nr_cpu_ids) {
		if (!m->visit_row[cpu]) {
			/* [nr_cpu_ids]: the whole pass, summed in the same order */
			double *r = malloc((m->nr_cpu_ids + 1) * sizeof(*r));

			if (r) { /* else walk: slower, same sum */
				r[m->nr_cpu_ids] = 0;
				for (unsigned int c = 0; c < m->nr_cpu_ids; c++) {
					r[c] = visit_cost(m, cpu, c);
					r[m->nr_cpu_ids] += r[c];
				}
				m->visit_row[cpu] = r;
			}
		}
		row = m->visit_row[cpu];
		if (row && first == 0 && end == m->nr_cpu_ids)
			return row[end];
	}
	for (unsigned int c = first; c < end; c++)
		ns += row ? row[c] : visit_cost(m, cpu, c);
	return ns;
}
