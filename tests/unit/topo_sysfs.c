/* SPDX-License-Identifier: MIT */
/*
 * Discovery from sysfs trees written here, into a temporary folder, from
 * synthetic machines: whatever the kernel generation (new names, old
 * names only, hex files only), with or without caches and NUMA nodes,
 * SMT8, offline CPUs, 1920 CPUs - discovery must give back exactly the
 * machine's levels.  Then every required file is deleted or garbled in
 * turn: the error must name that file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cidkit/topo.h>

#include "fake_tree.h"
#include "tap.h"

struct flavour {
	const char *name;
	bool old_names;	 /* only thread_siblings / core_siblings (pre-5.3) */
	bool hex_only;	 /* no *_list files */
	bool cache;	 /* cpuN/cache/indexK */
	bool cluster;	 /* cluster_cpus files (5.16+) */
	bool numa;	 /* devices/system/node */
	bool no_cpu_files; /* no cpu/possible, cpu/online (before 2.6.27) */
};

static char base[256];

/* dir/name holding "text\n" (directories made), or the test fails */
static void put(const char *dir, const char *name, const char *text)
{
	if (fake_write(dir, name, "%s\n", text)) {
		perror(dir);
		exit(1);
	}
}

/* Write @m as name_list (cpulist) and name (hex), as the flavour has it. */
static void put_mask(const char *dir, const char *name,
		     const struct cidk_mask *m, const struct flavour *fl)
{
	char list[65536], hex[65536], lname[64];

	cidk_mask_format_list(m, list, sizeof(list));
	cidk_mask_format_hex(m, hex, sizeof(hex));
	put(dir, name, hex);
	if (!fl->hex_only) {
		snprintf(lname, sizeof(lname), "%s_list", name);
		put(dir, lname, list);
	}
}


/* The tree of @t under @root, as a kernel of flavour @fl would show it. */
static void write_tree(const char *root, const struct cidk_topo *t,
		       const struct flavour *fl)
{
	unsigned int n = cidk_topo_nr_cpu_ids(t), cpu;
	const struct cidk_mask *on = cidk_topo_online(t);
	char dir[PATH_MAX], s[65536];
	struct cidk_mask *all = cidk_mask_alloc(n);

	fake_rm(root, "");
	snprintf(dir, sizeof(dir), "%s/devices/system/cpu", root);
	fake_mkdir(dir, "");
	cidk_mask_fill(all);
	cidk_mask_format_list(all, s, sizeof(s));
	if (!fl->no_cpu_files) {
		put(dir, "possible", s);
		put(dir, "present", s);
		cidk_mask_format_list(on, s, sizeof(s));
		put(dir, "online", s);
	}
	for (cpu = 0; cpu < n; cpu++) {
		const struct cidk_mask *smt, *cl, *llc, *die, *pkg;

		snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu%u", root, cpu);
		fake_mkdir(dir, "");
		if (cpu) /* CPU 0 cannot go offline: no online file */
			put(dir, "online", cidk_mask_test(on, cpu) ? "1" : "0");
		if (!cidk_mask_test(on, cpu))
			continue; /* offline: no topology/, no cache/ */
		smt = cidk_topo_mask(t, CIDK_TOPO_SMT, cpu);
		cl = cidk_topo_mask(t, CIDK_TOPO_CLUSTER, cpu);
		llc = cidk_topo_mask(t, CIDK_TOPO_LLC, cpu);
		die = cidk_topo_mask(t, CIDK_TOPO_DIE, cpu);
		pkg = cidk_topo_mask(t, CIDK_TOPO_PKG, cpu);
		snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu%u/topology",
			 root, cpu);
		fake_mkdir(dir, "");
		put(dir, "core_id", "0");
		put(dir, "physical_package_id", "0");
		put_mask(dir, "thread_siblings", smt, fl);
		put_mask(dir, "core_siblings", pkg, fl);
		if (!fl->old_names) {
			put_mask(dir, "core_cpus", smt, fl);
			put_mask(dir, "package_cpus", pkg, fl);
			/* the kernel shows die = package when there are no dies */
			put_mask(dir, "die_cpus", die ? die : pkg, fl);
			if (fl->cluster) /* no clusters: the SMT group */
				put_mask(dir, "cluster_cpus", cl ? cl : smt, fl);
		}
		if (!fl->cache)
			continue;
		/* L1d, L1i (per core), L2 (cluster or core), L3 (the LLC) */
		for (int k = 0; k < 4; k++) {
			static const char *const type[] = { "Data", "Instruction",
							    "Unified", "Unified" };
			static const char *const level[] = { "1", "1", "2", "3" };
			const struct cidk_mask *sh = k < 2 ? smt : k == 2 ? (cl ? cl : smt) : llc;

			if (k == 3 && !llc)
				break;
			snprintf(dir, sizeof(dir),
				 "%s/devices/system/cpu/cpu%u/cache/index%d", root,
				 cpu, k);
			fake_mkdir(dir, "");
			put(dir, "type", type[k]);
			put(dir, "level", level[k]);
			put(dir, "size", "32K");
			cidk_mask_format_hex(sh, s, sizeof(s));
			put(dir, "shared_cpu_map", s);
			if (!fl->hex_only) {
				cidk_mask_format_list(sh, s, sizeof(s));
				put(dir, "shared_cpu_list", s);
			}
		}
	}
	if (fl->numa && cidk_topo_has_level(t, CIDK_TOPO_NUMA)) {
		unsigned int node = 0;

		cidk_mask_for_each(cpu, on) {
			const struct cidk_mask *m = cidk_topo_mask(t, CIDK_TOPO_NUMA, cpu);

			if (cidk_mask_first(m) != cpu)
				continue;
			snprintf(dir, sizeof(dir), "%s/devices/system/node/node%u",
				 root, node++);
			fake_mkdir(dir, "");
			cidk_mask_format_list(m, s, sizeof(s));
			put(dir, "cpulist", s);
			cidk_mask_format_hex(m, s, sizeof(s));
			put(dir, "cpumap", s);
		}
		/* a memory-only node (CXL): no CPUs */
		snprintf(dir, sizeof(dir), "%s/devices/system/node/node%u", root,
			 node + 3);
		fake_mkdir(dir, "");
		put(dir, "cpulist", "");
		snprintf(dir, sizeof(dir), "%s/devices/system/node", root);
		put(dir, "possible", "0-7");
	}
	cidk_mask_free(all);
}

static bool list_is5(const struct cidk_mask *m)
{
	char buf[64];

	return m && cidk_mask_format_list(m, buf, sizeof(buf)) &&
	       !strcmp(buf, "5,13");
}

/* Which levels discovery should find: those the flavour can show. */
static bool expect_level(const struct cidk_topo *t, int l,
			 const struct flavour *fl)
{
	if (!cidk_topo_has_level(t, l))
		return false;
	switch (l) {
	case CIDK_TOPO_CLUSTER:
		return fl->cluster && !fl->old_names;
	case CIDK_TOPO_DIE:
		return !fl->old_names;
	case CIDK_TOPO_LLC:
		return fl->cache;
	case CIDK_TOPO_NUMA:
		return fl->numa;
	default:
		return true;
	}
}

static void round_trip(const char *spec, const struct flavour *fl)
{
	struct cidk_topo_err err = { "", "" };
	struct cidk_topo *t = NULL, *d = NULL;
	char root[PATH_MAX];
	unsigned int bad = 0, cpu;
	int rc;

	cidk_topo_from_spec(spec, &t, NULL);
	snprintf(root, sizeof(root), "%s/rt", base);
	write_tree(root, t, fl);
	rc = cidk_topo_from_sysfs(root, &d, &err);
	if (!ok(rc == 0, "%s, %s: discovered (%s: %s)", spec, fl->name,
		err.path, err.msg)) {
		cidk_topo_free(t);
		return;
	}
	ok(cidk_topo_nr_cpu_ids(d) == cidk_topo_nr_cpu_ids(t) &&
		   cidk_mask_equal(cidk_topo_online(d), cidk_topo_online(t)),
	   "%s, %s: nr_cpu_ids %u from possible, same online CPUs", spec,
	   fl->name, cidk_topo_nr_cpu_ids(d));
	for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++) {
		bool want = expect_level(t, l, fl);

		if (cidk_topo_has_level(d, l) != want) {
			diag("%s: level %s present %d, want %d", spec,
			     cidk_topo_level_name(l), cidk_topo_has_level(d, l),
			     want);
			bad++;
			continue;
		}
		if (!want)
			continue;
		cidk_mask_for_each(cpu, cidk_topo_online(t)) {
			const struct cidk_mask *a = cidk_topo_mask(t, l, cpu);
			const struct cidk_mask *b = cidk_topo_mask(d, l, cpu);

			if (!a || !b || !cidk_mask_equal(a, b))
				bad++;
		}
		if (cidk_topo_nr_groups(d, l) != cidk_topo_nr_groups(t, l))
			bad++;
	}
	ok(!bad, "%s, %s: every level and mask as built (%u differences)", spec,
	   fl->name, bad);
	ok(cidk_topo_sane(d, NULL), "%s, %s: sane (span and nesting)", spec,
	   fl->name);
	ok(fl->no_cpu_files
		   ? cidk_topo_nr_notes(d) == 1 &&
			     !strncmp(cidk_topo_note(d, 0), "cpu/possible and cpu/online missing", 35)
		   : cidk_topo_nr_notes(d) == 0,
	   "%s, %s: %s", spec, fl->name,
	   fl->no_cpu_files ? "one note: CPUs from the folders" : "no note");
	cidk_topo_free(d);
	cidk_topo_free(t);
}

/* Break @rel under a fresh tree of @spec; discovery must name @want. */
static void broken(const char *spec, const char *rel, const char *text,
		   const char *want, int want_rc)
{
	static const struct flavour fl = { "new", false, false, true, true, true, false };
	struct cidk_topo_err err = { "", "" };
	struct cidk_topo *t = NULL, *d = NULL;
	char root[PATH_MAX], path[PATH_MAX * 2];
	size_t lw = strlen(want), lp;
	int rc;

	cidk_topo_from_spec(spec, &t, NULL);
	snprintf(root, sizeof(root), "%s/broken", base);
	write_tree(root, t, &fl);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (text) {
		FILE *f = fopen(path, "w");

		if (f) {
			fputs(text, f);
			fclose(f);
		}
	} else {
		fake_rm(path, "");
	}
	rc = cidk_topo_from_sysfs(root, &d, &err);
	lp = strlen(err.path);
	ok(rc == want_rc && !d && lp >= lw && !strcmp(err.path + lp - lw, want) &&
		   err.msg[0],
	   "%s %s: %d, names ...%s (%s: %s)", rel, text ? "garbled" : "missing",
	   rc, want, err.path + (lp > 60 ? lp - 60 : 0), err.msg);
	cidk_topo_free(t);
}

int main(void)
{
	static const struct flavour flavours[] = {
		{ "new kernel", false, false, true, true, true, false },
		{ "5.3-5.15 kernel (no cluster_cpus)", false, false, true, false, true, false },
		{ "old kernel (thread_siblings, core_siblings)", true, false, true, false, true, false },
		{ "hex files only", false, true, true, true, true, false },
		{ "no cache, no NUMA (a VM)", false, false, false, true, false, false },
		{ "2.6.2x kernel (no cpu/possible, cpu/online; hex only)", true, true, true, false, false, true },
	};
	static const char *const shapes[] = {
		"2s4c2t:llc=2:numa=2",
		"1s8c2t:llc=8:cluster=4:die=8",
		"2s8c2t:llc=4:die=4:offline=1,6,17-18",
		"1s4c8t:llc=1:number=packed",
		"1s4c:cluster=1",
		"3s5c3t:llc=5:numa=5",
	};

	/* tmpfs if there is one: the 1920-CPU tree is ~60,000 small files */
	fake_tmpdir(base, sizeof(base), "sysfs", 1);
	for (unsigned int s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
		for (unsigned int f = 0; f < sizeof(flavours) / sizeof(flavours[0]); f++)
			round_trip(shapes[s], &flavours[f]);
	round_trip("uv-1920", &flavours[2]);
	round_trip("power-360", &flavours[3]);
	round_trip("uv-1920", &flavours[5]);

	/* cluster_cpus that only repeats the SMT group is no cluster level */
	{
		struct cidk_topo *d = NULL;
		char root[PATH_MAX];

		snprintf(root, sizeof(root), "%s/rt", base);
		round_trip("2s4c2t", &flavours[0]);
		cidk_topo_from_sysfs(root, &d, NULL);
		ok(d && !cidk_topo_has_level(d, CIDK_TOPO_CLUSTER) &&
			   !cidk_topo_has_level(d, CIDK_TOPO_DIE),
		   "cluster_cpus = core_cpus and die_cpus = package_cpus: no cluster, no die level");
		cidk_topo_free(d);
	}

	broken("2s4c2t", "devices/system/cpu/possible", "0-x\n", "cpu/possible", -EINVAL);
	broken("2s4c2t", "devices/system/cpu/possible", "\n", "cpu/possible", -EINVAL);
	broken("2s4c2t", "devices/system/cpu/possible", "0-70000\n", "cpu/possible", -ERANGE);
	broken("2s4c2t", "devices/system/cpu/online", "0-16\n", "cpu/online", -ERANGE);
	broken("2s4c2t", "devices/system/cpu/online", "\n", "cpu/online", -EINVAL);
	broken("2s4c2t", "devices/system/cpu/cpu3/topology", NULL,
	       "cpu3/topology/core_cpus_list", -ENOENT);
	broken("2s4c2t", "devices/system/cpu/cpu3/topology/core_cpus_list", "3,1x\n",
	       "cpu3/topology/core_cpus_list", -EINVAL);
	broken("2s4c2t", "devices/system/cpu/cpu3/topology/core_cpus_list", "4\n",
	       "cpu3/topology/core_cpus_list", -EINVAL);
	broken("2s4c2t", "devices/system/cpu/cpu3/topology/core_cpus_list", "99\n",
	       "cpu3/topology/core_cpus_list", -ERANGE);
	broken("2s4c2t", "devices/system/cpu/cpu2/topology/package_cpus_list", "zz\n",
	       "cpu2/topology/package_cpus_list", -EINVAL);
	broken("2s4c2t", "devices/system/cpu/cpu2/topology/die_cpus_list", "0-",
	       "cpu2/topology/die_cpus_list", -EINVAL);
	broken("2s4c2t", "devices/system/cpu/cpu2/topology/cluster_cpus_list", "a",
	       "cpu2/topology/cluster_cpus_list", -EINVAL);
	broken("2s4c2t", "devices/system/cpu/cpu5/cache/index3/level", "three\n",
	       "cpu5/cache/index3/level", -EINVAL);
	broken("2s4c2t", "devices/system/cpu/cpu5/cache/index3/type", "Bogus\n",
	       "cpu5/cache/index3/type", -EINVAL);
	broken("2s4c2t", "devices/system/cpu/cpu5/cache/index3/shared_cpu_list", "1-\n",
	       "cpu5/cache/index3/shared_cpu_list", -EINVAL);
	broken("2s4c2t", "devices/system/node/node1/cpulist", "x\n",
	       "node/node1/cpulist", -EINVAL);
	{
		/* an index without a level is skipped: cpu 5's LLC is then its L2 */
		static const struct flavour fl = { "new", false, false, true, true, true, false };
		struct cidk_topo *t = NULL, *d = NULL;
		struct cidk_topo_insane why;
		char root[PATH_MAX], path[PATH_MAX * 2];

		cidk_topo_from_spec("2s4c2t", &t, NULL);
		snprintf(root, sizeof(root), "%s/nolevel", base);
		write_tree(root, t, &fl);
		snprintf(path, sizeof(path),
			 "%s/devices/system/cpu/cpu5/cache/index3/level", root);
		unlink(path);
		ok(!cidk_topo_from_sysfs(root, &d, NULL) && d &&
			   list_is5(cidk_topo_mask(d, CIDK_TOPO_LLC, 5)) &&
			   !cidk_topo_span_sane(d, &why) && why.level == CIDK_TOPO_LLC,
		   "a cache index without level is skipped (LLC falls to L2: insane)");
		cidk_topo_free(d);
		cidk_topo_free(t);
	}
	{
		/* with the newer and the _list files gone, hex thread_siblings is read */
		static const struct flavour fl = { "new", false, false, true, true, true, false };
		static const char *const gone[] = { "core_cpus_list", "core_cpus",
						    "thread_siblings_list" };
		struct cidk_topo *t = NULL, *d = NULL;
		char root[PATH_MAX], path[PATH_MAX * 2];
		struct cidk_topo_insane why;
		FILE *f;

		cidk_topo_from_spec("2s4c2t", &t, NULL);
		snprintf(root, sizeof(root), "%s/fallback", base);
		write_tree(root, t, &fl);
		for (int i = 0; i < 3; i++) {
			snprintf(path, sizeof(path),
				 "%s/devices/system/cpu/cpu1/topology/%s", root, gone[i]);
			unlink(path);
		}
		snprintf(path, sizeof(path),
			 "%s/devices/system/cpu/cpu1/topology/thread_siblings", root);
		if ((f = fopen(path, "w"))) {
			fputs("0003\n", f); /* 0-1: wrong, cpu 1's core is 1,9 */
			fclose(f);
		}
		ok(!cidk_topo_from_sysfs(root, &d, NULL) && d &&
			   !cidk_topo_span_sane(d, &why) && why.level == CIDK_TOPO_SMT &&
			   why.cpu_a == 0 && why.cpu_b == 1,
		   "hex thread_siblings read as the last fallback; an overlapping sibling list is insane, not an error");
		cidk_topo_free(d);
		cidk_topo_free(t);
	}

	fake_rm(base, "");
	return done_testing();
}
