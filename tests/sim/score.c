/* SPDX-License-Identifier: MIT */
/*
 * The locality scoreboard against cells solved by hand: a model equal to
 * the reference scores 0; one cell off by a known factor moves the mean by
 * |ln f| / 24, is the worst cell, and moves its row's lazy/cache-local
 * ratio by f; a missing cell is refused.
 */
#include <math.h>
#include <string.h>

#include "sim_report.h"
#include "tap.h"

static const char *const configs[] = { "8c1l3", "24c24l3", "192c24l3", "384t24l3" };
static const unsigned int delays[] = { 200, 10 };
static const int pols[] = { CIDK_SIM_PER_CPU, CIDK_CID_LAZY, CIDK_CID_CACHE_LOCAL };

/* The 24 reference cells with ns_per_burst = reference, plus an inherit cell. */
static unsigned int fill(struct sim_locality_cell *c)
{
	unsigned int n = 0;

	for (unsigned int d = 0; d < 2; d++)
		for (unsigned int k = 0; k < 4; k++) {
			double ref[3];

			sim_locality_reference(configs[k], delays[d], ref);
			for (unsigned int p = 0; p < 3; p++) {
				memset(&c[n], 0, sizeof(c[n]));
				c[n].config = configs[k];
				c[n].delay_ms = delays[d];
				c[n].policy = pols[p];
				c[n].res.ns_per_burst = ref[p];
				n++;
			}
			memset(&c[n], 0, sizeof(c[n]));
			c[n].config = configs[k];
			c[n].delay_ms = delays[d];
			c[n].policy = CIDK_CID_INHERIT; /* not scored */
			c[n].res.ns_per_burst = 1e9;
			n++;
		}
	return n;
}

static struct sim_locality_cell *cell(struct sim_locality_cell *c, unsigned int n,
				      const char *config, unsigned int delay, int policy)
{
	for (unsigned int i = 0; i < n; i++)
		if (!strcmp(c[i].config, config) && c[i].delay_ms == delay &&
		    c[i].policy == policy)
			return &c[i];
	return NULL;
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-12;
}

int main(void)
{
	struct sim_locality_cell c[32];
	struct sim_locality_score s;
	unsigned int n = fill(c);
	double r[3];

	ok(sim_locality_reference("8c1l3", 200, r) && r[0] == 1374 &&
		   r[1] == 19289 && r[2] == 1336,
	   "the reference holds the published 8c1l3 200 ms row");
	ok(!sim_locality_reference("8c1l3", 100, r), "no reference at 100 ms");

	ok(sim_locality_score(c, n, &s), "24 cells present: scored");
	ok(s.mean_abs_log == 0 && s.ratio_mean_abs_log == 0,
	   "the reference against itself: error 0");
	ok(s.within_1_5 == 16 && s.ratios_within_2 == 8,
	   "the reference against itself: every cell within the goal");

	/* lazy at 8c1l3 200 ms is 10x the reference: 1 cell, 1 ratio. */
	cell(c, n, "8c1l3", 200, CIDK_CID_LAZY)->res.ns_per_burst *= 10;
	ok(sim_locality_score(c, n, &s), "scored again");
	ok(near(s.mean_abs_log, log(10) / 24), "mean |ln| = ln 10 / 24 (%.6f)",
	   s.mean_abs_log);
	ok(near(s.ratio_mean_abs_log, log(10) / 8), "ratio error = ln 10 / 8 (%.6f)",
	   s.ratio_mean_abs_log);
	ok(!strcmp(s.row[s.worst_row].config, "8c1l3") &&
		   s.row[s.worst_row].delay_ms == 200 && s.worst_col == 1,
	   "the worst cell is 8c1l3 200 ms lazy");
	ok(s.worst_ratio_row == s.worst_row && s.ratios_within_2 == 7 &&
		   s.within_1_5 == 16,
	   "one ratio outside 2x, the per-cpu and cache-local cells untouched");

	/* cache-local at 24c24l3 10 ms at half the reference: both directions count. */
	cell(c, n, "24c24l3", 10, CIDK_CID_CACHE_LOCAL)->res.ns_per_burst /= 2;
	ok(sim_locality_score(c, n, &s), "scored a third time");
	ok(near(s.mean_abs_log, (log(10) + log(2)) / 24),
	   "a cell below the reference counts as |ln|: (ln 10 + ln 2) / 24");
	ok(s.within_1_5 == 15 && s.ratios_within_2 == 7,
	   "0.5x is outside 1.5x; its ratio (2x) is at the 2x limit, inside");

	cell(c, n, "384t24l3", 10, CIDK_SIM_PER_CPU)->delay_ms = 20;
	ok(!sim_locality_score(c, n, &s), "a missing reference cell: not scored");
	return done_testing();
}
