/* SPDX-License-Identifier: MIT */
#include <string.h>

#include <cidkit/sim.h>

#include "cli.h"
#include "sim_args.h"

int sim_list_add(const char *cmd, const char *what, struct sim_list *l,
		 const char *s)
{
	const char *start = s;

	for (;;) {
		size_t len = strcspn(s, ",");

		if (l->n == SIM_ARGS_MAX)
			return cli_error("%s: %s: at most %d values", cmd, what,
					 SIM_ARGS_MAX);
		if (len >= SIM_ARG_LEN)
			return cli_error("%s: %s: value '%s' too long", cmd, what,
					 cli_q(s));
		/* an empty item is a typo, never "the defaults" */
		if (!len)
			return cli_error("%s: %s: empty value in '%s'", cmd, what,
					 cli_q(s == start ? s : start));
		memcpy(l->store[l->n], s, len);
		l->store[l->n][len] = '\0';
		l->item[l->n] = l->store[l->n];
		l->n++;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

int sim_parse_policy(const char *cmd, const char *s, bool per_cpu_ok, int *out)
{
	enum cidk_cid_policy_kind k;

	if (per_cpu_ok && !strcmp(s, "per-cpu")) {
		*out = CIDK_SIM_PER_CPU;
		return 0;
	}
	if (cidk_cid_policy_parse(s, &k))
		return cli_error("%s: unknown policy '%s' (%sbitmap, lazy, lazy-batched, cache-local, inherit, ownership)",
				 cmd, cli_q(s), per_cpu_ok ? "per-cpu, " : "");
	*out = (int)k;
	return 0;
}

int sim_parse_trigger(const char *cmd, const char *s,
		      enum cidk_cid_scan_trigger *out)
{
	if (!strcmp(s, "tick"))
		*out = CIDK_CID_SCAN_TICK;
	else if (!strcmp(s, "return-to-user") || !strcmp(s, "rtu"))
		*out = CIDK_CID_SCAN_RETURN_TO_USER;
	else
		return cli_error("%s: --trigger: unknown trigger '%s' (tick or return-to-user)",
				 cmd, cli_q(s));
	return 0;
}

int sim_fail(const char *cmd, int rc, const struct cidk_topo_err *err)
{
	return cli_error("%s: %s%s%s", cmd, cli_q(err->path), *err->path ? ": " : "",
			 *err->msg ? err->msg : strerror(-rc));
}
