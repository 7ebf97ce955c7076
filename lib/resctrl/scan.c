/* SPDX-License-Identifier: MIT */
/*
 * The directory walk: every (group, domain, event) counter file under a
 * resctrl mount.  Runs once per sampling interval, so it stats and lists
 * directories but never reads a counter.  Anything that vanishes while we
 * walk (a group removed, a domain gone offline) is skipped, not an error.
 *
 * Groups: the root ("/"), ROOT/mon_groups/M, every control group ROOT/C
 * (a directory other than info, mon_groups, mon_data that has a mon_data)
 * and its C/mon_groups/M.  Domains: mon_data/mon_<RES>_<ID>, RES up to the
 * last '_', ID decimal as the kernel writes it (%02d: see domain_name()).
 * Events: the selected event files that exist.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cidkit/resctrl.h>

#include "resctrl/resctrl_internal.h"

struct found_vec {
	struct cidk__rc_found *v;
	size_t n, cap;
	unsigned int groups;
};

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int push(struct found_vec *fv, const char *group, const char *res,
		size_t reslen, unsigned int domain, int event, const char *path)
{
	struct cidk__rc_found *f;

	if (fv->n == fv->cap) {
		size_t cap = fv->cap ? fv->cap * 2 : 64;
		struct cidk__rc_found *v = realloc(fv->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		fv->v = v;
		fv->cap = cap;
	}
	f = &fv->v[fv->n];
	f->group = strdup(group);
	f->resource = strndup(res, reslen);
	f->path = strdup(path);
	f->domain = domain;
	f->event = event;
	if (!f->group || !f->resource || !f->path) {
		free(f->group);
		free(f->resource);
		free(f->path);
		return -ENOMEM;
	}
	fv->n++;
	return 0;
}

/*
 * "mon_L3_07" -> res "L3", id 7; false when the name is not a domain.  The
 * kernel names them "mon_%s_%02d" (mkdir_mondata_subdir(), since resctrl
 * monitoring came in Linux 4.14): two digits, more without a leading zero.
 * Any other spelling of a number (mon_L3_0, mon_L3_007) is not a domain
 * directory, so that one domain is never read from two directories.
 */
static bool domain_name(const char *name, const char **res, size_t *reslen,
			unsigned int *id)
{
	const char *us;
	unsigned long v = 0;
	size_t digits;

	if (strncmp(name, "mon_", 4))
		return false;
	us = strrchr(name, '_');
	if (us <= name + 4 || !us[1])
		return false;
	digits = strlen(us + 1);
	if (digits < 2 || (digits > 2 && us[1] == '0'))
		return false;
	for (const char *p = us + 1; *p; p++) {
		if (*p < '0' || *p > '9' || v > 100000000)
			return false;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	*res = name + 4;
	*reslen = (size_t)(us - (name + 4));
	*id = (unsigned int)v;
	return true;
}

/* Every counter of one group whose mon_data directory is @mon_data. */
static int scan_group(struct found_vec *fv, const char *group,
		      const char *mon_data, unsigned int events)
{
	char dpath[PATH_MAX], fpath[PATH_MAX];
	struct dirent *de;
	DIR *dir = opendir(mon_data);
	int rc = 0;

	if (!dir)
		return 0; /* vanished */
	fv->groups++;
	while (!rc && (de = readdir(dir))) {
		const char *res;
		size_t reslen;
		unsigned int id;

		if (!domain_name(de->d_name, &res, &reslen, &id))
			continue;
		if (!cidk__rc_path_fmt(dpath, sizeof(dpath), "%s/%s", mon_data,
				     de->d_name))
			continue;
		for (int e = 0; !rc && e < CIDK_RC_NR_EVENTS; e++) {
			if (!(events & (1u << e)))
				continue;
			if (!cidk__rc_path_fmt(fpath, sizeof(fpath), "%s/%s",
					     dpath,
					     cidk_resctrl_event_name(e)))
				continue;
			if (access(fpath, F_OK))
				continue;
			rc = push(fv, group, res, reslen, id, e, fpath);
		}
	}
	closedir(dir);
	return rc;
}

/* Every ROOT/<prefix>mon_groups/M. */
static int scan_mon_groups(struct found_vec *fv, const char *dir_path,
			   const char *prefix, unsigned int events)
{
	char path[PATH_MAX], mon[PATH_MAX], group[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int rc = 0;

	if (!cidk__rc_path_fmt(path, sizeof(path), "%s/mon_groups", dir_path))
		return 0;
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!rc && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (!cidk__rc_path_fmt(mon, sizeof(mon), "%s/%s/mon_data", path,
				     de->d_name))
			continue;
		if (!cidk__rc_path_fmt(group, sizeof(group), "%smon_groups/%s",
				       prefix, de->d_name))
			continue;
		rc = scan_group(fv, group, mon, events);
	}
	closedir(dir);
	return rc;
}

int cidk__rc_found_cmp(const struct cidk__rc_found *a,
		       const struct cidk__rc_found *b)
{
	int c = strcmp(a->group, b->group);

	if (!c)
		c = strcmp(a->resource, b->resource);
	if (!c)
		c = a->domain < b->domain ? -1 : a->domain > b->domain;
	if (!c)
		c = a->event - b->event;
	return c;
}

static int qcmp(const void *a, const void *b)
{
	return cidk__rc_found_cmp(a, b);
}

void cidk__rc_found_free(struct cidk__rc_found *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].group);
		free(f[i].resource);
		free(f[i].path);
	}
	free(f);
}

int cidk__rc_scan(const char *root, unsigned int events,
		  struct cidk__rc_found **out, size_t *n, unsigned int *groups)
{
	struct found_vec fv = { 0 };
	char path[PATH_MAX], sub[PATH_MAX], prefix[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int rc;

	if (!cidk__rc_path_fmt(path, sizeof(path), "%s/mon_data", root) ||
	    !is_dir(path))
		return -ENOENT;
	rc = scan_group(&fv, "/", path, events);
	if (!rc)
		rc = scan_mon_groups(&fv, root, "", events);
	dir = rc ? NULL : opendir(root);
	while (dir && !rc && (de = readdir(dir))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "info") ||
		    !strcmp(de->d_name, "mon_groups") ||
		    !strcmp(de->d_name, "mon_data"))
			continue;
		if (!cidk__rc_path_fmt(sub, sizeof(sub), "%s/%s", root,
				     de->d_name))
			continue;
		if (!cidk__rc_path_fmt(path, sizeof(path), "%s/mon_data", sub) ||
		    !is_dir(path))
			continue; /* a file, or a group without monitoring */
		rc = scan_group(&fv, de->d_name, path, events);
		cidk__rc_path_fmt(prefix, sizeof(prefix), "%s/", de->d_name);
		if (!rc)
			rc = scan_mon_groups(&fv, sub, prefix, events);
	}
	if (dir)
		closedir(dir);
	if (rc) {
		cidk__rc_found_free(fv.v, fv.n);
		return rc;
	}
	if (fv.n)
		qsort(fv.v, fv.n, sizeof(*fv.v), qcmp);
	*out = fv.v;
	*n = fv.n;
	*groups = fv.groups;
	return 0;
}
