/* SPDX-License-Identifier: MIT */
/*
 * Internal: how a topology is stored.
 *
 * Per level, the distinct group masks are stored once (struct
 * cidk__topo_group), sparsely: only the non-zero words, so that a level
 * costs O(N) memory however many groups it has (65536 one-CPU groups of a
 * 65536-CPU machine take a few hundred KB, not 65536 full-width masks).
 * Every CPU holds the index of its group, so that
 *   - distance and group id are O(1) (compare / read one index per level);
 *   - span sanity touches each group's non-zero words only (nz[]), which
 *     keeps it O(N) even when a group's CPUs are far apart (Linux x86
 *     numbering puts SMT siblings n and n + nr_cores into distant words).
 * Invariants:
 *   - grp[cpu] is CIDK__TOPO_NONE or the index of a live group (refs > 0);
 *   - a group is live when w != NULL; its first, nz[], w[] and nr_nz
 *     describe its mask exactly (w[k] is word nz[k], never zero);
 *   - full is NULL or a full-width copy of the mask, made on the first
 *     cidk_topo_mask() for the group and kept in step by remove_cpu;
 *   - online_refs counts the online CPUs whose grp[] is the group, and
 *     nr_groups the live groups with online_refs > 0;
 *   - by_first[c] is only a hint (a group whose first CPU was c); readers
 *     check it.  Equal masks usually share a group, but correctness never
 *     depends on it: equality is decided by content.
 */
#ifndef CIDKIT_TOPO_INTERNAL_H
#define CIDKIT_TOPO_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include <cidkit/topo.h>

#include "internal/cidkit_lab.h" /* presets, the pairwise references */

#define CIDK__TOPO_NONE UINT32_MAX

struct cidk__topo_group {
	unsigned long *w;	/* the non-zero words; NULL when dead */
	uint32_t *nz;		/* their indices, ascending */
	unsigned int nr_nz;	/* how many */
	unsigned int first;	/* lowest CPU, nbits when empty */
	unsigned int refs;	/* CPUs whose group this is */
	unsigned int online_refs;
	_Atomic(struct cidk_mask *) full; /* lazy full-width copy, or NULL */
};

struct cidk__topo_level {
	bool present;
	uint32_t *grp; /* [nr_cpu_ids] */
	uint32_t *by_first; /* [nr_cpu_ids] */
	struct cidk__topo_group *groups;
	uint32_t nr, cap;
	unsigned int nr_groups;
};

#define CIDK__TOPO_MAX_NOTES 12

struct cidk_topo {
	unsigned int nr_cpu_ids;
	unsigned int nr_online;
	struct cidk_mask *online;
	struct cidk__topo_level lv[CIDK_TOPO_NR_LEVELS];
	unsigned int nr_notes;
	char *notes[CIDK__TOPO_MAX_NOTES]; /* what discovery inferred */
};

/* The group of @cpu at @level, or NULL (absent level, no mask). */
static inline const struct cidk__topo_group *
cidk__topo_group_of(const struct cidk_topo *t, enum cidk_topo_level level,
		    unsigned int cpu)
{
	uint32_t g = t->lv[level].grp[cpu];

	return g == CIDK__TOPO_NONE ? NULL : &t->lv[level].groups[g];
}

/* Is @cpu in @g?  O(log nr_nz). */
bool cidk__topo_group_test(const struct cidk__topo_group *g, unsigned int cpu);

/*
 * Make @cpus[0..n) (ascending, distinct, < nr_cpu_ids, none yet in a group
 * at @level) one new group at @level.  O(n) time and memory, independent
 * of nr_cpu_ids.  Returns 0, -EINVAL (not ascending or out of range) or
 * -ENOMEM; nothing changes on failure.
 */
int cidk__topo_add_group(struct cidk_topo *t, enum cidk_topo_level level,
			 const uint32_t *cpus, unsigned int n);

/* Content equality / intersection over the non-zero words only. */
bool cidk__topo_group_equal(const struct cidk__topo_group *a,
			    const struct cidk__topo_group *b);
bool cidk__topo_group_intersects(const struct cidk__topo_group *a,
				 const struct cidk__topo_group *b);

/* Forget every mask of @level; the level is then absent. */
void cidk__topo_drop_level(struct cidk_topo *t, enum cidk_topo_level level);

/*
 * Add a note to @t (at most CIDK__TOPO_MAX_NOTES, each cut at 200 bytes).
 * Returns 0 or -ENOMEM.
 */
int cidk__topo_note(struct cidk_topo *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* @g's bits into @m (zeroed first); @m is nr_cpu_ids wide.  O(words). */
void cidk__topo_group_to_mask(const struct cidk__topo_group *g,
			      struct cidk_mask *m);

/* Fill @err (either may be NULL-safe: err may be NULL). */
void cidk__topo_err(struct cidk_topo_err *err, const char *path,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* CIDKIT_TOPO_INTERNAL_H */
