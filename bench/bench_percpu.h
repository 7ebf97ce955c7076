/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_percpu.h - ns per increment of a per-CPU counter, every way
 * cidkit offers and the usual alternatives, side by side: rseq critical
 * sections indexed by cpu_id and by mm_cid, the atomic fallback, the
 * kernel's mm_cid with an atomic add, a CID lease around a plain add for
 * every policy, one shared atomic counter, a mutex-protected counter.
 * Within each repetition the alternatives run one after the other on the
 * same threads (interleaved); each row is the median, min and max over the
 * repetitions of the mean per-thread CPU ns per increment (thread CPU
 * time, so that time spent preempted on a loaded machine does not count;
 * a mutex waiter's sleep does not count either).  Every repetition
 * checks that the counter's sum grew by exactly threads x iters.
 */
#ifndef CIDKIT_BENCH_PERCPU_H
#define CIDKIT_BENCH_PERCPU_H

#include "stats.h"

struct bench_percpu_row {
	const char *what; /* "rseq-add:cpu", ..., "lease:POLICY", "mutex" */
	const char *path; /* "rseq" or "atomic" for the percpu rows, else "-" */
	unsigned int threads;
	struct cidk__summary ns; /* ns per increment over the repetitions */
	unsigned long aborts;	 /* rseq aborts, all threads, all repetitions */
};

/*
 * bench_percpu_run - measure every alternative with @nthreads threads,
 * @iters increments per thread per repetition, @reps repetitions.  *rows
 * (malloc'd, the caller frees) gets *nrows rows in table order; on a sum
 * that is not exact, *bad names the alternative.
 * Returns 0, -EINVAL (a zero argument), -EIO (a sum was wrong: *bad set),
 * or -ENOMEM / another negative errno from thread, pool or domain creation.
 */
int bench_percpu_run(unsigned int nthreads, unsigned int iters,
		     unsigned int reps, struct bench_percpu_row **rows,
		     unsigned int *nrows, const char **bad);

#endif /* CIDKIT_BENCH_PERCPU_H */
