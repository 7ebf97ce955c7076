/* SPDX-License-Identifier: MIT */
/*
 * tests/perf/lease_instr.c - N lease enter/exit pairs of one policy on one
 * thread, for callgrind to count (lease_instr.py).
 *
 * usage: lease_instr POLICY PAIRS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/lease.h>

int main(int argc, char **argv)
{
	struct cidk_lease_domain *d;
	struct cidk_cid_params p;
	unsigned long pairs;
	int kind = -1;

	if (argc != 3)
		return 2;
	for (int k = 0; k < CIDK_CID_NR_POLICIES; k++)
		if (!strcmp(argv[1], cidk_cid_policy_name(k)))
			kind = k;
	pairs = strtoul(argv[2], NULL, 10);
	if (kind < 0 || !pairs)
		return 2;
	cidk_cid_params_default(&p, (enum cidk_cid_policy_kind)kind);
	if (cidk_lease_domain_create(&p, 0, &d))
		return 1;
	for (unsigned long i = 0; i < pairs; i++) {
		if (cidk_lease_enter(d) < 0 || cidk_lease_exit(d))
			return 1;
	}
	cidk_lease_domain_destroy(d);
	return 0;
}
