/* SPDX-License-Identifier: MIT */
/*
 * The topology API on synthetic machines: presets against their published
 * shapes, the spec grammar (good and bad specs, table-driven), queries,
 * distance classes, remove_cpu, and the argument checks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/topo.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "tap.h"

static struct cidk_topo *spec(const char *s)
{
	struct cidk_topo_err err = { "", "" };
	struct cidk_topo *t = NULL;
	int rc = cidk_topo_from_spec(s, &t, &err);

	if (rc)
		diag("%s: %s", s, err.msg);
	return t;
}

static bool list_is(const struct cidk_mask *m, const char *want)
{
	char buf[256];

	if (!m)
		return !want;
	cidk_mask_format_list(m, buf, sizeof(buf));
	if (strcmp(buf, want))
		diag("got '%s', want '%s'", buf, want);
	return !strcmp(buf, want);
}

static void check_counts(const struct cidk_topo *t, const char *name,
			 const unsigned int want[CIDK_TOPO_NR_LEVELS])
{
	for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++)
		ok(cidk_topo_nr_groups(t, l) == want[l] &&
			   cidk_topo_has_level(t, l) == (want[l] != 0),
		   "%s: %s has %u groups (got %u)", name,
		   cidk_topo_level_name(l), want[l], cidk_topo_nr_groups(t, l));
}

static void presets(void)
{
	struct cidk_topo *t;
	unsigned int lo, hi;

	t = spec("epyc-9654-2s");
	ok(t && cidk_topo_nr_cpu_ids(t) == 384 && cidk_topo_nr_online(t) == 384,
	   "epyc-9654-2s: 384 CPUs");
	check_counts(t, "epyc-9654-2s", (unsigned int[]){ 192, 0, 24, 0, 2, 2 });
	ok(list_is(cidk_topo_mask(t, CIDK_TOPO_SMT, 5), "5,197"),
	   "epyc: CPU n and n+192 are SMT siblings");
	ok(list_is(cidk_topo_mask(t, CIDK_TOPO_LLC, 200), "8-15,200-207"),
	   "epyc: an LLC is 8 cores, both threads");
	ok(list_is(cidk_topo_mask(t, CIDK_TOPO_PKG, 100), "96-191,288-383"),
	   "epyc: socket 1 is cores 96-191 (socket-major)");
	ok(cidk_topo_distance(t, 0, 0) == CIDK_DIST_SAME_CPU &&
		   cidk_topo_distance(t, 0, 192) == CIDK_DIST_SMT &&
		   cidk_topo_distance(t, 0, 7) == CIDK_DIST_LLC &&
		   cidk_topo_distance(t, 199, 0) == CIDK_DIST_LLC &&
		   cidk_topo_distance(t, 0, 8) == CIDK_DIST_PKG &&
		   cidk_topo_distance(t, 0, 96) == CIDK_DIST_REMOTE &&
		   cidk_topo_distance(t, 0, 384) == CIDK_DIST_REMOTE,
	   "epyc: distance classes");
	ok(cidk_topo_group_id(t, CIDK_TOPO_SMT, 197) == 5 &&
		   cidk_topo_group_id(t, CIDK_TOPO_LLC, 207) == 8 &&
		   cidk_topo_group_id(t, CIDK_TOPO_CLUSTER, 3) == 384,
	   "epyc: group ids are the lowest CPU (nr_cpu_ids when absent)");
	ok(!cidk_topo_span_range(t, CIDK_TOPO_LLC, &lo, &hi) && lo == 16 &&
		   hi == 16 &&
		   cidk_topo_span_range(t, CIDK_TOPO_DIE, &lo, &hi) == -ENOENT,
	   "epyc: span range");
	ok(cidk_topo_span_sane(t, NULL) && cidk_topo_span_sane_pairwise(t, NULL),
	   "epyc: span sane");

	/* one CPU offline: it leaves every group; ids move up */
	ok(!cidk_topo_remove_cpu(t, 0) && cidk_topo_nr_online(t) == 383 &&
		   !cidk_topo_mask(t, CIDK_TOPO_SMT, 0) &&
		   list_is(cidk_topo_mask(t, CIDK_TOPO_SMT, 192), "192") &&
		   list_is(cidk_topo_mask(t, CIDK_TOPO_LLC, 1), "1-7,192-199") &&
		   cidk_topo_group_id(t, CIDK_TOPO_LLC, 3) == 1 &&
		   cidk_topo_group_id(t, CIDK_TOPO_SMT, 192) == 192 &&
		   cidk_topo_nr_groups(t, CIDK_TOPO_SMT) == 192 &&
		   cidk_topo_distance(t, 0, 192) == CIDK_DIST_REMOTE &&
		   cidk_topo_span_sane(t, NULL),
	   "epyc: remove_cpu(0)");
	ok(!cidk_topo_remove_cpu(t, 192) &&
		   cidk_topo_nr_groups(t, CIDK_TOPO_SMT) == 191 &&
		   !cidk_topo_span_range(t, CIDK_TOPO_LLC, &lo, &hi) &&
		   lo == 14 && hi == 16,
	   "epyc: remove_cpu(192) empties a core");
	ok(cidk_topo_remove_cpu(t, 384) == -EINVAL, "remove_cpu out of range");
	cidk_topo_free(t);

	t = spec("uv-1920");
	ok(t && cidk_topo_nr_online(t) == 1920, "uv-1920: 1920 CPUs");
	check_counts(t, "uv-1920", (unsigned int[]){ 960, 0, 16, 0, 16, 16 });
	ok(cidk_topo_span_sane(t, NULL), "uv-1920: sane");
	cidk_topo_free(t);

	t = spec("power-360");
	ok(t && cidk_topo_nr_online(t) == 720, "power-360: 2 x 45 x 8 = 720 CPUs");
	check_counts(t, "power-360", (unsigned int[]){ 90, 0, 90, 0, 2, 2 });
	ok(list_is(cidk_topo_mask(t, CIDK_TOPO_SMT, 9), "8-15"),
	   "power-360: SMT8 threads numbered consecutively");
	cidk_topo_free(t);

	t = spec("big-8192");
	ok(t && cidk_topo_nr_online(t) == 8192 && cidk_topo_span_sane(t, NULL),
	   "big-8192: 8192 CPUs, sane");
	cidk_topo_free(t);

	ok(!strcmp(cidk_topo_preset_spec("uv-1920"), "16s60c2t") &&
		   !cidk_topo_preset_spec("nope") && cidk_topo_presets()[0],
	   "preset table");
}

static void grammar(void)
{
	struct cidk_topo *t;

	t = spec("4c");
	ok(t && cidk_topo_nr_online(t) == 4 &&
		   cidk_topo_nr_groups(t, CIDK_TOPO_SMT) == 4 &&
		   cidk_topo_nr_groups(t, CIDK_TOPO_PKG) == 1,
	   "4c: one socket, no SMT threads, SMT groups of one");
	cidk_topo_free(t);

	t = spec("2s4c2t:number=packed");
	ok(t && list_is(cidk_topo_mask(t, CIDK_TOPO_SMT, 0), "0-1") &&
		   list_is(cidk_topo_mask(t, CIDK_TOPO_PKG, 8), "8-15"),
	   "number=packed");
	cidk_topo_free(t);

	t = spec("2s4c2t");
	ok(t && list_is(cidk_topo_mask(t, CIDK_TOPO_SMT, 0), "0,8") &&
		   list_is(cidk_topo_mask(t, CIDK_TOPO_PKG, 4), "4-7,12-15"),
	   "number=spread is the default");
	cidk_topo_free(t);

	t = spec("2s8c2t:llc=4:cluster=2:die=4:numa=2:offline=3,17");
	ok(t && cidk_topo_nr_cpu_ids(t) == 32 && cidk_topo_nr_online(t) == 30 &&
		   list_is(cidk_topo_mask(t, CIDK_TOPO_CLUSTER, 0), "0-1,16") &&
		   list_is(cidk_topo_mask(t, CIDK_TOPO_SMT, 1), "1") &&
		   !cidk_topo_mask(t, CIDK_TOPO_SMT, 3) &&
		   cidk_topo_nr_groups(t, CIDK_TOPO_DIE) == 4 &&
		   cidk_topo_nr_groups(t, CIDK_TOPO_NUMA) == 4 &&
		   cidk_topo_distance(t, 0, 1) == CIDK_DIST_CLUSTER &&
		   cidk_topo_distance(t, 0, 4) == CIDK_DIST_PKG,
	   "all options together");
	cidk_topo_free(t);

	t = spec("4c2t:numa=0");
	ok(t && !cidk_topo_has_level(t, CIDK_TOPO_NUMA), "numa=0: no NUMA level");
	cidk_topo_free(t);

	static const struct {
		const char *spec;
		int rc;
	} bad[] = {
		{ "", -EINVAL },
		{ "nope", -EINVAL },
		{ "epyc", -EINVAL },
		{ "2s", -EINVAL },
		{ "0c", -EINVAL },
		{ "c", -EINVAL },
		{ "2t96c", -EINVAL },
		{ "2s2s4c", -EINVAL },
		{ "4c2x", -EINVAL },
		{ "-4c", -EINVAL },
		{ "4c:", -EINVAL },
		{ "4c:llc", -EINVAL },
		{ "4c:llc=", -EINVAL },
		{ "4c:llc=x", -EINVAL },
		{ "4c:llc=3", -EINVAL },
		{ "4c:llc=0", -EINVAL },
		{ "4c:llc=2:llc=2", -EINVAL },
		{ "4c:frob=1", -EINVAL },
		{ "4c:cluster=3", -EINVAL },
		{ "8c:llc=4:die=2", -EINVAL },
		{ "4c:numa=3", -EINVAL },
		{ "4c:number=odd", -EINVAL },
		{ "4c:offline=0-3", -EINVAL },
		{ "4c:offline=9", -EINVAL },
		{ "4c:offline=x", -EINVAL },
		{ "100000s100c2t", -ERANGE },
		{ "99999999999999999999999c", -ERANGE },
		{ "256s256c2t", -ERANGE },
	};
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cidk_topo_err err = { "", "" };
		int rc;

		t = NULL;
		rc = cidk_topo_from_spec(bad[i].spec, &t, &err);
		ok(rc == bad[i].rc && !t && err.msg[0],
		   "bad spec '%s': %d, '%s'", bad[i].spec, rc, err.msg);
	}
}

static void api(void)
{
	struct cidk_topo *t;
	struct cidk_mask *m5, *m4;

	errno = 0;
	ok(!cidk_topo_alloc(0) && errno == EINVAL, "alloc(0): EINVAL");
	ok(!cidk_topo_alloc(CIDK_TOPO_MAX_CPUS + 1) && errno == EINVAL,
	   "alloc(too many): EINVAL");

	t = cidk_topo_alloc(5);
	m5 = cidk_mask_alloc(5);
	m4 = cidk_mask_alloc(4);
	ok(t && cidk_topo_nr_online(t) == 0 && !cidk_topo_has_level(t, 0) &&
		   cidk_topo_span_sane(t, NULL),
	   "an empty topology: nothing online, no level, sane");
	ok(cidk_topo_set_online(t, m4) == -EINVAL &&
		   cidk_topo_set_mask(t, CIDK_TOPO_SMT, 0, m4) == -EINVAL &&
		   cidk_topo_set_mask(t, CIDK_TOPO_SMT, 5, m5) == -EINVAL &&
		   cidk_topo_set_mask(t, CIDK_TOPO_NR_LEVELS, 0, m5) == -EINVAL,
	   "set_online / set_mask reject bad width, cpu and level");
	cidk_mask_parse_list(m5, "0-4", NULL);
	cidk_topo_set_online(t, m5);
	cidk_mask_parse_list(m5, "0-1", NULL);
	cidk_topo_set_mask(t, CIDK_TOPO_LLC, 0, m5);
	cidk_topo_set_mask(t, CIDK_TOPO_LLC, 1, m5);
	cidk_mask_parse_list(m5, "2-4", NULL);
	for (unsigned int c = 2; c < 5; c++)
		cidk_topo_set_mask(t, CIDK_TOPO_LLC, c, m5);
	ok(cidk_topo_has_level(t, CIDK_TOPO_LLC) &&
		   cidk_topo_nr_groups(t, CIDK_TOPO_LLC) == 2 &&
		   cidk_topo_distance(t, 0, 1) == CIDK_DIST_LLC &&
		   cidk_topo_distance(t, 1, 2) == CIDK_DIST_REMOTE &&
		   cidk_topo_span_sane(t, NULL),
	   "levels from masks: two LLCs");
	/* re-set cpu 4 to 1-4: partial overlap at llc, reported */
	{
		struct cidk_topo_insane why;

		cidk_mask_parse_list(m5, "1-4", NULL);
		cidk_topo_set_mask(t, CIDK_TOPO_LLC, 4, m5);
		ok(!cidk_topo_span_sane(t, &why) && why.level == CIDK_TOPO_LLC &&
			   why.cpu_a < why.cpu_b && why.cpu_b == 4,
		   "partial overlap at llc found (cpu %u vs %u)", why.cpu_a,
		   why.cpu_b);
		ok(!cidk_topo_span_sane_pairwise(t, &why) &&
			   why.level == CIDK_TOPO_LLC,
		   "pairwise agrees");
		cidk_mask_parse_list(m5, "2-3", NULL);
		cidk_topo_set_mask(t, CIDK_TOPO_LLC, 4, m5);
		ok(!cidk_topo_span_sane(t, &why) && why.cpu_a == 4 &&
			   why.cpu_b == 4,
		   "a CPU missing from its own mask is reported against itself");
	}
	ok(!strcmp(cidk_topo_level_name(CIDK_TOPO_CLUSTER), "cluster") &&
		   !strcmp(cidk_topo_dist_name(CIDK_DIST_REMOTE), "remote") &&
		   !strcmp(cidk_topo_level_name(99), "?"),
	   "names");
	cidk_mask_free(m4);
	cidk_mask_free(m5);
	cidk_topo_free(t);
}

int main(void)
{
	presets();
	grammar();
	api();
	return done_testing();
}
