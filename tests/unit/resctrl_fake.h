/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/resctrl_fake.h - build fake sysfs and resctrl trees in a
 * temporary directory: mkdir -p, write a file, remove a tree.
 */
#ifndef CIDKIT_TESTS_RESCTRL_FAKE_H
#define CIDKIT_TESTS_RESCTRL_FAKE_H

#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p of the directory part of @path (or of @path when @whole). */
static inline int fake_mkdirs(const char *path, int whole)
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

/* Write printf(@fmt...) to the file dir/rel, creating directories. */
__attribute__((format(printf, 3, 4))) static inline int
fake_write(const char *dir, const char *rel, const char *fmt, ...)
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

static inline int fake_mkdir(const char *dir, const char *rel)
{
	char path[2 * PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return fake_mkdirs(path, 1);
}

static inline int fake_rm_one(const char *p, const struct stat *st, int flag,
			      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/* rm -rf dir/rel (rel may be "" for dir itself). */
static inline int fake_rm(const char *dir, const char *rel)
{
	char path[2 * PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s%s%s", dir, *rel ? "/" : "", rel);
	return nftw(path, fake_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh temporary directory in @buf (PATH_MAX), or exit. */
static inline void fake_tmpdir(char *buf, const char *tag)
{
	const char *t = getenv("TMPDIR");

	snprintf(buf, PATH_MAX, "%s/cidkit-%s-XXXXXX", t && *t ? t : "/tmp",
		 tag);
	if (!mkdtemp(buf)) {
		perror("mkdtemp");
		exit(1);
	}
}

/*
 * A sysfs with CPUs 0..ncpus-1 online; CPU c has an L1 (index0), an L2 of
 * id c (index1) and an L3 of id l3[c] (index2) unless l3[c] < 0 (no L3
 * cache directory), and package id c / 2.
 */
static inline void fake_sysfs(const char *dir, unsigned int ncpus,
			      const int *l3)
{
	char rel[256];

	fake_write(dir, "devices/system/cpu/online", "0-%u\n", ncpus - 1);
	for (unsigned int c = 0; c < ncpus; c++) {
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%u/cache/index0/level", c);
		fake_write(dir, rel, "1\n");
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%u/cache/index0/id", c);
		fake_write(dir, rel, "%u\n", c);
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%u/cache/index1/level", c);
		fake_write(dir, rel, "2\n");
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%u/cache/index1/id", c);
		fake_write(dir, rel, "%u\n", c);
		if (l3[c] >= 0) {
			snprintf(rel, sizeof(rel),
				 "devices/system/cpu/cpu%u/cache/index2/level",
				 c);
			fake_write(dir, rel, "3\n");
			snprintf(rel, sizeof(rel),
				 "devices/system/cpu/cpu%u/cache/index2/id", c);
			fake_write(dir, rel, "%d\n", l3[c]);
		}
		snprintf(rel, sizeof(rel),
			 "devices/system/cpu/cpu%u/topology/physical_package_id",
			 c);
		fake_write(dir, rel, "%u\n", c / 2);
	}
}

#endif /* CIDKIT_TESTS_RESCTRL_FAKE_H */
