/* SPDX-License-Identifier: MIT */
/*
 * cidkit sim switch - bitmap traffic on the context-switch path: the mm
 * CPU-mask updates with and without skipping the idle mm (pipe and rr
 * loads over growing CPU counts), and the CID-bitmap atomics per switch of
 * each policy under a messaging load with many threads of one mm.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cidkit/sim.h>

#include "cli.h"
#include "cmds.h"
#include "sim_args.h"

static const char usage[] =
	"usage: cidkit sim switch [--machine SPEC] [--cpus N ...] [--threads]\n"
	"           [--policy P ...] [--duration-ms D] [--seed S] [--json]\n"
	"\n"
	"1. mm-mask traffic: pipe (2 CPUs) and rr (netperf TCP_RR-like pairs on\n"
	"   N CPUs): atomics, cache-line transfers and estimated ns per switch,\n"
	"   without and with skipping the idle mm's updates.\n"
	"2. CID-bitmap atomics per switch for each policy under a messaging load\n"
	"   (hackbench-like, 20 senders + 20 receivers per group, one mm).\n"
	"\n"
	"  --machine SPEC   default epyc-9654-2s (384 CPUs)\n"
	"  --cpus N         rr CPU counts (default 2,4,8,16,48,96,192,384)\n"
	"  --threads        part 1 with one mm for every task (default: each side\n"
	"                   of a pair is its own process, as netperf/netserver)\n"
	"  --policy P       policies for part 2 (default: all six, ownership too)\n"
	"  --duration-ms D  simulated time per run, at most 60000 (default 10)\n"
	"  --json           one JSON object {\"mask\": [...], \"cid\": [...]}\n";

int cmd_sim_switch(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "machine", required_argument, NULL, 'm' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "threads", no_argument, NULL, 'T' },
		{ "policy", required_argument, NULL, 'p' },
		{ "duration-ms", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const unsigned int def_cpus[] = { 2, 4, 8, 16, 48, 96, 192, 384 };
	const char *cmd = "sim switch";
	struct sim_list cpul = { .n = 0 }, pols = { .n = 0 };
	struct cidk_sim_sched_params base;
	unsigned int cpus[SIM_ARGS_MAX], ncpus, np, duration_ms = 10;
	int pol[SIM_ARGS_MAX];
	bool json = false, first = true;
	int c, rc = 0;

	cidk_sim_sched_defaults(&base);
	base.machine = "epyc-9654-2s";
	base.policy = CIDK_CID_INHERIT;
	base.processes = true;
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			base.machine = optarg;
			break;
		case 'c':
			rc = sim_list_add(cmd, "--cpus", &cpul, optarg);
			break;
		case 'T':
			base.processes = false;
			break;
		case 'p':
			rc = sim_list_add(cmd, "--policy", &pols, optarg);
			break;
		case 'd':
			rc = cli_parse_uint("sim switch: --duration-ms", optarg, 1,
					    60 * 1000, &duration_ms);
			break;
		case 's':
			rc = cli_parse_u64("sim switch: --seed", optarg, 0,
					   UINT64_MAX, &base.seed);
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return CLI_EXIT_OK;
		default:
			return cli_bad_option(cmd, argv, c);
		}
		if (rc)
			return CLI_EXIT_USAGE;
	}
	if (optind != argc)
		return cli_extra_arg(cmd, argv[optind]);
	base.duration_ns = (uint64_t)duration_ms * 1000000;
	ncpus = cpul.n;
	for (unsigned int i = 0; i < ncpus; i++)
		if (cli_parse_uint("sim switch: --cpus", cpul.item[i], 2, 1u << 16,
				   &cpus[i]))
			return CLI_EXIT_USAGE;
	if (!ncpus)
		for (ncpus = 0; ncpus < 8; ncpus++)
			cpus[ncpus] = def_cpus[ncpus];
	np = pols.n;
	for (unsigned int i = 0; i < np; i++)
		if (sim_parse_policy(cmd, pols.item[i], false, &pol[i]))
			return CLI_EXIT_USAGE;
	if (!np)
		for (np = 0; np < CIDK_CID_NR_POLICIES; np++)
			pol[np] = (int)np;

	/* Run everything first: an error must not leave half a table. */
	struct cidk_sim_switch_result mask[SIM_ARGS_MAX + 1][2], cid[SIM_ARGS_MAX];

	for (unsigned int i = 0; i <= ncpus; i++)
		for (int skip = 0; skip < 2; skip++) {
			struct cidk_sim_sched_params prm = base;
			struct cidk_topo_err err;

			prm.workload = i == 0 ? CIDK_SIM_PIPE : CIDK_SIM_RR;
			prm.cpus = i == 0 ? 2 : cpus[i - 1];
			prm.skip_idle_mm = skip;
			rc = cidk_sim_switch(&prm, &mask[i][skip], &err);
			if (rc)
				return sim_fail(cmd, rc, &err);
		}
	for (unsigned int p = 0; p < np; p++) {
		struct cidk_sim_sched_params prm = base;
		struct cidk_topo_err err;

		prm.workload = CIDK_SIM_MESSAGING;
		prm.group_size = 20;
		prm.processes = false;
		prm.policy = (enum cidk_cid_policy_kind)pol[p];
		rc = cidk_sim_switch(&prm, &cid[p], &err);
		if (rc)
			return sim_fail(cmd, rc, &err);
	}

	if (json) {
		fputs("{\"mask\": [", stdout);
	} else {
		cli_echo_command(stdout, argc, argv, "sim");
		printf("machine %s, %u ms simulated per run, %s\n\n", base.machine,
		       duration_ms, base.processes ? "processes (two mms per pair)"
						   : "threads (one mm)");
		printf("1. mm CPU-mask updates per context switch\n");
		printf("%-9s %5s | %8s %9s %9s %8s | %8s %9s %8s | %7s\n", "workload",
		       "cpus", "atomics", "transfers", "idle xfer", "ns", "atomics",
		       "transfers", "ns", "ns ratio");
		printf("%-15s | %-37s | %-27s |\n", "", "updating the idle mm",
		       "skipping the idle mm");
	}
	for (unsigned int i = 0; i <= ncpus; i++) {
		const struct cidk_sim_switch_result *r = mask[i];

		if (json) {
			for (int skip = 0; skip < 2; skip++) {
				printf("%s\n  {\"workload\": \"%s\", \"cpus\": %u, \"skip_idle_mm\": %s, "
				       "\"switches\": %llu, \"mask_atomics_per_switch\": %.4f, "
				       "\"mask_transfers_per_switch\": %.4f, "
				       "\"idle_transfers_per_switch\": %.4f, \"mask_ns_per_switch\": %.3f}",
				       first ? "" : ",", i ? "rr" : "pipe",
				       i ? cpus[i - 1] : 2, skip ? "true" : "false",
				       (unsigned long long)r[skip].switches,
				       r[skip].mask_atomics_per_switch,
				       r[skip].mask_transfers_per_switch,
				       r[skip].idle_transfers_per_switch,
				       r[skip].mask_ns_per_switch);
				first = false;
			}
		} else {
			printf("%-9s %5u | %8.2f %9.3f %9.3f %8.1f | %8.2f %9.3f %8.1f | %6.2fx\n",
			       i ? "rr" : "pipe", i ? cpus[i - 1] : 2,
			       r[0].mask_atomics_per_switch,
			       r[0].mask_transfers_per_switch,
			       r[0].idle_transfers_per_switch, r[0].mask_ns_per_switch,
			       r[1].mask_atomics_per_switch,
			       r[1].mask_transfers_per_switch, r[1].mask_ns_per_switch,
			       r[1].mask_ns_per_switch > 0
				       ? r[0].mask_ns_per_switch / r[1].mask_ns_per_switch
				       : 0.0);
		}
	}

	if (json) {
		fputs("\n], \"cid\": [", stdout);
	} else {
		printf("\n2. CID-bitmap work per context switch, messaging, one mm\n");
		printf("%-13s %10s %10s %10s %11s\n", "policy", "switches",
		       "rmw/sw", "search/sw", "handover/sw");
	}
	first = true;
	for (unsigned int p = 0; p < np; p++) {
		const struct cidk_sim_switch_result *r = &cid[p];
		double n = r->switches ? (double)r->switches : 1;
		const char *name = cidk_cid_policy_name((enum cidk_cid_policy_kind)pol[p]);

		if (json) {
			printf("%s\n  {\"policy\": \"%s\", \"switches\": %llu, "
			       "\"cid_rmw_per_switch\": %.4f, \"cid_search_per_switch\": %.4f, "
			       "\"handovers_per_switch\": %.4f}",
			       first ? "" : ",", name, (unsigned long long)r->switches,
			       r->cid_rmw_per_switch, r->stats.bitmap_search / n,
			       r->handovers_per_switch);
			first = false;
		} else {
			printf("%-13s %10llu %10.3f %10.3f %11.3f\n", name,
			       (unsigned long long)r->switches, r->cid_rmw_per_switch,
			       r->stats.bitmap_search / n, r->handovers_per_switch);
		}
	}
	if (json)
		fputs("\n]}\n", stdout);
	return CLI_EXIT_OK;
}
