/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench topo [--machine SPEC]... [--reps R] [--json]
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include <cidkit/topo.h>

#include "bench_topo.h"
#include "cli.h"
#include "cmds.h"

#define MAX_MACHINES 8

static const char usage[] =
	"usage: cidkit bench topo [--machine SPEC]... [--reps R] [--json]\n"
	"\n"
	"Span sanity on synthetic machines, three ways timed in turn within\n"
	"each repetition:\n"
	"  pairwise  the quadratic reference (every pair of CPUs, per level)\n"
	"  linear    covered mask + seen-ids mask, one pass per level\n"
	"  rebuild   a CPU goes offline: rebuild every level from the masks\n"
	"            without it, then the linear check\n"
	"and how each grows from the first machine to the last.\n"
	"\n"
	"  --machine SPEC  a preset or shape (docs/topo.md); repeat for several\n"
	"                  (default: uv-1920 and big-8192 = 64s64c2t)\n"
	"  --reps R        repetitions (default 5)\n"
	"  --json          one JSON object with the medians\n";

int cmd_bench_topo(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "machine", required_argument, NULL, 'm' },
		{ "reps", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *specs[MAX_MACHINES] = { "uv-1920", "big-8192" };
	struct bench_topo_result res[MAX_MACHINES];
	unsigned int nr_specs = 0, reps = 5;
	bool json = false;
	int c;

	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (nr_specs == MAX_MACHINES)
				return cli_error("bench topo: at most %d --machine",
						 MAX_MACHINES);
			specs[nr_specs++] = optarg;
			break;
		case 'r':
			if (cli_parse_uint("bench topo: --reps", optarg, 1,
					   10000, &reps))
				return CLI_EXIT_USAGE;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return CLI_EXIT_OK;
		default:
			return cli_bad_option("bench topo", argv, c);
		}
	}
	if (optind != argc)
		return cli_extra_arg("bench topo", argv[optind]);
	if (!nr_specs)
		nr_specs = 2;

	for (unsigned int i = 0; i < nr_specs; i++) {
		char msg[200] = "";
		int rc = bench_topo_run(specs[i], reps, &res[i], msg,
					sizeof(msg));

		if (rc == -EINVAL) {
			char what[48];

			cli_excerpt(specs[i], what, sizeof(what));
			return cli_error("bench topo: --machine '%s': %s", what,
					 msg);
		}
		if (rc)
			return cli_error("bench topo: %s", strerror(-rc));
		if (!res[i].sane)
			return cli_error("bench topo: '%s' is not span-sane; pick a sane machine",
					 specs[i]);
	}

	if (json) {
		printf("{\"machines\": [");
		for (unsigned int i = 0; i < nr_specs; i++) {
			printf("%s{\"name\": ", i ? ", " : "");
			cli_json_str(stdout, specs[i]);
			printf(", \"nr_cpus\": %u, \"pairwise_ns\": %.0f, \"linear_ns\": %.0f, \"rebuild_ns\": %.0f}",
			       res[i].nr_cpus,
			       res[i].ns[BENCH_TOPO_PAIRWISE].median,
			       res[i].ns[BENCH_TOPO_LINEAR].median,
			       res[i].ns[BENCH_TOPO_REBUILD].median);
		}
		printf("]}\n");
		return CLI_EXIT_OK;
	}

	printf("span sanity, pairwise vs linear, %u reps interleaved; ns: median (min-max)\n\n",
	       reps);
	printf("%-14s %6s  %-32s %-26s %8s  %s\n", "machine", "cpus",
	       "pairwise", "linear", "ratio", "rebuild after 1 CPU offline");
	for (unsigned int i = 0; i < nr_specs; i++) {
		const struct cidk__summary *p = &res[i].ns[BENCH_TOPO_PAIRWISE];
		const struct cidk__summary *l = &res[i].ns[BENCH_TOPO_LINEAR];
		const struct cidk__summary *b = &res[i].ns[BENCH_TOPO_REBUILD];
		char ps[64], ls[64], bs[64];

		snprintf(ps, sizeof(ps), "%.0f (%.0f-%.0f)", p->median, p->min,
			 p->max);
		snprintf(ls, sizeof(ls), "%.0f (%.0f-%.0f)", l->median, l->min,
			 l->max);
		snprintf(bs, sizeof(bs), "%.0f (%.0f-%.0f)", b->median, b->min,
			 b->max);
		printf("%-14s %6u  %-32s %-26s %7.0fx  %s\n", specs[i],
		       res[i].nr_cpus, ps, ls,
		       l->median > 0 ? p->median / l->median : 0, bs);
	}
	if (nr_specs > 1) {
		const struct bench_topo_result *a = &res[0], *z = &res[nr_specs - 1];
		double n = (double)z->nr_cpus / a->nr_cpus;

		printf("\ngrowth %s -> %s (%.2fx CPUs; n^2 = %.1fx):\n", specs[0],
		       specs[nr_specs - 1], n, n * n);
		for (int w = 0; w < BENCH_TOPO_NR; w++)
			printf("  %-9s %6.1fx\n", bench_topo_way_name[w],
			       a->ns[w].median > 0
				       ? z->ns[w].median / a->ns[w].median
				       : 0);
	}
	printf("\n(the machine is shared and noisy: compare ratios, not absolute times)\n");
	return CLI_EXIT_OK;
}
