/* SPDX-License-Identifier: MIT */
/*
 * The summary statistics (labutil/stats.c) every benchmark table and the
 * simulator's scan figures come from, against samples worked out by hand:
 * the median of odd and even counts (the mean of the two middle values),
 * n = 0, 1, 2, duplicates, unsorted and descending input, negatives and
 * infinities; min, max and mean; the nearest-rank percentile (rank
 * ceil(p/100 * n), clamped to 1..n) at ranks that are exact in binary and
 * between ranks, p <= 0 and p > 100; and the sort the callers rely on.
 */
#include <math.h>
#include <string.h>

#include "tap.h"
#include "stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct sum_case {
	const char *what;
	double v[8];
	size_t n;
	double median, min, max, mean;
};

static const struct sum_case sums[] = {
	{ "n=1", { 7.5 }, 1, 7.5, 7.5, 7.5, 7.5 },
	{ "n=2, descending", { 9, 3 }, 2, 6, 3, 9, 6 },
	{ "n=2, equal", { 4, 4 }, 2, 4, 4, 4, 4 },
	{ "n=3, unsorted", { 2, 30, 1 }, 3, 2, 1, 30, 11 },
	{ "n=4, unsorted: mean of the middle two", { 8, 2, 100, 6 }, 4, 7, 2, 100, 29 },
	{ "n=4, middle two straddle a gap", { 1, 10, 2, 4 }, 4, 3, 1, 10, 4.25 },
	{ "n=5, skewed", { 10, 1, 7, 3, 100 }, 5, 7, 1, 100, 24.2 },
	{ "n=6, duplicates in the middle", { 5, 3, 1, 8, 3, 2 }, 6, 3, 1, 8, 22.0 / 6 },
	{ "n=6, the middle pair differs", { 6, 1, 5, 2, 4, 3 }, 6, 3.5, 1, 6, 3.5 },
	{ "n=7, descending", { 7, 6, 5, 4, 3, 2, 1 }, 7, 4, 1, 7, 4 },
	{ "n=8, fractions", { 0.5, 8, 2.25, 7, 1, 3.5, 6, 4 }, 8, 3.75, 0.5, 8,
	  32.25 / 8 },
	{ "n=4, negatives and zero", { 0, -3, 2, -1 }, 4, -0.5, -3, 2, -0.5 },
	{ "n=4, all equal", { 5, 5, 5, 5 }, 4, 5, 5, 5, 5 },
	{ "n=4, all but one equal", { 9, 1, 9, 9 }, 4, 9, 1, 9, 7 },
	{ "n=3, +inf is the largest", { 1, INFINITY, 2 }, 3, 2, 1, INFINITY, INFINITY },
	{ "n=4, -inf the smallest", { -INFINITY, 3, 1, 2 }, 4, 1.5, -INFINITY, 3,
	  -INFINITY },
};

static bool sorted(const double *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i - 1] > v[i])
			return false;
	return true;
}

/* the same multiset: every value of @a occurs as often in @b */
static bool same_values(const double *a, const double *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t ca = 0, cb = 0;

		for (size_t j = 0; j < n; j++) {
			ca += a[j] == a[i];
			cb += b[j] == a[i];
		}
		if (ca != cb)
			return false;
	}
	return true;
}

static void summarize_cases(void)
{
	for (size_t k = 0; k < N(sums); k++) {
		const struct sum_case *c = &sums[k];
		struct cidk__summary s;
		double v[8];

		memcpy(v, c->v, sizeof(v));
		memset(&s, 0xa5, sizeof(s));
		cidk__summarize(v, c->n, &s);
		ok(s.n == c->n && s.median == c->median && s.min == c->min &&
			   s.max == c->max && s.mean == c->mean,
		   "summarize %s: median %g min %g max %g mean %g (want %g %g %g %g)",
		   c->what, s.median, s.min, s.max, s.mean, c->median, c->min,
		   c->max, c->mean);
		ok(sorted(v, c->n) && same_values(c->v, v, c->n),
		   "summarize %s: the samples are left sorted, none lost", c->what);
	}
}

static void summarize_edges(void)
{
	struct cidk__summary s;
	double v[1000], one = 3;

	memset(&s, 0xa5, sizeof(s));
	cidk__summarize(NULL, 0, &s); /* no samples: no array either */
	ok(s.n == 0 && s.median == 0 && s.min == 0 && s.max == 0 && s.mean == 0,
	   "summarize n=0: every field 0");
	memset(&s, 0xa5, sizeof(s));
	cidk__summarize(&one, 0, &s);
	ok(s.n == 0 && s.median == 0 && one == 3,
	   "summarize n=0 with an array: every field 0, the array untouched");

	/* 0..999 shuffled (a multiplicative permutation mod 1000: 7 is prime
	 * to it): median (499 + 500) / 2, mean 999 / 2 */
	for (unsigned int i = 0; i < 1000; i++)
		v[i] = (double)((i * 7u + 3u) % 1000u);
	cidk__summarize(v, 1000, &s);
	ok(s.n == 1000 && s.median == 499.5 && s.min == 0 && s.max == 999 &&
		   s.mean == 499.5,
	   "summarize 0..999 shuffled: median %g min %g max %g mean %g (want 499.5 0 999 499.5)",
	   s.median, s.min, s.max, s.mean);
	ok(sorted(v, 1000) && v[0] == 0 && v[999] == 999 && v[500] == 500,
	   "summarize 0..999 shuffled: sorted in place");
	/* and 0..998: odd, the middle one */
	for (unsigned int i = 0; i < 999; i++)
		v[i] = (double)((i * 7u + 3u) % 999u);
	cidk__summarize(v, 999, &s);
	ok(s.median == 499 && s.min == 0 && s.max == 998 && s.mean == 499,
	   "summarize 0..998 shuffled: median %g (want 499)", s.median);
}

struct pct_case {
	double p, want;
};

static void percentiles(void)
{
	/* 10 20 30 40: ranks 1..4 at p 25, 50, 75, 100 exactly */
	static const double four[] = { 10, 20, 30, 40 };
	static const struct pct_case c4[] = {
		{ -5, 10 }, { 0, 10 }, { 1, 10 }, { 25, 10 }, { 26, 20 },
		{ 50, 20 }, { 51, 30 }, { 75, 30 }, { 76, 40 }, { 99, 40 },
		{ 100, 40 }, { 150, 40 },
	};
	/* 1..150: p50 is rank 75, p99 rank ceil(148.5) = 149, p1 rank 2 */
	static const struct pct_case c150[] = {
		{ 50, 75 }, { 99, 149 }, { 1, 2 }, { 0.5, 1 }, { 90, 135 },
	};
	/* duplicates: 1 1 1 5 */
	static const double dup[] = { 1, 1, 1, 5 };
	static const struct pct_case cdup[] = { { 50, 1 }, { 75, 1 }, { 76, 5 } };
	double v150[150], x = 42;

	for (size_t k = 0; k < N(c4); k++) {
		double got = cidk__percentile(four, 4, c4[k].p);

		ok(got == c4[k].want, "percentile p%g of 10 20 30 40: %g (want %g)",
		   c4[k].p, got, c4[k].want);
	}
	for (unsigned int i = 0; i < 150; i++)
		v150[i] = i + 1;
	for (size_t k = 0; k < N(c150); k++) {
		double got = cidk__percentile(v150, 150, c150[k].p);

		ok(got == c150[k].want, "percentile p%g of 1..150: %g (want %g)",
		   c150[k].p, got, c150[k].want);
	}
	for (size_t k = 0; k < N(cdup); k++) {
		double got = cidk__percentile(dup, 4, cdup[k].p);

		ok(got == cdup[k].want, "percentile p%g of 1 1 1 5: %g (want %g)",
		   cdup[k].p, got, cdup[k].want);
	}
	ok(cidk__percentile(&x, 1, 0) == 42 && cidk__percentile(&x, 1, 50) == 42 &&
		   cidk__percentile(&x, 1, 100) == 42,
	   "percentile of one sample: that sample at p0, p50, p100");
	ok(cidk__percentile(NULL, 0, 50) == 0 && cidk__percentile(NULL, 0, 0) == 0,
	   "percentile of no samples: 0");
}

static void sorting(void)
{
	double v[] = { 3, -1, 3, 0.5, -INFINITY, 2, 3, -7, INFINITY, 0 };
	static const double want[] = { -INFINITY, -7, -1, 0, 0.5, 2, 3, 3, 3,
				       INFINITY };
	double one = 5;

	cidk__sort_doubles(v, N(v));
	ok(!memcmp(v, want, sizeof(v)), "sort: ascending, duplicates kept");
	cidk__sort_doubles(&one, 1);
	cidk__sort_doubles(NULL, 0);
	ok(one == 5, "sort of one sample and of none");
}

int main(void)
{
	summarize_cases();
	summarize_edges();
	percentiles();
	sorting();
	return done_testing();
}
