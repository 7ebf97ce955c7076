/* SPDX-License-Identifier: MIT */
/* The subcommands: one file each, dispatched from main.c / cmd_bench.c. */
#ifndef CIDKIT_TOOLS_CMDS_H
#define CIDKIT_TOOLS_CMDS_H

int cmd_cpulist(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_cid(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_resctrl(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_abi(int argc, char **argv);
int cmd_stress(int argc, char **argv);

/* cidkit sim ... */
int cmd_sim_locality(int argc, char **argv);
int cmd_sim_scan(int argc, char **argv);
int cmd_sim_compaction(int argc, char **argv);
int cmd_sim_switch(int argc, char **argv);
int cmd_sim_replay(int argc, char **argv);

/* cidkit bench ... */
int cmd_bench_mask(int argc, char **argv);
int cmd_bench_pipe(int argc, char **argv);
int cmd_bench_burst(int argc, char **argv);
int cmd_bench_topo(int argc, char **argv);
int cmd_bench_lease(int argc, char **argv);
int cmd_bench_call(int argc, char **argv);
int cmd_bench_cat(int argc, char **argv);
int cmd_bench_percpu(int argc, char **argv);
int cmd_bench_replay(int argc, char **argv);
int cmd_bench_probe(int argc, char **argv);

#endif /* CIDKIT_TOOLS_CMDS_H */
