/* SPDX-License-Identifier: MIT */
/*
 * tests/support/fake_tree.c - fake sysfs and resctrl trees for the C
 * tests (fake_tree.h).
 */
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_tree.h"

int fake_mkdirs(const char *path, int whole)
{
	char buf[2 * PATH_MAX + 16];
	size_t len;

	snprintf(buf, sizeof(buf), "%s", path);
	len = strlen(buf);
	if (!whole) {
		char *slash = strrchr(buf, '/');

		if (!slash)
			return 0;
		*slash = '\0';
		len = strlen(buf);
	}
	for (size_t i = 1; i <= len; i++)
		if (buf[i] == '/' || buf[i] == '\0') {
			char c = buf[i];

			buf[i] = '\0';
			if (mkdir(buf, 0755) && access(buf, F_OK))
				return -1;
			buf[i] = c;
		}
	return 0;
}

int fake_write(const char *dir, const char *rel, const char *fmt, ...)
{
	char path[2 * PATH_MAX + 16];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (fake_mkdirs(path, 0))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	return fclose(f);
}

int fake_mkdir(const char *dir, const char *rel)
{
	char path[2 * PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return fake_mkdirs(path, 1);
}

static int fake_rm_one(const char *p, const struct stat *st, int flag,
		       struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

int fake_rm(const char *dir, const char *rel)
{
	char path[2 * PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s%s%s", dir, *rel ? "/" : "", rel);
	return nftw(path, fake_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void fake_tmpdir(char *buf, size_t size, const char *tag, int tmpfs)
{
	const char *t = getenv("TMPDIR");

	if (tmpfs && access("/dev/shm", W_OK) == 0) {
		snprintf(buf, size, "/dev/shm/cidkit-%s-XXXXXX", tag);
		if (mkdtemp(buf))
			return;
	}
	snprintf(buf, size, "%s/cidkit-%s-XXXXXX", t && *t ? t : "/tmp",
		 tag);
	if (!mkdtemp(buf)) {
		perror("mkdtemp");
		exit(1);
	}
}

/* dir/devices/system/cpu/cpuC/REL, holding "V\n" */
static void cpu_file(const char *dir, unsigned int c, const char *rel, long v)
{
	char path[256];

	snprintf(path, sizeof(path), "devices/system/cpu/cpu%u/%s", c, rel);
	fake_write(dir, path, "%ld\n", v);
}

void fake_sysfs(const char *dir, unsigned int ncpus, const int *l3)
{
	fake_write(dir, "devices/system/cpu/online", "0-%u\n", ncpus - 1);
	for (unsigned int c = 0; c < ncpus; c++) {
		cpu_file(dir, c, "cache/index0/level", 1);
		cpu_file(dir, c, "cache/index0/id", c);
		cpu_file(dir, c, "cache/index1/level", 2);
		cpu_file(dir, c, "cache/index1/id", c);
		if (l3[c] >= 0) {
			cpu_file(dir, c, "cache/index2/level", 3);
			cpu_file(dir, c, "cache/index2/id", l3[c]);
		}
		cpu_file(dir, c, "topology/physical_package_id", c / 2);
	}
}
