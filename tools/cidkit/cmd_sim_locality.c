/* SPDX-License-Identifier: MIT */
/*
 * cidkit sim locality [--config NAME ...] [--delay-ms D ...] [--policy P ...]
 *                     [--rounds R] [--seed S] [--trigger tick|return-to-user]
 *                     [--batch B] [--machine SPEC] [--reference [--score]]
 *                     [--json] [--perf]
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cidkit/sim.h>

#include "cli.h"
#include "cmds.h"
#include "sim_report.h"
#include "sim_args.h"

static const char usage[] =
	"usage: cidkit sim locality [--config NAME ...] [--delay-ms D ...]\n"
	"           [--policy P ...] [--rounds R] [--seed S] [--json] [--reference]\n"
	"           [--trigger return-to-user|tick] [--batch B] [--machine SPEC] [--perf]\n"
	"           [--score]\n"
	"\n"
	"Threads pinned one per core burst one after another in a random order\n"
	"(reshuffled every round) with a fixed delay between bursts; each burst\n"
	"increments a 16 kB area indexed by CPU (per-cpu) or by the thread's CID.\n"
	"Prints ns per burst from the machine's cache cost model.\n"
	"\n"
	"  --config NAME   8c1l3, 24c24l3, 192c24l3, 384t24l3 (default: all four)\n"
	"  --delay-ms D    delay between bursts (default: 200 and 10)\n"
	"  --policy P      per-cpu, bitmap, lazy, lazy-batched, cache-local, inherit,\n"
	"                  ownership (default: per-cpu lazy cache-local inherit\n"
	"                  ownership)\n"
	"  --rounds R      rounds; the first warms the caches up (default 20)\n"
	"  --seed S        seed of the thread order and tick phases (default 1)\n"
	"  --trigger T     where the lazy policies' compaction runs (default\n"
	"                  return-to-user)\n"
	"  --batch B       lazy-batched: CPUs per scan call (default 16)\n"
	"  --machine SPEC  topology preset or spec (default epyc-9654-2s)\n"
	"  --reference     add the published EPYC 9654 numbers and sim/reference\n"
	"  --score         with --reference: the model's error over the 24 reference\n"
	"                  cells (geometric mean of |ln(sim/ref)|, worst cell, the 8\n"
	"                  lazy/cache-local ratios); needs per-cpu, lazy and\n"
	"                  cache-local on all four configs at 200 and 10 ms\n"
	"  --json          a JSON array of results (with --score, an object:\n"
	"                  \"cells\", that array, and \"score\")\n"
	"  --perf          events processed and events per second, on stderr\n"
	"Options that take lists may be repeated or given comma-separated.\n";

/* Do the axes hold every one of the scoreboard's 24 reference cells? */
static bool score_axes_complete(const struct sim_list *configs,
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

int cmd_sim_locality(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "delay-ms", required_argument, NULL, 'd' },
		{ "policy", required_argument, NULL, 'p' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "trigger", required_argument, NULL, 't' },
		{ "batch", required_argument, NULL, 'b' },
		{ "machine", required_argument, NULL, 'm' },
		{ "reference", no_argument, NULL, 'R' },
		{ "score", no_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "perf", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sim_list configs = { .n = 0 }, delays = { .n = 0 },
		    policies = { .n = 0 };
	struct cidk_sim_locality_params base;
	unsigned int delay_ms[SIM_ARGS_MAX];
	int pol[SIM_ARGS_MAX];
	struct sim_locality_cell *cells;
	unsigned int ncells = 0, total;
	bool json = false, reference = false, perf = false, score = false;
	struct sim_locality_score sc;
	bool progress = isatty(STDERR_FILENO);
	uint64_t events = 0;
	double host = 0;
	int c, rc = 0;

	cidk_sim_locality_defaults(&base);
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			rc = sim_list_add("sim locality", "--config", &configs, optarg);
			break;
		case 'd':
			rc = sim_list_add("sim locality", "--delay-ms", &delays, optarg);
			break;
		case 'p':
			rc = sim_list_add("sim locality", "--policy", &policies, optarg);
			break;
		case 'r':
			rc = cli_parse_uint("sim locality: --rounds", optarg, 2,
					    100000, &base.rounds);
			break;
		case 's': {
			uint64_t seed;

			rc = cli_parse_u64("sim locality: --seed", optarg, 0,
					   UINT64_MAX, &seed);
			base.seed = seed;
			break;
		}
		case 't':
			rc = sim_parse_trigger("sim locality", optarg,
					       &base.trigger);
			break;
		case 'b':
			rc = cli_parse_uint("sim locality: --batch", optarg, 1,
					    1u << 20, &base.batch);
			break;
		case 'm':
			base.machine = optarg;
			break;
		case 'R':
			reference = true;
			break;
		case 'S':
			score = true;
			break;
		case 'j':
			json = true;
			break;
		case 'P':
			perf = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return CLI_EXIT_OK;
		default:
			return cli_bad_option("sim locality", argv, c);
		}
		if (rc)
			return CLI_EXIT_USAGE;
	}
	if (optind != argc)
		return cli_extra_arg("sim locality", argv[optind]);
	if (score && !reference)
		return cli_error("sim locality: --score needs --reference");

	if (!configs.n)
		for (const char *const *n = cidk_sim_locality_configs; *n; n++)
			configs.item[configs.n++] = (char *)*n;
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
	} else {
		for (unsigned int i = 0; i < delays.n; i++)
			if (cli_parse_uint("sim locality: --delay-ms",
					   delays.item[i], 0, 3600 * 1000,
					   &delay_ms[i]))
				return CLI_EXIT_USAGE;
	}
	if (!policies.n) {
		pol[0] = CIDK_SIM_PER_CPU;
		pol[1] = CIDK_CID_LAZY;
		pol[2] = CIDK_CID_CACHE_LOCAL;
		pol[3] = CIDK_CID_INHERIT;
		pol[4] = CIDK_CID_OWNERSHIP;
		policies.n = 5;
	} else {
		for (unsigned int i = 0; i < policies.n; i++)
			if (sim_parse_policy("sim locality", policies.item[i],
					     true, &pol[i]))
				return CLI_EXIT_USAGE;
	}

	if (score && !score_axes_complete(&configs, delay_ms, delays.n, pol,
					  policies.n))
		return cli_error("sim locality: --score needs per-cpu, lazy and cache-local on all four configs at 200 and 10 ms");

	total = delays.n * configs.n * policies.n;
	cells = calloc(total, sizeof(*cells));
	if (!cells)
		return cli_error("sim locality: %s", strerror(ENOMEM));
	for (unsigned int d = 0; d < delays.n && !rc; d++)
		for (unsigned int k = 0; k < configs.n && !rc; k++)
			for (unsigned int p = 0; p < policies.n && !rc; p++) {
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
		sim_report_locality_json(stdout, cells, ncells, reference, score);
	} else {
		cli_echo_command(stdout, argc, argv, "sim");
		printf("machine %s, %u rounds (the first warms up), seed %llu, compaction on %s\n",
		       base.machine, base.rounds, (unsigned long long)base.seed,
		       base.trigger == CIDK_CID_SCAN_TICK ? "tick" : "return to user");
		struct sim_locality_axes ax = {
			delay_ms, delays.n, configs.item, configs.n, pol, policies.n,
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
