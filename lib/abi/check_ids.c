/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/check_ids.c - "ids": after the thread is moved to each allowed
 * CPU, the area's cpu_id and cpu_id_start name that CPU and node_id its
 * node (uapi linux/rseq.h: cpu_id and cpu_id_start always hold the CPU the
 * thread runs on once registered; node_id since feature size 24).  The
 * oracle is the affinity we set and getcpu(2) as a system call.
 *
 * Break "stale": read the area once, before moving -- a user that caches
 * its IDs; with two or more CPUs it must FAIL.
 */
#include <string.h>
#include <sys/auxv.h>

#include "abi/abi_impl.h"

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#endif

void cidk__abi_check_ids(const struct cidk__abi_opts *o,
			 struct cidk__abi_result *r)
{
	static int cpus[CIDK_ABI_MAX_CPUS];
	unsigned int n = cidk__abi_allowed(cpus, CIDK_ABI_MAX_CPUS);
	unsigned int fs = (unsigned int)getauxval(AT_RSEQ_FEATURE_SIZE);
	unsigned int bad_cpu = 0, bad_start = 0, bad_node = 0, visited = 0;
	struct cidk__abi_area ar;
	struct cidk_rseq_abi snap;
	int first_bad = -1, rc;

	rc = cidk__abi_area_get(&ar, o->breaks);
	if (rc) {
		cidk__abi_say(r, CIDK__ABI_NA, "no rseq area: %s", strerror(-rc));
		return;
	}
	snap.cpu_id = ar.a->cpu_id;
	snap.cpu_id_start = ar.a->cpu_id_start;
	snap.node_id = ar.a->node_id;
	for (unsigned int i = 0; i < n; i++) {
		unsigned int cpu = 0, node = 0;
		uint32_t id, start, nid;

		if (cidk__abi_pin(0, cpus[i]) || cidk__abi_getcpu(&cpu, &node) ||
		    cpu != (unsigned int)cpus[i])
			continue; /* offline since, or refused: not visited */
		visited++;
		if (o->breaks & CIDK_ABI_BREAK_STALE) {
			id = snap.cpu_id;
			start = snap.cpu_id_start;
			nid = snap.node_id;
		} else {
			id = ar.a->cpu_id;
			start = ar.a->cpu_id_start;
			nid = ar.a->node_id;
		}
		if (id != cpu)
			bad_cpu++;
		if (start != cpu)
			bad_start++;
		if (fs >= CIDK_RSEQ_FEATURE_NODE_ID && nid != node)
			bad_node++;
		if ((id != cpu || start != cpu ||
		     (fs >= CIDK_RSEQ_FEATURE_NODE_ID && nid != node)) && first_bad < 0)
			first_bad = (int)cpu;
	}
	cidk__abi_unpin(cpus, n);
	cidk__abi_ev(r, "cpus_allowed", n);
	cidk__abi_ev(r, "cpus_visited", visited);
	cidk__abi_ev(r, "cpu_id_wrong", bad_cpu);
	cidk__abi_ev(r, "cpu_id_start_wrong", bad_start);
	cidk__abi_ev(r, "node_id_wrong", bad_node);
	if (!visited) {
		cidk__abi_say(r, CIDK__ABI_NA, "could not move the thread to any allowed CPU");
		return;
	}
	if (bad_cpu || bad_start || bad_node) {
		cidk__abi_say(r, CIDK__ABI_FAIL,
			      "wrong IDs on %u of %u CPUs (first: CPU %d): cpu_id %u, cpu_id_start %u, node_id %u times",
			      bad_cpu > bad_start ? (bad_cpu > bad_node ? bad_cpu : bad_node)
						  : (bad_start > bad_node ? bad_start : bad_node),
			      visited, first_bad, bad_cpu, bad_start, bad_node);
		return;
	}
	cidk__abi_say(r, CIDK__ABI_PASS,
		      "cpu_id, cpu_id_start%s right on all %u CPUs visited",
		      fs >= CIDK_RSEQ_FEATURE_NODE_ID ? " and node_id" : " (node_id not provided: feature size < 24)",
		      visited);
}
