/* SPDX-License-Identifier: MIT */
/*
 * Internal: how a topology is stored.
 *
 * Per level, the distinct group masks are stored once (struct
 * cidk__topo_group) and every CPU holds the index of its group, so that
 *   - distance and group id are O(1) (compare / read one index per level);
 *   - span sanity touches each group's non-zero words only (nz[]), which
 *     keeps it O(N) even when a group's CPUs are far apart (Linux x86
 *     numbering puts SMT siblings n and n + nr_cores into distant words).
 * Invariants:
 *   - grp[cpu] is CIDK__TOPO_NONE or the index of a live group (refs > 0);
 *   - a live group's first, nz[] and nr_nz describe its mask exactly;
 *   - online_refs counts the online CPUs whose grp[] is the group, and
 *     nr_groups the live groups with online_refs > 0;
 *   - by_first[c] is only a hint (a group whose first CPU was c); readers
 *     check it.  Equal masks usually share a group, but correctness never
 *     depends on it: equality is decided by content.
 */
#ifndef CIDKIT_TOPO_INTERNAL_H
#define CIDKIT_TOPO_INTERNAL_H

#include <stdint.h>

#include <cidkit/topo.h>

#define CIDK__TOPO_NONE UINT32_MAX

struct cidk__topo_group {
	struct cidk_mask *mask; /* NULL when dead */
	unsigned int first;	/* lowest CPU, nbits when empty */
	unsigned int nr_nz;	/* non-zero words */
	uint32_t *nz;		/* their indices, ascending */
	unsigned int refs;	/* CPUs whose group this is */
	unsigned int online_refs;
};

struct cidk__topo_level {
	bool present;
	uint32_t *grp; /* [nr_cpu_ids] */
	uint32_t *by_first; /* [nr_cpu_ids] */
	struct cidk__topo_group *groups;
	uint32_t nr, cap;
	unsigned int nr_groups;
};

struct cidk_topo {
	unsigned int nr_cpu_ids;
	unsigned int nr_online;
	struct cidk_mask *online;
	struct cidk__topo_level lv[CIDK_TOPO_NR_LEVELS];
};

/* The group of @cpu at @level, or NULL (absent level, no mask). */
static inline const struct cidk__topo_group *
cidk__topo_group_of(const struct cidk_topo *t, enum cidk_topo_level level,
		    unsigned int cpu)
{
	uint32_t g = t->lv[level].grp[cpu];

	return g == CIDK__TOPO_NONE ? NULL : &t->lv[level].groups[g];
}

/* Content equality / intersection over the non-zero words only. */
bool cidk__topo_group_equal(const struct cidk__topo_group *a,
			    const struct cidk__topo_group *b);
bool cidk__topo_group_intersects(const struct cidk__topo_group *a,
				 const struct cidk__topo_group *b);

/* Forget every mask of @level; the level is then absent. */
void cidk__topo_drop_level(struct cidk_topo *t, enum cidk_topo_level level);

/* Fill @err (either may be NULL-safe: err may be NULL). */
void cidk__topo_err(struct cidk_topo_err *err, const char *path,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* CIDKIT_TOPO_INTERNAL_H */
