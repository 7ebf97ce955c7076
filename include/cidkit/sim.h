/* SPDX-License-Identifier: MIT */
/*
 * cidkit/sim.h - the simulator's scenarios.
 *
 * Each scenario builds a simulated machine (a topology preset plus cache
 * cost constants), drives the CID policies of cid.h through the scheduler
 * events they see in the kernel, and returns metrics.  The result is a pure
 * function of the parameters (including the seed): no real clock, no
 * global random source, events at the same time ordered by sequence.
 * Host time is measured only for the events-per-second figure, which is
 * returned apart from the deterministic metrics.
 */
#ifndef CIDKIT_SIM_H
#define CIDKIT_SIM_H

#include <stdint.h>

#include <cidkit/cid.h>
#include <cidkit/common.h>
#include <cidkit/topo.h>

/* A "policy" that indexes areas by CPU number instead of by CID. */
#define CIDK_SIM_PER_CPU (-1)

/* ---- locality: the experiment behind the cache-local policy -------------- */

struct cidk_sim_locality_params {
	const char *machine;   /* topology spec; default "epyc-9654-2s" */
	const char *config;    /* "8c1l3", "24c24l3", "192c24l3", "384t24l3" */
	uint64_t delay_ns;     /* between one burst's end and the next's start */
	int policy;	       /* enum cidk_cid_policy_kind or CIDK_SIM_PER_CPU */
	enum cidk_cid_scan_trigger trigger;
	unsigned int batch;    /* lazy-batched: CPUs per scan call */
	unsigned int rounds;   /* every thread bursts once per round; round 0 warms up */
	uint64_t seed;
	unsigned int area_bytes; /* per-thread area, default 16384 */
	uint64_t tick_ns;      /* tick period on busy CPUs, default 1 ms */
};

struct cidk_sim_locality_result {
	unsigned int nr_threads;
	uint64_t bursts;       /* measured bursts (rounds 1..R-1) */
	double ns_per_burst;   /* mean cost of the measured bursts */
	unsigned int max_cid;  /* largest CID (or CPU) used */
	uint64_t cid_changes;  /* a thread's area index differed from its last burst's */
	uint64_t bound_violations; /* CID >= min(nr_cpus_allowed, nr_users) at a burst */
	struct cidk_cid_stats stats; /* policy counters (zero for per-cpu) */
	uint64_t events;       /* events processed */
	double host_seconds;   /* not deterministic: for events per second only */
};

/* Fill @p with the defaults (config "8c1l3", delay 200 ms, cache-local). */
CIDK_EXPORT void cidk_sim_locality_defaults(struct cidk_sim_locality_params *p);

/*
 * cidk_sim_locality - run the locality scenario.  Returns 0, -EINVAL (bad
 * machine, config or parameter; @err says which) or -ENOMEM.
 */
CIDK_EXPORT int cidk_sim_locality(const struct cidk_sim_locality_params *p,
				  struct cidk_sim_locality_result *r,
				  struct cidk_topo_err *err);

/* The config names, NULL-terminated. */
CIDK_EXPORT extern const char *const cidk_sim_locality_configs[];

#endif /* CIDKIT_SIM_H */
