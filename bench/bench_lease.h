/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_lease.h - the cost of a CID lease: ns per enter/exit pair,
 * every policy, one thread and N threads, side by side with a
 * pthread_mutex lock/unlock pair (and, once the rseq module is merged,
 * reading the kernel's own mm_cid).  Within each repetition the
 * alternatives run one after the other on the same threads (interleaved);
 * each row is the median, min and max over the repetitions of the mean
 * per-thread ns per pair.
 */
#ifndef CIDKIT_BENCH_LEASE_H
#define CIDKIT_BENCH_LEASE_H

#include <stdint.h>

#include "stats.h"

struct bench_lease_row {
	const char *what; /* "lease:POLICY", "mutex", "kernel-mm_cid" */
	unsigned int threads;
	struct cidk__summary ns; /* ns per pair over the repetitions */
	double rmw_per_pair;	 /* leases: atomic RMWs (bitmap + slots) per
				    pair, from the mm's counters; else -1 */
	uint64_t pairs;		 /* pairs timed: threads x iters x reps */
	uint64_t done;		 /* of those, pairs whose work was seen done:
				    a lease's CID >= 0 (and 0 for the row if
				    any was at or above the domain's capacity),
				    the mutex's counter (incremented under the
				    lock, read at the end), a won CAS, an
				    mm_cid read from the kernel (>= 0) */
};

/*
 * bench_lease_run - measure every alternative with 1 thread and with
 * @nthreads threads (once if @nthreads is 1), @iters pairs per thread per
 * repetition, @reps repetitions.  *rows (malloc'd, the caller frees) gets
 * *nrows rows, grouped by thread count, alternatives in table order.
 * Returns 0, -EINVAL (a zero argument) or -ENOMEM / another negative errno
 * from thread or domain creation.
 */
int bench_lease_run(unsigned int nthreads, unsigned int iters,
		    unsigned int reps, struct bench_lease_row **rows,
		    unsigned int *nrows);

#endif /* CIDKIT_BENCH_LEASE_H */
