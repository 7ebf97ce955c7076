/* SPDX-License-Identifier: MIT */
/*
 * cidkit - one command, one file per subcommand.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmds.h"

static const struct cli_cmd commands[] = {
	{ "cpulist", cmd_cpulist, "convert masks between cpulist and hex" },
	{ "topo", cmd_topo, "CPU topology: levels, groups and span sanity" },
	{ "cid", cmd_cid, "the kernel's cpu_id and mm_cid as threads wake and sleep" },
	{ "sim", cmd_sim, "the simulator's scenarios" },
	{ "abi", cmd_abi, "does this kernel keep rseq's promises? (abort, IDs, mm_cid, ...)" },
	{ "stress", cmd_stress, "drive the kernel's mm_cid toward the 6.19 bugs; watch its invariants" },
	{ "check", cmd_check, "explore interleavings of the CID policies' real code" },
	{ "trace", cmd_trace, "record a real schedule (libtracefs) for 'sim replay'" },
	{ "bench", cmd_bench, "benchmarks on this machine" },
	{ "cat", cmd_cat, "open once, pread many (drop-in for fastcat)" },
	{ "resctrl", cmd_resctrl, "sample resctrl memory bandwidth per group and domain" },
	{ NULL, NULL, NULL },
};

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--version")) {
		printf("cidkit %s\n", CIDKIT_VERSION);
		return 0;
	}
	return cli_dispatch("", commands, argc - 1, argv + 1);
}
