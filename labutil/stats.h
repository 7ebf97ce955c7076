/* SPDX-License-Identifier: MIT */
/*
 * labutil/stats.h - order statistics over samples: the one median,
 * min-max and percentile code of the lab (benchmarks, the simulator's
 * metrics, the command's tables, the perf tests).  Lab only: not in
 * libcidkit (labutil/meson.build).
 */
#ifndef CIDKIT_LABUTIL_STATS_H
#define CIDKIT_LABUTIL_STATS_H

#include <stddef.h>
#include <stdint.h>

struct cidk__summary {
	double median, min, max, mean;
	size_t n;
};

/*
 * cidk__summarize - sort @v (n doubles) in place and fill @s.  With n == 0
 * every field is 0.
 */
void cidk__summarize(double *v, size_t n, struct cidk__summary *s);

/*
 * cidk__percentile - the @p-th percentile (0..100, nearest rank) of the
 * sorted array @v of n values; 0 when n == 0.
 */
double cidk__percentile(const double *v, size_t n, double p);

void cidk__sort_doubles(double *v, size_t n);

#endif /* CIDKIT_LABUTIL_STATS_H */
