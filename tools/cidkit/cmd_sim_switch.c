/* SPDX-License-Identifier: MIT */
/*
 * cidkit sim switch - bitmap traffic on the context-switch path: the mm
 * CPU-mask updates with and without skipping the idle mm (pipe and rr
 * loads over growing CPU counts), and the CID-bitmap atomics per switch of
 * each policy under a messaging load with many threads of one mm.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cidkit/sim.h>

#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"
#include "sim_args.h"

static const char about[] =
	"1. mm-mask traffic: pipe (2 CPUs) and rr (netperf TCP_RR-like pairs on\n"
	"   N CPUs): atomics, cache-line transfers and estimated ns per switch,\n"
	"   without and with skipping the idle mm's updates.\n"
	"2. CID-bitmap atomics per switch for each policy under a messaging load\n"
	"   (hackbench-like, 20 senders + 20 receivers per group, one mm).\n"
	"   (hackbench-like, 20 senders + 20 receivers per group, one mm).\n";

static void mask_json(struct jw *j, const char *workload, unsigned int cpus,
		      bool skip, const struct cidk_sim_switch_result *r)
{
	jw_break(j, "\n  ");
	jw_obj(j);
	jw_kstr(j, "workload", workload);
	jw_kuint(j, "cpus", cpus);
	jw_kbool(j, "skip_idle_mm", skip);
	jw_kuint(j, "switches", r->switches);
	jw_knum(j, "mask_atomics_per_switch", r->mask_atomics_per_switch, 4);
	jw_knum(j, "mask_transfers_per_switch", r->mask_transfers_per_switch, 4);
	jw_knum(j, "idle_transfers_per_switch", r->idle_transfers_per_switch, 4);
	jw_knum(j, "mask_ns_per_switch", r->mask_ns_per_switch, 3);
	jw_obj_end(j);
}

static void cid_json(struct jw *j, const char *policy,
		     const struct cidk_sim_switch_result *r)
{
	double n = r->switches ? (double)r->switches : 1;

	jw_break(j, "\n  ");
	jw_obj(j);
	jw_kstr(j, "policy", policy);
	jw_kuint(j, "switches", r->switches);
	jw_knum(j, "cid_rmw_per_switch", r->cid_rmw_per_switch, 4);
	jw_knum(j, "cid_search_per_switch", r->stats.bitmap_search / n, 4);
	jw_knum(j, "handovers_per_switch", r->handovers_per_switch, 4);
	jw_obj_end(j);
}

int cmd_sim_switch(int argc, char **argv)
{
	static const unsigned int def_cpus[] = { 2, 4, 8, 16, 48, 96, 192, 384 };
	const char *cmdname = "sim switch";
	struct opt_list pols = { .n = 0 };
	struct opt_uints cpul = { .n = 0 };
	struct cidk_sim_sched_params base;
	unsigned int *cpus = cpul.v, ncpus, np, duration_ms = 10;
	int pol[OPT_LIST_MAX];
	bool json = false, threads = false;
	int rc = 0, first;
	struct opt opts[] = {
		{ OPT_STRING("machine", 0, &base.machine, "SPEC",
			     "topology preset or spec") },
		{ OPT_UINTS("cpus", 0, &cpul, 2, 1u << 16, "N", "rr CPU counts"),
		  .def = "2,4,8,16,48,96,192,384" },
		{ OPT_FLAG("threads", 0, &threads,
			   "part 1 with one mm for every task (default: each side "
			   "of a pair is its own process, as netperf/netserver)") },
		{ OPT_LIST("policy", 0, &pols, "P",
			   "policies for part 2: bitmap, lazy, lazy-batched, "
			   "cache-local, inherit, ownership"),
		  .def = "all six" },
		{ OPT_UINT("duration-ms", 0, &duration_ms, 1, 60 * 1000, "D",
			   "simulated time per run") },
		{ OPT_U64("seed", 0, &base.seed, 0, UINT64_MAX, "S",
			  "seed of the simulation") },
		{ OPT_FLAG("json", 0, &json,
			   "one JSON object {\"mask\": [...], \"cid\": [...]}") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { cmdname, about, NULL, NULL, 0, 0, opts };
	struct jw j;

	cidk_sim_sched_defaults(&base);
	base.machine = "epyc-9654-2s";
	base.policy = CIDK_CID_INHERIT;
	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	base.processes = !threads;
	base.duration_ns = (uint64_t)duration_ms * 1000000;
	ncpus = cpul.n;
	if (!ncpus)
		for (ncpus = 0; ncpus < 8; ncpus++)
			cpus[ncpus] = def_cpus[ncpus];
	rc = sim_policies(cmdname, &pols, false, NULL, 0, pol);
	if (rc < 0)
		return CLI_EXIT_USAGE;
	np = (unsigned int)rc;

	/* Run everything first: an error must not leave half a table. */
	struct cidk_sim_switch_result mask[OPT_LIST_MAX + 1][2], cid[OPT_LIST_MAX];

	for (unsigned int i = 0; i <= ncpus; i++)
		for (int skip = 0; skip < 2; skip++) {
			struct cidk_sim_sched_params prm = base;
			struct cidk_topo_err err;

			prm.workload = i == 0 ? CIDK_SIM_PIPE : CIDK_SIM_RR;
			prm.cpus = i == 0 ? 2 : cpus[i - 1];
			prm.skip_idle_mm = skip;
			rc = cidk_sim_switch(&prm, &mask[i][skip], &err);
			if (rc)
				return sim_fail(cmdname, rc, &err);
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
			return sim_fail(cmdname, rc, &err);
	}

	if (json) {
		jw_init(&j, stdout);
		jw_obj(&j);
		jw_key(&j, "mask");
		jw_arr(&j);
		for (unsigned int i = 0; i <= ncpus; i++)
			for (int skip = 0; skip < 2; skip++)
				mask_json(&j, i ? "rr" : "pipe", i ? cpus[i - 1] : 2,
					  skip, &mask[i][skip]);
		jw_break(&j, "\n");
		jw_arr_end(&j);
		jw_key(&j, "cid");
		jw_arr(&j);
		for (unsigned int p = 0; p < np; p++)
			cid_json(&j, cidk_cid_policy_name((enum cidk_cid_policy_kind)pol[p]),
				 &cid[p]);
		jw_break(&j, "\n");
		jw_arr_end(&j);
		jw_obj_end(&j);
		jw_end(&j);
		return CLI_EXIT_OK;
	}

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
	for (unsigned int i = 0; i <= ncpus; i++) {
		const struct cidk_sim_switch_result *r = mask[i];

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

	printf("\n2. CID-bitmap work per context switch, messaging, one mm\n");
	printf("%-13s %10s %10s %10s %11s\n", "policy", "switches", "rmw/sw",
	       "search/sw", "handover/sw");
	for (unsigned int p = 0; p < np; p++) {
		const struct cidk_sim_switch_result *r = &cid[p];
		double n = r->switches ? (double)r->switches : 1;
		const char *name = cidk_cid_policy_name((enum cidk_cid_policy_kind)pol[p]);

		printf("%-13s %10llu %10.3f %10.3f %11.3f\n", name,
		       (unsigned long long)r->switches, r->cid_rmw_per_switch,
		       r->stats.bitmap_search / n, r->handovers_per_switch);
	}
	return CLI_EXIT_OK;
}
