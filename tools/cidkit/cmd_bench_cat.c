/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench cat [--reps R] [--tmp-files N] [--json]
 */
#include <getopt.h>
#include <string.h>

#include "bench_cat.h"
#include "cli.h"
#include "cmds.h"

static const char usage[] =
	"usage: cidkit bench cat [--reps R] [--tmp-files N] [--json]\n"
	"\n"
	"Reading small counter-like files, two ways side by side (interleaved\n"
	"in every repetition):\n"
	"  open_read_close   what cat does: open, read, close per value\n"
	"  open_once_pread   what cidkit cat does: pread(fd, buf, 4096, 0)\n"
	"on three sets: sysfs (topology/ and cache/indexK/ files of every CPU),\n"
	"procfs (loadavg, uptime, self/stat, self/statm, meminfo) and N files in\n"
	"a fresh temporary directory.  ns per value: median and min-max over R\n"
	"repetitions, and the ratio open_read_close / open_once_pread.\n"
	"\n"
	"  --reps R       repetitions (default 41)\n"
	"  --tmp-files N  files in the temporary directory (default 64)\n"
	"  --json         one JSON object\n";

int cmd_bench_cat(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "reps", required_argument, NULL, 'r' },
		{ "tmp-files", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int reps = 41, tmp_files = 64;
	struct bench_cat_result r;
	bool json = false;
	int c, rc;

	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (cli_parse_uint("bench cat: --reps", optarg, 1,
					   100000, &reps))
				return CLI_EXIT_USAGE;
			break;
		case 't':
			if (cli_parse_uint("bench cat: --tmp-files", optarg, 1,
					   100000, &tmp_files))
				return CLI_EXIT_USAGE;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return CLI_EXIT_OK;
		default:
			return cli_bad_option("bench cat", argv, c);
		}
	}
	if (optind != argc)
		return cli_extra_arg("bench cat", argv[optind]);
	rc = bench_cat_run(reps, tmp_files, &r);
	if (rc)
		return cli_error("bench cat: %s", strerror(-rc));

	if (json) {
		printf("{\"reps\": %u", r.reps);
		for (int s = 0; s < BENCH_CAT_NSETS; s++) {
			const struct cidk__summary *a =
				&r.ns[s][BENCH_CAT_OPEN_READ_CLOSE];
			const struct cidk__summary *b = &r.ns[s][BENCH_CAT_PREAD];

			printf(", \"%s\": {\"files\": %u", bench_cat_set_name[s],
			       r.nfiles[s]);
			if (r.nfiles[s])
				printf(", \"open_read_close_ns\": {\"median\": "
				       "%.1f, \"min\": %.1f, \"max\": %.1f}, "
				       "\"open_once_pread_ns\": {\"median\": "
				       "%.1f, \"min\": %.1f, \"max\": %.1f}, "
				       "\"ratio\": %.2f",
				       a->median, a->min, a->max, b->median,
				       b->min, b->max,
				       b->median > 0 ? a->median / b->median
						     : 0);
			putchar('}');
		}
		puts("}");
		return CLI_EXIT_OK;
	}
	printf("counter reads: ns per value, %u reps, ways interleaved "
	       "(shared VM: noisy; compare the ratios)\n\n",
	       r.reps);
	printf("%-8s %6s  %-17s %10s %10s %10s %8s\n", "set", "files", "way",
	       "median ns", "min ns", "max ns", "ratio");
	for (int s = 0; s < BENCH_CAT_NSETS; s++) {
		const struct cidk__summary *b = &r.ns[s][BENCH_CAT_PREAD];

		if (!r.nfiles[s]) {
			printf("%-8s %6u  (no readable files here)\n",
			       bench_cat_set_name[s], 0u);
			continue;
		}
		for (int w = 0; w < BENCH_CAT_NWAYS; w++) {
			const struct cidk__summary *a = &r.ns[s][w];

			printf("%-8s %6u  %-17s %10.0f %10.0f %10.0f %7.1fx\n",
			       w ? "" : bench_cat_set_name[s], r.nfiles[s],
			       bench_cat_way_name[w], a->median, a->min, a->max,
			       b->median > 0 ? a->median / b->median : 0);
		}
	}
	printf("\nratio = median / open_once_pread median\n");
	return CLI_EXIT_OK;
}
