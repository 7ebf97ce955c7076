/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_cat.h"
#include "cidkit_lab.h"

const char *const bench_cat_set_name[BENCH_CAT_NSETS] = {
	[BENCH_CAT_SYS] = "sysfs",
	[BENCH_CAT_PROC] = "procfs",
	[BENCH_CAT_TMP] = "tmpdir",
};

const char *const bench_cat_way_name[BENCH_CAT_NWAYS] = {
	[BENCH_CAT_OPEN_READ_CLOSE] = "open_read_close",
	[BENCH_CAT_PREAD] = "open_once_pread",
};

struct file_set {
	char **paths;
	int *fds;
	unsigned int n, cap;
};

static char buf[4096];

/* Add @path when it is a regular file that opens and reads. */
static int add(struct file_set *s, const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (pread(fd, buf, sizeof(buf), 0) <= 0) {
		close(fd);
		return 0;
	}
	if (s->n == s->cap) {
		unsigned int cap = s->cap ? s->cap * 2 : 64;
		char **p = realloc(s->paths, cap * sizeof(*p));
		int *f;

		if (!p)
			goto nomem;
		s->paths = p;
		f = realloc(s->fds, cap * sizeof(*f));
		if (!f)
			goto nomem;
		s->fds = f;
		s->cap = cap;
	}
	s->paths[s->n] = strdup(path);
	if (!s->paths[s->n])
		goto nomem;
	s->fds[s->n++] = fd;
	return 0;
nomem:
	close(fd);
	return -ENOMEM;
}

static int add_glob(struct file_set *s, const char *pattern)
{
	glob_t g;
	int rc = 0;

	if (glob(pattern, 0, NULL, &g))
		return 0;
	for (size_t i = 0; i < g.gl_pathc && !rc; i++)
		rc = add(s, g.gl_pathv[i]);
	globfree(&g);
	return rc;
}

static void free_set(struct file_set *s)
{
	for (unsigned int i = 0; i < s->n; i++) {
		close(s->fds[i]);
		free(s->paths[i]);
	}
	free(s->paths);
	free(s->fds);
}

static double open_read_close(const struct file_set *s)
{
	uint64_t t0 = cidk__now_ns();

	for (unsigned int i = 0; i < s->n; i++) {
		int fd = open(s->paths[i], O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			cidk__keep(buf);
			if (read(fd, buf, sizeof(buf)) < 0)
				buf[0] = 0;
			close(fd);
		}
	}
	return (double)(cidk__now_ns() - t0) / s->n;
}

static double pread_all(const struct file_set *s)
{
	uint64_t t0 = cidk__now_ns();

	for (unsigned int i = 0; i < s->n; i++) {
		cidk__keep(buf);
		if (pread(s->fds[i], buf, sizeof(buf), 0) < 0)
			buf[0] = 0;
	}
	return (double)(cidk__now_ns() - t0) / s->n;
}

static int make_tmp(struct bench_cat_result *res, struct file_set *s)
{
	const char *t = getenv("TMPDIR");
	char path[PATH_MAX];
	int rc = 0;

	snprintf(res->tmp_dir, sizeof(res->tmp_dir), "%s/cidkit-cat-XXXXXX",
		 t && *t && strlen(t) < 200 ? t : "/tmp");
	if (!mkdtemp(res->tmp_dir))
		return -errno;
	for (unsigned int i = 0; i < res->tmp_files && !rc; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/counter%u", res->tmp_dir, i);
		f = fopen(path, "w");
		if (!f)
			return -errno;
		fprintf(f, "%u\n", 1234567 * (i + 1));
		if (fclose(f))
			return -EIO;
		rc = add(s, path);
	}
	return rc;
}

static void remove_tmp(const struct bench_cat_result *res)
{
	char path[PATH_MAX];

	for (unsigned int i = 0; i < res->tmp_files; i++) {
		snprintf(path, sizeof(path), "%s/counter%u", res->tmp_dir, i);
		unlink(path);
	}
	rmdir(res->tmp_dir);
}

int bench_cat_run(unsigned int reps, unsigned int tmp_files,
		  struct bench_cat_result *res)
{
	static const char *const proc[] = {
		"/proc/loadavg", "/proc/uptime", "/proc/self/stat",
		"/proc/self/statm", "/proc/meminfo",
	};
	struct file_set sets[BENCH_CAT_NSETS] = { { 0 } };
	double *samples[BENCH_CAT_NSETS][BENCH_CAT_NWAYS] = { { NULL } };
	int rc;

	if (!reps)
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	res->reps = reps;
	res->tmp_files = tmp_files;
	rc = add_glob(&sets[BENCH_CAT_SYS],
		      "/sys/devices/system/cpu/cpu[0-9]*/topology/*");
	if (!rc)
		rc = add_glob(&sets[BENCH_CAT_SYS],
			      "/sys/devices/system/cpu/cpu[0-9]*/cache/index*/*");
	for (size_t i = 0; !rc && i < sizeof(proc) / sizeof(proc[0]); i++)
		rc = add(&sets[BENCH_CAT_PROC], proc[i]);
	if (!rc)
		rc = make_tmp(res, &sets[BENCH_CAT_TMP]);
	if (rc)
		goto out;
	rc = -ENOMEM;
	for (int s = 0; s < BENCH_CAT_NSETS; s++)
		for (int w = 0; w < BENCH_CAT_NWAYS; w++)
			if (!(samples[s][w] = calloc(reps, sizeof(double))))
				goto out;
	for (unsigned int r = 0; r < reps; r++)
		for (int s = 0; s < BENCH_CAT_NSETS; s++) {
			if (!sets[s].n)
				continue;
			if (r % 2) {
				samples[s][BENCH_CAT_PREAD][r] =
					pread_all(&sets[s]);
				samples[s][BENCH_CAT_OPEN_READ_CLOSE][r] =
					open_read_close(&sets[s]);
			} else {
				samples[s][BENCH_CAT_OPEN_READ_CLOSE][r] =
					open_read_close(&sets[s]);
				samples[s][BENCH_CAT_PREAD][r] =
					pread_all(&sets[s]);
			}
		}
	for (int s = 0; s < BENCH_CAT_NSETS; s++) {
		res->nfiles[s] = sets[s].n;
		for (int w = 0; w < BENCH_CAT_NWAYS; w++)
			cidk__summarize(samples[s][w], sets[s].n ? reps : 0,
					&res->ns[s][w]);
	}
	rc = 0;
out:
	for (int s = 0; s < BENCH_CAT_NSETS; s++) {
		free_set(&sets[s]);
		for (int w = 0; w < BENCH_CAT_NWAYS; w++)
			free(samples[s][w]);
	}
	if (res->tmp_dir[0])
		remove_tmp(res);
	return rc;
}
