/* SPDX-License-Identifier: MIT */
/*
 * Span sanity: at each non-NUMA level, the masks of any two online CPUs
 * are equal or disjoint (and each CPU is in its own mask).  Nesting
 * (cidk_topo_sane()): each group of a level is a union of groups of the
 * nearest level below; checked after both levels passed span sanity, by
 * group ids (level_nests_linear()).
 *
 * Linear check (DESIGN.md), per level, CPUs in ascending order, with a
 * covered mask (the CPUs of every group met so far) and a seen-ids mask
 * (their group ids; a group's id is its lowest CPU):
 *   - a mask that intersects nothing covered is a new group: its id must
 *     not have been seen, and if the id is not the current CPU, the id
 *     CPU's mask must equal it; then it is added to covered and its id to
 *     seen (remembering which CPU introduced it);
 *   - a mask that intersects covered must equal the mask of the group with
 *     its id, which must have been seen.
 * Every step touches only the non-zero words of one group, so a level
 * costs O(N + words) instead of the pairwise check's O(N^2).
 *
 * Why it agrees with the pairwise check: if it passes, every mask is either
 * disjoint from all groups before it or equal to one of them, so any two
 * are equal or disjoint; if the masks are pairwise equal or disjoint, a
 * mask meeting covered meets an earlier group, so equals it, and a mask
 * missing covered has an unseen id (ids lie inside their covered groups).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_internal.h"

static bool level_checked(const struct cidk_topo *t, int l)
{
	return l != CIDK_TOPO_NUMA && t->lv[l].present;
}

static void report(struct cidk_topo_insane *why, int l, unsigned int a,
		   unsigned int b)
{
	if (!why)
		return;
	why->level = (enum cidk_topo_level)l;
	why->cpu_a = a < b ? a : b;
	why->cpu_b = a < b ? b : a;
	why->kind = CIDK_TOPO_INSANE_SPAN;
	why->below = (enum cidk_topo_level)l;
}

static void report_nest(struct cidk_topo_insane *why, int l, int below,
			unsigned int a, unsigned int b)
{
	report(why, l, a, b);
	if (why) {
		why->kind = CIDK_TOPO_INSANE_NEST;
		why->below = (enum cidk_topo_level)below;
	}
}

/* The nearest non-NUMA level present below @l, or -1. */
static int level_below(const struct cidk_topo *t, int l)
{
	while (--l >= 0)
		if (level_checked(t, l))
			return l;
	return -1;
}

/* ---- pairwise ---------------------------------------------------------------- */

static bool level_sane_pairwise(const struct cidk_topo *t, int l,
				struct cidk_topo_insane *why)
{
	const struct cidk_mask *on = t->online;
	unsigned int i, j;

	cidk_mask_for_each(i, on) {
		const struct cidk__topo_group *gi = cidk__topo_group_of(t, l, i);

		if (gi && !cidk__topo_group_test(gi, i)) {
			report(why, l, i, i);
			return false;
		}
	}
	cidk_mask_for_each(i, on) {
		const struct cidk__topo_group *gi = cidk__topo_group_of(t, l, i);

		if (!gi)
			continue;
		for (j = i + 1; j < t->nr_cpu_ids; j++) {
			const struct cidk__topo_group *gj;

			if (!cidk_mask_test(on, j))
				continue;
			gj = cidk__topo_group_of(t, l, j);
			if (!gj || gj == gi || cidk__topo_group_equal(gi, gj))
				continue;
			if (cidk__topo_group_intersects(gi, gj)) {
				report(why, l, i, j);
				return false;
			}
		}
	}
	return true;
}

bool cidk_topo_span_sane_pairwise(const struct cidk_topo *t,
				  struct cidk_topo_insane *why)
{
	for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++)
		if (level_checked(t, l) && !level_sane_pairwise(t, l, why))
			return false;
	return true;
}

/*
 * Nesting, pairwise: any two online CPUs with equal groups at @c (the
 * level below) have equal groups at @l.
 */
static bool level_nests_pairwise(const struct cidk_topo *t, int l, int c,
				 struct cidk_topo_insane *why)
{
	const struct cidk_mask *on = t->online;
	unsigned int i, j;

	cidk_mask_for_each(i, on) {
		const struct cidk__topo_group *ci = cidk__topo_group_of(t, c, i);
		const struct cidk__topo_group *pi = cidk__topo_group_of(t, l, i);

		if (!ci || !pi)
			continue;
		for (j = i + 1; j < t->nr_cpu_ids; j++) {
			const struct cidk__topo_group *cj, *pj;

			if (!cidk_mask_test(on, j))
				continue;
			cj = cidk__topo_group_of(t, c, j);
			pj = cidk__topo_group_of(t, l, j);
			if (!cj || !pj || !cidk__topo_group_equal(ci, cj))
				continue;
			if (!cidk__topo_group_equal(pi, pj)) {
				report_nest(why, l, c, i, j);
				return false;
			}
		}
	}
	return true;
}

bool cidk_topo_sane_pairwise(const struct cidk_topo *t,
			     struct cidk_topo_insane *why)
{
	for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++) {
		int c;

		if (!level_checked(t, l))
			continue;
		if (!level_sane_pairwise(t, l, why))
			return false;
		c = level_below(t, l);
		if (c >= 0 && !level_nests_pairwise(t, l, c, why))
			return false;
	}
	return true;
}

/* ---- linear ------------------------------------------------------------------ */

struct scratch {
	unsigned long *covered, *seen; /* nwords each */
	uint32_t *intro;	       /* id -> CPU that introduced it */
};

static bool nz_intersects(const struct cidk__topo_group *g,
			  const unsigned long *words)
{
	for (unsigned int k = 0; k < g->nr_nz; k++)
		if (g->w[k] & words[g->nz[k]])
			return true;
	return false;
}

/* Failure path only: an online CPU below @c whose group meets @g unequally. */
static unsigned int witness(const struct cidk_topo *t, int l,
			    const struct cidk__topo_group *g, unsigned int c)
{
	unsigned int d;

	cidk_mask_for_each(d, t->online) {
		const struct cidk__topo_group *h = cidk__topo_group_of(t, l, d);

		if (d >= c)
			break;
		if (h && !cidk__topo_group_equal(h, g) &&
		    cidk__topo_group_intersects(h, g))
			return d;
	}
	return c;
}

/* One CPU of the linear pass: true if fine so far. */
static inline bool linear_step(const struct cidk_topo *t, int l,
			       struct scratch *s, unsigned int c,
			       struct cidk_topo_insane *why)
{
	const struct cidk__topo_group *g = cidk__topo_group_of(t, l, c), *h;
	unsigned int id;

	if (!g)
		return true;
	if (!cidk__topo_group_test(g, c)) {
		report(why, l, c, c);
		return false;
	}
	id = g->first; /* < nr_cpu_ids: the mask holds c */
	if (!nz_intersects(g, s->covered)) {
		/* a new group */
		if (s->seen[cidk__bit_word(id)] & cidk__bit_mask(id)) {
			report(why, l, s->intro[id], c);
			return false;
		}
		if (id != c && cidk_mask_test(t->online, id) &&
		    (h = cidk__topo_group_of(t, l, id)) &&
		    !cidk__topo_group_equal(h, g)) {
			report(why, l, id, c);
			return false;
		}
		for (unsigned int k = 0; k < g->nr_nz; k++)
			s->covered[g->nz[k]] |= g->w[k];
		s->seen[cidk__bit_word(id)] |= cidk__bit_mask(id);
		s->intro[id] = c;
		return true;
	}
	/* meets covered: must be the group with its id */
	if (!(s->seen[cidk__bit_word(id)] & cidk__bit_mask(id))) {
		report(why, l, witness(t, l, g, c), c);
		return false;
	}
	h = cidk__topo_group_of(t, l, s->intro[id]);
	if (!cidk__topo_group_equal(h, g)) {
		report(why, l, s->intro[id], c);
		return false;
	}
	return true;
}

static bool level_sane_linear(const struct cidk_topo *t, int l,
			      struct scratch *s, struct cidk_topo_insane *why)
{
	unsigned int nwords = t->online->nwords;

	memset(s->covered, 0, nwords * sizeof(unsigned long));
	memset(s->seen, 0, nwords * sizeof(unsigned long));
	/* ascending online CPUs, a word at a time */
	for (unsigned int w = 0; w < nwords; w++) {
		unsigned long word = t->online->bits[w];

		while (word) {
			unsigned int c = w * CIDK_BITS_PER_LONG +
					 (unsigned int)__builtin_ctzl(word);

			word &= word - 1;
			if (!linear_step(t, l, s, c, why))
				return false;
		}
	}
	return true;
}

/*
 * Nesting, linearly, once both levels passed the span check: a group is
 * then named by its lowest CPU (two groups holding the same CPU are
 * equal), so "equal groups below have equal groups above" is: every
 * online CPU's id above is the one recorded for its id below.  par[] maps
 * an id below to the id above (CIDK__TOPO_NONE: not met yet), intro[] to
 * the CPU that recorded it.  O(N): one read of each array per CPU.
 */
static bool level_nests_linear(const struct cidk_topo *t, int l, int c,
			       uint32_t *par, uint32_t *intro,
			       struct cidk_topo_insane *why)
{
	unsigned int nwords = t->online->nwords;

	memset(par, 0xff, t->nr_cpu_ids * sizeof(*par));
	for (unsigned int w = 0; w < nwords; w++) {
		unsigned long word = t->online->bits[w];

		while (word) {
			unsigned int cpu = w * CIDK_BITS_PER_LONG +
					   (unsigned int)__builtin_ctzl(word);
			const struct cidk__topo_group *gc, *gp;

			word &= word - 1;
			gc = cidk__topo_group_of(t, c, cpu);
			gp = cidk__topo_group_of(t, l, cpu);
			if (!gc || !gp)
				continue;
			if (par[gc->first] == CIDK__TOPO_NONE) {
				par[gc->first] = gp->first;
				intro[gc->first] = cpu;
			} else if (par[gc->first] != gp->first) {
				report_nest(why, l, c, intro[gc->first], cpu);
				return false;
			}
		}
	}
	return true;
}

static bool sane_linear(const struct cidk_topo *t, bool nest,
			struct cidk_topo_insane *why)
{
	unsigned int nwords = t->online->nwords;
	struct scratch s;
	bool sane = true;
	void *mem;

	mem = malloc(2 * nwords * sizeof(unsigned long) +
		     (nest ? 2 : 1) * t->nr_cpu_ids * sizeof(uint32_t));
	if (!mem)
		return nest ? cidk_topo_sane_pairwise(t, why)
			    : cidk_topo_span_sane_pairwise(t, why);
	s.covered = mem;
	s.seen = s.covered + nwords;
	s.intro = (uint32_t *)(s.seen + nwords);
	for (int l = 0; l < CIDK_TOPO_NR_LEVELS && sane; l++) {
		int c;

		if (!level_checked(t, l))
			continue;
		sane = level_sane_linear(t, l, &s, why);
		if (sane && nest && (c = level_below(t, l)) >= 0)
			sane = level_nests_linear(t, l, c,
						  s.intro + t->nr_cpu_ids,
						  s.intro, why);
	}
	free(mem);
	return sane;
}

bool cidk_topo_span_sane(const struct cidk_topo *t,
			 struct cidk_topo_insane *why)
{
	return sane_linear(t, false, why);
}

bool cidk_topo_sane(const struct cidk_topo *t, struct cidk_topo_insane *why)
{
	return sane_linear(t, true, why);
}
