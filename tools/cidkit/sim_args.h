/* SPDX-License-Identifier: MIT */
/* Option values the sim subcommands share: policies, triggers, failures. */
#ifndef CIDKIT_TOOLS_SIM_ARGS_H
#define CIDKIT_TOOLS_SIM_ARGS_H

#include <cidkit/cid.h>
#include <cidkit/topo.h>

#include "opt.h"

/* --trigger's choices (an OT_ENUM option): tick, return-to-user, rtu. */
extern const struct opt_choice sim_triggers[];

/*
 * A policy name, or "per-cpu" when @per_cpu_ok (then *out is
 * CIDK_SIM_PER_CPU).  0, or prints one line and returns 2.
 */
int sim_parse_policy(const char *cmd, const char *s, bool per_cpu_ok, int *out);

/*
 * The policies of the list option @l into @pol (at most OPT_LIST_MAX), or,
 * when it is empty, the @ndef policies of @def (NULL: every policy, in
 * order).  Returns how many, or -1 after one error line.
 */
int sim_policies(const char *cmd, const struct opt_list *l, bool per_cpu_ok,
		 const int *def, unsigned int ndef, int *pol);

/* The lazy family compacts with a scan; the others have none to time. */
bool sim_policy_scans(int policy);

/* One of sim_triggers (the items of a list option).  0, or prints and returns 2. */
int sim_parse_trigger(const char *cmd, const char *s,
		      enum cidk_cid_scan_trigger *out);

/*
 * A scenario failed with @rc: print "cidkit: CMD: what: why" from @err (or
 * the errno text) and return 2.
 */
int sim_fail(const char *cmd, int rc, const struct cidk_topo_err *err);

#endif /* CIDKIT_TOOLS_SIM_ARGS_H */
