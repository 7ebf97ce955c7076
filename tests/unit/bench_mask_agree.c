/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench mask compares its three ways (bench/mask.c): on a union
 * that changes they agree with a plain count, and a way whose result is
 * off by one (the injected fault) makes the comparison fail with -EDOM;
 * a run compares once per repetition of each scenario and cache state after
 * the changing-union check, and its growing scenario adds exactly --grow
 * bits per repetition to every way (its steady one none).
 */
#include <errno.h>

#include "bench_mask.h"
#include "tap.h"

int main(void)
{
	static const unsigned int sizes[] = { 1, 23, 64, 65, 109, 4097 };

	for (unsigned int k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned int bits = sizes[k], want = 0;
		struct bench_mask_result r = { 0 };
		int rc;

		/* the union of every other bit, every third and the last */
		for (unsigned int i = 0; i < bits; i++)
			want += i % 2 == 0 || i % 3 == 0 || i == bits - 1;
		rc = bench_mask_verify(bits, -1, &r);
		ok(rc == 0 && r.compared == 1 && !r.disagreed &&
			   r.weight[BENCH_MASK_UNION_COUNT] == want &&
			   r.weight[BENCH_MASK_PER_BIT] == want &&
			   r.weight[BENCH_MASK_LOCKED] == want,
		   "%u bits: the three ways agree on a changing union (%u %u %u, "
		   "plain count %u, rc %d)", bits, r.weight[0], r.weight[1],
		   r.weight[2], want, rc);
		for (int f = 0; f < BENCH_MASK_NR_WAYS; f++) {
			struct bench_mask_result e = { 0 };

			rc = bench_mask_verify(bits, f, &e);
			ok(rc == -EDOM && e.disagreed && e.weight[f] == want + 1,
			   "%u bits: %s off by one is caught (rc %d)", bits,
			   bench_mask_way_name[f], rc);
		}
		{
			/* 1 + 3 reps x 2 scenarios x (warm, cold if any) */
			unsigned int cmp = 1 + 3 * 2 * (bench_mask_cold_supported() ? 2 : 1);
			unsigned int grow = bits < 3 ? bits : 3, bad = 0;

			rc = bench_mask_run(bits, 3, grow, &r);
			ok(rc == 0 && r.compared == cmp && !r.disagreed &&
				   r.weight[BENCH_MASK_LOCKED] == bits,
			   "%u bits, 3 reps: %u comparisons, all equal, weight %u "
			   "(rc %d, %u comparisons)", bits, cmp,
			   r.weight[BENCH_MASK_LOCKED], rc, r.compared);
			for (int w = 0; w < BENCH_MASK_NR_WAYS; w++)
				bad += r.gained[BENCH_MASK_STEADY][w] != 0 ||
				       r.gained[BENCH_MASK_GROWING][w] != grow;
			ok(rc == 0 && !bad,
			   "%u bits: steady adds 0 bits, growing %u, every way "
			   "(union_count %u %u)", bits, grow,
			   r.gained[BENCH_MASK_STEADY][0],
			   r.gained[BENCH_MASK_GROWING][0]);
		}
	}
	return done_testing();
}
