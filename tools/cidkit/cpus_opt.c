/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cpus_opt.h"

struct cidk_mask *cpus_opt_allowed(const char *what)
{
	struct cidk_mask *m = cidk_mask_alloc(CPUS_OPT_NBITS);
	cpu_set_t set;

	if (!m) {
		cli_error("%s: %s", what, strerror(ENOMEM));
		return NULL;
	}
	if (sched_getaffinity(0, sizeof(set), &set)) {
		cli_error("%s: sched_getaffinity: %s", what, strerror(errno));
		cidk_mask_free(m);
		return NULL;
	}
	for (unsigned int c = 0; c < CPU_SETSIZE && c < CPUS_OPT_NBITS; c++)
		if (CPU_ISSET(c, &set))
			cidk_mask_set(m, c);
	return m;
}

struct cidk_mask *cpus_opt_parse(const char *what, const char *s,
				 const struct cidk_mask *allowed)
{
	struct cidk_mask *m = cidk_mask_alloc(CPUS_OPT_NBITS);
	char ex[40], *have = NULL;
	unsigned int bad;
	size_t pos = 0;
	int rc;

	if (!m) {
		cli_error("%s: %s", what, strerror(ENOMEM));
		return NULL;
	}
	rc = cidk_mask_parse_list(m, s, &pos);
	if (rc) {
		cli_excerpt(s + (pos <= strlen(s) ? pos : 0), ex, sizeof(ex));
		cli_error("%s: '%s' at offset %zu: %s", what, ex, pos,
			  rc == -ERANGE ? "CPU number out of range"
					: "malformed cpulist");
		goto fail;
	}
	if (cidk_mask_empty(m)) {
		cli_error("%s: the cpulist is empty", what);
		goto fail;
	}
	bad = cidk_mask_next_andnot(m, allowed, 0);
	if (bad < m->nbits) {
		have = cidk_mask_list_alloc(allowed);
		cli_error("%s: CPU %u is not one this process may run on (%s)",
			  what, bad, have ? have : "?");
		free(have);
		goto fail;
	}
	return m;
fail:
	cidk_mask_free(m);
	return NULL;
}
