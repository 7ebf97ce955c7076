/* SPDX-License-Identifier: MIT */
/*
 * sim/sim_report.h - tables for the simulator's scenarios, and the locality
 * scoreboard.  Writes to the FILE the command gives it; deterministic (no
 * times, no addresses).  JSON is the command's (tools/cli/json.c).
 */
#ifndef CIDKIT_SIM_REPORT_H
#define CIDKIT_SIM_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <cidkit/sim.h>

struct sim_locality_cell {
	const char *config;
	unsigned int delay_ms;
	int policy; /* CIDK_SIM_PER_CPU or a cid policy */
	struct cidk_sim_locality_result res;
};

/* "per-cpu" or the CID policy's name. */
const char *sim_policy_label(int policy);

/*
 * The published table (AMD EPYC 9654, ns per burst) for a config and delay:
 * per-cpu, lazy and cache-local; false if the reference has no such row.
 */
bool sim_locality_reference(const char *config, unsigned int delay_ms,
			    double out[3]);

/* @policy's column in sim_locality_reference()'s row (0-2), or -1. */
int sim_reference_column(int policy);

/* What the table's blocks, rows and columns are, in the order to print. */
struct sim_locality_axes {
	const unsigned int *delays_ms;
	unsigned int ndelays;
	char *const *configs;
	unsigned int nconfigs;
	const int *policies;
	unsigned int npolicies;
};

/*
 * One block per delay, rows = configs, columns = policies, then
 * "lazy/cache-local" when both ran; with @reference, the published row and
 * the ratio sim/reference under each row.
 */
void sim_report_locality_table(FILE *f, const struct sim_locality_cell *cells,
			       unsigned int ncells,
			       const struct sim_locality_axes *ax,
			       bool reference);

/*
 * The model's scoreboard over the 24 reference cells (4 configs x 2 delays
 * x per-cpu, lazy, cache-local), all of which @cells must hold.
 */
#define SIM_SCORE_CELLS 24
#define SIM_SCORE_RATIOS 8

struct sim_locality_score {
	struct {
		const char *config;
		unsigned int delay_ms;
		double sim[3], ref[3]; /* per-cpu, lazy, cache-local */
	} row[SIM_SCORE_RATIOS];
	double mean_abs_log;	  /* geometric-mean error: mean |ln(sim/ref)| */
	unsigned int worst_row, worst_col; /* the cell with the largest |ln| */
	double ratio_mean_abs_log; /* the same over the 8 lazy/cache-local ratios */
	unsigned int worst_ratio_row;
	unsigned int within_1_5; /* per-cpu and cache-local cells within 1.5x (of 16) */
	unsigned int ratios_within_2; /* lazy/cache-local ratios within 2x (of 8) */
};

/* "per-cpu", "lazy" or "cache-local": the scoreboard's column @col (0-2). */
const char *sim_score_label(unsigned int col);

/* Fill @s from @cells; false if one of the 24 cells is missing. */
bool sim_locality_score(const struct sim_locality_cell *cells,
			unsigned int ncells, struct sim_locality_score *s);

/* The scoreboard as text, after the table. */
void sim_report_locality_score(FILE *f, const struct sim_locality_score *s);

#endif /* CIDKIT_SIM_REPORT_H */
