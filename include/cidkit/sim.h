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

#ifdef __cplusplus
extern "C" {
#endif

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

/* ---- workloads shared by the scheduler scenarios ------------------------- */

enum cidk_sim_workload {
	CIDK_SIM_PERIODIC,  /* cyclictest-like: a thread per CPU, wakes every 100 us */
	CIDK_SIM_MESSAGING, /* hackbench-like: sender/receiver groups, wake-ups */
	CIDK_SIM_PIPE,	    /* two tasks ping-pong through wake-ups on two CPUs */
	CIDK_SIM_RR,	    /* netperf TCP_RR-like: client/server pairs on all CPUs */
};

/* "periodic", "messaging", "pipe", "rr"; NULL if unknown. */
CIDK_EXPORT const char *cidk_sim_workload_name(enum cidk_sim_workload w);
/* 0, or -EINVAL for an unknown name. */
CIDK_EXPORT int cidk_sim_workload_parse(const char *name,
					enum cidk_sim_workload *w);

struct cidk_sim_sched_params {
	const char *machine;	   /* default "2s32c2t" (128 CPUs) */
	enum cidk_sim_workload workload;
	enum cidk_cid_policy_kind policy;
	enum cidk_cid_scan_trigger trigger;
	unsigned int batch;	   /* lazy-batched */
	uint64_t duration_ns;	   /* simulated time (default 1 s) */
	uint64_t seed;
	uint64_t tick_ns;	   /* default 1 ms */
	unsigned int groups;	   /* messaging: groups (default nr_cpus / 8) */
	unsigned int group_size;   /* messaging: senders = receivers per group (default 4) */
	bool mm_per_group;	   /* messaging: one mm per group instead of one in all */
	bool processes;		   /* pipe/rr: the two sides are two mms */
	unsigned int cpus;	   /* pipe/rr: CPUs used (0: pipe 2, rr all) */
	bool skip_idle_mm;	   /* switch: skip the idle mm's mask updates */
};

/* ---- scan: latency added by the compaction work --------------------------- */

struct cidk_sim_scan_result {
	unsigned int nr_cpus, nr_tasks;
	uint64_t calls;		   /* compaction calls that did work */
	double p50_us, p99_us, max_us; /* latency added per call */
	uint64_t passes;	   /* full passes completed */
	double full_pass_ms;	   /* median time to complete a full pass */
	double max_cid_avg;	   /* time-average of (largest running CID + 1) / bound */
	double max_cid_max;	   /* largest running CID + 1 over bound, at worst */
	unsigned int max_cid;	   /* largest CID a running task held */
	unsigned int bound;	   /* min(nr_cpus_allowed, nr_users) at the end */
	struct cidk_cid_stats stats;
	uint64_t switches;
	uint64_t events;
	double host_seconds;
};

CIDK_EXPORT void cidk_sim_sched_defaults(struct cidk_sim_sched_params *p);

/* Returns 0, -EINVAL (@err says why) or -ENOMEM. */
CIDK_EXPORT int cidk_sim_scan(const struct cidk_sim_sched_params *p,
			      struct cidk_sim_scan_result *r,
			      struct cidk_topo_err *err);

/* ---- compaction-test: the kernel's mm_cid compaction selftest -------------- */

struct cidk_sim_compaction_result {
	unsigned int nr_cpus;
	unsigned int leader_cid;   /* the leader's CID when the others exited */
	bool passed;		   /* the leader saw CID 0 within the bound */
	double converge_ms;	   /* from the others' exit to CID 0 (if passed) */
	uint64_t events;
	double host_seconds;
};

/*
 * One thread pinned per CPU bursts 10 us every ms for 200 ms; then a thread
 * whose CID is >= nproc/2 becomes the leader, the others exit, and the
 * leader bursts 2 us every 10 ms for at most @bound_ns (default 2 s) until
 * it sees CID 0.  Uses machine, policy, trigger, batch, seed, tick_ns.
 */
CIDK_EXPORT int cidk_sim_compaction(const struct cidk_sim_sched_params *p,
				    uint64_t bound_ns,
				    struct cidk_sim_compaction_result *r,
				    struct cidk_topo_err *err);

/* ---- switch: bitmap traffic on the context-switch path -------------------- */

struct cidk_sim_switch_result {
	unsigned int nr_cpus;
	uint64_t switches;
	double mask_atomics_per_switch;
	double mask_transfers_per_switch;
	double idle_transfers_per_switch;
	double mask_ns_per_switch;
	double cid_rmw_per_switch;     /* CID-bitmap atomics */
	double handovers_per_switch;
	struct cidk_cid_stats stats;
	uint64_t events;
	double host_seconds;
};

CIDK_EXPORT int cidk_sim_switch(const struct cidk_sim_sched_params *p,
				struct cidk_sim_switch_result *r,
				struct cidk_topo_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CIDKIT_SIM_H */
