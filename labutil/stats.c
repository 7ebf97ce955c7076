/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void cidk__sort_doubles(double *v, size_t n)
{
	if (n > 1) /* qsort(NULL, 0) is undefined */
		qsort(v, n, sizeof(*v), cmp_double);
}

double cidk__percentile(const double *v, size_t n, double p)
{
	size_t rank;

	if (!n)
		return 0;
	if (p <= 0)
		return v[0];
	rank = (size_t)ceil(p / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

void cidk__summarize(double *v, size_t n, struct cidk__summary *s)
{
	double sum = 0;

	s->n = n;
	if (!n) {
		s->median = s->min = s->max = s->mean = 0;
		return;
	}
	cidk__sort_doubles(v, n);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->min = v[0];
	s->max = v[n - 1];
	s->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	s->mean = sum / (double)n;
}
