/* SPDX-License-Identifier: MIT */
#include <string.h>

#include <cidkit/sim.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "cli.h"
#include "sim_args.h"

const struct opt_choice sim_triggers[] = {
	{ "tick", CIDK_CID_SCAN_TICK },
	{ "return-to-user", CIDK_CID_SCAN_RETURN_TO_USER },
	{ "rtu", CIDK_CID_SCAN_RETURN_TO_USER },
	{ NULL, 0 },
};

int sim_parse_policy(const char *cmd, const char *s, bool per_cpu_ok, int *out)
{
	enum cidk_cid_policy_kind k;

	if (per_cpu_ok && !strcmp(s, "per-cpu")) {
		*out = CIDK_SIM_PER_CPU;
		return 0;
	}
	if (cidk_cid_policy_parse(s, &k)) {
		struct cidk_cid_params p;

		/*
		 * A variant (ownership:v6.19) exists for the races the
		 * published fixes removed; the simulator runs each switch,
		 * fork and walk whole and models the current designs only
		 * (not plumbed: docs/sim.md).
		 */
		if (strchr(s, ':') && !cidk_cid_params_parse(s, &p))
			return cli_error("%s: '%s': policy variants run in 'cidkit check' only "
					 "(the simulator models each policy's current design)",
					 cmd, cli_q(s));
		return cli_error("%s: unknown policy '%s' (%sbitmap, lazy, lazy-batched, cache-local, inherit, ownership)",
				 cmd, cli_q(s), per_cpu_ok ? "per-cpu, " : "");
	}
	*out = (int)k;
	return 0;
}

int sim_policies(const char *cmd, const struct opt_list *l, bool per_cpu_ok,
		 const int *def, unsigned int ndef, int *pol)
{
	unsigned int n;

	for (n = 0; n < l->n; n++)
		if (sim_parse_policy(cmd, l->item[n], per_cpu_ok, &pol[n]))
			return -1;
	if (n)
		return (int)n;
	if (!def)
		ndef = CIDK_CID_NR_POLICIES;
	for (n = 0; n < ndef; n++)
		pol[n] = def ? def[n] : (int)n;
	return (int)n;
}

bool sim_policy_scans(int policy)
{
	return policy == CIDK_CID_LAZY || policy == CIDK_CID_LAZY_BATCHED ||
	       policy == CIDK_CID_CACHE_LOCAL;
}

int sim_parse_trigger(const char *cmd, const char *s,
		      enum cidk_cid_scan_trigger *out)
{
	for (const struct opt_choice *c = sim_triggers; c->name; c++)
		if (!strcmp(s, c->name)) {
			*out = (enum cidk_cid_scan_trigger)c->value;
			return 0;
		}
	return cli_error("%s: --trigger: unknown trigger '%s' (tick or return-to-user)",
			 cmd, cli_q(s));
}

int sim_fail(const char *cmd, int rc, const struct cidk_topo_err *err)
{
	return cli_error("%s: %s%s%s", cmd, cli_q(err->path), *err->path ? ": " : "",
			 *err->msg ? err->msg : strerror(-rc));
}
