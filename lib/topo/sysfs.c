/* SPDX-License-Identifier: MIT */
/*
 * Topology discovery from a sysfs tree (the kernel's ABI in
 * Documentation/ABI/stable/sysfs-devices-system-cpu and the cacheinfo
 * index files), rooted anywhere so that saved trees can be tested:
 *
 *   devices/system/cpu/possible          nr_cpu_ids = last CPU + 1
 *                                        (else: the cpuN folders)
 *   devices/system/cpu/online            online CPUs (else: each
 *                                        cpuN/online, absent or empty =
 *                                        online)
 *   cpuN/topology/ (online CPUs only; offline CPUs have none)
 *     smt      core_cpus_list, core_cpus, thread_siblings_list, thread_siblings
 *     cluster  cluster_cpus_list, cluster_cpus                   (optional)
 *     die      die_cpus_list, die_cpus                           (optional)
 *     pkg      package_cpus_list, package_cpus, core_siblings_list,
 *              core_siblings (else: physical_package_id, else one package)
 *   cpuN/cache/indexK/{level,type,shared_cpu_list|shared_cpu_map}
 *     llc      the highest-level Data or Unified cache (Unified wins a tie);
 *              an index without type or level (the kernel hides unknown
 *              ones) is skipped; an all-zero map (old ia64 kernels)
 *              means the CPU's SMT group
 *   devices/system/node/nodeM/cpulist (or cpumap)                (optional)
 *     numa
 * The first name that exists is read (newer names before the deprecated
 * ones, *_list before hex); a file that exists but does not parse is an
 * error, never a fallback.  Hex masks may be NR_CPUS wide (older kernels):
 * leading all-zero chunks beyond nr_cpu_ids are ignored.  Every mask is intersected with the online CPUs
 * and must contain its own CPU.  The kernel exposes cluster_cpus and
 * die_cpus even when the machine has no clusters or dies (x86 reports the
 * L2 sharers, arm64 the CPU itself), so cluster is present only if some
 * CPU's cluster differs from its SMT group, and die only if some CPU's die
 * differs from its package; a cluster or die level of one-CPU groups (arm64
 * with die_id -1) is dropped as degenerate, as the kernel drops a domain
 * of one CPU.  Every inference from something missing is a note, and so
 * is a containment order of the levels other than the enum's.
 *
 * Workload: run once; reads (levels + cache indexes) files per online CPU.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topo/topo_internal.h"
#include "util/file.h"

#define MAX_FILE (4u << 20) /* larger than any real cpulist */
/* longer than any path under the root that is read (cpuN/cache/indexK/...) */
#define MAX_REL 128

struct reader {
	const char *root;
	struct cidk_topo_err *err;
	unsigned int nr; /* nr_cpu_ids once known */
	char *buf;
	size_t cap;
	char path[PATH_MAX];
	/* fallbacks */
	struct cidk_mask *dirs;	 /* cpuN folders (CIDK_TOPO_MAX_CPUS wide) */
	struct cidk_mask *nopkg; /* CPUs without package files */
	int32_t *pkgid;		 /* their physical_package_id, -1 unknown */
	unsigned int nr_pkgid;	 /* how many of them have one */
	unsigned int nr_zero_llc, first_zero_llc, zero_llc_index;
	unsigned int nr_empty_online, first_empty_online;
};

/*
 * @a "/" @b into @buf of @size bytes.  Never cut short in practice: the
 * root is checked against MAX_REL once, and every relative path is shorter.
 */
static void join(char *buf, size_t size, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la > size - 2)
		la = size - 2;
	memcpy(buf, a, la);
	buf[la] = '/';
	if (lb > size - la - 2)
		lb = size - la - 2;
	memcpy(buf + la + 1, b, lb);
	buf[la + 1 + lb] = '\0';
}

static const char *full(struct reader *r, const char *rel)
{
	join(r->path, sizeof(r->path), r->root, rel);
	return r->path;
}

/*
 * Read @rel into r->buf (NUL-terminated).  Returns 0, -ENOENT (missing: no
 * message when @optional), -EISDIR or -EINVAL (not a regular file: a
 * directory, FIFO or device), or another negative errno with a message.
 */
static int read_file(struct reader *r, const char *rel, bool optional)
{
	size_t len = 0;
	int fd, rc = 0;

	/* a FIFO, device or directory is refused at once, never read */
	fd = cidk__open_regular(full(r, rel));
	if (fd < 0) {
		rc = fd;
		if (rc == -ENOENT || rc == -ENOTDIR) {
			if (!optional)
				cidk__topo_err(r->err, r->path, "missing");
			return -ENOENT;
		}
		cidk__topo_err(r->err, r->path, "%s", cidk__open_strerror(rc));
		return rc;
	}
	for (;;) {
		ssize_t n;

		if (len + 1 >= r->cap) {
			size_t cap = r->cap ? r->cap * 2 : 4096;
			char *b;

			if (cap > MAX_FILE) {
				cidk__topo_err(r->err, r->path,
					       "larger than %u bytes", MAX_FILE);
				rc = -EINVAL;
				break;
			}
			if (!(b = realloc(r->buf, cap))) {
				cidk__topo_err(r->err, r->path, "out of memory");
				rc = -ENOMEM;
				break;
			}
			r->buf = b;
			r->cap = cap;
		}
		n = read(fd, r->buf + len, r->cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			cidk__topo_err(r->err, r->path, "%s", strerror(-rc));
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (!rc)
		r->buf[len] = '\0';
	return rc;
}

/*
 * Kernels without CPUMASK_OFFSTACK print hex masks NR_CPUS bits wide
 * ("00000000,000000ff" on an 8-CPU machine): skip leading all-zero 32-bit
 * chunks beyond what @nbits needs.  Returns the offset to parse from.
 */
static size_t hex_skip_zero_chunks(const char *s, unsigned int nbits)
{
	size_t chunks = 1, need = (nbits + 31) / 32, off = 0;

	for (const char *p = s; *p && *p != '\n'; p++)
		chunks += *p == ',';
	while (chunks > need) {
		size_t i = off;

		while (s[i] == '0')
			i++;
		if (s[i] != ',')
			break;
		off = i + 1;
		chunks--;
	}
	return off;
}

/* Parse r->buf (just read from r->path) into @m. */
static int parse_mask(struct reader *r, bool hex, struct cidk_mask *m)
{
	size_t pos = 0, skip = hex ? hex_skip_zero_chunks(r->buf, m->nbits) : 0;
	int rc;

	rc = hex ? cidk_mask_parse_hex(m, r->buf + skip, &pos)
		 : cidk_mask_parse_list(m, r->buf, &pos);
	pos += skip;
	if (rc == -ERANGE)
		cidk__topo_err(r->err, r->path,
			       "CPU beyond nr_cpu_ids %u (from possible) at offset %zu",
			       m->nbits, pos);
	else if (rc)
		cidk__topo_err(r->err, r->path, "malformed %s at offset %zu",
			       hex ? "hex mask" : "cpulist", pos);
	return rc ? (rc == -ERANGE ? -ERANGE : -EINVAL) : 0;
}

/*
 * The first of @names (under @dir) that exists, parsed into @m; names
 * ending in "list" are cpulists, the others hex masks.  Returns 0,
 * -ENOENT (none exists: a message naming the first when !@optional), or
 * an error with a message.
 */
static int read_mask_alt(struct reader *r, const char *dir,
			 const char *const *names, bool optional,
			 struct cidk_mask *m)
{
	char rel[PATH_MAX];

	for (const char *const *n = names; *n; n++) {
		size_t l = strlen(*n);
		int rc;

		join(rel, sizeof(rel), dir, *n);
		rc = read_file(r, rel, true);
		if (rc == -ENOENT)
			continue;
		if (rc)
			return rc;
		return parse_mask(r, l < 4 || strcmp(*n + l - 4, "list"), m);
	}
	if (!optional) {
		join(rel, sizeof(rel), dir, names[0]);
		cidk__topo_err(r->err, full(r, rel), "missing (and no %s)",
			       names[1] ? names[1] : "fallback");
	}
	return -ENOENT;
}

/* Intersect with online; it must still hold @cpu.  r->path names the file. */
static int own_mask(struct reader *r, const struct cidk_topo *t,
		    unsigned int cpu, struct cidk_mask *m)
{
	cidk_mask_and(m, m, cidk_topo_online(t));
	if (!cidk_mask_test(m, cpu)) {
		cidk__topo_err(r->err, r->path,
			       "does not contain cpu%u itself", cpu);
		return -EINVAL;
	}
	return 0;
}

/* A small non-negative decimal number, alone in r->buf. */
static int parse_uint(struct reader *r, unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	if (r->buf[0] < '0' || r->buf[0] > '9')
		goto bad;
	v = strtoul(r->buf, &end, 10);
	if (errno || v > 1000 || (*end && strcmp(end, "\n")))
		goto bad;
	*out = (unsigned int)v;
	return 0;
bad:
	cidk__topo_err(r->err, r->path, "not a number");
	return -EINVAL;
}

/* physical_package_id: -1 (unknown) or 0..INT32_MAX, alone in r->buf. */
static int parse_id(struct reader *r, int32_t *out)
{
	char *end;
	long v;

	errno = 0;
	if (!strcmp(r->buf, "-1\n") || !strcmp(r->buf, "-1")) {
		*out = -1;
		return 0;
	}
	if (r->buf[0] < '0' || r->buf[0] > '9')
		goto bad;
	v = strtol(r->buf, &end, 10);
	if (errno || v > INT32_MAX || (*end && strcmp(end, "\n")))
		goto bad;
	*out = (int32_t)v;
	return 0;
bad:
	cidk__topo_err(r->err, r->path, "not a package id (-1 or a number)");
	return -EINVAL;
}

/*
 * @name is @prefix followed by a decimal number: 1 with *@k set when it is
 * the kernel's spelling (no leading zero, below 100000), 0 when it is not
 * that prefix and digits at all, -1 when it is but misspelt ("index07",
 * "node0x"): another name the kernel never makes would alias or hide one.
 */
static int numbered_name(const char *name, const char *prefix,
			 unsigned int *k)
{
	size_t l = strlen(prefix);
	const char *p = name + l;

	if (strncmp(name, prefix, l) || *p < '0' || *p > '9')
		return 0;
	if (p[0] == '0' && p[1])
		return -1;
	for (*k = 0; *p; p++) {
		if (*p < '0' || *p > '9' || *k >= 100000)
			return -1;
		*k = *k * 10 + (unsigned int)(*p - '0');
	}
	return 1;
}

/*
 * The LLC of @cpu into @m: returns 1 found, 0 none (no cache folder, or
 * only instruction caches), or a negative errno with a message.
 */
static int read_llc(struct reader *r, const struct cidk_topo *t,
		    unsigned int cpu, struct cidk_mask *m)
{
	static const char *const shared[] = { "shared_cpu_list",
					       "shared_cpu_map", NULL };
	char dir[96], rel[PATH_MAX];
	unsigned int best = UINT32_MAX, best_level = 0;
	bool best_unified = false;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	snprintf(dir, sizeof(dir), "devices/system/cpu/cpu%u/cache", cpu);
	d = opendir(full(r, dir));
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		unsigned int k, level;
		bool unified;
		int named = numbered_name(de->d_name, "index", &k);

		if (named < 0) {
			cidk__topo_err(r->err, full(r, dir),
				       "'%.32s' is not how the kernel names a cache index (indexN)",
				       de->d_name);
			rc = -EINVAL;
			break;
		}
		if (!named)
			continue;
		/* the kernel hides type and level when it does not know them */
		snprintf(rel, sizeof(rel), "%s/index%u/type", dir, k);
		if ((rc = read_file(r, rel, true)) == -ENOENT) {
			rc = 0;
			continue;
		}
		if (rc)
			break;
		if (!strcmp(r->buf, "Instruction\n") || !strcmp(r->buf, "Instruction"))
			continue;
		unified = !strcmp(r->buf, "Unified\n") || !strcmp(r->buf, "Unified");
		if (!unified && strcmp(r->buf, "Data\n") && strcmp(r->buf, "Data")) {
			cidk__topo_err(r->err, r->path,
				       "unknown cache type (Data, Instruction or Unified)");
			rc = -EINVAL;
			break;
		}
		snprintf(rel, sizeof(rel), "%s/index%u/level", dir, k);
		if ((rc = read_file(r, rel, true)) == -ENOENT) {
			rc = 0;
			continue;
		}
		if (rc || (rc = parse_uint(r, &level)))
			break;
		if (best == UINT32_MAX || level > best_level ||
		    (level == best_level && unified && !best_unified)) {
			best = k;
			best_level = level;
			best_unified = unified;
		}
	}
	closedir(d);
	if (rc)
		return rc;
	if (best == UINT32_MAX)
		return 0;
	snprintf(rel, sizeof(rel), "%s/index%u", dir, best);
	if ((rc = read_mask_alt(r, rel, shared, false, m)))
		return rc;
	if (cidk_mask_empty(m)) {
		/* old ia64 kernels: an all-zero map; the core's CPUs share it */
		cidk__topo_group_to_mask(cidk__topo_group_of(t, CIDK_TOPO_SMT,
							     cpu), m);
		if (!r->nr_zero_llc++) {
			r->first_zero_llc = cpu;
			r->zero_llc_index = best;
		}
	}
	if ((rc = own_mask(r, t, cpu, m)))
		return rc;
	return 1;
}

/* NUMA: every node's CPUs, nodes in numeric order. */
static int read_numa(struct reader *r, struct cidk_topo *t, struct cidk_mask *m)
{
	static const char *const names[] = { "cpulist", "cpumap", NULL };
	unsigned int *ids = NULL, nr = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	d = opendir(full(r, "devices/system/node"));
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		unsigned int id = 0;
		int named = numbered_name(de->d_name, "node", &id);

		if (named < 0) {
			cidk__topo_err(r->err, r->path,
				       "'%.32s' is not how the kernel names a node (nodeN)",
				       de->d_name);
			rc = -EINVAL;
			break;
		}
		if (!named)
			continue;
		if (nr == cap) {
			unsigned int *n = realloc(ids, (cap = cap ? cap * 2 : 16) *
							       sizeof(*ids));
			if (!n) {
				rc = -ENOMEM;
				cidk__topo_err(r->err, r->path, "out of memory");
				break;
			}
			ids = n;
		}
		ids[nr++] = id;
	}
	closedir(d);
	/* insertion sort: a handful of nodes */
	for (unsigned int i = 1; i < nr; i++)
		for (unsigned int j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
			unsigned int x = ids[j];

			ids[j] = ids[j - 1];
			ids[j - 1] = x;
		}
	for (unsigned int i = 0; i < nr && !rc; i++) {
		char dir[64];
		unsigned int cpu;

		snprintf(dir, sizeof(dir), "devices/system/node/node%u", ids[i]);
		if ((rc = read_mask_alt(r, dir, names, false, m)))
			break;
		cidk_mask_and(m, m, cidk_topo_online(t));
		cidk_mask_for_each(cpu, m)
			if (!cidk_topo_mask(t, CIDK_TOPO_NUMA, cpu) &&
			    (rc = cidk_topo_set_mask(t, CIDK_TOPO_NUMA, cpu, m)))
				break;
	}
	free(ids);
	if (rc == -ENOMEM)
		cidk__topo_err(r->err, r->path, "out of memory");
	return rc;
}

/* Drop @level when every online CPU's mask there equals the one at @same. */
static void drop_if_same(struct cidk_topo *t, enum cidk_topo_level level,
			 enum cidk_topo_level same)
{
	unsigned int cpu;

	if (!cidk_topo_has_level(t, level))
		return;
	cidk_mask_for_each(cpu, cidk_topo_online(t)) {
		const struct cidk__topo_group *a = cidk__topo_group_of(t, level, cpu);
		const struct cidk__topo_group *b = cidk__topo_group_of(t, same, cpu);

		if (!a || !b || !cidk__topo_group_equal(a, b))
			return;
	}
	cidk__topo_drop_level(t, level);
}

static int read_cpu(struct reader *r, struct cidk_topo *t, unsigned int cpu,
		    struct cidk_mask *m)
{
	static const char *const smt[] = { "core_cpus_list", "core_cpus",
					   "thread_siblings_list",
					   "thread_siblings", NULL };
	static const char *const cluster[] = { "cluster_cpus_list",
					       "cluster_cpus", NULL };
	static const char *const die[] = { "die_cpus_list", "die_cpus", NULL };
	static const char *const pkg[] = { "package_cpus_list", "package_cpus",
					   "core_siblings_list",
					   "core_siblings", NULL };
	static const struct {
		enum cidk_topo_level level;
		const char *const *names;
		bool optional;
	} files[] = {
		{ CIDK_TOPO_SMT, smt, false },
		{ CIDK_TOPO_CLUSTER, cluster, true },
		{ CIDK_TOPO_DIE, die, true },
		{ CIDK_TOPO_PKG, pkg, true },
	};
	char dir[96], rel[PATH_MAX];
	int rc;

	snprintf(dir, sizeof(dir), "devices/system/cpu/cpu%u/topology", cpu);
	for (unsigned int i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		rc = read_mask_alt(r, dir, files[i].names, files[i].optional, m);
		if (rc == -ENOENT && files[i].level == CIDK_TOPO_PKG) {
			/* no package masks: the id, else one package */
			cidk_mask_set(r->nopkg, cpu);
			r->pkgid[cpu] = -1;
			join(rel, sizeof(rel), dir, "physical_package_id");
			rc = read_file(r, rel, true);
			if (rc == -ENOENT)
				continue;
			if (rc || (rc = parse_id(r, &r->pkgid[cpu])))
				return rc;
			r->nr_pkgid += r->pkgid[cpu] >= 0;
			continue;
		}
		if (rc == -ENOENT && files[i].optional)
			continue;
		if (rc || (rc = own_mask(r, t, cpu, m)))
			return rc;
		if ((rc = cidk_topo_set_mask(t, files[i].level, cpu, m)))
			goto nomem;
	}
	rc = read_llc(r, t, cpu, m);
	if (rc <= 0)
		return rc;
	if ((rc = cidk_topo_set_mask(t, CIDK_TOPO_LLC, cpu, m)))
		goto nomem;
	return 0;
nomem:
	cidk__topo_err(r->err, r->path, "out of memory");
	return rc;
}

/*
 * The cpuN folders of devices/system/cpu into r->dirs (kernels before
 * 2.6.27 have no possible/online files).  O(entries).
 */
static int list_cpu_dirs(struct reader *r, const char *why)
{
	struct dirent *de;
	int rc = 0;
	DIR *d;

	d = opendir(full(r, "devices/system/cpu"));
	if (!d) {
		cidk__topo_err(r->err, full(r, why),
			       "missing (and no devices/system/cpu folder)");
		return -ENOENT;
	}
	while ((de = readdir(d))) {
		unsigned int k;
		int named = numbered_name(de->d_name, "cpu", &k);

		if (named < 0) {
			cidk__topo_err(r->err, r->path,
				       "'%.32s' is not how the kernel names a CPU (cpuN)",
				       de->d_name);
			rc = -EINVAL;
			break;
		}
		if (!named)
			continue;
		if (k >= CIDK_TOPO_MAX_CPUS) {
			cidk__topo_err(r->err, r->path,
				       "cpu%u: more than %u CPUs", k,
				       CIDK_TOPO_MAX_CPUS);
			rc = -ERANGE;
			break;
		}
		cidk_mask_set(r->dirs, k);
	}
	closedir(d);
	return rc;
}

/*
 * Online CPUs from each cpuN/online: "1", "0", absent (online) or empty
 * (online, as hwloc reads it: old hwloc-gather-topology dumps hold empty
 * ones).  Anything else, even a lone newline, is garbled.
 */
static int online_from_dirs(struct reader *r, struct cidk_mask *m)
{
	unsigned int cpu;

	cidk_mask_zero(m);
	cidk_mask_for_each(cpu, r->dirs) {
		char rel[64];
		int rc;

		if (cpu >= m->nbits)
			break;
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/online", cpu);
		rc = read_file(r, rel, true);
		if (rc == -ENOENT) {
			cidk_mask_set(m, cpu);
			continue;
		}
		if (rc)
			return rc;
		if (!r->buf[0]) {
			cidk_mask_set(m, cpu);
			if (!r->nr_empty_online++)
				r->first_empty_online = cpu;
		} else if (!strcmp(r->buf, "1\n") || !strcmp(r->buf, "1"))
			cidk_mask_set(m, cpu);
		else if (strcmp(r->buf, "0\n") && strcmp(r->buf, "0")) {
			cidk__topo_err(r->err, r->path, "not 0 or 1");
			return -EINVAL;
		}
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Packages of the CPUs without package files: one per physical_package_id,
 * and one for all those without an id.  O(n log n) for n such CPUs.
 */
static int packages_by_id(struct reader *r, struct cidk_topo *t,
			  struct cidk_mask *m)
{
	unsigned int n = cidk_mask_weight(r->nopkg), k = 0, cpu;
	uint64_t *key = malloc((n ? n : 1) * sizeof(*key));
	int rc = 0;

	if (!key)
		return -ENOMEM;
	cidk_mask_for_each(cpu, r->nopkg)
		key[k++] = (uint64_t)(uint32_t)(r->pkgid[cpu] + 1) << 32 | cpu;
	qsort(key, n, sizeof(*key), cmp_u64);
	for (unsigned int i = 0; i < n && !rc;) {
		unsigned int j = i;

		cidk_mask_zero(m);
		for (; j < n && key[j] >> 32 == key[i] >> 32; j++)
			cidk_mask_set(m, (unsigned int)key[j]);
		for (; i < j && !rc; i++)
			rc = cidk_topo_set_mask(t, CIDK_TOPO_PKG,
						(unsigned int)key[i], m);
	}
	free(key);
	return rc;
}

/*
 * Drop @level (cluster or die) when every group there is one CPU: the
 * kernel drops such a domain as degenerate (arm64 writes die_cpus as the
 * CPU itself when die_id is -1).
 */
static int drop_single(struct cidk_topo *t, enum cidk_topo_level level)
{
	unsigned int lo, hi, blo, bhi, groups;
	int below = -1, rc = 0;

	if (cidk_topo_span_range(t, level, &lo, &hi) || hi != 1)
		return 0;
	for (int l = CIDK_TOPO_SMT; l < (int)level; l++)
		if (!cidk_topo_span_range(t, l, &blo, &bhi) && bhi > 1)
			below = l;
	groups = cidk_topo_nr_groups(t, level);
	if (below >= 0) {
		cidk_topo_span_range(t, below, &blo, &bhi);
		rc = cidk__topo_note(t, "%s: %u groups of one CPU above %s groups of up to %u: level dropped as degenerate (as the kernel drops a one-CPU domain)",
				     cidk_topo_level_name(level), groups,
				     cidk_topo_level_name(below), bhi);
	} else {
		rc = cidk__topo_note(t, "%s: %u groups of one CPU: level dropped as degenerate (as the kernel drops a one-CPU domain)",
				     cidk_topo_level_name(level), groups);
	}
	cidk__topo_drop_level(t, level);
	return rc;
}

/*
 * A note when the levels nest in another order than the enum's (an old
 * arm64 kernel that calls each cluster a package: smt < pkg < llc).
 */
static int order_note(struct cidk_topo *t)
{
	enum cidk_topo_level order[CIDK_TOPO_NR_LEVELS];
	unsigned int n = cidk_topo_level_order(t, order);
	char chain[64] = "";
	bool moved = false;
	size_t len = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (order[i] == CIDK_TOPO_NUMA)
			break;
		moved |= i && order[i] < order[i - 1];
		len += (size_t)snprintf(chain + len, sizeof(chain) - len, "%s%s",
					i ? " < " : "",
					cidk_topo_level_name(order[i]));
	}
	if (!moved)
		return 0;
	return cidk__topo_note(t, "levels ordered by containment, as the kernel builds its domains (each group a union of groups of the level before): %s",
			       chain);
}

/* The notes of every fallback taken, in the order they were taken. */
static int add_notes(struct reader *r, struct cidk_topo *t, bool no_possible,
		     bool no_online)
{
	unsigned int n = cidk_mask_weight(r->nopkg);
	int rc = 0;

	if (no_possible && no_online)
		rc = cidk__topo_note(t, "cpu/possible and cpu/online missing: %u possible CPUs from the cpuN folders, online from each cpuN/online (absent: online)",
				     t->nr_cpu_ids);
	else if (no_possible)
		rc = cidk__topo_note(t, "cpu/possible missing: %u possible CPUs from the cpuN folders",
				     t->nr_cpu_ids);
	else if (no_online)
		rc = cidk__topo_note(t, "cpu/online missing: online CPUs from each cpuN/online (absent: online)");
	if (!rc && r->nr_empty_online)
		rc = cidk__topo_note(t, "cpu%u/online is empty (%u CPUs so, as old hwloc-gather-topology dumps write them): taken as online, as hwloc does",
				     r->first_empty_online, r->nr_empty_online);
	if (!rc && r->nr_pkgid)
		rc = cidk__topo_note(t, "no package_cpus or core_siblings for %u CPUs (cpu%u first): packages from physical_package_id",
				     r->nr_pkgid, cidk_mask_first(r->nopkg));
	if (!rc && n > r->nr_pkgid) {
		unsigned int cpu, first = 0;

		cidk_mask_for_each(cpu, r->nopkg)
			if (r->pkgid[cpu] < 0) {
				first = cpu;
				break;
			}
		rc = cidk__topo_note(t, "no package information for %u CPUs (cpu%u first: no package_cpus, core_siblings or physical_package_id): one package assumed",
				     n - r->nr_pkgid, first);
	}
	if (!rc && r->nr_zero_llc)
		rc = cidk__topo_note(t, "llc: cpu%u/cache/index%u/shared_cpu_map is all zeros (%u CPUs so): the core's CPUs used",
				     r->first_zero_llc, r->zero_llc_index,
				     r->nr_zero_llc);
	if (!rc)
		rc = drop_single(t, CIDK_TOPO_CLUSTER);
	if (!rc)
		rc = drop_single(t, CIDK_TOPO_DIE);
	if (!rc)
		rc = order_note(t);
	return rc;
}

/*
 * nr_cpu_ids, the kernel's count of possible CPUs: the last CPU of
 * devices/system/cpu/possible plus one (the one home of that rule; see
 * cidk_topo_read_nr_cpu_ids).  Before 2.6.27 (no such file) the cpuN folders
 * are the possible CPUs: *@no_possible and *@listed are set and r->dirs
 * holds them.  @m (CIDK_TOPO_MAX_CPUS wide) receives the possible CPUs.
 * Returns nr_cpu_ids (>= 1) or a negative errno with r->err set.
 */
static int read_possible(struct reader *r, struct cidk_mask *m,
			 bool *no_possible, bool *listed)
{
	unsigned int last;
	int rc;

	rc = read_file(r, "devices/system/cpu/possible", true);
	if (rc == -ENOENT) {
		/* before 2.6.27: the cpuN folders are the possible CPUs */
		*no_possible = true;
		if ((rc = list_cpu_dirs(r, "devices/system/cpu/possible")))
			return rc;
		*listed = true;
		if (cidk_mask_empty(r->dirs)) {
			cidk__topo_err(r->err, full(r, "devices/system/cpu/possible"),
				       "missing (and no cpuN folders)");
			return -ENOENT;
		}
		cidk_mask_copy(m, r->dirs);
	} else if (rc) {
		return rc;
	} else if ((rc = parse_mask(r, false, m))) {
		if (rc == -ERANGE)
			cidk__topo_err(r->err, r->path,
				       "more than %u CPUs", CIDK_TOPO_MAX_CPUS);
		return rc;
	}
	last = cidk_mask_last(m);
	if (last >= CIDK_TOPO_MAX_CPUS) {
		cidk__topo_err(r->err, r->path, "no CPU listed");
		return -EINVAL;
	}
	return (int)last + 1;
}

int cidk_topo_read_nr_cpu_ids(const char *root, struct cidk_topo_err *err)
{
	struct reader r = { .root = root ? root : "/sys", .err = err };
	bool no_possible = false, listed = false;
	struct cidk_mask *m;
	int rc = -ENOMEM;

	if (strlen(r.root) + MAX_REL >= sizeof(r.path)) {
		cidk__topo_err(err, "", "root path too long (%zu bytes)",
			       strlen(r.root));
		return -ENAMETOOLONG;
	}
	m = cidk_mask_alloc(CIDK_TOPO_MAX_CPUS);
	r.dirs = cidk_mask_alloc(CIDK_TOPO_MAX_CPUS);
	if (m && r.dirs)
		rc = read_possible(&r, m, &no_possible, &listed);
	else
		cidk__topo_err(err, r.root, "out of memory");
	cidk_mask_free(m);
	cidk_mask_free(r.dirs);
	free(r.buf);
	return rc;
}

int cidk_topo_from_sysfs(const char *root, struct cidk_topo **out,
			 struct cidk_topo_err *err)
{
	struct reader r = { .root = root ? root : "/sys", .err = err };
	struct cidk_mask *m = NULL;
	struct cidk_topo *t = NULL;
	bool no_possible = false, no_online = false, listed = false;
	unsigned int nr, cpu;
	int rc;

	if (!out) {
		cidk__topo_err(err, "", "no output");
		return -EINVAL;
	}
	if (strlen(r.root) + MAX_REL >= sizeof(r.path)) {
		cidk__topo_err(err, "", "root path too long (%zu bytes)",
			       strlen(r.root));
		return -ENAMETOOLONG;
	}
	/* possible: parse at the largest width, then size everything by it */
	m = cidk_mask_alloc(CIDK_TOPO_MAX_CPUS);
	if (!m) {
		rc = -ENOMEM;
		cidk__topo_err(err, r.root, "out of memory");
		goto out;
	}
	r.dirs = cidk_mask_alloc(CIDK_TOPO_MAX_CPUS);
	if (!r.dirs) {
		rc = -ENOMEM;
		cidk__topo_err(err, r.root, "out of memory");
		goto out;
	}
	if ((rc = read_possible(&r, m, &no_possible, &listed)) < 0)
		goto out;
	nr = (unsigned int)rc;
	cidk_mask_free(m);
	m = cidk_mask_alloc(nr);
	t = cidk_topo_alloc(nr);
	r.nopkg = cidk_mask_alloc(nr);
	r.pkgid = malloc(nr * sizeof(*r.pkgid));
	if (!m || !t || !r.nopkg || !r.pkgid) {
		rc = -ENOMEM;
		cidk__topo_err(err, r.root, "out of memory");
		goto out;
	}
	rc = read_file(&r, "devices/system/cpu/online", true);
	if (rc == -ENOENT) {
		no_online = true;
		if ((!listed && (rc = list_cpu_dirs(&r, "devices/system/cpu/online"))) ||
		    (rc = online_from_dirs(&r, m)))
			goto out;
		full(&r, "devices/system/cpu/online");
	} else if (rc || (rc = parse_mask(&r, false, m))) {
		goto out;
	}
	if (cidk_mask_empty(m)) {
		cidk__topo_err(err, r.path, "no CPU online");
		rc = -EINVAL;
		goto out;
	}
	cidk_topo_set_online(t, m);
	cidk_mask_for_each(cpu, cidk_topo_online(t))
		if ((rc = read_cpu(&r, t, cpu, m)))
			goto out;
	if (!cidk_mask_empty(r.nopkg) && (rc = packages_by_id(&r, t, m))) {
		cidk__topo_err(err, r.root, "out of memory");
		goto out;
	}
	drop_if_same(t, CIDK_TOPO_CLUSTER, CIDK_TOPO_SMT);
	drop_if_same(t, CIDK_TOPO_DIE, CIDK_TOPO_PKG);
	if ((rc = read_numa(&r, t, m)))
		goto out;
	if ((rc = add_notes(&r, t, no_possible, no_online))) {
		cidk__topo_err(err, r.root, "out of memory");
		goto out;
	}
	*out = t;
	t = NULL;
out:
	cidk_topo_free(t);
	cidk_mask_free(m);
	cidk_mask_free(r.dirs);
	cidk_mask_free(r.nopkg);
	free(r.pkgid);
	free(r.buf);
	return rc;
}
