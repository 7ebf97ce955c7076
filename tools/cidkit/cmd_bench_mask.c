/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench mask [--bits N] [--reps R] [--json]
 */
#include <errno.h>
#include <string.h>

#include <cidkit/mask.h>

#include "bench_mask.h"
#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"

static const char about[] =
	"Fold one full bitmap A into a full bitmap B (the mm allowed-CPUs union\n"
	"when nothing changes) three ways, side by side, R times each:\n"
	"  1. union_count       atomic fetch_or only where A has bits B lacks\n"
	"  2. per_bit_atomic    atomic test-and-set of every set bit of A\n"
	"  3. locked_or_weight  mutex; B |= A; weight(B)\n"
	"and memcmp(A, B) as the memory-bandwidth floor.\n";

int cmd_bench_mask(int argc, char **argv)
{
	unsigned int bits = 327680, reps = 41;
	struct bench_mask_result r;
	bool json = false;
	double floor_ns, bytes;
	struct opt opts[] = {
		{ OPT_UINT("bits", 0, &bits, 1, CIDK_MASK_MAX_BITS, "N",
			   "bitmap size") },
		{ OPT_UINT("reps", 0, &reps, 1, 100000, "R",
			   "repetitions, at least 20 recommended") },
		{ OPT_FLAG("json", 0, &json, "one JSON object with the medians") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { "bench mask", about, NULL, NULL, 0, 0, opts };
	struct jw j;
	int rc, first;

	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);

	rc = bench_mask_run(bits, reps, &r);
	if (rc == -EDOM) { /* a way computed a wrong union: fail loudly */
		fprintf(stderr,
			"cidkit: bench mask: the ways disagree on %s: nr_cpus_allowed "
			"union_count %u, per_bit_atomic %u, locked_or_weight %u "
			"(or their bitmaps differ)\n", r.disagreed,
			r.weight[BENCH_MASK_UNION_COUNT], r.weight[BENCH_MASK_PER_BIT],
			r.weight[BENCH_MASK_LOCKED]);
		return CLI_EXIT_FAIL;
	}
	if (rc)
		return cli_error("bench mask: %s", strerror(-rc));

	if (json) {
		jw_init(&j, stdout);
		jw_obj(&j);
		jw_kuint(&j, "bits", r.bits);
		jw_kuint(&j, "reps", r.reps);
		jw_knum(&j, "union_count_ns", r.ns[BENCH_MASK_UNION_COUNT].median, 0);
		jw_knum(&j, "per_bit_atomic_ns", r.ns[BENCH_MASK_PER_BIT].median, 0);
		jw_knum(&j, "locked_or_weight_ns", r.ns[BENCH_MASK_LOCKED].median, 0);
		jw_knum(&j, "memcmp_ns", r.ns[BENCH_MASK_MEMCMP].median, 0);
		jw_obj_end(&j);
		jw_end(&j);
		return CLI_EXIT_OK;
	}

	printf("allowed-CPUs union, %u bits (A and B full), %u reps, interleaved\n\n",
	       r.bits, r.reps);
	printf("%-20s %12s %12s %12s\n", "way", "median ns", "min ns", "max ns");
	for (int w = 0; w < BENCH_MASK_NR; w++)
		printf("%-20s %12.0f %12.0f %12.0f\n", bench_mask_way_name[w],
		       r.ns[w].median, r.ns[w].min, r.ns[w].max);
	printf("\nratio per_bit_atomic / union_count   = %.0fx\n",
	       r.ns[BENCH_MASK_PER_BIT].median /
		       r.ns[BENCH_MASK_UNION_COUNT].median);
	printf("ratio locked_or_weight / union_count = %.2fx\n",
	       r.ns[BENCH_MASK_LOCKED].median /
		       r.ns[BENCH_MASK_UNION_COUNT].median);
	bytes = 2.0 * ((r.bits + 63) / 64) * 8;
	floor_ns = r.ns[BENCH_MASK_MEMCMP].median;
	printf("union_count reads %.1f bytes/ns; memcmp floor %.1f bytes/ns (%.0f%% of floor)\n",
	       bytes / r.ns[BENCH_MASK_UNION_COUNT].median,
	       floor_ns > 0 ? bytes / floor_ns : 0,
	       100.0 * floor_ns / r.ns[BENCH_MASK_UNION_COUNT].median);
	printf("final weight %u: the three ways' counts and bitmaps agree "
	       "(%u comparisons: a changing union, then every repetition)\n",
	       r.weight[BENCH_MASK_UNION_COUNT], r.compared);
	return CLI_EXIT_OK;
}
