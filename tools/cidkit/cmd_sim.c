/* SPDX-License-Identifier: MIT */
/* cidkit sim - dispatch to one scenario per file. */
#include "cli.h"
#include "cmds.h"

static const struct cli_cmd scenarios[] = {
	{ "locality", cmd_sim_locality, "cache locality of per-CID areas (the cache-local policy's table)" },
	{ NULL, NULL, NULL },
};

int cmd_sim(int argc, char **argv)
{
	return cli_dispatch("sim", scenarios, argc - 1, argv + 1);
}
