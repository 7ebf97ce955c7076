/* SPDX-License-Identifier: MIT */
/*
 * Level nesting (cidk_topo_sane), differentially: the linear check, the
 * pairwise one and a plain reference written here must give the same
 * verdict, level and kind on thousands of random topologies.  The
 * reference works on full-width masks from cidk_topo_mask(): span
 * pairwise, then, level by level in enum order, the level must be
 * comparable by containment ("every online CPU of my group in one is in
 * my group in the other", one way or the other) with every level before
 * it; else NEST at that level.  Its order is a sort by containment (ties:
 * enum order), against which cidk_topo_level_order() is checked.
 *   - nested ones (each level a random merge of the groups below, random
 *     numbering, offline CPUs, offline bits inside masks so that a group's
 *     id can be an offline CPU, absent levels, a NUMA level that need not
 *     nest), their partitions assigned to the levels in enum order or in a
 *     random order (issue 23: old arm64 kernels call each cluster a
 *     package under one L3), pass all three, in the generator's order;
 *   - the same with one CPU moved to another group at one level (still
 *     span-sane): the three agree, and most fail as NEST;
 *   - random masks at two levels: the three agree.
 * Then by hand: a die of one-CPU groups under 8-CPU LLCs nests by
 * containment (smt < die < llc < pkg); clusters as packages under one L3
 * (smt < pkg < llc); the same with L3s that cut a package: NEST at pkg.
 */
#include <stdlib.h>
#include <string.h>

#include <cidkit/topo.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "tap.h"
#include "prng.h"

static struct cidk__prng rng;

static unsigned int below(unsigned int n)
{
	return (unsigned int)cidk__prng_below(&rng, n);
}

struct verdict {
	int level; /* -1: sane */
	enum cidk_topo_insane_kind kind;
};

/*
 * Is every group of @lo inside one group of @hi (online CPUs with masks at
 * both levels)?  Full-width masks, by definition.
 */
static bool ref_contains(const struct cidk_topo *t, int hi, int lo)
{
	const struct cidk_mask *on = cidk_topo_online(t);
	unsigned int i, j;

	cidk_mask_for_each(i, on) {
		const struct cidk_mask *c = cidk_topo_mask(t, lo, i);
		const struct cidk_mask *p = cidk_topo_mask(t, hi, i);

		if (!c || !p)
			continue;
		cidk_mask_for_each(j, c)
			if (cidk_mask_test(on, j) && cidk_topo_mask(t, lo, j) &&
			    cidk_topo_mask(t, hi, j) && !cidk_mask_test(p, j))
				return false;
	}
	return true;
}

/* The reference's order of a sane topology: a sort by containment. */
static unsigned int ref_order(const struct cidk_topo *t, int *order)
{
	unsigned int n = 0;

	for (int l = 0; l < CIDK_TOPO_NUMA; l++)
		if (cidk_topo_has_level(t, l))
			order[n++] = l;
	/* a before b: b contains a and (a does not contain b, or a < b) */
	for (unsigned int i = 1; i < n; i++)
		for (unsigned int j = i; j > 0; j--) {
			int a = order[j - 1], b = order[j];

			if (ref_contains(t, b, a) &&
			    (!ref_contains(t, a, b) || a < b))
				break;
			order[j - 1] = b;
			order[j] = a;
		}
	if (cidk_topo_has_level(t, CIDK_TOPO_NUMA))
		order[n++] = CIDK_TOPO_NUMA;
	return n;
}

/* The plain reference, on full-width masks. */
static struct verdict ref_check(const struct cidk_topo *t)
{
	const struct cidk_mask *on = cidk_topo_online(t);
	unsigned int n = cidk_topo_nr_cpu_ids(t), i, j;
	int met[CIDK_TOPO_NR_LEVELS], nmet = 0;

	for (int l = 0; l < CIDK_TOPO_NUMA; l++) {
		if (!cidk_topo_has_level(t, l))
			continue;
		cidk_mask_for_each(i, on) {
			const struct cidk_mask *a = cidk_topo_mask(t, l, i);

			if (!a)
				continue;
			if (!cidk_mask_test(a, i))
				return (struct verdict){ l, CIDK_TOPO_INSANE_SPAN };
			for (j = i + 1; j < n; j++) {
				const struct cidk_mask *b;

				if (!cidk_mask_test(on, j) ||
				    !(b = cidk_topo_mask(t, l, j)))
					continue;
				if (!cidk_mask_equal(a, b) &&
				    cidk_mask_intersects(a, b))
					return (struct verdict){ l, CIDK_TOPO_INSANE_SPAN };
			}
		}
		for (int k = 0; k < nmet; k++)
			if (!ref_contains(t, l, met[k]) &&
			    !ref_contains(t, met[k], l))
				return (struct verdict){ l, CIDK_TOPO_INSANE_NEST };
		met[nmet++] = l;
	}
	return (struct verdict){ -1, CIDK_TOPO_INSANE_SPAN };
}

/* cidk_topo_level_order() is the reference's order. */
static bool order_agrees(const struct cidk_topo *t)
{
	enum cidk_topo_level got[CIDK_TOPO_NR_LEVELS];
	int want[CIDK_TOPO_NR_LEVELS];
	unsigned int n = cidk_topo_level_order(t, got);

	if (n != ref_order(t, want))
		return false;
	for (unsigned int i = 0; i < n; i++)
		if ((int)got[i] != want[i])
			return false;
	return true;
}

/* A NEST report must prove itself: b in a's group below, not above. */
static bool nest_witness(const struct cidk_topo *t, const struct cidk_topo_insane *w)
{
	const struct cidk_mask *cb = cidk_topo_mask(t, w->below, w->cpu_a);
	const struct cidk_mask *pa = cidk_topo_mask(t, w->level, w->cpu_a);

	return cb && pa && w->below < w->level && w->cpu_a < w->cpu_b &&
	       cidk_mask_test(cb, w->cpu_b) && !cidk_mask_test(pa, w->cpu_b);
}

/* Linear, pairwise and reference agree; *ref gets the reference's verdict. */
static bool agree(const struct cidk_topo *t, struct verdict *ref, bool *wit)
{
	struct cidk_topo_insane wl = { 0 }, wp = { 0 };
	bool lin = cidk_topo_sane(t, &wl);
	bool pw = cidk_topo_sane_pairwise(t, &wp);

	*ref = ref_check(t);
	*wit = true;
	if (lin != pw || lin != (ref->level < 0))
		return false;
	if (lin)
		return true;
	if (ref->kind == CIDK_TOPO_INSANE_NEST)
		*wit = nest_witness(t, &wl) && nest_witness(t, &wp);
	return (int)wl.level == ref->level && (int)wp.level == ref->level &&
	       wl.kind == ref->kind && wp.kind == ref->kind;
}

/*
 * A nested topology: level by level, the groups of the last present level
 * merged at random (in a random order).  part[] holds the current groups
 * as runs in cpus[] (run k is cpus[start[k] .. start[k + 1])).
 */
static struct cidk_topo *random_nested(unsigned int *cpus, unsigned int *nr_out,
				       bool *permuted)
{
	unsigned int slot[CIDK_TOPO_NUMA];
	unsigned int n = 1 + below(below(16) ? 160 : 600), nr = 0, ng;
	struct cidk_topo *t = cidk_topo_alloc(n);
	struct cidk_mask *m = cidk_mask_alloc(n), *used = cidk_mask_alloc(n);
	unsigned int pct = below(3) ? 100 : 40 + below(60);
	unsigned int *start = malloc((n + 1) * sizeof(*start));
	unsigned int *order = malloc((n + 1) * sizeof(*order));
	unsigned int *tmp = malloc(n * sizeof(*tmp));
	bool offline_bits = below(3) == 0;

	/* the k-th partition (finest first) goes to level slot[k] */
	for (unsigned int k = 0; k < CIDK_TOPO_NUMA; k++)
		slot[k] = k;
	*permuted = below(2);
	if (*permuted)
		cidk__prng_shuffle(&rng, slot, CIDK_TOPO_NUMA);

	for (unsigned int c = 0; c < n; c++)
		if (below(100) < pct)
			cidk_mask_set(m, c);
	cidk_mask_set(m, below(n));
	cidk_topo_set_online(t, m);
	cidk_mask_for_each(ng, m)
		cpus[nr++] = ng;
	cidk__prng_shuffle(&rng, cpus, nr);
	/* start: every CPU its own run */
	for (ng = 0; ng <= nr; ng++)
		start[ng] = ng;
	ng = nr;
	for (int l = 0; l < CIDK_TOPO_NUMA; l++) {
		unsigned int k = 0, out = 0, ngn = 0;

		/* merge runs: a random order of runs, cut into batches */
		for (unsigned int i = 0; i < ng; i++)
			order[i] = i;
		cidk__prng_shuffle(&rng, order, ng);
		{
			unsigned int *nstart = malloc((ng + 1) * sizeof(*nstart));
			unsigned int max = l == 0 ? 4 : 1 + below(6);

			while (k < ng) {
				unsigned int take = 1 + below(max);

				if (take > ng - k)
					take = ng - k;
				nstart[ngn++] = out;
				for (unsigned int i = 0; i < take; i++, k++) {
					unsigned int r = order[k];

					for (unsigned int x = start[r]; x < start[r + 1]; x++)
						tmp[out++] = cpus[x];
				}
			}
			nstart[ngn] = out;
			memcpy(cpus, tmp, nr * sizeof(*cpus));
			memcpy(start, nstart, (ngn + 1) * sizeof(*start));
			free(nstart);
			ng = ngn;
		}
		if (below(4) == 0)
			continue; /* level absent: the next one merges these runs */
		cidk_mask_zero(used);
		for (unsigned int g = 0; g < ng; g++) {
			cidk_mask_zero(m);
			for (unsigned int x = start[g]; x < start[g + 1]; x++)
				cidk_mask_set(m, cpus[x]);
			if (offline_bits && below(2)) {
				unsigned int c = below(n);

				if (!cidk_mask_test(cidk_topo_online(t), c) &&
				    !cidk_mask_test(used, c)) {
					cidk_mask_set(m, c);
					cidk_mask_set(used, c);
				}
			}
			for (unsigned int x = start[g]; x < start[g + 1]; x++)
				cidk_topo_set_mask(t, (int)slot[l], cpus[x], m);
		}
	}
	if (below(2)) { /* NUMA: any partition, need not nest */
		cidk__prng_shuffle(&rng, cpus, nr);
		for (unsigned int i = 0; i < nr;) {
			unsigned int size = 1 + below(16);

			if (size > nr - i)
				size = nr - i;
			cidk_mask_zero(m);
			for (unsigned int k = 0; k < size; k++)
				cidk_mask_set(m, cpus[i + k]);
			for (unsigned int k = 0; k < size; k++)
				cidk_topo_set_mask(t, CIDK_TOPO_NUMA, cpus[i + k], m);
			i += size;
		}
	}
	free(start);
	free(order);
	free(tmp);
	cidk_mask_free(used);
	cidk_mask_free(m);
	*nr_out = nr;
	return t;
}

/*
 * Break nesting at one level l (with a level below): a CPU x whose group
 * below holds another online CPU moves, at l, out of its group into
 * another one (or alone).  Both levels stay span-sane.  Returns l or -1.
 */
static int inject(struct cidk_topo *t, const unsigned int *cpus, unsigned int nr)
{
	const struct cidk_mask *on = cidk_topo_online(t);
	int lv[CIDK_TOPO_NR_LEVELS], nl, l, c, k;
	unsigned int x = 0, y, tries;
	struct cidk_mask *a, *b;

	nl = (int)ref_order(t, lv);
	if (nl && lv[nl - 1] == CIDK_TOPO_NUMA)
		nl--;
	if (nl < 2 || nr < 2)
		return -1;
	k = 1 + (int)below((unsigned int)nl - 1);
	l = lv[k];
	c = lv[k - 1];
	for (tries = 0; tries < 64; tries++) {
		const struct cidk_mask *g;

		x = cpus[below(nr)];
		g = cidk_topo_mask(t, c, x);
		if (cidk_mask_weight_and(g, on) >= 2)
			break;
	}
	if (tries == 64)
		return -1;
	a = cidk_mask_dup(cidk_topo_mask(t, l, x));
	y = cidk_mask_first(cidk_topo_online(t));
	/* another group at l to join, if any */
	b = NULL;
	for (tries = 0; tries < 8; tries++) {
		unsigned int z = cpus[below(nr)];

		if (!cidk_mask_test(a, z)) {
			b = cidk_mask_dup(cidk_topo_mask(t, l, z));
			break;
		}
	}
	cidk_mask_clear(a, x);
	if (b)
		cidk_mask_set(b, x);
	else {
		b = cidk_mask_alloc(cidk_topo_nr_cpu_ids(t));
		cidk_mask_set(b, x);
	}
	cidk_mask_for_each(y, on) {
		if (cidk_mask_test(a, y))
			cidk_topo_set_mask(t, l, y, a);
		else if (cidk_mask_test(b, y))
			cidk_topo_set_mask(t, l, y, b);
	}
	cidk_mask_free(a);
	cidk_mask_free(b);
	return l;
}

int main(void)
{
	unsigned int *cpus = malloc(1024 * sizeof(*cpus));
	unsigned int bad_sane = 0, bad_inj = 0, bad_wit = 0, nr_inj = 0;
	unsigned int bad_rand = 0, nr_insane = 0, nr_nest = 0;
	unsigned int nr_perm = 0, nr_moved = 0, bad_order = 0, inj_nest = 0;
	const unsigned int cases = 2000;

	cidk__prng_seed(&rng, 14);
	for (unsigned int i = 0; i < cases; i++) {
		unsigned int nr;
		bool permuted;
		struct cidk_topo *t = random_nested(cpus, &nr, &permuted);
		enum cidk_topo_level got[CIDK_TOPO_NR_LEVELS];
		unsigned int ng;
		struct verdict v;
		bool wit, moved = false;
		int inj;

		if (!agree(t, &v, &wit) || v.level >= 0 ||
		    !cidk_topo_span_sane(t, NULL))
			bad_sane++;
		bad_order += !order_agrees(t);
		ng = cidk_topo_level_order(t, got);
		for (unsigned int k = 1; k < ng; k++)
			moved |= got[k] < got[k - 1];
		nr_perm += permuted;
		nr_moved += moved;
		inj = inject(t, cpus, nr);
		if (inj >= 0) {
			nr_inj++;
			if (!agree(t, &v, &wit) || !cidk_topo_span_sane(t, NULL))
				bad_inj++;
			bad_order += v.level < 0 && !order_agrees(t);
			inj_nest += v.level >= 0 && v.kind == CIDK_TOPO_INSANE_NEST;
			bad_wit += !wit;
		}
		cidk_topo_free(t);
	}
	ok(!bad_sane, "%u random nested topologies: linear, pairwise, reference all sane (%u bad)",
	   cases, bad_sane);
	ok(nr_perm > cases / 3 && nr_moved > cases / 4,
	   "%u of them with the partitions given to the levels in a random order, %u of those out of enum order",
	   nr_perm, nr_moved);
	ok(!bad_order, "cidk_topo_level_order() is the reference's containment order on every sane one (%u bad)",
	   bad_order);
	ok(nr_inj > cases / 2, "a non-nesting group was injected in %u of them", nr_inj);
	ok(!bad_inj, "with one CPU moved at one level: still span-sane, the three agree on verdict, level and kind (%u bad)",
	   bad_inj);
	ok(inj_nest > nr_inj * 3 / 4, "... and %u of the %u fail as NEST", inj_nest,
	   nr_inj);
	ok(!bad_wit, "every NEST report is a real witness (%u bad)", bad_wit);

	/* Random masks at two adjacent levels: the three always agree. */
	for (unsigned int i = 0; i < cases; i++) {
		unsigned int n = 1 + below(48);
		struct cidk_topo *t = cidk_topo_alloc(n);
		struct cidk_mask *m = cidk_mask_alloc(n);
		int l0 = (int)below(CIDK_TOPO_NUMA - 1), l1 = l0 + 1 + (int)below(CIDK_TOPO_NUMA - 1 - l0);
		struct verdict v;
		bool wit;

		cidk_mask_fill(m);
		if (below(2))
			cidk_mask_clear(m, below(n));
		cidk_topo_set_online(t, m);
		for (int l = l0; l <= l1; l += l1 - l0) {
			unsigned int size = 1 + below(l == l0 ? 3 : 8);

			for (unsigned int c = 0; c < n; c++) {
				unsigned int s = c / size * size;

				cidk_mask_zero(m);
				for (unsigned int k = s; k < s + size && k < n; k++)
					cidk_mask_set(m, k);
				cidk_topo_set_mask(t, l, c, m);
			}
		}
		if (below(3) == 0) { /* one blemished mask: mostly a span failure */
			unsigned int c = below(n);
			int l = below(2) ? l0 : l1;

			cidk_mask_copy(m, cidk_topo_mask(t, l, c) ? cidk_topo_mask(t, l, c) : m);
			if (below(2))
				cidk_mask_set(m, below(n));
			else
				cidk_mask_clear(m, below(n));
			cidk_topo_set_mask(t, l, c, m);
		}
		if (!agree(t, &v, &wit) || !wit)
			bad_rand++;
		nr_insane += v.level >= 0;
		nr_nest += v.level >= 0 && v.kind == CIDK_TOPO_INSANE_NEST;
		cidk_mask_free(m);
		cidk_topo_free(t);
	}
	ok(!bad_rand, "%u random two-level mask sets: the three agree (%u insane, %u of them NEST; %u bad)",
	   cases, nr_insane, nr_nest, bad_rand);
	ok(nr_nest > cases / 10 && nr_insane - nr_nest > cases / 10 &&
		   nr_insane < cases - cases / 10,
	   "they mix sane, span failures and nesting failures");

	/*
	 * arm64: die_cpus is the CPU itself, LLCs of 8 above it.  By
	 * containment the one-CPU dies sit between smt and llc (equal to smt,
	 * so after it): sane, smt < die < llc < pkg.
	 */
	{
		struct cidk_topo *t = cidk_topo_alloc(16);
		struct cidk_mask *m = cidk_mask_alloc(16);
		enum cidk_topo_level o[CIDK_TOPO_NR_LEVELS];
		unsigned int n;

		cidk_mask_fill(m);
		cidk_topo_set_online(t, m);
		for (unsigned int c = 0; c < 16; c++) {
			cidk_mask_zero(m);
			cidk_mask_set(m, c);
			cidk_topo_set_mask(t, CIDK_TOPO_SMT, c, m);
			cidk_topo_set_mask(t, CIDK_TOPO_DIE, c, m);
			cidk_mask_zero(m);
			for (unsigned int k = c / 8 * 8; k < c / 8 * 8 + 8; k++)
				cidk_mask_set(m, k);
			cidk_topo_set_mask(t, CIDK_TOPO_LLC, c, m);
			cidk_mask_fill(m);
			cidk_topo_set_mask(t, CIDK_TOPO_PKG, c, m);
		}
		n = cidk_topo_level_order(t, o);
		ok(cidk_topo_sane(t, NULL) && cidk_topo_sane_pairwise(t, NULL) &&
			   n == 4 && o[0] == CIDK_TOPO_SMT && o[1] == CIDK_TOPO_DIE &&
			   o[2] == CIDK_TOPO_LLC && o[3] == CIDK_TOPO_PKG,
		   "one-CPU dies under 8-CPU LLCs: sane by containment, smt < die < llc < pkg");
		cidk_mask_free(m);
		cidk_topo_free(t);
	}

	/*
	 * Issue 23: an old arm64 kernel calls each 4-CPU cluster a package;
	 * one L3 holds CPUs 0-7, another 8-15.  By hand: smt < pkg < llc.
	 * Then the L3s are cut at 6 (0-5, 6-15): the package 4-7 straddles
	 * them, pkg 0-3 is not a union of llc groups (cpu 4 shares llc 0-5
	 * with cpu 0 but not its package) and llc 0-5 is not a union of
	 * packages: NEST at pkg below llc.
	 */
	for (int cut = 0; cut < 2; cut++) {
		struct cidk_topo *t = cidk_topo_alloc(16);
		struct cidk_mask *m = cidk_mask_alloc(16);
		enum cidk_topo_level o[CIDK_TOPO_NR_LEVELS];
		struct cidk_topo_insane wl = { 0 }, wp = { 0 };
		unsigned int n;
		bool sl, sp;

		cidk_mask_fill(m);
		cidk_topo_set_online(t, m);
		for (unsigned int c = 0; c < 16; c++) {
			unsigned int lo = cut ? (c < 6 ? 0 : 6) : c / 8 * 8;
			unsigned int hi = cut ? (c < 6 ? 6 : 16) : c / 8 * 8 + 8;

			cidk_mask_zero(m);
			cidk_mask_set(m, c);
			cidk_topo_set_mask(t, CIDK_TOPO_SMT, c, m);
			cidk_mask_zero(m);
			for (unsigned int k = lo; k < hi; k++)
				cidk_mask_set(m, k);
			cidk_topo_set_mask(t, CIDK_TOPO_LLC, c, m);
			cidk_mask_zero(m);
			for (unsigned int k = c / 4 * 4; k < c / 4 * 4 + 4; k++)
				cidk_mask_set(m, k);
			cidk_topo_set_mask(t, CIDK_TOPO_PKG, c, m);
		}
		n = cidk_topo_level_order(t, o);
		sl = cidk_topo_sane(t, &wl);
		sp = cidk_topo_sane_pairwise(t, &wp);
		if (!cut)
			ok(sl && sp && n == 3 && o[0] == CIDK_TOPO_SMT &&
				   o[1] == CIDK_TOPO_PKG && o[2] == CIDK_TOPO_LLC,
			   "clusters of 4 as packages under L3s of 8: sane, smt < pkg < llc");
		else
			ok(!sl && !sp && wl.level == CIDK_TOPO_PKG &&
				   wl.kind == CIDK_TOPO_INSANE_NEST &&
				   wl.below == CIDK_TOPO_LLC && wl.cpu_a == 0 &&
				   wl.cpu_b == 4 && wp.level == CIDK_TOPO_PKG &&
				   wp.kind == CIDK_TOPO_INSANE_NEST && n == 3 &&
				   o[0] == CIDK_TOPO_SMT && o[1] == CIDK_TOPO_LLC &&
				   o[2] == CIDK_TOPO_PKG,
			   "... with L3s 0-5 and 6-15 cutting package 4-7: NEST at pkg below llc, cpus 0 and 4; the order stays the enum's");
		cidk_mask_free(m);
		cidk_topo_free(t);
	}
	free(cpus);
	return done_testing();
}
