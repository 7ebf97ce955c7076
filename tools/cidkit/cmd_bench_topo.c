/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench topo [--machine SPEC]... [--reps R] [--json]
 */
#include <errno.h>
#include <string.h>

#include <cidkit/topo.h>

#include "bench_topo.h"
#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"

#define MAX_MACHINES 8

static const char about[] =
	"Span sanity on synthetic machines, three ways timed in turn within\n"
	"each repetition:\n"
	"  pairwise  the quadratic reference (every pair of CPUs, per level)\n"
	"  linear    covered mask + seen-ids mask, one pass per level\n"
	"  rebuild   a CPU goes offline: rebuild every level from the masks\n"
	"            without it, then the linear check\n"
	"and how each grows from the first machine to the last.\n";

int cmd_bench_topo(int argc, char **argv)
{
	struct bench_topo_result res[MAX_MACHINES];
	struct opt_list specs = { .n = 0 };
	unsigned int nr_specs, reps = 5;
	bool json = false;
	struct opt opts[] = {
		{ OPT_LIST("machine", 0, &specs, "SPEC",
			   "a preset or a shape, grammar in docs/topo.md"),
		  .flags = OPT_NOSPLIT, .def = "uv-1920 and big-8192 = 64s64c2t" },
		{ OPT_UINT("reps", 0, &reps, 1, 10000, "R", "repetitions") },
		{ OPT_FLAG("json", 0, &json, "one JSON object with the medians") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { "bench topo", about, NULL, NULL, 0, 0, opts };
	struct jw j;
	int rc, first;

	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	if (specs.n > MAX_MACHINES)
		return cli_error("bench topo: at most %d --machine", MAX_MACHINES);
	if (!specs.n) {
		specs.item[specs.n++] = "uv-1920";
		specs.item[specs.n++] = "big-8192";
	}
	nr_specs = specs.n;

	for (unsigned int i = 0; i < nr_specs; i++) {
		char msg[200] = "";
		rc = bench_topo_run(specs.item[i], reps, &res[i], msg,
					sizeof(msg));

		if (rc == -EINVAL) {
			char what[48];

			cli_excerpt(specs.item[i], what, sizeof(what));
			return cli_error("bench topo: --machine '%s': %s", what,
					 msg);
		}
		if (rc)
			return cli_error("bench topo: %s", strerror(-rc));
		if (!res[i].sane)
			return cli_error("bench topo: '%s' is not span-sane; pick a sane machine",
					 specs.item[i]);
	}

	if (json) {
		jw_init(&j, stdout);
		jw_obj(&j);
		jw_key(&j, "machines");
		jw_arr(&j);
		for (unsigned int i = 0; i < nr_specs; i++) {
			jw_obj(&j);
			jw_kstr(&j, "name", specs.item[i]);
			jw_kuint(&j, "nr_cpus", res[i].nr_cpus);
			jw_knum(&j, "pairwise_ns", res[i].ns[BENCH_TOPO_PAIRWISE].median, 0);
			jw_knum(&j, "linear_ns", res[i].ns[BENCH_TOPO_LINEAR].median, 0);
			jw_knum(&j, "rebuild_ns", res[i].ns[BENCH_TOPO_REBUILD].median, 0);
			jw_obj_end(&j);
		}
		jw_arr_end(&j);
		jw_obj_end(&j);
		jw_end(&j);
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
		printf("%-14s %6u  %-32s %-26s %7.0fx  %s\n", specs.item[i],
		       res[i].nr_cpus, ps, ls,
		       l->median > 0 ? p->median / l->median : 0, bs);
	}
	if (nr_specs > 1) {
		const struct bench_topo_result *a = &res[0], *z = &res[nr_specs - 1];
		double n = (double)z->nr_cpus / a->nr_cpus;

		printf("\ngrowth %s -> %s (%.2fx CPUs; n^2 = %.1fx):\n", specs.item[0],
		       specs.item[nr_specs - 1], n, n * n);
		for (int w = 0; w < BENCH_TOPO_NR; w++)
			printf("  %-9s %6.1fx\n", bench_topo_way_name[w],
			       a->ns[w].median > 0
				       ? z->ns[w].median / a->ns[w].median
				       : 0);
	}
	printf("\n(the machine is shared and noisy: compare ratios, not absolute times)\n");
	return CLI_EXIT_OK;
}
