/* SPDX-License-Identifier: MIT */
/*
 * cidkit topo [--sysfs-root DIR | --machine SPEC] [--groups] [--json]
 *
 * Exit 0: sane (span and nesting); 1: insane (the report is still printed);
 * 2: bad input (one cidkit: line).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/topo.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"

static const char about[] =
	"Show the CPU topology level by level (smt, cluster, llc, die, pkg,\n"
	"numa; only the levels the machine has) and check it: at each non-NUMA\n"
	"level the groups of any two CPUs are equal or disjoint (span), and\n"
	"the levels nest: ordered by containment, each group is a union of\n"
	"groups of the level below.  What discovery had to infer (old kernels,\n"
	"missing files, levels in another order) is a note: line.\n"
	"Exit status 0 when sane, 1 when not, 2 for bad input.\n";

/* The online CPUs of @cpu's group at @l as a cpulist (malloc'd). */
static char *group_of(const struct cidk_topo *t, enum cidk_topo_level l,
		      unsigned int cpu)
{
	size_t len = cidk_topo_group_list(t, l, cpu, NULL, 0);
	char *s = malloc(len + 1);

	if (!s) {
		fputs("cidkit: topo: out of memory\n", stderr);
		exit(CLI_EXIT_USAGE);
	}
	cidk_topo_group_list(t, l, cpu, s, len + 1);
	return s;
}

/* Every group of @l, in order of first CPU: JSON strings (@j) or words. */
static void print_groups(const struct cidk_topo *t, enum cidk_topo_level l,
			 struct jw *j)
{
	unsigned int n = cidk_topo_nr_groups(t, l);
	unsigned int *cpus = malloc((n ? n : 1) * sizeof(*cpus));
	const char *sep = "";

	if (!cpus || cidk_topo_group_cpus(t, l, cpus, n) != n) {
		fputs("cidkit: topo: out of memory\n", stderr);
		exit(CLI_EXIT_USAGE);
	}
	for (unsigned int i = 0; i < n; i++) {
		char *g = group_of(t, l, cpus[i]);

		if (j) {
			jw_str(j, g);
		} else {
			fputs(sep, stdout);
			fputs(g, stdout);
		}
		sep = " ";
		free(g);
	}
	free(cpus);
}

static char *list_of(const struct cidk_mask *m)
{
	char *s = m ? cidk_mask_list_alloc(m) : strdup("-");

	if (!s) {
		fputs("cidkit: topo: out of memory\n", stderr);
		exit(CLI_EXIT_USAGE);
	}
	return s;
}

static void print_json(const struct cidk_topo *t, bool sane,
		       const struct cidk_topo_insane *why, bool groups)
{
	char *online = list_of(cidk_topo_online(t));
	enum cidk_topo_level order[CIDK_TOPO_NR_LEVELS];
	unsigned int nl = cidk_topo_level_order(t, order);
	struct jw j;

	jw_init(&j, stdout);
	jw_obj(&j);
	jw_kuint(&j, "nr_cpus", cidk_topo_nr_online(t));
	jw_kstr(&j, "online", online);
	jw_key(&j, "levels");
	jw_arr(&j);
	for (unsigned int i = 0; i < nl; i++) {
		enum cidk_topo_level l = order[i];
		unsigned int lo, hi;

		cidk_topo_span_range(t, l, &lo, &hi);
		jw_obj(&j);
		jw_kstr(&j, "name", cidk_topo_level_name(l));
		jw_kuint(&j, "nr_groups", cidk_topo_nr_groups(t, l));
		jw_kuint(&j, "min_span", lo);
		jw_kuint(&j, "max_span", hi);
		if (groups) {
			jw_key(&j, "groups");
			jw_arr(&j);
			print_groups(t, l, &j);
			jw_arr_end(&j);
		}
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_kbool(&j, "span_sane", sane);
	if (sane) {
		jw_knull(&j, "insane_level");
		jw_knull(&j, "insane");
	} else {
		jw_kstr(&j, "insane_level", cidk_topo_level_name(why->level));
		jw_key(&j, "insane");
		jw_obj(&j);
		jw_kstr(&j, "rule", why->kind == CIDK_TOPO_INSANE_NEST ? "nest" :
								    "span");
		if (why->kind == CIDK_TOPO_INSANE_NEST)
			jw_kstr(&j, "below", cidk_topo_level_name(why->below));
		jw_key(&j, "cpus");
		jw_arr(&j);
		jw_uint(&j, why->cpu_a);
		jw_uint(&j, why->cpu_b);
		jw_arr_end(&j);
		jw_obj_end(&j);
	}
	jw_key(&j, "notes");
	jw_arr(&j);
	for (unsigned int i = 0; i < cidk_topo_nr_notes(t); i++)
		jw_str(&j, cidk_topo_note(t, i));
	jw_arr_end(&j);
	jw_obj_end(&j);
	jw_end(&j);
	free(online);
}

static void print_table(const struct cidk_topo *t, const char *source,
			bool sane, const struct cidk_topo_insane *why,
			bool groups)
{
	unsigned int cpu0 = cidk_mask_first(cidk_topo_online(t));
	char *online = list_of(cidk_topo_online(t));
	enum cidk_topo_level order[CIDK_TOPO_NR_LEVELS];
	unsigned int nl = cidk_topo_level_order(t, order);
	char head[32];

	printf("%s\n", source);
	printf("online: %s (%u of %u possible CPUs)\n\n", online,
	       cidk_topo_nr_online(t), cidk_topo_nr_cpu_ids(t));
	snprintf(head, sizeof(head), "group of cpu %u", cpu0);
	printf("%-8s %7s %9s %9s  %s\n", "level", "groups", "min span",
	       "max span", head);
	for (unsigned int i = 0; i < nl; i++) {
		enum cidk_topo_level l = order[i];
		unsigned int lo, hi;
		char *g;

		cidk_topo_span_range(t, l, &lo, &hi);
		g = list_of(cidk_topo_mask(t, l, cpu0));
		printf("%-8s %7u %9u %9u  %s\n", cidk_topo_level_name(l),
		       cidk_topo_nr_groups(t, l), lo, hi, g);
		free(g);
	}
	if (groups)
		for (unsigned int i = 0; i < nl; i++) {
			printf("%s groups: ", cidk_topo_level_name(order[i]));
			print_groups(t, order[i], NULL);
			printf("\n");
		}
	if (sane) {
		printf("span: sane\n");
	} else if (why->kind == CIDK_TOPO_INSANE_NEST) {
		char *a = group_of(t, why->level, why->cpu_a);
		char *ca = group_of(t, why->below, why->cpu_a);
		char *b = group_of(t, why->level, why->cpu_b);

		printf("span: INSANE at %s (cpu %u: %s is not a union of %s groups: cpu %u shares %s %s with it but is in %s %s)\n",
		       cidk_topo_level_name(why->level), why->cpu_a, a,
		       cidk_topo_level_name(why->below), why->cpu_b,
		       cidk_topo_level_name(why->below), ca,
		       cidk_topo_level_name(why->level), b);
		free(a);
		free(ca);
		free(b);
	} else {
		char *a = list_of(cidk_topo_mask(t, why->level, why->cpu_a));
		char *b = list_of(cidk_topo_mask(t, why->level, why->cpu_b));

		printf("span: INSANE at %s (cpu %u: %s vs cpu %u: %s)\n",
		       cidk_topo_level_name(why->level), why->cpu_a, a,
		       why->cpu_b, b);
		free(a);
		free(b);
	}
	for (unsigned int i = 0; i < cidk_topo_nr_notes(t); i++)
		printf("note: %s\n", cidk_topo_note(t, i));
	free(online);
}

int cmd_topo(int argc, char **argv)
{
	bool groups = false;
	const char *root = NULL, *spec = NULL;
	struct cidk_topo_insane why = { 0 };
	struct cidk_topo_err err = { "", "" };
	struct cidk_topo *t = NULL;
	char source[PATH_MAX + 32];
	bool json = false, sane;
	struct opt opts[] = {
		{ OPT_STRING("sysfs-root", 0, &root, "DIR",
			     "read DIR/devices/system/{cpu,node}"),
		  .def = "/sys", .group = 1 },
		{ OPT_STRING("machine", 0, &spec, "SPEC",
			     "a synthetic machine: a preset (epyc-9654-2s, uv-1920, "
			     "power-360, big-8192, host) or a shape such as "
			     "2s96c2t:llc=8 (grammar: docs/topo.md)"),
		  .group = 1 },
		{ OPT_FLAG("groups", 0, &groups,
			   "also every group of every level, as cpulists") },
		{ OPT_FLAG("json", 0, &json, "one JSON object instead of the table") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { "topo", about, NULL, NULL, 0, 0, opts };
	int rc, first;

	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	if (root && !*root)
		return cli_error("topo: --sysfs-root: empty directory name");

	if (spec) {
		const char *real = cidk_topo_preset_spec(spec);

		rc = cidk_topo_from_spec(spec, &t, &err);
		if (!strcmp(spec, "host"))
			snprintf(source, sizeof(source), "machine: host (/sys)");
		else if (real)
			snprintf(source, sizeof(source), "machine: %s (%s)", spec,
				 real);
		else
			snprintf(source, sizeof(source), "machine: %s", spec);
	} else {
		rc = cidk_topo_from_sysfs(root ? root : "/sys", &t, &err);
		snprintf(source, sizeof(source), "sysfs: %s",
			 root ? root : "/sys");
	}
	if (rc) {
		char what[48];

		if (!err.msg[0])
			snprintf(err.msg, sizeof(err.msg), "%s", strerror(-rc));
		if (spec && strcmp(spec, "host")) {
			cli_excerpt(spec, what, sizeof(what));
			return cli_error("topo: --machine '%s': %s", what,
					 err.msg);
		}
		if (!err.path[0])
			return cli_error("topo: --sysfs-root '%s': %s",
					 cli_q(root ? root : "/sys"), err.msg);
		return cli_error("topo: %s: %s", err.path, err.msg);
	}

	sane = cidk_topo_sane(t, &why);
	if (json)
		print_json(t, sane, &why, groups);
	else
		print_table(t, source, sane, &why, groups);
	cidk_topo_free(t);
	return sane ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
