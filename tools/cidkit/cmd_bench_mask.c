/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench mask [--bits N] [--reps R] [--grow G] [--json]
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
	"Fold a full bitmap A into the union B three ways, side by side, R times\n"
	"each, in two scenarios: steady (B full: nothing new) and growing (B full\n"
	"less G bits spread over the mask, restored before every call):\n"
	"  1. union_count       atomic fetch_or only where A has bits B lacks\n"
	"  2. per_bit_atomic    atomic test-and-set of every set bit of A\n"
	"  3. locked_or_weight  mutex; B |= A; weight(B)\n"
	"and memcmp(A, B) as the memory-bandwidth floor.  Every timed call starts\n"
	"from a stated cache state, set up untimed just before it: warm (A and B\n"
	"just read once) and cold (A and B flushed from every cache level).\n";

/* median of way @w over the median of way @v */
static double ratio(const struct bench_mask_result *r, int s, int c, int w,
		    int v)
{
	double d = r->ns[s][c][v].median;

	return d > 0 ? r->ns[s][c][w].median / d : 0;
}

static void print_json(const struct bench_mask_result *r)
{
	struct jw j;

	jw_init(&j, stdout);
	jw_obj(&j);
	jw_kuint(&j, "bits", r->bits);
	jw_kuint(&j, "reps", r->reps);
	jw_kuint(&j, "grow", r->grow);
	jw_kuint(&j, "compared", r->compared);
	jw_key(&j, "runs");
	jw_arr(&j);
	for (int s = 0; s < BENCH_MASK_NR_SCENARIOS; s++)
		for (int c = 0; c < BENCH_MASK_NR_CACHE; c++) {
			if (c == BENCH_MASK_COLD && !r->cold)
				continue;
			jw_break(&j, "\n");
			jw_obj(&j);
			jw_kstr(&j, "scenario", bench_mask_scenario_name[s]);
			jw_kstr(&j, "cache", bench_mask_cache_name[c]);
			jw_kuint(&j, "new_bits", s == BENCH_MASK_GROWING ? r->grow : 0);
			for (int w = 0; w < BENCH_MASK_NR; w++) {
				const struct cidk__summary *m = &r->ns[s][c][w];

				jw_key(&j, bench_mask_way_name[w]);
				jw_obj(&j);
				jw_knum(&j, "median_ns", m->median, 0);
				jw_knum(&j, "min_ns", m->min, 0);
				jw_knum(&j, "max_ns", m->max, 0);
				jw_obj_end(&j);
			}
			jw_knum(&j, "per_bit_over_union", ratio(r, s, c,
				BENCH_MASK_PER_BIT, BENCH_MASK_UNION_COUNT), 1);
			jw_knum(&j, "locked_over_union", ratio(r, s, c,
				BENCH_MASK_LOCKED, BENCH_MASK_UNION_COUNT), 2);
			jw_knum(&j, "union_over_memcmp", ratio(r, s, c,
				BENCH_MASK_UNION_COUNT, BENCH_MASK_MEMCMP), 2);
			jw_obj_end(&j);
		}
	jw_arr_end(&j);
	jw_obj_end(&j);
	jw_end(&j);
}

static void print_text(const struct bench_mask_result *r)
{
	int nc = r->cold ? BENCH_MASK_NR_CACHE : 1;

	printf("allowed-CPUs union, %u bits (A full), %u reps, ways interleaved "
	       "(order rotated each repetition)\n", r->bits, r->reps);
	printf("before every timed call: warm = A and B just read once "
	       "(memcmp, untimed)%s\n", r->cold ?
	       "; cold = A and B flushed from every cache level" :
	       "; cold: not available on this architecture");
	for (int s = 0; s < BENCH_MASK_NR_SCENARIOS; s++) {
		if (s == BENCH_MASK_STEADY)
			printf("\nsteady: B full, nothing new\n");
		else
			printf("\ngrowing: B full less %u bits spread over the mask, "
			       "%u new bits each repetition\n", r->grow, r->grow);
		printf("%-18s", "way");
		for (int c = 0; c < nc; c++)
			printf(" %7s median ns %9s %9s", bench_mask_cache_name[c],
			       "min", "max");
		printf("\n");
		for (int w = 0; w < BENCH_MASK_NR; w++) {
			printf("%-18s", bench_mask_way_name[w]);
			for (int c = 0; c < nc; c++)
				printf(" %17.0f %9.0f %9.0f",
				       r->ns[s][c][w].median, r->ns[s][c][w].min,
				       r->ns[s][c][w].max);
			printf("\n");
		}
		for (int c = 0; c < nc; c++)
			printf("%s: per_bit_atomic / union_count = %.0fx, "
			       "locked_or_weight / union_count = %.2fx, "
			       "union_count / memcmp = %.2fx\n",
			       bench_mask_cache_name[c],
			       ratio(r, s, c, BENCH_MASK_PER_BIT,
				     BENCH_MASK_UNION_COUNT),
			       ratio(r, s, c, BENCH_MASK_LOCKED,
				     BENCH_MASK_UNION_COUNT),
			       ratio(r, s, c, BENCH_MASK_UNION_COUNT,
				     BENCH_MASK_MEMCMP));
	}
	printf("\nfinal weight %u: the three ways' counts and bitmaps agree "
	       "(%u comparisons: a changing union, then every repetition of "
	       "each scenario and cache state)\n",
	       r->weight[BENCH_MASK_UNION_COUNT], r->compared);
}

int cmd_bench_mask(int argc, char **argv)
{
	unsigned int bits = 327680, reps = 41, grow = 64;
	struct bench_mask_result r;
	bool json = false;
	struct opt opts[] = {
		{ OPT_UINT("bits", 0, &bits, 1, CIDK_MASK_MAX_BITS, "N",
			   "bitmap size") },
		{ OPT_UINT("reps", 0, &reps, 1, 100000, "R",
			   "repetitions, at least 20 recommended") },
		{ OPT_UINT("grow", 0, &grow, 1, CIDK_MASK_MAX_BITS, "G",
			   "new bits per repetition in the growing scenario "
			   "(at most N)") },
		{ OPT_FLAG("json", 0, &json, "one JSON object: every run's "
			   "median, min and max") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { "bench mask", about, NULL, NULL, 0, 0, opts };
	int rc, first;

	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	if (grow > bits)
		return cli_error("bench mask: --grow %u is more than --bits %u",
				 grow, bits);

	rc = bench_mask_run(bits, reps, grow, &r);
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
	if (json)
		print_json(&r);
	else
		print_text(&r);
	return CLI_EXIT_OK;
}
