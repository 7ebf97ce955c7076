/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench cat [--reps R] [--tmp-files N] [--json]
 */
#include <string.h>

#include "bench_cat.h"
#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"

static const char about[] =
	"Reading small counter-like files, two ways side by side (interleaved\n"
	"in every repetition):\n"
	"  open_read_close   what cat does: open, read, close per value\n"
	"  open_once_pread   what cidkit cat does: pread(fd, buf, 4096, 0)\n"
	"on three sets: sysfs (topology/ and cache/indexK/ files of every CPU),\n"
	"procfs (loadavg, uptime, self/stat, self/statm, meminfo) and N files in\n"
	"a fresh temporary directory.  ns per value: median and min-max over R\n"
	"repetitions, and the ratio open_read_close / open_once_pread.\n";

/* {"median": M, "min": m, "max": x}, one decimal */
static void summary_json(struct jw *j, const struct cidk__summary *s)
{
	jw_obj(j);
	jw_knum(j, "median", s->median, 1);
	jw_knum(j, "min", s->min, 1);
	jw_knum(j, "max", s->max, 1);
	jw_obj_end(j);
}

int cmd_bench_cat(int argc, char **argv)
{
	unsigned int reps = 41, tmp_files = 64;
	struct bench_cat_result r;
	bool json = false;
	struct opt opts[] = {
		{ OPT_UINT("reps", 0, &reps, 1, 100000, "R", "repetitions") },
		{ OPT_UINT("tmp-files", 0, &tmp_files, 1, 100000, "N",
			   "files in the temporary directory") },
		{ OPT_FLAG("json", 0, &json, "one JSON object") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { "bench cat", about, NULL, NULL, 0, 0, opts };
	struct jw j;
	int rc, first;

	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	rc = bench_cat_run(reps, tmp_files, &r);
	if (rc)
		return cli_error("bench cat: %s", strerror(-rc));

	if (json) {
		jw_init(&j, stdout);
		jw_obj(&j);
		jw_kuint(&j, "reps", r.reps);
		for (int s = 0; s < BENCH_CAT_NSETS; s++) {
			const struct cidk__summary *b = &r.ns[s][BENCH_CAT_PREAD];

			jw_key(&j, bench_cat_set_name[s]);
			jw_obj(&j);
			jw_kuint(&j, "files", r.nfiles[s]);
			for (int w = 0; w < BENCH_CAT_NWAYS && r.nfiles[s]; w++) {
				jw_key(&j, w == BENCH_CAT_PREAD ? "open_once_pread_ns"
								 : "open_read_close_ns");
				summary_json(&j, &r.ns[s][w]);
			}
			if (r.nfiles[s])
				jw_knum(&j, "ratio",
					b->median > 0 ? r.ns[s][BENCH_CAT_OPEN_READ_CLOSE].median /
								b->median
						      : 0,
					2);
			jw_obj_end(&j);
		}
		jw_obj_end(&j);
		jw_end(&j);
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
