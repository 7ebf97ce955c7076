/* SPDX-License-Identifier: MIT */
/* Option values the sim subcommands share: lists, policies, triggers. */
#ifndef CIDKIT_TOOLS_SIM_ARGS_H
#define CIDKIT_TOOLS_SIM_ARGS_H

#include <cidkit/cid.h>
#include <cidkit/topo.h>

#define SIM_ARGS_MAX 32
#define SIM_ARG_LEN 256

/* Values of a repeatable, comma-separated option, copied (argv stays intact). */
struct sim_list {
	char *item[SIM_ARGS_MAX];
	char store[SIM_ARGS_MAX][SIM_ARG_LEN];
	unsigned int n;
};

/* Append the comma-separated items of @s; 0, or one line and exit status 2. */
int sim_list_add(const char *cmd, const char *what, struct sim_list *l,
		 const char *s);

/*
 * A policy name, or "per-cpu" when @per_cpu_ok (then *out is
 * CIDK_SIM_PER_CPU).  0, or prints one line and returns 2.
 */
int sim_parse_policy(const char *cmd, const char *s, bool per_cpu_ok, int *out);

/* "tick" or "return-to-user" (also "rtu").  0, or prints and returns 2. */
int sim_parse_trigger(const char *cmd, const char *s,
		      enum cidk_cid_scan_trigger *out);

/*
 * A scenario failed with @rc: print "cidkit: CMD: what: why" from @err (or
 * the errno text) and return 2.
 */
int sim_fail(const char *cmd, int rc, const struct cidk_topo_err *err);

#endif /* CIDKIT_TOOLS_SIM_ARGS_H */
