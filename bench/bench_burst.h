/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_burst.h - the cache-locality experiment on real threads.
 *
 * T threads, each pinned to its own CPU, take turns: exactly one runs at a
 * time, and after its burst it sleeps @delay_ns before handing the baton
 * (a per-thread semaphore) to the next, so that the other CPUs sit idle.
 * A burst increments every byte of an area of @bytes bytes; which area is
 * chosen by the index mode:
 *   cpu          the rseq cpu_id of the thread (its own CPU: the ideal);
 *   kernel-cid   the rseq mm_cid: the running kernel's CID policy;
 *   lease:P      a CID lease of a cidkit policy P (enter before the burst,
 *                exit after it).
 * Each mode has its own per-CID pool (cidk_pool_*), so one mode's bursts
 * never touch another's areas.  Only the burst is timed (CLOCK_MONOTONIC,
 * and the TSC on x86); the index lookup, the lease and the sleep are not.
 * Right after it the same burst runs again, timed apart: with the area now
 * in this core's caches it is the floor ("hot") the first one compares to.
 *
 * Schedule: one unrecorded warm-up round, then @rounds rounds.  Each round
 * shuffles the thread order once (deterministic PRNG, @seed) and rotates
 * the mode order; for each mode in turn, every thread runs one burst in the
 * shuffled order.  So every mode sees the same thread sequences and the
 * same machine drift.
 */
#ifndef CIDKIT_BENCH_BURST_H
#define CIDKIT_BENCH_BURST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cidkit/cid.h>
#include <cidkit/mask.h>

#include "stats.h"

enum bench_burst_index {
	BENCH_BURST_CPU,
	BENCH_BURST_KERNEL_CID,
	BENCH_BURST_LEASE,
};

struct bench_burst_mode {
	enum bench_burst_index index;
	enum cidk_cid_policy_kind policy; /* lease only */
};

#define BENCH_BURST_MAX_MODES (2 + CIDK_CID_NR_POLICIES)
#define BENCH_BURST_NAME_MAX 32
#define BENCH_BURST_PROBE_TRIPS 5000u
#define BENCH_BURST_PROBE_NS 200000000ull

/*
 * bench_burst_mode_parse - "cpu", "kernel-cid" or "lease:POLICY" (a name
 * of cidk_cid_policy_parse).  Returns 0 or -EINVAL.
 */
int bench_burst_mode_parse(const char *name, struct bench_burst_mode *m);

/* The mode's name as above, into @buf (BENCH_BURST_NAME_MAX bytes). */
void bench_burst_mode_name(const struct bench_burst_mode *m, char *buf);

/* Every mode, in the default order: cpu, kernel-cid, lease:... */
unsigned int bench_burst_all_modes(struct bench_burst_mode *out);

struct bench_burst_config {
	const struct cidk_mask *cpus; /* one thread pinned to each CPU */
	unsigned int rounds;	      /* recorded rounds, >= 1 */
	uint64_t delay_ns;	      /* sleep between two bursts */
	size_t bytes;		      /* area size, >= 1 */
	uint64_t seed;		      /* thread order */
	struct bench_burst_mode modes[BENCH_BURST_MAX_MODES];
	unsigned int nr_modes;	      /* >= 1, no duplicates */
	/* optional: called by the calling thread about every second */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
	/* testing: lower every mode's bound to this (0: no limit) */
	unsigned int bound_limit;
};

struct bench_burst_mode_result {
	struct bench_burst_mode mode;
	bool available;		    /* kernel-cid needs the kernel's mm_cid */
	struct cidk__summary ns;    /* per burst, over all recorded bursts */
	struct cidk__summary hot_ns;/* the same burst repeated at once: the floor */
	double cycles_median;	    /* TSC ticks per burst (x86), else 0 */
	uint64_t bursts;	    /* recorded bursts with a sample */
	unsigned int bound;	    /* indexes should stay below this */
	uint64_t out_of_bounds;	    /* bursts whose index was >= bound;
				     * this and the CIDs below count the
				     * warm-up round too */
	uint64_t skipped;	    /* index beyond the pool: no burst */
	int max_index;		    /* largest index seen (-1: none) */
	unsigned int distinct;	    /* distinct indexes over all threads */
	uint64_t changes;	    /* a thread's index differed from its last */
	struct cidk_mask *used;	    /* indexes used, all threads */
	struct cidk_mask **thread_used; /* per thread */
};

struct bench_burst_result {
	unsigned int nr_threads;
	unsigned int *thread_cpu;   /* the CPU of each thread */
	unsigned int rounds;
	uint64_t delay_ns;
	size_t bytes;
	uint64_t seed;
	unsigned int pool_cids;	    /* areas per mode */
	unsigned int lease_capacity;
	bool have_cycles;
	uint64_t wall_ns;	    /* the whole run, warm-up included */
	/*
	 * Where a shared area's lines come from: one cache line bounced
	 * between the first two threads' CPUs (spinning, up to
	 * BENCH_BURST_PROBE_TRIPS round trips or BENCH_BURST_PROBE_NS),
	 * median ns per round trip, before and after the run; 0 with one
	 * thread or when the probe could not run.
	 */
	double line_rtt_before_ns, line_rtt_after_ns;
	unsigned int nr_modes;
	struct bench_burst_mode_result mode[BENCH_BURST_MAX_MODES];
};

/*
 * bench_burst_run - run the experiment.  @res must be released with
 * bench_burst_result_free() after a successful run (also after a failed one;
 * it is then empty).
 * Returns 0; -EINVAL (no CPUs, rounds/bytes/modes 0, a duplicate mode);
 * -ENOMEM; a negative errno from sched_setaffinity() (a CPU not allowed),
 * pthread_create(), a pool, a lease domain or a lease enter.  An index at
 * or above a mode's bound is not an error: it is counted (out_of_bounds,
 * and skipped when the pool has no area for it) for the caller to judge.
 */
int bench_burst_run(const struct bench_burst_config *cfg,
		    struct bench_burst_result *res);

void bench_burst_result_free(struct bench_burst_result *res);

#endif /* CIDKIT_BENCH_BURST_H */
