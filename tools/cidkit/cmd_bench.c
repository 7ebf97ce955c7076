/* SPDX-License-Identifier: MIT */
/* cidkit bench - dispatch to one benchmark per file. */
#include "cli.h"
#include "cmds.h"

static const struct cli_cmd benches[] = {
	{ "mask", cmd_bench_mask, "allowed-CPUs union: union_count vs per-bit vs locked" },
	{ "pipe", cmd_bench_pipe, "context-switch round trip through two pipes" },
	{ "burst", cmd_bench_burst, "cache locality of per-CPU/CID areas, one thread at a time" },
	{ "lease", cmd_bench_lease, "ns per CID lease enter/exit pair, every policy, vs a mutex" },
	{ "topo", cmd_bench_topo, "span sanity: pairwise vs linear on 1920 and 8192 CPUs" },
	{ "call", cmd_bench_call, "domain-affine call: direct vs hand-off to this/another CPU" },
	{ "cat", cmd_bench_cat, "counter reads: open+read+close vs open once + pread" },
	{ "percpu", cmd_bench_percpu, "ns per per-CPU counter increment: rseq, atomics, leases, mutex" },
	{ "probe", cmd_bench_probe, "us per in-process rseq probe (cidkit/abi.h), fresh and first" },
	{ "replay", cmd_bench_replay, "events per second replayed through the policies (sim replay)" },
	{ NULL, NULL, NULL },
};

int cmd_bench(int argc, char **argv)
{
	return cli_dispatch("bench", benches, argc - 1, argv + 1);
}
