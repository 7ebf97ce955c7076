/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench mask [--bits N] [--reps R] [--json]
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include <cidkit/mask.h>

#include "bench_mask.h"
#include "cli.h"
#include "cmds.h"

static const char usage[] =
	"usage: cidkit bench mask [--bits N] [--reps R] [--json]\n"
	"\n"
	"Fold one full bitmap A into a full bitmap B (the mm allowed-CPUs union\n"
	"when nothing changes) three ways, side by side, R times each:\n"
	"  1. union_count       atomic fetch_or only where A has bits B lacks\n"
	"  2. per_bit_atomic    atomic test-and-set of every set bit of A\n"
	"  3. locked_or_weight  mutex; B |= A; weight(B)\n"
	"and memcmp(A, B) as the memory-bandwidth floor.\n"
	"\n"
	"  --bits N   bitmap size (default 327680)\n"
	"  --reps R   repetitions (default 41, at least 20 recommended)\n"
	"  --json     one JSON object with the medians\n";

int cmd_bench_mask(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "bits", required_argument, NULL, 'b' },
		{ "reps", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int bits = 327680, reps = 41;
	struct bench_mask_result r;
	bool json = false;
	double floor_ns, bytes;
	int c, rc;

	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (cli_parse_uint("bench mask: --bits", optarg, 1,
					   CIDK_MASK_MAX_BITS, &bits))
				return CLI_EXIT_USAGE;
			break;
		case 'r':
			if (cli_parse_uint("bench mask: --reps", optarg, 1,
					   100000, &reps))
				return CLI_EXIT_USAGE;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return CLI_EXIT_OK;
		default:
			return cli_bad_option("bench mask", argv, c);
		}
	}
	if (optind != argc)
		return cli_extra_arg("bench mask", argv[optind]);

	rc = bench_mask_run(bits, reps, &r);
	if (rc)
		return cli_error("bench mask: %s", strerror(-rc));

	if (json) {
		printf("{\"bits\": %u, \"reps\": %u, \"union_count_ns\": %.0f, "
		       "\"per_bit_atomic_ns\": %.0f, \"locked_or_weight_ns\": %.0f, "
		       "\"memcmp_ns\": %.0f}\n",
		       r.bits, r.reps, r.ns[BENCH_MASK_UNION_COUNT].median,
		       r.ns[BENCH_MASK_PER_BIT].median,
		       r.ns[BENCH_MASK_LOCKED].median,
		       r.ns[BENCH_MASK_MEMCMP].median);
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
	printf("final weight %u (every way agrees)\n", r.weight);
	return CLI_EXIT_OK;
}
