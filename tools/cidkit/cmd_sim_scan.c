/* SPDX-License-Identifier: MIT */
/*
 * cidkit sim scan - latency the lazy policies' compaction adds, per call,
 * full-pass time in batches, compactness; and how the worst case grows
 * with the CPU count (--scaling).
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
	"Latency the lazy policies' compaction scan adds to the task that runs it\n"
	"(per call: p50, p99, max), the time to complete a full pass, and how\n"
	"compact the CIDs stay (largest running CID + 1 over min(nr_cpus_allowed,\n"
	"nr_users): time average and worst).\n"
	"nr_users): time average and worst).\n";

struct row {
	const char *machine;
	enum cidk_sim_workload workload;
	int policy;
	unsigned int batch;
	struct cidk_sim_scan_result r;
};

static const char *const scaling_machines[] = {
	"1s32c2t", "2s32c2t", "2s64c2t", "4s64c2t",
	"8s64c2t", "8s128c2t", "16s128c2t", "16s256c2t",
};

static void print_json(const struct row *rows, unsigned int n)
{
	struct jw j;

	jw_init(&j, stdout);
	jw_arr(&j);
	for (unsigned int i = 0; i < n; i++) {
		const struct row *x = &rows[i];

		jw_break(&j, "\n  ");
		jw_obj(&j);
		jw_kstr(&j, "machine", x->machine);
		jw_kuint(&j, "nr_cpus", x->r.nr_cpus);
		jw_kstr(&j, "policy",
			cidk_cid_policy_name((enum cidk_cid_policy_kind)x->policy));
		jw_kuint(&j, "batch", x->batch);
		jw_kstr(&j, "workload", cidk_sim_workload_name(x->workload));
		jw_kuint(&j, "calls", x->r.calls);
		jw_knum(&j, "p50_us", x->r.p50_us, 3);
		jw_knum(&j, "p99_us", x->r.p99_us, 3);
		jw_knum(&j, "max_us", x->r.max_us, 3);
		jw_knum(&j, "full_pass_ms", x->r.full_pass_ms, 4);
		jw_kuint(&j, "max_cid", x->r.max_cid);
		jw_kuint(&j, "bound", x->r.bound);
		jw_knum(&j, "max_cid_avg_ratio", x->r.max_cid_avg, 4);
		jw_knum(&j, "max_cid_max_ratio", x->r.max_cid_max, 4);
		jw_kbool(&j, "has_scan", sim_policy_scans(x->policy));
		jw_obj_end(&j);
	}
	jw_break(&j, "\n");
	jw_arr_end(&j);
	jw_end(&j);
}

static void print_table(const struct row *rows, unsigned int n, bool scaling)
{
	printf("\n%-10s %6s %-13s %5s %8s %9s %9s %9s %12s %9s %9s\n",
	       scaling ? "machine" : "workload", "cpus", "policy", "batch",
	       "calls", "p50 us", "p99 us", "max us", "full pass ms",
	       "cid avg", "cid max");
	for (unsigned int i = 0; i < n; i++) {
		const struct row *x = &rows[i];
		char batch[16] = "-";

		if (x->policy == CIDK_CID_LAZY_BATCHED)
			snprintf(batch, sizeof(batch), "%u", x->batch);
		if (!sim_policy_scans(x->policy)) { /* no scan: nothing to time */
			printf("%-10s %6u %-13s %5s %8s %9s %9s %9s %12s %8.2fx %8.2fx\n",
			       scaling ? x->machine
				       : cidk_sim_workload_name(x->workload),
			       x->r.nr_cpus,
			       cidk_cid_policy_name((enum cidk_cid_policy_kind)x->policy),
			       batch, "n/a", "n/a", "n/a", "n/a", "n/a",
			       x->r.max_cid_avg, x->r.max_cid_max);
			continue;
		}
		printf("%-10s %6u %-13s %5s %8llu %9.2f %9.2f %9.2f %12.3f %8.2fx %8.2fx\n",
		       scaling ? x->machine : cidk_sim_workload_name(x->workload),
		       x->r.nr_cpus,
		       cidk_cid_policy_name((enum cidk_cid_policy_kind)x->policy),
		       batch, (unsigned long long)x->r.calls, x->r.p50_us,
		       x->r.p99_us, x->r.max_us, x->r.full_pass_ms,
		       x->r.max_cid_avg, x->r.max_cid_max);
	}
}

int cmd_sim_scan(int argc, char **argv)
{
	static const int def_pol[] = { CIDK_CID_LAZY, CIDK_CID_LAZY_BATCHED,
				       CIDK_CID_INHERIT, CIDK_CID_OWNERSHIP };
	const char *cmdname = "sim scan";
	struct opt_list wls = { .n = 0 }, pols = { .n = 0 };
	struct opt_uints batches = { .n = 0 };
	struct cidk_sim_sched_params base;
	enum cidk_sim_workload wl[OPT_LIST_MAX];
	int pol[OPT_LIST_MAX];
	unsigned int *bat = batches.v, nw, np, nb, n = 0, cap;
	unsigned int duration_ms = 300;
	bool json = false, scaling = false, perf = false;
	bool progress = isatty(STDERR_FILENO);
	struct row *rows;
	uint64_t events = 0;
	double host = 0;
	int rc = 0, first, trigger;
	struct opt opts[] = {
		{ OPT_STRING("machine", 0, &base.machine, "SPEC",
			     "topology preset or spec") },
		{ OPT_LIST("workload", 0, &wls, "W",
			   "periodic (cyclictest-like), messaging (hackbench-like)"),
		  .def = "both" },
		{ OPT_LIST("policy", 0, &pols, "P",
			   "lazy, lazy-batched, inherit, cache-local, bitmap, "
			   "ownership; the ones without a scan print n/a for its "
			   "columns"),
		  .def = "lazy lazy-batched inherit ownership" },
		{ OPT_UINTS("batch", 0, &batches, 1, 1u << 20, "B",
			    "lazy-batched batch sizes"),
		  .def = "8,16,32,64" },
		{ OPT_ENUM("trigger", 0, &trigger, sim_triggers, "T",
			   "where compaction runs; the reference measured tick") },
		{ OPT_UINT("duration-ms", 0, &duration_ms, 1, 60 * 1000, "D",
			   "simulated time per run") },
		{ OPT_U64("seed", 0, &base.seed, 0, UINT64_MAX, "S",
			  "seed of the simulation") },
		{ OPT_FLAG("scaling", 0, &scaling,
			   "instead: worst call latency and full pass of lazy and "
			   "lazy-batched (B=16) on 64..8192 CPUs (periodic)") },
		{ OPT_FLAG("json", 0, &json, "a JSON array of results") },
		{ OPT_FLAG("perf", 0, &perf, "events and events per second, on stderr") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { cmdname, about, NULL, NULL, 0, 0, opts };

	cidk_sim_sched_defaults(&base);
	trigger = CIDK_CID_SCAN_TICK; /* as the reference measured */
	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	base.trigger = (enum cidk_cid_scan_trigger)trigger;
	base.duration_ns = (uint64_t)duration_ms * 1000000;

	nw = wls.n;
	for (unsigned int i = 0; i < nw; i++)
		if (cidk_sim_workload_parse(wls.item[i], &wl[i]) ||
		    wl[i] > CIDK_SIM_MESSAGING)
			return cli_error("%s: unknown workload '%s' (periodic or messaging)",
					 cmdname, cli_q(wls.item[i]));
	if (!nw) {
		wl[nw++] = CIDK_SIM_PERIODIC;
		if (!scaling)
			wl[nw++] = CIDK_SIM_MESSAGING;
	}
	rc = sim_policies(cmdname, &pols, false, def_pol, scaling ? 2 : 4, pol);
	if (rc < 0)
		return CLI_EXIT_USAGE;
	np = (unsigned int)rc;
	rc = 0;
	nb = batches.n;
	if (!nb) {
		static const unsigned int def[] = { 8, 16, 32, 64 };

		for (nb = 0; nb < (scaling ? 1u : 4u); nb++)
			bat[nb] = scaling ? 16 : def[nb];
	}

	cap = (scaling ? 8 : 1) * nw * np * nb;
	rows = calloc(cap, sizeof(*rows));
	if (!rows)
		return cli_error("%s: out of memory", cmdname);
	for (unsigned int mi = 0; mi < (scaling ? 8u : 1u) && !rc; mi++)
		for (unsigned int w = 0; w < nw && !rc; w++)
			for (unsigned int p = 0; p < np && !rc; p++)
				for (unsigned int b = 0; b < nb && !rc; b++) {
					struct cidk_sim_sched_params prm = base;
					struct cidk_topo_err err;
					struct row *x;

					if (pol[p] != CIDK_CID_LAZY_BATCHED && b)
						continue; /* batch only matters there */
					x = &rows[n];
					prm.machine = scaling ? scaling_machines[mi]
							      : base.machine;
					prm.workload = wl[w];
					prm.policy = (enum cidk_cid_policy_kind)pol[p];
					prm.batch = bat[b];
					x->machine = prm.machine;
					x->workload = wl[w];
					x->policy = pol[p];
					x->batch = bat[b];
					if (progress)
						fprintf(stderr, "\r%s: run %u %-10s %-9s %-12s\033[K",
							cmdname, n + 1, prm.machine,
							cidk_sim_workload_name(wl[w]),
							cidk_cid_policy_name(prm.policy));
					rc = cidk_sim_scan(&prm, &x->r, &err);
					if (rc) {
						if (progress)
							fputc('\n', stderr);
						rc = sim_fail(cmdname, rc, &err);
						break;
					}
					events += x->r.events;
					host += x->r.host_seconds;
					n++;
				}
	if (progress)
		fputs("\r\033[K", stderr);
	if (!rc) {
		if (json) {
			print_json(rows, n);
		} else {
			cli_echo_command(stdout, argc, argv, "sim");
			printf("%s, compaction on %s, %u ms simulated per run, seed %llu\n",
			       scaling ? "machines of 64 to 8192 CPUs" : base.machine,
			       base.trigger == CIDK_CID_SCAN_TICK ? "tick" : "return to user",
			       duration_ms, (unsigned long long)base.seed);
			printf("latency per compaction call; cid avg/max: (largest running CID + 1) / min(nr_cpus_allowed, nr_users)\n");
			print_table(rows, n, scaling);
		}
		if (perf)
			fprintf(stderr, "%s: %llu events in %.3f s of host time: %.1f M events/s\n",
				cmdname, (unsigned long long)events, host,
				host > 0 ? (double)events / host / 1e6 : 0.0);
	}
	free(rows);
	return rc;
}
