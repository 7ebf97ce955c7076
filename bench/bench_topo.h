/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_topo.h - sanity (span and level nesting), pairwise vs
 * linear, side by side on one synthetic machine, plus what a CPU going offline costs: rebuilding every
 * level from the masks without that CPU and validating it again (the
 * kernel does this on hotplug; on a 1920-CPU machine the quadratic check
 * made it 2.18 s per CPU, the linear one 1.01 s).
 */
#ifndef CIDKIT_BENCH_TOPO_H
#define CIDKIT_BENCH_TOPO_H

#include "stats.h"

#include "cidkit_lab.h" /* the library's lab-only interface */

enum bench_topo_way {
	BENCH_TOPO_PAIRWISE, /* cidk_topo_sane_pairwise(): span + nesting */
	BENCH_TOPO_LINEAR,   /* cidk_topo_sane(): span + nesting */
	BENCH_TOPO_REBUILD,  /* rebuild levels without one CPU + linear check */
	BENCH_TOPO_NR,
};

struct bench_topo_result {
	unsigned int nr_cpus, reps;
	struct cidk__summary ns[BENCH_TOPO_NR];
	bool sane; /* every check of every repetition said sane */
};

/*
 * bench_topo_run - build @spec (cidk_topo_from_spec()), then @reps
 * repetitions, each timing the three ways in turn.  Returns 0, -EINVAL
 * (bad spec or reps 0; @errmsg, if not NULL, gets the reason) or -ENOMEM.
 */
int bench_topo_run(const char *spec, unsigned int reps,
		   struct bench_topo_result *res, char *errmsg,
		   size_t errsize);

extern const char *const bench_topo_way_name[BENCH_TOPO_NR];

#endif /* CIDKIT_BENCH_TOPO_H */
