/* SPDX-License-Identifier: MIT */
/*
 * cidkit sim locality [--config NAME ...] [--delay-ms D ...] [--policy P ...]
 *                     [--rounds R] [--seed S] [--trigger tick|return-to-user]
 *                     [--batch B] [--machine SPEC] [--reference [--score]]
 *                     [--json] [--perf]
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cidkit/sim.h>

#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"
#include "sim_report.h"
#include "sim_args.h"

static const char about[] =
	"Threads pinned one per core burst one after another in a random order\n"
	"(reshuffled every round) with a fixed delay between bursts; each burst\n"
	"increments a 16 kB area indexed by CPU (per-cpu) or by the thread's CID.\n"
	"Prints ns per burst from the machine's cache cost model.\n";

/* Do the axes hold every one of the scoreboard's 24 reference cells? */
static bool score_axes_complete(const struct opt_list *configs,
				const unsigned int *delay_ms, unsigned int nd,
				const int *pol, unsigned int np)
{
	static const unsigned int need_delay[] = { 200, 10 };
	static const int need_pol[] = { CIDK_SIM_PER_CPU, CIDK_CID_LAZY,
					CIDK_CID_CACHE_LOCAL };
	bool found;

	for (const char *const *n = cidk_sim_locality_configs; *n; n++) {
		found = false;
		for (unsigned int i = 0; i < configs->n; i++)
			found |= !strcmp(configs->item[i], *n);
		if (!found)
			return false;
	}
	for (unsigned int k = 0; k < 2; k++) {
		found = false;
		for (unsigned int i = 0; i < nd; i++)
			found |= delay_ms[i] == need_delay[k];
		if (!found)
			return false;
	}
	for (unsigned int k = 0; k < 3; k++) {
		found = false;
		for (unsigned int i = 0; i < np; i++)
			found |= pol[i] == need_pol[k];
		if (!found)
			return false;
	}
	return true;
}

/* {"sim": .., "ref": .., "sim_over_ref": ..} under @key */
static void json_vs(struct jw *w, const char *key, double sim, int sim_dec,
		    double ref, int ref_dec)
{
	jw_key(w, key);
	jw_obj(w);
	jw_knum(w, "sim", sim, sim_dec);
	jw_knum(w, "ref", ref, ref_dec);
	jw_knum(w, "sim_over_ref", sim / ref, 4);
	jw_obj_end(w);
}

/* {"config", "delay_ms"[, "policy"], "sim_over_ref"} of score row @row */
static void json_worst(struct jw *w, const char *key,
		       const struct sim_locality_score *s, unsigned int row,
		       const char *policy, double sim_over_ref)
{
	jw_key(w, key);
	jw_obj(w);
	jw_kstr(w, "config", s->row[row].config);
	jw_kuint(w, "delay_ms", s->row[row].delay_ms);
	if (policy)
		jw_kstr(w, "policy", policy);
	jw_knum(w, "sim_over_ref", sim_over_ref, 4);
	jw_obj_end(w);
}

/* The scoreboard: one row per config and delay, then the summary lines. */
static void json_score(struct jw *w, const struct sim_locality_score *s)
{
	const unsigned int wr = s->worst_row, wc = s->worst_col,
			   rr = s->worst_ratio_row;

	jw_obj(w);
	jw_key(w, "rows");
	jw_arr(w);
	for (unsigned int i = 0; i < SIM_SCORE_RATIOS; i++) {
		const double *x = s->row[i].sim, *r = s->row[i].ref;

		jw_break(w, "\n  ");
		jw_obj(w);
		jw_kstr(w, "config", s->row[i].config);
		jw_kuint(w, "delay_ms", s->row[i].delay_ms);
		for (unsigned int k = 0; k < 3; k++)
			json_vs(w, sim_score_label(k), x[k], 1, r[k], 0);
		json_vs(w, "lazy_over_cache_local", x[1] / x[2], 4, r[1] / r[2], 4);
		jw_obj_end(w);
	}
	jw_break(w, "\n");
	jw_arr_end(w);
	jw_break(w, "\n");
	jw_knum(w, "mean_abs_log", s->mean_abs_log, 4);
	jw_knum(w, "factor", exp(s->mean_abs_log), 4);
	jw_break(w, "\n");
	json_worst(w, "worst", s, wr, sim_score_label(wc),
		   s->row[wr].sim[wc] / s->row[wr].ref[wc]);
	jw_break(w, "\n");
	jw_knum(w, "ratio_mean_abs_log", s->ratio_mean_abs_log, 4);
	jw_knum(w, "ratio_factor", exp(s->ratio_mean_abs_log), 4);
	jw_break(w, "\n");
	json_worst(w, "worst_ratio", s, rr, NULL,
		   (s->row[rr].sim[1] / s->row[rr].sim[2]) /
			   (s->row[rr].ref[1] / s->row[rr].ref[2]));
	jw_break(w, "\n");
	jw_kuint(w, "within_1_5", s->within_1_5);
	jw_kuint(w, "ratios_within_2", s->ratios_within_2);
	jw_obj_end(w);
}

/*
 * A JSON array of {"config","delay_ms","policy","ns_per_burst","max_cid",
 * "cid_changes"} (with @reference, "reference_ns_per_burst" too), one cell
 * per line.  With @sc, an object {"cells": that array, "score": ...}.
 */
static void json_cells(const struct sim_locality_cell *cells,
		       unsigned int ncells, bool reference,
		       const struct sim_locality_score *sc)
{
	struct jw w;

	jw_init(&w, stdout);
	if (sc) {
		jw_obj(&w);
		jw_key(&w, "cells");
	}
	jw_arr(&w);
	for (unsigned int i = 0; i < ncells; i++) {
		const struct sim_locality_cell *c = &cells[i];
		double ref[3];
		int col = sim_reference_column(c->policy);

		jw_break(&w, "\n  ");
		jw_obj(&w);
		jw_kstr(&w, "config", c->config);
		jw_kuint(&w, "delay_ms", c->delay_ms);
		jw_kstr(&w, "policy", sim_policy_label(c->policy));
		jw_knum(&w, "ns_per_burst", c->res.ns_per_burst, 1);
		jw_kuint(&w, "max_cid", c->res.max_cid);
		jw_kuint(&w, "cid_changes", c->res.cid_changes);
		if (reference && col >= 0 &&
		    sim_locality_reference(c->config, c->delay_ms, ref))
			jw_knum(&w, "reference_ns_per_burst", ref[col], 0);
		jw_obj_end(&w);
	}
	jw_break(&w, "\n");
	jw_arr_end(&w);
	if (sc) {
		jw_break(&w, "\n");
		jw_key(&w, "score");
		json_score(&w, sc);
		jw_obj_end(&w);
	}
	jw_end(&w);
}

int cmd_sim_locality(int argc, char **argv)
{
	static const int def_pol[] = { CIDK_SIM_PER_CPU, CIDK_CID_LAZY,
				       CIDK_CID_CACHE_LOCAL, CIDK_CID_INHERIT,
				       CIDK_CID_OWNERSHIP };
	struct opt_list configs = { .n = 0 }, policies = { .n = 0 };
	struct opt_uints delays = { .n = 0 };
	struct cidk_sim_locality_params base;
	int pol[OPT_LIST_MAX];
	struct sim_locality_cell *cells;
	unsigned int ncells = 0, total, np, *delay_ms = delays.v;
	bool json = false, reference = false, perf = false, score = false;
	struct sim_locality_score sc;
	bool progress = isatty(STDERR_FILENO);
	uint64_t events = 0;
	double host = 0;
	int rc = 0, first, trigger;
	struct opt opts[] = {
		{ OPT_LIST("config", 0, &configs, "NAME",
			   "8c1l3, 24c24l3, 192c24l3, 384t24l3"),
		  .def = "all four" },
		{ OPT_UINTS("delay-ms", 0, &delays, 0, 3600 * 1000, "D",
			    "delay between bursts"),
		  .def = "200 and 10" },
		{ OPT_LIST("policy", 0, &policies, "P",
			   "per-cpu, bitmap, lazy, lazy-batched, cache-local, "
			   "inherit, ownership"),
		  .def = "per-cpu lazy cache-local inherit ownership" },
		{ OPT_UINT("rounds", 0, &base.rounds, 2, 100000, "R",
			   "rounds; the first warms the caches up") },
		{ OPT_U64("seed", 0, &base.seed, 0, UINT64_MAX, "S",
			  "seed of the thread order and tick phases") },
		{ OPT_ENUM("trigger", 0, &trigger, sim_triggers, "T",
			   "where the lazy policies' compaction runs") },
		{ OPT_UINT("batch", 0, &base.batch, 1, 1u << 20, "B",
			   "lazy-batched: CPUs per scan call") },
		{ OPT_STRING("machine", 0, &base.machine, "SPEC",
			     "topology preset or spec") },
		{ OPT_FLAG("reference", 0, &reference,
			   "add the published EPYC 9654 numbers and sim/reference") },
		{ OPT_FLAG("score", 0, &score,
			   "with --reference: the model's error over the 24 "
			   "reference cells (geometric mean of |ln(sim/ref)|, worst "
			   "cell, the 8 lazy/cache-local ratios); needs per-cpu, lazy "
			   "and cache-local on all four configs at 200 and 10 ms") },
		{ OPT_FLAG("json", 0, &json,
			   "a JSON array of results (with --score, an object: "
			   "\"cells\", that array, and \"score\")") },
		{ OPT_FLAG("perf", 0, &perf,
			   "events processed and events per second, on stderr") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { "sim locality", about, NULL, NULL, 0, 0, opts };

	cidk_sim_locality_defaults(&base);
	trigger = (int)base.trigger;
	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	base.trigger = (enum cidk_cid_scan_trigger)trigger;
	if (score && !reference)
		return cli_error("sim locality: --score needs --reference");

	if (!configs.n)
		for (const char *const *n = cidk_sim_locality_configs; *n; n++)
			configs.item[configs.n++] = *n;
	for (unsigned int i = 0; i < configs.n; i++) {
		const char *const *n = cidk_sim_locality_configs;

		while (*n && strcmp(*n, configs.item[i]))
			n++;
		if (!*n)
			return cli_error("sim locality: unknown config '%s' (8c1l3, 24c24l3, 192c24l3, 384t24l3)",
					 cli_q(configs.item[i]));
	}
	if (!delays.n) {
		delay_ms[0] = 200;
		delay_ms[1] = 10;
		delays.n = 2;
	}
	rc = sim_policies("sim locality", &policies, true, def_pol, 5, pol);
	if (rc < 0)
		return CLI_EXIT_USAGE;
	np = (unsigned int)rc;
	rc = 0;

	if (score && !score_axes_complete(&configs, delay_ms, delays.n, pol,
					  np))
		return cli_error("sim locality: --score needs per-cpu, lazy and cache-local on all four configs at 200 and 10 ms");

	total = delays.n * configs.n * np;
	cells = calloc(total, sizeof(*cells));
	if (!cells)
		return cli_error("sim locality: %s", strerror(ENOMEM));
	for (unsigned int d = 0; d < delays.n && !rc; d++)
		for (unsigned int k = 0; k < configs.n && !rc; k++)
			for (unsigned int p = 0; p < np && !rc; p++) {
				struct sim_locality_cell *cell = &cells[ncells];
				struct cidk_sim_locality_params prm = base;
				struct cidk_topo_err err;

				prm.config = configs.item[k];
				prm.delay_ns = (uint64_t)delay_ms[d] * 1000000;
				prm.policy = pol[p];
				cell->config = configs.item[k];
				cell->delay_ms = delay_ms[d];
				cell->policy = pol[p];
				if (progress)
					fprintf(stderr, "\rsim locality: %u/%u %-9s %4u ms %-12s",
						ncells + 1, total, prm.config,
						delay_ms[d], sim_policy_label(pol[p]));
				rc = cidk_sim_locality(&prm, &cell->res, &err);
				if (rc) {
					if (progress)
						fputc('\n', stderr);
					rc = sim_fail("sim locality", rc, &err);
					break;
				}
				events += cell->res.events;
				host += cell->res.host_seconds;
				ncells++;
			}
	if (progress && !rc)
		fputs("\r\033[K", stderr);
	if (rc) {
		free(cells);
		return rc;
	}

	if (score && !sim_locality_score(cells, ncells, &sc)) {
		free(cells);
		return cli_error("sim locality: --score: a reference cell is missing");
	}
	if (json) {
		json_cells(cells, ncells, reference, score ? &sc : NULL);
	} else {
		cli_echo_command(stdout, argc, argv, "sim");
		printf("machine %s, %u rounds (the first warms up), seed %llu, compaction on %s\n",
		       base.machine, base.rounds, (unsigned long long)base.seed,
		       base.trigger == CIDK_CID_SCAN_TICK ? "tick" : "return to user");
		struct sim_locality_axes ax = {
			delay_ms, delays.n, (char *const *)configs.item, configs.n, pol,
			np,
		};

		sim_report_locality_table(stdout, cells, ncells, &ax, reference);
		if (score)
			sim_report_locality_score(stdout, &sc);
	}
	if (perf)
		fprintf(stderr, "sim locality: %llu events in %.3f s of host time: %.1f M events/s\n",
			(unsigned long long)events, host,
			host > 0 ? (double)events / host / 1e6 : 0.0);
	free(cells);
	return CLI_EXIT_OK;
}
