/* SPDX-License-Identifier: MIT */
/*
 * The topology itself: life cycle, setting masks, taking a CPU offline,
 * and the O(1) queries.  Storage and invariants: topo_internal.h.
 *
 * Workload: building is rare (once per machine, or once per CPU hotplug in
 * the benchmark); distance() and group_id() are hot (the simulator asks
 * per burst), so they read one index per level and nothing else.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_internal.h"

static const char *const level_names[CIDK_TOPO_NR_LEVELS] = {
	[CIDK_TOPO_SMT] = "smt",   [CIDK_TOPO_CLUSTER] = "cluster",
	[CIDK_TOPO_LLC] = "llc",   [CIDK_TOPO_DIE] = "die",
	[CIDK_TOPO_PKG] = "pkg",   [CIDK_TOPO_NUMA] = "numa",
};

static const char *const dist_names[CIDK_DIST_NR] = {
	[CIDK_DIST_SAME_CPU] = "same-cpu", [CIDK_DIST_SMT] = "smt",
	[CIDK_DIST_CLUSTER] = "cluster",   [CIDK_DIST_LLC] = "llc",
	[CIDK_DIST_PKG] = "pkg",	   [CIDK_DIST_REMOTE] = "remote",
};

const char *cidk_topo_level_name(enum cidk_topo_level l)
{
	return (unsigned int)l < CIDK_TOPO_NR_LEVELS ? level_names[l] : "?";
}

const char *cidk_topo_dist_name(enum cidk_topo_dist d)
{
	return (unsigned int)d < CIDK_DIST_NR ? dist_names[d] : "?";
}

void cidk__topo_err(struct cidk_topo_err *err, const char *path,
		    const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* ---- life cycle ---------------------------------------------------------- */

struct cidk_topo *cidk_topo_alloc(unsigned int nr_cpu_ids)
{
	struct cidk_topo *t;

	if (!nr_cpu_ids || nr_cpu_ids > CIDK_TOPO_MAX_CPUS) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		goto fail;
	t->nr_cpu_ids = nr_cpu_ids;
	t->online = cidk_mask_alloc(nr_cpu_ids);
	if (!t->online)
		goto fail;
	for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++) {
		struct cidk__topo_level *lv = &t->lv[l];

		lv->grp = malloc(nr_cpu_ids * sizeof(*lv->grp));
		lv->by_first = malloc(nr_cpu_ids * sizeof(*lv->by_first));
		if (!lv->grp || !lv->by_first)
			goto fail;
		memset(lv->grp, 0xff, nr_cpu_ids * sizeof(*lv->grp));
		memset(lv->by_first, 0xff, nr_cpu_ids * sizeof(*lv->by_first));
	}
	return t;
fail:
	cidk_topo_free(t);
	errno = ENOMEM;
	return NULL;
}

static void group_release(struct cidk__topo_group *g)
{
	cidk_mask_free(g->mask);
	free(g->nz);
	g->mask = NULL;
	g->nz = NULL;
	g->nr_nz = 0;
}

void cidk_topo_free(struct cidk_topo *t)
{
	if (!t)
		return;
	for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++) {
		struct cidk__topo_level *lv = &t->lv[l];

		for (uint32_t i = 0; i < lv->nr; i++)
			group_release(&lv->groups[i]);
		free(lv->groups);
		free(lv->grp);
		free(lv->by_first);
	}
	cidk_mask_free(t->online);
	free(t);
}

/* ---- groups ---------------------------------------------------------------- */

/* Recompute first and the non-zero word list of @g from its mask. */
static int group_describe(struct cidk__topo_group *g)
{
	const struct cidk_mask *m = g->mask;
	unsigned int n = 0;
	uint32_t *nz;

	for (unsigned int w = 0; w < m->nwords; w++)
		n += m->bits[w] != 0;
	nz = malloc((n ? n : 1) * sizeof(*nz));
	if (!nz)
		return -ENOMEM;
	n = 0;
	for (unsigned int w = 0; w < m->nwords; w++)
		if (m->bits[w])
			nz[n++] = w;
	free(g->nz);
	g->nz = nz;
	g->nr_nz = n;
	g->first = cidk_mask_first(m);
	return 0;
}

bool cidk__topo_group_equal(const struct cidk__topo_group *a,
			    const struct cidk__topo_group *b)
{
	if (a == b)
		return true;
	if (a->nr_nz != b->nr_nz || a->first != b->first)
		return false;
	for (unsigned int i = 0; i < a->nr_nz; i++) {
		uint32_t w = a->nz[i];

		if (w != b->nz[i] || a->mask->bits[w] != b->mask->bits[w])
			return false;
	}
	return true;
}

bool cidk__topo_group_intersects(const struct cidk__topo_group *a,
				 const struct cidk__topo_group *b)
{
	if (a->nr_nz > b->nr_nz) {
		const struct cidk__topo_group *tmp = a;

		a = b;
		b = tmp;
	}
	for (unsigned int i = 0; i < a->nr_nz; i++) {
		uint32_t w = a->nz[i];

		if (a->mask->bits[w] & b->mask->bits[w])
			return true;
	}
	return false;
}

static void ref_drop(struct cidk_topo *t, struct cidk__topo_level *lv,
		     unsigned int cpu)
{
	uint32_t gi = lv->grp[cpu];
	struct cidk__topo_group *g;

	if (gi == CIDK__TOPO_NONE)
		return;
	g = &lv->groups[gi];
	lv->grp[cpu] = CIDK__TOPO_NONE;
	if (cidk_mask_test(t->online, cpu) && --g->online_refs == 0)
		lv->nr_groups--;
	if (--g->refs == 0)
		group_release(g);
}

static void ref_take(struct cidk_topo *t, struct cidk__topo_level *lv,
		     unsigned int cpu, uint32_t gi)
{
	struct cidk__topo_group *g = &lv->groups[gi];

	lv->grp[cpu] = gi;
	g->refs++;
	if (cidk_mask_test(t->online, cpu) && g->online_refs++ == 0)
		lv->nr_groups++;
}

/* A slot for a new group: a dead one, or a fresh one at the end. */
static int group_slot(struct cidk__topo_level *lv, uint32_t *out)
{
	if (lv->nr == lv->cap) {
		uint32_t cap = lv->cap ? lv->cap * 2 : 16;
		struct cidk__topo_group *g;

		g = realloc(lv->groups, cap * sizeof(*g));
		if (!g)
			return -ENOMEM;
		lv->groups = g;
		lv->cap = cap;
	}
	memset(&lv->groups[lv->nr], 0, sizeof(lv->groups[0]));
	*out = lv->nr++;
	return 0;
}

int cidk_topo_set_mask(struct cidk_topo *t, enum cidk_topo_level level,
		       unsigned int cpu, const struct cidk_mask *m)
{
	struct cidk__topo_level *lv;
	struct cidk__topo_group *g;
	unsigned int first;
	uint32_t gi, old;

	if (!t || !m || (unsigned int)level >= CIDK_TOPO_NR_LEVELS ||
	    cpu >= t->nr_cpu_ids || m->nbits != t->nr_cpu_ids)
		return -EINVAL;
	lv = &t->lv[level];
	old = lv->grp[cpu];
	first = cidk_mask_first(m);

	/* Share the group of an equal mask (the CPU's own, or by first CPU). */
	if (old != CIDK__TOPO_NONE && cidk_mask_equal(lv->groups[old].mask, m)) {
		lv->present = true;
		return 0;
	}
	gi = first < t->nr_cpu_ids ? lv->by_first[first] : CIDK__TOPO_NONE;
	if (gi != CIDK__TOPO_NONE && lv->groups[gi].mask &&
	    lv->groups[gi].first == first &&
	    cidk_mask_equal(lv->groups[gi].mask, m)) {
		ref_drop(t, lv, cpu);
		ref_take(t, lv, cpu, gi);
		lv->present = true;
		return 0;
	}

	/* A new group.  Build it completely before touching anything. */
	{
		struct cidk__topo_group fresh = { 0 };

		fresh.mask = cidk_mask_dup(m);
		if (!fresh.mask)
			return -ENOMEM;
		if (group_describe(&fresh) || group_slot(lv, &gi)) {
			group_release(&fresh);
			return -ENOMEM;
		}
		g = &lv->groups[gi];
		*g = fresh;
	}
	ref_drop(t, lv, cpu);
	ref_take(t, lv, cpu, gi);
	if (first < t->nr_cpu_ids)
		lv->by_first[first] = gi;
	lv->present = true;
	return 0;
}

static void recount(struct cidk_topo *t)
{
	t->nr_online = cidk_mask_weight(t->online);
	for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++) {
		struct cidk__topo_level *lv = &t->lv[l];
		unsigned int cpu;

		lv->nr_groups = 0;
		for (uint32_t i = 0; i < lv->nr; i++)
			lv->groups[i].online_refs = 0;
		cidk_mask_for_each(cpu, t->online) {
			uint32_t gi = lv->grp[cpu];

			if (gi != CIDK__TOPO_NONE &&
			    lv->groups[gi].online_refs++ == 0)
				lv->nr_groups++;
		}
	}
}

int cidk_topo_set_online(struct cidk_topo *t, const struct cidk_mask *online)
{
	if (!t || !online || online->nbits != t->nr_cpu_ids)
		return -EINVAL;
	cidk_mask_copy(t->online, online);
	recount(t);
	return 0;
}

int cidk_topo_remove_cpu(struct cidk_topo *t, unsigned int cpu)
{
	if (!t || cpu >= t->nr_cpu_ids)
		return -EINVAL;
	for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++) {
		struct cidk__topo_level *lv = &t->lv[l];

		ref_drop(t, lv, cpu);
		for (uint32_t i = 0; i < lv->nr; i++) {
			struct cidk__topo_group *g = &lv->groups[i];
			unsigned int w = cidk__bit_word(cpu);

			if (!g->mask || !cidk_mask_test(g->mask, cpu))
				continue;
			cidk_mask_clear(g->mask, cpu);
			if (g->mask->bits[w] == 0) {
				/* drop word w from nz[] (in place: no alloc) */
				unsigned int j = 0;

				for (unsigned int k = 0; k < g->nr_nz; k++)
					if (g->nz[k] != w)
						g->nz[j++] = g->nz[k];
				g->nr_nz = j;
			}
			if (g->first == cpu) {
				g->first = cidk_mask_next(g->mask, cpu + 1);
				if (g->first < t->nr_cpu_ids &&
				    lv->by_first[g->first] == CIDK__TOPO_NONE)
					lv->by_first[g->first] = i;
			}
		}
	}
	if (cidk_mask_test(t->online, cpu)) {
		cidk_mask_clear(t->online, cpu);
		t->nr_online--;
	}
	return 0;
}

/* ---- queries --------------------------------------------------------------- */

unsigned int cidk_topo_nr_cpu_ids(const struct cidk_topo *t)
{
	return t->nr_cpu_ids;
}

const struct cidk_mask *cidk_topo_online(const struct cidk_topo *t)
{
	return t->online;
}

unsigned int cidk_topo_nr_online(const struct cidk_topo *t)
{
	return t->nr_online;
}

bool cidk_topo_has_level(const struct cidk_topo *t, enum cidk_topo_level level)
{
	return (unsigned int)level < CIDK_TOPO_NR_LEVELS && t->lv[level].present;
}

static const struct cidk__topo_group *
online_group(const struct cidk_topo *t, enum cidk_topo_level level,
	     unsigned int cpu)
{
	if ((unsigned int)level >= CIDK_TOPO_NR_LEVELS ||
	    cpu >= t->nr_cpu_ids || !cidk_mask_test(t->online, cpu))
		return NULL;
	return cidk__topo_group_of(t, level, cpu);
}

const struct cidk_mask *cidk_topo_mask(const struct cidk_topo *t,
				       enum cidk_topo_level level,
				       unsigned int cpu)
{
	const struct cidk__topo_group *g = online_group(t, level, cpu);

	return g ? g->mask : NULL;
}

unsigned int cidk_topo_group_id(const struct cidk_topo *t,
				enum cidk_topo_level level, unsigned int cpu)
{
	const struct cidk__topo_group *g = online_group(t, level, cpu);

	return g && g->first < t->nr_cpu_ids ? g->first : t->nr_cpu_ids;
}

unsigned int cidk_topo_nr_groups(const struct cidk_topo *t,
				 enum cidk_topo_level level)
{
	if ((unsigned int)level >= CIDK_TOPO_NR_LEVELS)
		return 0;
	return t->lv[level].nr_groups;
}

int cidk_topo_span_range(const struct cidk_topo *t, enum cidk_topo_level level,
			 unsigned int *min, unsigned int *max)
{
	const struct cidk__topo_level *lv;
	unsigned int lo = UINT32_MAX, hi = 0;

	*min = *max = 0;
	if ((unsigned int)level >= CIDK_TOPO_NR_LEVELS)
		return -ENOENT;
	lv = &t->lv[level];
	for (uint32_t i = 0; i < lv->nr; i++) {
		const struct cidk__topo_group *g = &lv->groups[i];
		unsigned int w;

		if (!g->mask || !g->online_refs)
			continue;
		w = cidk_mask_weight_and(g->mask, t->online);
		lo = w < lo ? w : lo;
		hi = w > hi ? w : hi;
	}
	if (hi == 0 && lo == UINT32_MAX)
		return -ENOENT;
	*min = lo;
	*max = hi;
	return 0;
}

enum cidk_topo_dist cidk_topo_distance(const struct cidk_topo *t,
				       unsigned int a, unsigned int b)
{
	static const struct {
		enum cidk_topo_level level;
		enum cidk_topo_dist dist;
	} by[] = {
		{ CIDK_TOPO_SMT, CIDK_DIST_SMT },
		{ CIDK_TOPO_CLUSTER, CIDK_DIST_CLUSTER },
		{ CIDK_TOPO_LLC, CIDK_DIST_LLC },
		{ CIDK_TOPO_DIE, CIDK_DIST_PKG },
		{ CIDK_TOPO_PKG, CIDK_DIST_PKG },
	};

	if (a >= t->nr_cpu_ids || b >= t->nr_cpu_ids ||
	    !cidk_mask_test(t->online, a) || !cidk_mask_test(t->online, b))
		return CIDK_DIST_REMOTE;
	if (a == b)
		return CIDK_DIST_SAME_CPU;
	for (unsigned int i = 0; i < sizeof(by) / sizeof(by[0]); i++) {
		const struct cidk__topo_level *lv = &t->lv[by[i].level];
		uint32_t ga = lv->grp[a];

		if (lv->present && ga != CIDK__TOPO_NONE && ga == lv->grp[b])
			return by[i].dist;
	}
	return CIDK_DIST_REMOTE;
}

void cidk__topo_drop_level(struct cidk_topo *t, enum cidk_topo_level level)
{
	struct cidk__topo_level *lv = &t->lv[level];

	for (uint32_t i = 0; i < lv->nr; i++)
		group_release(&lv->groups[i]);
	lv->nr = 0;
	lv->nr_groups = 0;
	lv->present = false;
	memset(lv->grp, 0xff, t->nr_cpu_ids * sizeof(*lv->grp));
	memset(lv->by_first, 0xff, t->nr_cpu_ids * sizeof(*lv->by_first));
}
