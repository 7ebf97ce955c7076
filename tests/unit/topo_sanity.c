/* SPDX-License-Identifier: MIT */
/*
 * Span sanity, differentially: the linear check, the pairwise check and a
 * plain reference written here (full-width mask compares on what
 * cidk_topo_mask() returns) must give the same verdict and the same level
 * on thousands of random topologies:
 *   - sane ones (random partitions per level, random CPU numbering, random
 *     offline CPUs, overlapping NUMA) pass all three;
 *   - the same with one injected partial overlap fail all three, at the
 *     injected level;
 *   - random garbage masks: the three always agree, and the CPUs reported
 *     really are a witness.
 * Then taking CPUs offline one by one keeps a sane topology sane.
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

/* The plain reference: first failing level, or -1. */
static int ref_check(const struct cidk_topo *t)
{
	const struct cidk_mask *on = cidk_topo_online(t);
	unsigned int n = cidk_topo_nr_cpu_ids(t);

	for (int l = 0; l < CIDK_TOPO_NUMA; l++) {
		if (!cidk_topo_has_level(t, l))
			continue;
		for (unsigned int i = 0; i < n; i++) {
			const struct cidk_mask *a = cidk_topo_mask(t, l, i);

			if (!a)
				continue;
			if (!cidk_mask_test(a, i))
				return l;
			for (unsigned int j = i + 1; j < n; j++) {
				const struct cidk_mask *b = cidk_topo_mask(t, l, j);

				if (b && !cidk_mask_equal(a, b) &&
				    cidk_mask_intersects(a, b))
					return l;
			}
		}
		(void)on;
	}
	return -1;
}

/* The reported CPUs must prove the failure. */
static bool is_witness(const struct cidk_topo *t, const struct cidk_topo_insane *w)
{
	const struct cidk_mask *a = cidk_topo_mask(t, w->level, w->cpu_a);
	const struct cidk_mask *b = cidk_topo_mask(t, w->level, w->cpu_b);

	if (!a || !b || w->level == CIDK_TOPO_NUMA)
		return false;
	if (w->cpu_a == w->cpu_b)
		return !cidk_mask_test(a, w->cpu_a);
	return w->cpu_a < w->cpu_b && !cidk_mask_equal(a, b) &&
	       cidk_mask_intersects(a, b);
}

/* A random partition of the online CPUs at @l (random sizes, order). */
static void random_partition(struct cidk_topo *t, int l, unsigned int *cpus,
			     unsigned int nr, struct cidk_mask *m,
			     unsigned int max_size, bool offline_bits)
{
	unsigned int n = cidk_topo_nr_cpu_ids(t);
	struct cidk_mask *used = cidk_mask_alloc(n);

	(void)l;
	cidk__prng_shuffle(&rng, cpus, nr);
	for (unsigned int i = 0; i < nr;) {
		unsigned int size = 1 + below(max_size);

		if (size > nr - i)
			size = nr - i;
		cidk_mask_zero(m);
		for (unsigned int k = 0; k < size; k++)
			cidk_mask_set(m, cpus[i + k]);
		if (offline_bits) { /* an offline CPU no other group has */
			unsigned int c = below(n);

			if (!cidk_mask_test(cidk_topo_online(t), c) &&
			    !cidk_mask_test(used, c)) {
				cidk_mask_set(m, c);
				cidk_mask_set(used, c);
			}
		}
		for (unsigned int k = 0; k < size; k++)
			cidk_topo_set_mask(t, l, cpus[i + k], m);
		i += size;
	}
	cidk_mask_free(used);
}

static struct cidk_topo *random_sane(unsigned int *cpus, unsigned int *nr_out)
{
	unsigned int n = 1 + below(below(10) ? 150 : 500), nr = 0;
	struct cidk_topo *t = cidk_topo_alloc(n);
	struct cidk_mask *m = cidk_mask_alloc(n);
	unsigned int pct = below(3) ? 100 : 50 + below(50);
	bool offline_bits = below(4) == 0;

	for (unsigned int c = 0; c < n; c++)
		if (below(100) < pct)
			cidk_mask_set(m, c);
	cidk_mask_set(m, below(n));
	cidk_topo_set_online(t, m);
	for (unsigned int c = 0; c < n; c++)
		if (cidk_mask_test(m, c))
			cpus[nr++] = c;
	for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++) {
		if (below(4) == 0)
			continue; /* level absent */
		random_partition(t, l, cpus, nr, m, 1 + below(l == 0 ? 8 : 64),
				 offline_bits);
	}
	if (cidk_topo_has_level(t, CIDK_TOPO_NUMA) && nr > 2) {
		/* NUMA may overlap: give one CPU a node that meets another */
		cidk_mask_copy(m, cidk_topo_mask(t, CIDK_TOPO_NUMA, cpus[1]));
		cidk_mask_set(m, cpus[0]);
		cidk_topo_set_mask(t, CIDK_TOPO_NUMA, cpus[0], m);
	}
	cidk_mask_free(m);
	*nr_out = nr;
	return t;
}

/* Give one CPU at a random present non-NUMA level a partially overlapping mask. */
static int inject(struct cidk_topo *t, unsigned int *cpus, unsigned int nr)
{
	unsigned int n = cidk_topo_nr_cpu_ids(t), c, other = 0;
	int levels[CIDK_TOPO_NUMA], nl = 0, l;
	const struct cidk_mask *g;
	struct cidk_mask *m;

	for (l = 0; l < CIDK_TOPO_NUMA; l++)
		if (cidk_topo_has_level(t, l))
			levels[nl++] = l;
	if (!nl || nr < 2)
		return -1;
	l = levels[below(nl)];
	c = cpus[below(nr)];
	g = cidk_topo_mask(t, l, c);
	m = cidk_mask_dup(g);
	if (cidk_mask_weight(g) >= 2 && below(2)) {
		/* drop another member: c's mask is now inside its old group */
		cidk_mask_for_each(other, g)
			if (other != c && cidk_mask_test(cidk_topo_online(t), other))
				break;
		if (other < n) {
			cidk_mask_clear(m, other);
			goto set;
		}
	}
	/* add a CPU of another group */
	do
		other = cpus[below(nr)];
	while (cidk_mask_test(g, other) && cidk_mask_weight(g) < nr);
	if (cidk_mask_test(g, other)) { /* one group holds every CPU */
		unsigned int d = cidk_mask_first(g) == c ? cidk_mask_last(g) : cidk_mask_first(g);

		cidk_mask_clear(m, d);
	} else {
		cidk_mask_set(m, other);
	}
set:
	cidk_topo_set_mask(t, l, c, m);
	cidk_mask_free(m);
	return l;
}

static bool agree(const struct cidk_topo *t, int *level_out, bool *witness_ok)
{
	struct cidk_topo_insane wl = { 0 }, wp = { 0 };
	bool lin = cidk_topo_span_sane(t, &wl);
	bool pw = cidk_topo_span_sane_pairwise(t, &wp);
	int ref = ref_check(t);

	*level_out = ref;
	*witness_ok = lin || (is_witness(t, &wl) && is_witness(t, &wp));
	if (lin != pw || lin != (ref < 0))
		return false;
	return lin || ((int)wl.level == ref && (int)wp.level == ref);
}

int main(void)
{
	unsigned int *cpus = malloc(1024 * sizeof(*cpus));
	unsigned int bad_sane = 0, bad_inj = 0, bad_rand = 0, bad_wit = 0;
	unsigned int nr_insane_rand = 0, bad_remove = 0;
	const unsigned int cases = 2000;

	cidk__prng_seed(&rng, 42);
	for (unsigned int i = 0; i < cases; i++) {
		unsigned int nr;
		struct cidk_topo *t = random_sane(cpus, &nr);
		bool wok;
		int lvl, inj;

		if (!agree(t, &lvl, &wok) || lvl >= 0)
			bad_sane++;
		inj = inject(t, cpus, nr);
		if (inj >= 0 && (!agree(t, &lvl, &wok) || lvl != inj))
			bad_inj++;
		if (inj >= 0 && !wok)
			bad_wit++;
		cidk_topo_free(t);
	}
	ok(!bad_sane, "%u random sane topologies: linear, pairwise, reference all sane (%u bad)",
	   cases, bad_sane);
	ok(!bad_inj, "the same with one injected partial overlap: all three fail at that level (%u bad)",
	   bad_inj);
	ok(!bad_wit, "the CPUs reported for an injected overlap are a real witness (%u bad)",
	   bad_wit);

	/* Garbage: random masks at one level, a few CPUs. */
	for (unsigned int i = 0; i < cases; i++) {
		unsigned int n = 1 + below(70);
		struct cidk_topo *t = cidk_topo_alloc(n);
		struct cidk_mask *m = cidk_mask_alloc(n);
		int l = (int)below(CIDK_TOPO_NR_LEVELS), lvl;
		bool wok;

		cidk_mask_fill(m);
		if (below(2))
			cidk_mask_clear(m, below(n));
		cidk_topo_set_online(t, m);
		for (unsigned int c = 0; c < n; c++) {
			if (below(8) == 0)
				continue; /* no mask */
			cidk_mask_zero(m);
			if (below(6))
				cidk_mask_set(m, c);
			/* a few shapes: a random block, or a random set */
			if (below(2)) {
				unsigned int s = below(n), len = below(4);

				for (unsigned int k = s; k < n && k < s + len; k++)
					cidk_mask_set(m, k);
			} else if (below(3) == 0) {
				cidk_mask_set(m, below(n));
			}
			cidk_topo_set_mask(t, l, c, m);
		}
		if (!agree(t, &lvl, &wok))
			bad_rand++;
		if (!wok)
			bad_wit++;
		nr_insane_rand += lvl >= 0;
		cidk_mask_free(m);
		cidk_topo_free(t);
	}
	ok(!bad_rand, "%u random mask sets: the three checks always agree (%u insane, %u bad)",
	   cases, nr_insane_rand, bad_rand);
	ok(nr_insane_rand > cases / 4 && nr_insane_rand < cases,
	   "the random mask sets mix sane and insane (%u insane)", nr_insane_rand);
	ok(!bad_wit, "every reported pair is a witness");

	/* Removing CPUs keeps a sane topology sane, and counts stay right. */
	for (unsigned int i = 0; i < 200; i++) {
		unsigned int nr;
		struct cidk_topo *t = random_sane(cpus, &nr);
		int lvl;
		bool wok;

		for (unsigned int k = 0; k + 1 < nr && k < 10; k++) {
			unsigned int c = cpus[below(nr)];

			cidk_topo_remove_cpu(t, c);
			if (cidk_topo_mask(t, CIDK_TOPO_SMT, c) ||
			    !agree(t, &lvl, &wok) || lvl >= 0)
				bad_remove++;
			for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++) {
				const struct cidk_mask *on = cidk_topo_online(t);
				unsigned int d, groups = 0;

				cidk_mask_for_each(d, on) {
					const struct cidk_mask *g = cidk_topo_mask(t, l, d);

					if (g && cidk_mask_test(g, c))
						bad_remove++;
					/* count groups by their lowest online CPU */
					if (g && cidk_mask_next_and(g, on, 0) == d)
						groups++;
				}
				if (l != CIDK_TOPO_NUMA &&
				    groups != cidk_topo_nr_groups(t, l))
					bad_remove++;
			}
		}
		cidk_topo_free(t);
	}
	ok(!bad_remove, "remove_cpu: CPU gone from every mask, still sane, nr_groups right (%u bad)",
	   bad_remove);
	free(cpus);
	return done_testing();
}
