/* SPDX-License-Identifier: MIT */
/*
 * Which CPUs form each monitoring domain, read from sysfs once: per online
 * CPU its level-3 and level-2 cache ids (cpuN/cache/indexK/{level,id}) and
 * its package id (cpuN/topology/physical_package_id).  A CPU without a
 * cache directory (some VMs) simply belongs to no cache domain.
 *
 * Invariant: l3/l2/pkg have nbits entries; offline CPUs hold -1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cidkit/resctrl.h>
#include <cidkit/topo.h>

#include "resctrl/resctrl_internal.h"
#include "util/file.h"

long cidk__rc_read_small(const char *path, char *buf, size_t size)
{
	ssize_t len;
	int fd = cidk__open_regular(path); /* a FIFO must not block */

	if (fd < 0)
		return fd;
	len = read(fd, buf, size - 1);
	if (len < 0)
		len = -errno;
	else
		buf[len] = '\0';
	close(fd);
	return len;
}

static void set_err(struct cidk_resctrl_err *err, const char *path,
		    const char *msg)
{
	if (!err)
		return;
	snprintf(err->path, sizeof(err->path), "%s", path);
	snprintf(err->msg, sizeof(err->msg), "%s", msg);
}

/* A non-negative decimal id in a sysfs file, or -1. */
static long read_id(const char *path)
{
	char buf[32], *end;
	long v;

	if (cidk__rc_read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	v = strtol(buf, &end, 10);
	if (end == buf || (*end && *end != '\n') || v < 0)
		return -1;
	return v;
}

/*
 * Highest number in a cpulist + 1 (enough bits to parse it), or 0 when a
 * number reaches CIDK_TOPO_MAX_CPUS: the width is checked against the
 * topology's own limit before anything is sized by it.  O(strlen(s)).
 */
static unsigned int list_width(const char *s)
{
	unsigned long max = 0, v;

	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			continue;
		for (v = 0; *s >= '0' && *s <= '9'; s++)
			if (v < CIDK_TOPO_MAX_CPUS)
				v = v * 10 + (unsigned long)(*s - '0');
		if (v >= CIDK_TOPO_MAX_CPUS)
			return 0;
		if (v > max)
			max = v;
		if (!*s)
			break;
	}
	return (unsigned int)max + 1;
}

bool cidk__rc_path_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < size;
}

static void cpu_caches(const char *cpudir, struct cidk__rc_cpumap *m,
		       unsigned int cpu)
{
	char path[PATH_MAX];

	for (unsigned int k = 0; k < 64; k++) { /* index0.. are contiguous */
		long level, id;

		if (!cidk__rc_path_fmt(path, sizeof(path), "%s/cache/index%u", cpudir,
			      k) ||
		    access(path, F_OK))
			break;
		if (!cidk__rc_path_fmt(path, sizeof(path), "%s/cache/index%u/level",
			      cpudir, k))
			break;
		level = read_id(path);
		if (!cidk__rc_path_fmt(path, sizeof(path), "%s/cache/index%u/id",
			      cpudir, k))
			break;
		id = read_id(path);
		if (level == 3)
			m->l3[cpu] = id;
		else if (level == 2)
			m->l2[cpu] = id;
	}
	m->pkg[cpu] = cidk__rc_path_fmt(path, sizeof(path),
			       "%s/topology/physical_package_id", cpudir)
			      ? read_id(path)
			      : -1;
}

int cidk__rc_cpumap_load(const char *sysfs_root, struct cidk__rc_cpumap **out,
			 struct cidk_resctrl_err *err)
{
	struct cidk__rc_cpumap *m;
	char path[PATH_MAX], cpudir[PATH_MAX], buf[4096];
	unsigned int cpu;
	long len;
	int rc;

	if (!sysfs_root)
		sysfs_root = "/sys";
	if (!cidk__rc_path_fmt(path, sizeof(path), "%s/devices/system/cpu/online",
		      sysfs_root)) {
		set_err(err, "", "sysfs root path too long");
		return -ENAMETOOLONG;
	}
	len = cidk__rc_read_small(path, buf, sizeof(buf));
	if (len < 0) {
		set_err(err, path, cidk__open_strerror((int)len));
		return (int)len;
	}
	if (!list_width(buf)) {
		char msg[96];

		snprintf(msg, sizeof(msg), "a CPU number beyond the %u supported",
			 CIDK_TOPO_MAX_CPUS);
		set_err(err, path, msg);
		return -ERANGE;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->nbits = list_width(buf);
	m->online = cidk_mask_alloc(m->nbits);
	m->l3 = malloc(m->nbits * sizeof(long));
	m->l2 = malloc(m->nbits * sizeof(long));
	m->pkg = malloc(m->nbits * sizeof(long));
	rc = -ENOMEM;
	if (!m->online || !m->l3 || !m->l2 || !m->pkg)
		goto fail;
	rc = cidk_mask_parse_list(m->online, buf, NULL);
	if (rc) {
		set_err(err, path, "malformed cpulist");
		rc = -EINVAL;
		goto fail;
	}
	for (cpu = 0; cpu < m->nbits; cpu++)
		m->l3[cpu] = m->l2[cpu] = m->pkg[cpu] = -1;
	cidk_mask_for_each(cpu, m->online) {
		if (cidk__rc_path_fmt(cpudir, sizeof(cpudir),
			     "%s/devices/system/cpu/cpu%u", sysfs_root, cpu))
			cpu_caches(cpudir, m, cpu);
	}
	*out = m;
	return 0;
fail:
	cidk__rc_cpumap_free(m);
	return rc;
}

struct cidk_mask *cidk__rc_cpumap_domain(const struct cidk__rc_cpumap *m,
					 const char *resource, unsigned int id)
{
	struct cidk_mask *cpus = cidk_mask_alloc(m->nbits);
	const long *ids = m->l3;
	unsigned int cpu;

	if (!cpus)
		return NULL;
	if (!strcmp(resource, "L2"))
		ids = m->l2;
	else if (!strcmp(resource, "PERF_PKG"))
		ids = m->pkg;
	cidk_mask_for_each(cpu, m->online)
		if (ids[cpu] >= 0 && (unsigned long)ids[cpu] == id)
			cidk_mask_set(cpus, cpu);
	return cpus;
}

void cidk__rc_cpumap_free(struct cidk__rc_cpumap *m)
{
	if (!m)
		return;
	cidk_mask_free(m->online);
	free(m->l3);
	free(m->l2);
	free(m->pkg);
	free(m);
}

int cidk_resctrl_domain_cpus(const char *sysfs_root, const char *resource,
			     unsigned int id, struct cidk_mask **out,
			     struct cidk_resctrl_err *err)
{
	struct cidk__rc_cpumap *m;
	int rc;

	if (!resource || !out)
		return -EINVAL;
	rc = cidk__rc_cpumap_load(sysfs_root, &m, err);
	if (rc)
		return rc;
	*out = cidk__rc_cpumap_domain(m, resource, id);
	cidk__rc_cpumap_free(m);
	return *out ? 0 : -ENOMEM;
}
