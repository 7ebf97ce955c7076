/* SPDX-License-Identifier: MIT */
/*
 * topo_walk.c - this machine's last-level-cache groups: which CPUs share
 * an LLC, and how many cores each group has.
 *
 *   cc -O2 topo_walk.c $(pkg-config --cflags --libs cidkit) -o topo_walk
 *   ./topo_walk [SYSFS_ROOT]     (default /sys; or a saved sysfs tree)
 *
 * One line per group, "llc GROUP: cpus LIST (N cpus, C cores)", in the
 * order of the groups' lowest CPU; a machine whose sysfs has no cache
 * information (many VMs) prints "llc: none"; one whose groups overlap
 * (span sanity, docs/topo.md) is refused.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cidkit/mask.h>
#include <cidkit/topo.h>

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : "/sys";
	struct cidk_topo_insane why;
	struct cidk_topo_err err;
	struct cidk_topo *t;
	unsigned int cpu, group = 0;
	int rc;

	rc = cidk_topo_from_sysfs(root, &t, &err);
	if (rc < 0) {
		fprintf(stderr, "topo_walk: %s: %s\n", err.path, err.msg);
		return 1;
	}
	/* Groups that overlap (a firmware bug) would make the walk wrong. */
	if (!cidk_topo_span_sane(t, &why)) {
		fprintf(stderr, "topo_walk: %s groups of cpus %u and %u overlap\n",
			cidk_topo_level_name(why.level), why.cpu_a, why.cpu_b);
		cidk_topo_free(t);
		return 1;
	}
	if (!cidk_topo_has_level(t, CIDK_TOPO_LLC)) {
		printf("llc: none (%u online CPUs)\n", cidk_topo_nr_online(t));
		cidk_topo_free(t);
		return 0;
	}

	/* A group's id is its lowest CPU: visit each group once, from there. */
	cidk_mask_for_each(cpu, cidk_topo_online(t)) {
		const struct cidk_mask *llc;
		unsigned int sib, cores = 0;
		char *list;

		if (cidk_topo_group_id(t, CIDK_TOPO_LLC, cpu) != cpu)
			continue;
		llc = cidk_topo_mask(t, CIDK_TOPO_LLC, cpu);
		list = llc ? cidk_mask_list_alloc(llc) : NULL;
		if (!list) {
			perror("topo_walk");
			cidk_topo_free(t);
			return 1;
		}
		/* a core: an SMT group, counted at its lowest CPU */
		cidk_mask_for_each(sib, llc)
			cores += !cidk_topo_has_level(t, CIDK_TOPO_SMT) ||
				 cidk_topo_group_id(t, CIDK_TOPO_SMT, sib) == sib;
		printf("llc %u: cpus %s (%u cpus, %u cores)\n", group++, list,
		       cidk_mask_weight(llc), cores);
		free(list);
	}
	cidk_topo_free(t);
	return 0;
}
