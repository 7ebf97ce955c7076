/* SPDX-License-Identifier: MIT */
/*
 * Level nesting (cidk_topo_sane), differentially: the linear check, the
 * pairwise one and a plain reference written here (full-width masks from
 * cidk_topo_mask(): span pairwise, then "every online CPU of my group
 * below is in my group above") must give the same verdict, level and kind
 * on thousands of random topologies:
 *   - nested ones (each level a random merge of the groups below, random
 *     numbering, offline CPUs, offline bits inside masks so that a group's
 *     id can be an offline CPU, absent levels, a NUMA level that need not
 *     nest) pass all three;
 *   - the same with one CPU moved to another group at one level (still
 *     span-sane) fail all three at that level, as NEST, with a real
 *     witness;
 *   - random masks at two levels: the three agree.
 * Then the arm64 case built by hand: a die of one-CPU groups above 8-CPU
 * LLCs is span-sane but does not nest.
 */
#include <stdlib.h>
#include <string.h>

#include <cidkit/topo.h>

#include "tap.h"
#include "util/prng.h"

static struct cidk__prng rng;

static unsigned int below(unsigned int n)
{
	return (unsigned int)cidk__prng_below(&rng, n);
}

struct verdict {
	int level; /* -1: sane */
	enum cidk_topo_insane_kind kind;
};

/* The plain reference, on full-width masks. */
static struct verdict ref_check(const struct cidk_topo *t)
{
	const struct cidk_mask *on = cidk_topo_online(t);
	unsigned int n = cidk_topo_nr_cpu_ids(t), i, j;
	int prev = -1;

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
		if (prev >= 0)
			cidk_mask_for_each(i, on) {
				const struct cidk_mask *c = cidk_topo_mask(t, prev, i);
				const struct cidk_mask *p = cidk_topo_mask(t, l, i);

				if (!c || !p)
					continue;
				cidk_mask_for_each(j, c)
					if (cidk_mask_test(on, j) &&
					    cidk_topo_mask(t, prev, j) &&
					    cidk_topo_mask(t, l, j) &&
					    !cidk_mask_test(p, j))
						return (struct verdict){ l, CIDK_TOPO_INSANE_NEST };
			}
		prev = l;
	}
	return (struct verdict){ -1, CIDK_TOPO_INSANE_SPAN };
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
static struct cidk_topo *random_nested(unsigned int *cpus, unsigned int *nr_out)
{
	unsigned int n = 1 + below(below(16) ? 160 : 600), nr = 0, ng;
	struct cidk_topo *t = cidk_topo_alloc(n);
	struct cidk_mask *m = cidk_mask_alloc(n), *used = cidk_mask_alloc(n);
	unsigned int pct = below(3) ? 100 : 40 + below(60);
	unsigned int *start = malloc((n + 1) * sizeof(*start));
	unsigned int *order = malloc((n + 1) * sizeof(*order));
	unsigned int *tmp = malloc(n * sizeof(*tmp));
	bool offline_bits = below(3) == 0;

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
				cidk_topo_set_mask(t, l, cpus[x], m);
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
	int lv[CIDK_TOPO_NUMA], nl = 0, l, c = -1;
	unsigned int x = 0, y, tries;
	struct cidk_mask *a, *b;

	for (int i = 0; i < CIDK_TOPO_NUMA; i++)
		if (cidk_topo_has_level(t, i))
			lv[nl++] = i;
	if (nl < 2 || nr < 2)
		return -1;
	l = lv[1 + below(nl - 1)];
	for (int i = 0; i < nl; i++)
		if (lv[i] < l)
			c = lv[i];
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
	const unsigned int cases = 2000;

	cidk__prng_seed(&rng, 14);
	for (unsigned int i = 0; i < cases; i++) {
		unsigned int nr;
		struct cidk_topo *t = random_nested(cpus, &nr);
		struct verdict v;
		bool wit;
		int inj;

		if (!agree(t, &v, &wit) || v.level >= 0 ||
		    !cidk_topo_span_sane(t, NULL))
			bad_sane++;
		inj = inject(t, cpus, nr);
		if (inj >= 0) {
			nr_inj++;
			if (!agree(t, &v, &wit) || v.level != inj ||
			    v.kind != CIDK_TOPO_INSANE_NEST ||
			    !cidk_topo_span_sane(t, NULL))
				bad_inj++;
			bad_wit += !wit;
		}
		cidk_topo_free(t);
	}
	ok(!bad_sane, "%u random nested topologies: linear, pairwise, reference all sane (%u bad)",
	   cases, bad_sane);
	ok(nr_inj > cases / 2, "a non-nesting group was injected in %u of them", nr_inj);
	ok(!bad_inj, "with one CPU moved at one level: still span-sane, all three fail there as NEST (%u bad)",
	   bad_inj);
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

	/* arm64: die_cpus is the CPU itself, LLCs of 8 below it. */
	{
		struct cidk_topo *t = cidk_topo_alloc(16);
		struct cidk_mask *m = cidk_mask_alloc(16);
		struct cidk_topo_insane why = { 0 };

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
		ok(cidk_topo_span_sane(t, NULL), "one-CPU dies above 8-CPU LLCs: span-sane");
		ok(!cidk_topo_sane(t, &why) && why.level == CIDK_TOPO_DIE &&
			   why.kind == CIDK_TOPO_INSANE_NEST &&
			   why.below == CIDK_TOPO_LLC && why.cpu_a == 0 &&
			   why.cpu_b == 1,
		   "... but the die does not nest: cpu 0's die is not a union of llc groups, cpu 1 the witness");
		why.level = CIDK_TOPO_SMT;
		ok(!cidk_topo_sane_pairwise(t, &why) && why.level == CIDK_TOPO_DIE &&
			   why.kind == CIDK_TOPO_INSANE_NEST,
		   "the pairwise reference says the same");
		cidk_mask_free(m);
		cidk_topo_free(t);
	}
	free(cpus);
	return done_testing();
}
