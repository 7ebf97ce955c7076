/* SPDX-License-Identifier: MIT */
/*
 * sim/sim_machine.h - a simulated machine: a topology plus a cache cost model.
 *
 * Every data region (a per-CID or per-CPU area) remembers which CPU last
 * wrote it and when.  A burst touching it costs, per 64-byte line,
 *     compute + latency(where the line is) / mlp
 * where "where the line is" follows from the distance class between the
 * current CPU and the last writer, and from the age of the write:
 *
 *   | last writer            | age <= private_keep  | older                 |
 *   |------------------------|----------------------|-----------------------|
 *   | never                  | dram                 | dram                  |
 *   | same CPU / SMT sibling | l2 (own private)     | l3 (flushed to LLC)   |
 *   | same cluster / LLC     | c2c_llc (core->core) | l3                    |
 *   | same package           | c2c_pkg              | c2c_pkg               |
 *   | other package          | c2c_remote           | c2c_remote            |
 *
 * One set of constants per processor family (struct sim_costs), with its
 * sources in docs/sim.md; the same constants serve every configuration and
 * policy.  The scan costs of the CID compaction are derived from the same
 * latencies: visiting a CPU's slot reads one line owned near that CPU, a
 * release is one atomic RMW on such a line.
 */
#ifndef CIDKIT_SIM_MACHINE_H
#define CIDKIT_SIM_MACHINE_H

#include <stdint.h>

#include <cidkit/topo.h>

#define SIM_LINE_BYTES 64u
#define SIM_NOBODY UINT32_MAX

struct sim_costs {
	const char *name;
	double compute_ns; /* work per line of the burst itself */
	double l2_ns;	   /* hit in own private cache */
	double l3_ns;	   /* hit in own LLC */
	double c2c_llc_ns; /* line owned by another core of the LLC */
	double c2c_pkg_ns; /* line owned by a core of another LLC, same package */
	double c2c_remote_ns; /* line owned by a core of the other package */
	double dram_ns;	   /* never cached */
	double mlp;	   /* misses in flight during a sequential burst */
	uint64_t private_keep_ns; /* idle time after which private caches are flushed */
};

struct sim_machine {
	char *spec;		/* the spec it was built from (a copy) */
	struct cidk_topo *topo;
	const struct sim_costs *costs;
	unsigned int nr_cpu_ids;
	double lat[CIDK_DIST_NR]; /* derived: latency per distance class, fresh */
	double *visit_mean; /* per CPU: mean slot-visit cost, computed on demand */
	/*
	 * Per scanning CPU (NULL until it scans): the visit cost of every
	 * possible CPU in order, then the whole pass's sum (a full pass is
	 * the common call), so that a pass is a sum over an array, or one
	 * load, instead of a distance lookup per CPU.  Only on machines of at most
	 * SIM_VISIT_ROWS_MAX CPUs (8 MB at most); larger ones walk.
	 */
	double **visit_row;
	/*
	 * Per CPU, for sim_distance(): its group ids at SMT, cluster, LLC,
	 * die and package (cidk_topo_group_id(); nr_cpu_ids where it has
	 * none), and whether it is online.  Five compares
	 * instead of cidk_topo_distance()'s level walk and mask tests, which
	 * had 21% of the default locality table's instructions.
	 */
	uint32_t *dist_key; /* nr_cpu_ids x SIM_DIST_KEYS */
	uint8_t *dist_online; /* nr_cpu_ids */
	/*
	 * sim_distance() of every pair, row @a at [a * nr_cpu_ids], on
	 * machines of at most SIM_VISIT_ROWS_MAX CPUs (1 MB at most; NULL on
	 * larger ones): one load where the keys take a loop of compares, on
	 * paths that run per event (an mm-mask transfer, a burst).
	 */
	uint8_t *dist;
};

#define SIM_DIST_KEYS 5

/*
 * sim_distance_keys - cidk_topo_distance(m->topo, a, b), from the machine's
 * precomputed group ids (tests/sim/cost.c compares the two on every pair
 * of several machines).
 */
static inline enum cidk_topo_dist sim_distance_keys(const struct sim_machine *m,
						    unsigned int a,
						    unsigned int b)
{
	static const enum cidk_topo_dist dist[SIM_DIST_KEYS] = {
		CIDK_DIST_SMT, CIDK_DIST_CLUSTER, CIDK_DIST_LLC, CIDK_DIST_PKG,
		CIDK_DIST_PKG,
	};
	const uint32_t *ka, *kb;

	if (a >= m->nr_cpu_ids || b >= m->nr_cpu_ids || !m->dist_online[a] ||
	    !m->dist_online[b])
		return CIDK_DIST_REMOTE;
	ka = &m->dist_key[(size_t)a * SIM_DIST_KEYS];
	kb = &m->dist_key[(size_t)b * SIM_DIST_KEYS];
	if (a == b)
		return CIDK_DIST_SAME_CPU;
	for (unsigned int i = 0; i < SIM_DIST_KEYS; i++)
		if (ka[i] != m->nr_cpu_ids && ka[i] == kb[i])
			return dist[i];
	return CIDK_DIST_REMOTE;
}

/*
 * sim_distance - cidk_topo_distance(m->topo, a, b): one load from the
 * machine's table of every pair where it has one, else sim_distance_keys().
 */
static inline enum cidk_topo_dist sim_distance(const struct sim_machine *m,
					       unsigned int a, unsigned int b)
{
	if (m->dist && a < m->nr_cpu_ids && b < m->nr_cpu_ids)
		return (enum cidk_topo_dist)m->dist[(size_t)a * m->nr_cpu_ids + b];
	return sim_distance_keys(m, a, b);
}

#define SIM_VISIT_ROWS_MAX 1024u

struct sim_region {
	uint32_t last_cpu; /* SIM_NOBODY: never written */
	uint64_t last_time;
};

/*
 * sim_machine_init - the machine @spec (a preset or spec string of
 * cidk_topo_from_spec()) with the cost constants of its processor family.
 * Returns 0, or a negative errno with @err filled.
 */
int sim_machine_init(struct sim_machine *m, const char *spec,
		     struct cidk_topo_err *err);
void sim_machine_fini(struct sim_machine *m);

/*
 * sim_machine_get - a machine for @spec, as sim_machine_init() builds it,
 * in *@out: the one the last sim_machine_put() left, when it was built from
 * the same spec (not "host": sysfs may change), else a new one.  A machine
 * holds no state of a run (its on-demand tables depend only on the spec),
 * so a run on a reused machine computes the same bytes as on a new one,
 * and a table of many runs on one machine (sim locality: 40) builds the
 * topology, distances and visit rows once instead of once per run.
 * Returns 0, or a negative errno with @err filled.
 *
 * sim_machine_put - done with @m (from sim_machine_get(), or NULL): it is
 * kept for the next get, and the machine kept before it is freed.  The one
 * machine kept at exit stays reachable (not a leak).
 *
 * MT-safe: the kept machine is one atomic pointer, taken by exchange, so a
 * machine belongs to one run at a time; two runs at once build two.
 */
int sim_machine_get(struct sim_machine **out, const char *spec,
		    struct cidk_topo_err *err);
void sim_machine_put(struct sim_machine *m);

/* The cost constants used for machine spec @spec (never NULL). */
const struct sim_costs *sim_costs_for(const char *spec);

/*
 * sim_region_cost - ns for @cpu to touch @lines lines of @r at @now
 * (without changing @r).
 */
double sim_region_cost(const struct sim_machine *m, const struct sim_region *r,
		       unsigned int cpu, uint64_t now, unsigned int lines);

/* sim_region_write - @cpu wrote @r, finishing at @now. */
static inline void sim_region_write(struct sim_region *r, unsigned int cpu,
				    uint64_t now)
{
	r->last_cpu = cpu;
	r->last_time = now;
}

/* ns for @cpu to get one line last written by @owner. */
static inline double sim_line_cost(const struct sim_machine *m,
				   unsigned int cpu, unsigned int owner)
{
	return m->lat[sim_distance(m, cpu, owner)];
}

/*
 * ns for a scan on @cpu to visit CPU @other: two lines @other owns (its
 * (mm, CPU) slot, and its runqueue's current task: is it running the mm
 * right now, so that a release must be deferred?).
 */
static inline double sim_scan_visit_cost(const struct sim_machine *m,
					 unsigned int cpu, unsigned int other)
{
	return 2 * sim_line_cost(m, cpu, other);
}

/*
 * sim_scan_cost - @visited times the mean slot-visit cost from @cpu over
 * all online CPUs, O(1) from group sizes: the price of work whose CPUs are
 * not known (a compaction call's releases, each two remote RMWs).  Visits
 * whose CPUs are known use sim_scan_range_cost().
 */
double sim_scan_cost(struct sim_machine *m, unsigned int cpu,
		     unsigned int visited);

/*
 * sim_scan_range_cost - ns for a scan on @cpu to visit CPUs @first ..
 * @first + @count - 1 (possible CPUs in order, as the compaction pass
 * walks them): each online one by its distance, an offline one as a hit
 * in the scanner's LLC (its slot is memory no core writes).  The same sum,
 * in the same order, whether from the cached row or the walk: the result
 * does not depend on the cache.
 */
double sim_scan_range_cost(struct sim_machine *m, unsigned int cpu,
			   unsigned int first, unsigned int count);

#endif /* CIDKIT_SIM_MACHINE_H */
