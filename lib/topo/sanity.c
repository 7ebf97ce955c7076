/* SPDX-License-Identifier: MIT */
/*
 * Span sanity: at each non-NUMA level, the masks of any two online CPUs
 * are equal or disjoint (and each CPU is in its own mask).  Nesting
 * (cidk_topo_sane()): the levels form one chain by containment, each group
 * of a level a union of groups of the level before it in the chain;
 * checked after both levels passed span sanity, by group ids
 * (level_nests_linear()).  The chain is built bottom-up in enum order
 * (sane_chain()): a level that is a union of the top of the chain goes on
 * top (the usual case: one check per level, as smt < cluster < llc < die <
 * pkg); one that is not goes just above the highest level below the top
 * that it contains, provided the level above that place contains it (old arm64 kernels call
 * each cluster a package under one L3: smt < pkg < llc).  Containment of
 * partitions is transitive, so a level that fits there is comparable with
 * every level of the chain; one that fits nowhere has a group that
 * straddles groups of another level, and the topology is insane (NEST).
 *
 * Linear check (docs/design.md), per level, CPUs in ascending order, with a
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

/* ---- the chain of levels ---------------------------------------------------- */

/*
 * The two checks, linear or pairwise: span(l) and nests(l, c), "each group
 * of @l is a union of groups of @c" (reported as NEST at l below c).
 */
struct checker {
	bool pairwise;
	struct scratch s;
	uint32_t *par;
};

static bool span_ok(const struct cidk_topo *t, struct checker *k, int l,
		    struct cidk_topo_insane *why)
{
	return k->pairwise ? level_sane_pairwise(t, l, why)
			   : level_sane_linear(t, l, &k->s, why);
}

static bool nests(const struct cidk_topo *t, struct checker *k, int l, int c,
		  struct cidk_topo_insane *why)
{
	return k->pairwise ? level_nests_pairwise(t, l, c, why)
			   : level_nests_linear(t, l, c, k->par, k->s.intro, why);
}

/*
 * Span-check every non-NUMA level present, bottom-up in enum order, and
 * (@nest) place each in the chain @chain[0..*nr) of the levels met so far,
 * bottom-up by containment: on top when it is a union of the top's groups,
 * else just above the highest level below the top whose groups it is a
 * union of (or at the bottom), provided the level it lands under is a
 * union of its groups.  Equal levels keep enum order.  Returns false at
 * the first failure (@why untouched on success) (@why: SPAN, or NEST at the level that fits nowhere,
 * against the top of the chain, with that check's witness).  One nests()
 * per level when the enum order is the containment order; at most one per
 * level met so far otherwise.
 */
static bool sane_chain(const struct cidk_topo *t, struct checker *k, bool nest,
		       struct cidk_topo_insane *why, int *chain, int *nr)
{
	struct cidk_topo_insane top;
	int n = 0;

	for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++) {
		int j;

		if (!level_checked(t, l))
			continue;
		if (!span_ok(t, k, l, why))
			return false;
		if (!nest || n == 0 || nests(t, k, l, chain[n - 1], &top)) {
			chain[n++] = l;
			continue;
		}
		/* not a union of the top's groups: its place is lower down */
		for (j = n - 2; j >= 0 && !nests(t, k, l, chain[j], NULL); j--)
			;
		if (!nests(t, k, chain[j + 1], l, NULL)) {
			if (why)
				*why = top; /* l against the top */
			return false;
		}
		memmove(chain + j + 2, chain + j + 1,
			(size_t)(n - j - 1) * sizeof(*chain));
		chain[j + 1] = l;
		n++;
	}
	*nr = n;
	return true;
}

/* Scratch for the linear checks (NULL: use the pairwise ones). */
static void *checker_init(const struct cidk_topo *t, struct checker *k,
			  bool pairwise)
{
	unsigned int nwords = t->online->nwords;
	void *mem = NULL;

	k->pairwise = true;
	if (pairwise)
		return NULL;
	mem = malloc(2 * nwords * sizeof(unsigned long) +
		     2 * t->nr_cpu_ids * sizeof(uint32_t));
	if (!mem)
		return NULL; /* the pairwise check: same answer, slower */
	k->pairwise = false;
	k->s.covered = mem;
	k->s.seen = k->s.covered + nwords;
	k->s.intro = (uint32_t *)(k->s.seen + nwords);
	k->par = k->s.intro + t->nr_cpu_ids;
	return mem;
}

static bool sane(const struct cidk_topo *t, bool pairwise, bool nest,
		 struct cidk_topo_insane *why, int *chain, int *nr)
{
	struct checker k;
	void *mem = checker_init(t, &k, pairwise);
	bool ok = sane_chain(t, &k, nest, why, chain, nr);

	free(mem);
	return ok;
}

bool cidk_topo_span_sane(const struct cidk_topo *t,
			 struct cidk_topo_insane *why)
{
	int chain[CIDK_TOPO_NR_LEVELS], n;

	return sane(t, false, false, why, chain, &n);
}

bool cidk_topo_sane(const struct cidk_topo *t, struct cidk_topo_insane *why)
{
	int chain[CIDK_TOPO_NR_LEVELS], n;

	return sane(t, false, true, why, chain, &n);
}

bool cidk_topo_sane_pairwise(const struct cidk_topo *t,
			     struct cidk_topo_insane *why)
{
	int chain[CIDK_TOPO_NR_LEVELS], n;

	return sane(t, true, true, why, chain, &n);
}

unsigned int cidk_topo_level_order(const struct cidk_topo *t,
				   enum cidk_topo_level *order)
{
	int chain[CIDK_TOPO_NR_LEVELS], n = 0;
	unsigned int k = 0;

	if (!sane(t, false, true, NULL, chain, &n)) {
		n = 0;
		for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++)
			if (level_checked(t, l))
				chain[n++] = l;
	}
	for (int i = 0; i < n; i++)
		order[k++] = (enum cidk_topo_level)chain[i];
	if (t->lv[CIDK_TOPO_NUMA].present)
		order[k++] = CIDK_TOPO_NUMA;
	return k;
}
