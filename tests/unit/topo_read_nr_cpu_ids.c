/* SPDX-License-Identifier: MIT */
/*
 * cidk_topo_read_nr_cpu_ids, the library's one "possible CPUs": on every saved
 * sysfs tree of tests/data/sysfs (expected values worked out from the
 * machines of make-trees.py, not from the library), on the cases where
 * the count of CPUs is not nr_cpu_ids (offline CPUs, a sparse possible
 * list, no possible file before 2.6.27), on errors, and on this machine
 * against the kernel's own /sys/devices/system/cpu/possible read here and
 * against cidk_percpu_nr_copies(), which sizes pools by it.
 *   test_topo_read_nr_cpu_ids DATA_DIR   (tests/data/sysfs)
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cidkit/percpu.h>
#include <cidkit/topo.h>

#include "tap.h"

static const struct {
	const char *tree;
	int nr;
} saved[] = {
	{ "adl-hybrid", 20 },	     { "arm64-cluster-pkg", 8 },
	{ "arm64-die", 8 },	     { "empty-online", 8 }, /* cpuN folders */
	{ "insane-llc", 8 },	     { "no-cpu-files", 8 }, /* cpu6 offline */
	{ "no-package", 4 },	     { "non-nesting", 8 },
	{ "offline", 16 }, /* 13 online */ { "old-kernel", 8 },
	{ "smt8", 32 },		     { "vm", 2 },
	{ "zero-cache-map", 8 },
};

/* A tree holding only devices/system/cpu/possible = @text, under @dir. */
static void possible_tree(const char *dir, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system/cpu", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/possible", dir);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* The last number of the kernel's possible list, plus one (-1: none). */
static int kernel_nr_cpu_ids(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	int c, last = -1, n = -1;

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF) {
		if (c >= '0' && c <= '9')
			n = (n < 0 ? 0 : n * 10) + (c - '0');
		else if (n >= 0)
			last = n, n = -1;
	}
	fclose(f);
	return (n >= 0 ? n : last) + 1;
}

int main(int argc, char **argv)
{
	char root[PATH_MAX], tmp[] = "/tmp/cidk-nr-cpu-ids-XXXXXX";
	char longroot[CIDK_PATH_MAX + 8];
	struct cidk_topo_err err;
	int nr, k;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < sizeof(saved) / sizeof(saved[0]); i++) {
		snprintf(root, sizeof(root), "%s/%s", argv[1], saved[i].tree);
		memset(&err, 0, sizeof(err));
		nr = cidk_topo_read_nr_cpu_ids(root, &err);
		ok(nr == saved[i].nr, "%s: nr_cpu_ids %d (want %d) %s %s",
		   saved[i].tree, nr, saved[i].nr, err.path, err.msg);
	}

	if (!mkdtemp(tmp)) {
		perror(tmp);
		return 1;
	}
	possible_tree(tmp, "0-3,8\n");
	nr = cidk_topo_read_nr_cpu_ids(tmp, NULL);
	ok(nr == 9, "sparse \"0-3,8\": 9, not the 5 CPUs listed (got %d)", nr);
	possible_tree(tmp, "0\n");
	ok(cidk_topo_read_nr_cpu_ids(tmp, NULL) == 1, "\"0\": 1");
	possible_tree(tmp, "0-3,x\n");
	memset(&err, 0, sizeof(err));
	nr = cidk_topo_read_nr_cpu_ids(tmp, &err);
	ok(nr == -EINVAL && strstr(err.path, "cpu/possible") &&
		   strstr(err.msg, "offset"),
	   "garbled: -EINVAL naming the file and the offset (%d: %s: %s)", nr,
	   err.path, err.msg);
	possible_tree(tmp, "0-65536\n");
	ok(cidk_topo_read_nr_cpu_ids(tmp, NULL) == -ERANGE,
	   "a CPU at CIDK_TOPO_MAX_CPUS: -ERANGE");
	snprintf(root, sizeof(root), "%s/devices/system/cpu/possible", tmp);
	unlink(root);
	memset(&err, 0, sizeof(err));
	nr = cidk_topo_read_nr_cpu_ids(tmp, &err);
	ok(nr == -ENOENT && strstr(err.path, "cpu/possible"),
	   "no possible file, no cpuN folder: -ENOENT naming it (%d: %s: %s)",
	   nr, err.path, err.msg);
	snprintf(root, sizeof(root), "%s/devices/system/cpu", tmp);
	rmdir(root);
	snprintf(root, sizeof(root), "%s/devices/system", tmp);
	rmdir(root);
	snprintf(root, sizeof(root), "%s/devices", tmp);
	rmdir(root);
	rmdir(tmp);
	ok(cidk_topo_read_nr_cpu_ids("/nonexistent-cidkit-root", NULL) == -ENOENT,
	   "a root that does not exist: -ENOENT");
	memset(longroot, 'a', sizeof(longroot) - 1);
	longroot[0] = '/';
	longroot[sizeof(longroot) - 1] = '\0';
	ok(cidk_topo_read_nr_cpu_ids(longroot, NULL) == -ENAMETOOLONG,
	   "a root too long: -ENAMETOOLONG");

	k = kernel_nr_cpu_ids();
	nr = cidk_topo_read_nr_cpu_ids(NULL, NULL);
	if (k > 0) {
		ok(nr == k, "this machine: %d, the kernel's possible list says %d",
		   nr, k);
		ok(cidk_percpu_nr_copies() == (unsigned int)k,
		   "cidk_percpu_nr_copies() %u: the same", cidk_percpu_nr_copies());
	} else {
		ok(nr < 0 && cidk_percpu_nr_copies() >= 1,
		   "no /sys/devices/system/cpu/possible: an error (%d), and pools still get copies",
		   nr);
	}
	return done_testing();
}
