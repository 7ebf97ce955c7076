/* SPDX-License-Identifier: MIT */
/* cidkit sim - dispatch to one scenario per file. */
#include "cli.h"
#include "cmds.h"

static const struct cli_cmd scenarios[] = {
	{ "locality", cmd_sim_locality, "cache locality of per-CID areas (the cache-local policy's table)" },
	{ "scan", cmd_sim_scan, "latency added by the lazy policies' compaction scan" },
	{ "compaction-test", cmd_sim_compaction, "the kernel's mm_cid compaction selftest, simulated" },
	{ "switch", cmd_sim_switch, "mm-mask and CID-bitmap traffic on the context-switch path" },
	{ "replay", cmd_sim_replay, "a recorded schedule through every policy, and the model's agreement with the kernel" },
	{ NULL, NULL, NULL },
};

int cmd_sim(int argc, char **argv)
{
	return cli_dispatch("sim", scenarios, argc - 1, argv + 1);
}
