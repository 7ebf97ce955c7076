/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_pipe.h - the context-switch round trip: two sides pass one
 * byte back and forth through two pipes (A writes to B, B writes back),
 * each side blocking in read() until the other has written.
 *
 * Sides are two threads of this process, or (processes) two forked
 * children, so that every switch also changes mm.  Three placements are
 * measured, interleaved within each run (the order rotates from run to
 * run so that no placement always goes first):
 *   same CPU   both sides pinned to cpu_a: every hand-over is a switch;
 *   two CPUs   A on cpu_a, B on cpu_b: every hand-over is a wake-up of a
 *              sleeping (often idle) CPU;
 *   unpinned   both on the process's allowed CPUs: the scheduler decides.
 * A run is a warm-up of BENCH_PIPE_WARMUP round trips and then @loops
 * timed ones (CLOCK_MONOTONIC around the whole batch, in side A).
 *
 * Switch counts come from getrusage() taken by each side around its own
 * timed loop: RUSAGE_THREAD for threads, RUSAGE_SELF in each child for
 * processes (each child is single-threaded, so the same thing), summed
 * over both sides.
 */
#ifndef CIDKIT_BENCH_PIPE_H
#define CIDKIT_BENCH_PIPE_H

#include <stdbool.h>
#include <stdint.h>

#include "stats.h"

#define BENCH_PIPE_WARMUP 100u

enum bench_pipe_placement {
	BENCH_PIPE_SAME_CPU,
	BENCH_PIPE_TWO_CPUS,
	BENCH_PIPE_UNPINNED,
	BENCH_PIPE_NR,
};

struct bench_pipe_config {
	unsigned int loops;  /* timed round trips per run, >= 1 */
	unsigned int runs;   /* runs per placement, >= 1 */
	bool processes;      /* fork two children instead of two threads */
	unsigned int cpu_a;  /* an allowed CPU */
	unsigned int cpu_b;  /* another allowed CPU (two CPUs placement) */
	bool two_cpus;       /* false: skip the two CPUs placement */
};

struct bench_pipe_placement_result {
	bool measured;
	struct cidk__summary us;     /* µs per round trip, over runs */
	uint64_t voluntary;          /* switches of both sides, all runs */
	uint64_t involuntary;
};

struct bench_pipe_result {
	struct bench_pipe_config cfg;
	struct bench_pipe_placement_result p[BENCH_PIPE_NR];
	const char *rusage_scope;    /* "RUSAGE_THREAD" or "RUSAGE_SELF" */
};

/*
 * bench_pipe_run - measure every placement @cfg->runs times.
 * Returns 0, or -EINVAL (loops or runs 0, cpu_a == cpu_b with two_cpus),
 * or a negative errno from pipe(), pthread_create(), fork() or a failed
 * side (e.g. -EINVAL from sched_setaffinity() for a CPU not allowed).
 * The calling thread's affinity is never changed.
 */
int bench_pipe_run(const struct bench_pipe_config *cfg,
		   struct bench_pipe_result *res);

extern const char *const bench_pipe_placement_name[BENCH_PIPE_NR];

#endif /* CIDKIT_BENCH_PIPE_H */
