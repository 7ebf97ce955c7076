/* SPDX-License-Identifier: MIT */
/*
 * Every mask operation against a plain bit-by-bit reference (an array of
 * bools), on random masks of sizes that straddle word boundaries, with
 * several densities, plus the invariant that no bit past nbits is ever set.
 */
#include <string.h>

#include <cidkit/mask.h>

#include "tap.h"
#include "prng.h"

static const unsigned int sizes[] = { 1,  2,   23,  35,   63,   64,
				      65, 109, 128, 4097, 8192, 65536 };

struct ref {
	unsigned int n;
	bool *b;
};

static struct cidk__prng rng;
static unsigned int bad; /* mismatches in the current check */

static void random_pair(struct cidk_mask *m, struct ref *r, unsigned int pct)
{
	cidk_mask_zero(m);
	for (unsigned int i = 0; i < r->n; i++) {
		r->b[i] = cidk__prng_below(&rng, 100) < pct;
		cidk_mask_assign(m, i, r->b[i]);
	}
}

static bool same(const struct cidk_mask *m, const struct ref *r)
{
	for (unsigned int i = 0; i < r->n; i++)
		if (cidk_mask_test(m, i) != r->b[i])
			return false;
	return true;
}

/* Bits past nbits must be zero: check the raw tail of the last word. */
static bool tail_clean(const struct cidk_mask *m)
{
	unsigned int r = m->nbits % CIDK_BITS_PER_LONG;

	if (!r)
		return true;
	return (m->bits[m->nwords - 1] >> r) == 0;
}

static unsigned int ref_next(const bool *b, unsigned int n, unsigned int s)
{
	for (; s < n; s++)
		if (b[s])
			return s;
	return n;
}

static void check_size(unsigned int n, unsigned int pa, unsigned int pb)
{
	struct cidk_mask *a = cidk_mask_alloc(n), *b = cidk_mask_alloc(n);
	struct cidk_mask *d = cidk_mask_alloc(n);
	bool *ba = calloc(n, 1), *bb = calloc(n, 1), *bd = calloc(n, 1);
	struct ref ra = { n, ba }, rb = { n, bb }, rd = { n, bd };
	unsigned int w, wa, wand, wandnot, last, i;
	bool any, eq, inter, sub, empty, full;

	random_pair(a, &ra, pa);
	random_pair(b, &rb, pb);

	/* and / or / andnot / xor / complement */
	any = false;
	for (i = 0; i < n; i++)
		any |= bd[i] = ba[i] && bb[i];
	ok(cidk_mask_and(d, a, b) == any && same(d, &rd) && tail_clean(d),
	   "n=%u %u%%/%u%%: and", n, pa, pb);
	for (i = 0; i < n; i++)
		bd[i] = ba[i] || bb[i];
	cidk_mask_or(d, a, b);
	ok(same(d, &rd) && tail_clean(d), "n=%u: or", n);
	any = false;
	for (i = 0; i < n; i++)
		any |= bd[i] = ba[i] && !bb[i];
	ok(cidk_mask_andnot(d, a, b) == any && same(d, &rd) && tail_clean(d),
	   "n=%u: andnot", n);
	for (i = 0; i < n; i++)
		bd[i] = ba[i] != bb[i];
	cidk_mask_xor(d, a, b);
	ok(same(d, &rd) && tail_clean(d), "n=%u: xor", n);
	for (i = 0; i < n; i++)
		bd[i] = !ba[i];
	cidk_mask_complement(d, a);
	ok(same(d, &rd) && tail_clean(d), "n=%u: complement", n);
	cidk_mask_copy(d, a);
	cidk_mask_and(d, d, b); /* aliasing dst == src */
	for (i = 0; i < n; i++)
		bd[i] = ba[i] && bb[i];
	ok(same(d, &rd), "n=%u: and with dst aliasing a", n);

	/* predicates and weights */
	eq = inter = false;
	sub = empty = full = true;
	w = wa = wand = wandnot = 0;
	for (i = 0; i < n; i++) {
		inter |= ba[i] && bb[i];
		sub &= !ba[i] || bb[i];
		empty &= !ba[i];
		full &= ba[i];
		wa += ba[i];
		wand += ba[i] && bb[i];
		wandnot += ba[i] && !bb[i];
	}
	eq = !memcmp(ba, bb, n);
	ok(cidk_mask_equal(a, b) == eq, "n=%u: equal", n);
	ok(cidk_mask_intersects(a, b) == inter, "n=%u: intersects", n);
	ok(cidk_mask_subset(a, b) == sub, "n=%u: subset", n);
	ok(cidk_mask_empty(a) == empty, "n=%u: empty", n);
	ok(cidk_mask_full(a) == full, "n=%u: full", n);
	ok(cidk_mask_weight(a) == wa, "n=%u: weight %u", n, wa);
	ok(cidk_mask_weight_and(a, b) == wand, "n=%u: weight_and", n);
	ok(cidk_mask_weight_andnot(a, b) == wandnot, "n=%u: weight_andnot", n);

	/* search: next/next_zero/next_and/next_andnot from every start */
	{
		bool *t_and = calloc(n, 1), *t_andnot = calloc(n, 1);

		for (i = 0; i < n; i++) {
			t_and[i] = ba[i] && bb[i];
			t_andnot[i] = ba[i] && !bb[i];
		}
		bad = 0;
		for (unsigned int s = 0; s <= n + 1;
		     s += n > 4097 ? 1 + (unsigned int)cidk__prng_below(&rng, 64) : 1) {
			unsigned int ez = s;

			while (ez < n && ba[ez])
				ez++;
			bad += cidk_mask_next(a, s) != ref_next(ba, n, s);
			bad += cidk_mask_next_zero(a, s) != (s < n ? ez : n);
			bad += cidk_mask_next_and(a, b, s) != ref_next(t_and, n, s);
			bad += cidk_mask_next_andnot(a, b, s) !=
			       ref_next(t_andnot, n, s);
		}
		free(t_and);
		free(t_andnot);
	}
	ok(!bad, "n=%u: next/next_zero/next_and/next_andnot from every start", n);

	last = n;
	for (i = n; i-- > 0;)
		if (ba[i]) {
			last = i;
			break;
		}
	ok(cidk_mask_last(a) == last, "n=%u: last", n);
	bad = 0;
	for (unsigned int k = 0, seen = 0; k < n; k++)
		if (ba[k])
			bad += cidk_mask_nth(a, seen++) != k;
	bad += cidk_mask_nth(a, wa) != n;
	ok(!bad, "n=%u: nth of every set bit, and nth(weight) = nbits", n);

	/* iterators visit exactly the set bits, in order */
	bad = 0;
	{
		unsigned int bit, prev = 0, cnt = 0;
		bool first = true;

		cidk_mask_for_each(bit, a) {
			bad += !ba[bit] || (!first && bit <= prev);
			prev = bit;
			first = false;
			cnt++;
		}
		bad += cnt != wa || bit < n;
		cnt = 0;
		cidk_mask_for_each_and(bit, a, b) {
			bad += !(ba[bit] && bb[bit]);
			cnt++;
		}
		bad += cnt != wand;
		cnt = 0;
		cidk_mask_for_each_andnot(bit, a, b) {
			bad += !(ba[bit] && !bb[bit]);
			cnt++;
		}
		bad += cnt != wandnot;
	}
	ok(!bad, "n=%u: for_each, for_each_and, for_each_andnot", n);

	/* fill, ranges, single-bit ops */
	cidk_mask_fill(d);
	ok(cidk_mask_full(d) && cidk_mask_weight(d) == n && tail_clean(d),
	   "n=%u: fill", n);
	cidk_mask_zero(d);
	ok(cidk_mask_empty(d) && cidk_mask_first(d) == n &&
		   cidk_mask_first_zero(d) == (n ? 0 : n),
	   "n=%u: zero", n);
	{
		unsigned int s = (unsigned int)cidk__prng_below(&rng, n);
		unsigned int len = (unsigned int)cidk__prng_below(&rng, n - s + 1);

		cidk_mask_set_range(d, s, len);
		bad = cidk_mask_weight(d) != len ||
		      (len && (cidk_mask_first(d) != s ||
			       cidk_mask_last(d) != s + len - 1));
		cidk_mask_fill(d);
		cidk_mask_clear_range(d, s, len);
		bad += cidk_mask_weight(d) != n - len;
		ok(!bad && tail_clean(d), "n=%u: set_range/clear_range [%u,+%u)",
		   n, s, len);
	}
	{
		unsigned int bit = n - 1;

		cidk_mask_zero(d);
		bad = cidk_mask_test_and_set(d, bit) != false;
		bad += cidk_mask_test_and_set(d, bit) != true;
		bad += cidk_mask_test_and_clear(d, bit) != true;
		bad += cidk_mask_test_and_set_atomic(d, bit) != false;
		bad += cidk_mask_test_atomic(d, bit) != true;
		bad += cidk_mask_test_and_clear_atomic(d, bit) != true;
		bad += cidk_mask_test_and_clear_atomic(d, bit) != false;
		cidk_mask_set_atomic(d, 0);
		cidk_mask_clear_atomic(d, 0);
		bad += !cidk_mask_empty(d);
		ok(!bad, "n=%u: test_and_set/clear, plain and atomic", n);
	}

	/* union_count single-threaded: counts exactly the new bits */
	cidk_mask_copy(d, b);
	w = cidk_mask_union_count(d, a);
	for (i = 0; i < n; i++)
		bd[i] = ba[i] || bb[i];
	ok(w == wandnot && same(d, &rd) && cidk_mask_union_count(d, a) == 0,
	   "n=%u: union_count returns %u new bits, then 0", n, wandnot);

	cidk_mask_free(a);
	cidk_mask_free(b);
	cidk_mask_free(d);
	free(ba);
	free(bb);
	free(bd);
}

int main(void)
{
	static const unsigned int dens[][2] = { { 50, 50 }, { 3, 97 },
						{ 100, 100 }, { 0, 40 },
						{ 97, 3 } };
	struct cidk_mask *z;

	cidk__prng_seed(&rng, 42);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (size_t d = 0; d < sizeof(dens) / sizeof(dens[0]); d++)
			check_size(sizes[s], dens[d][0], dens[d][1]);

	z = cidk_mask_alloc(0);
	ok(z && cidk_mask_empty(z) && cidk_mask_full(z) &&
		   cidk_mask_first(z) == 0 && cidk_mask_last(z) == 0,
	   "a 0-bit mask is empty and full, finds nothing");
	cidk_mask_free(z);
	ok(cidk_mask_alloc(CIDK_MASK_MAX_BITS + 1) == NULL,
	   "absurd sizes are refused");
	return done_testing();
}
