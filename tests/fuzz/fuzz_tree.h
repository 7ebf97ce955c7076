/* SPDX-License-Identifier: MIT */
/*
 * The temporary tree a harness writes its input into (fuzz_sysfs,
 * fuzz_resctrl_tree): one directory per process, in tmpfs when there is
 * one (thousands of small files a second), emptied before every input and
 * removed at exit.  Needs _GNU_SOURCE (nftw) before the first include.
 */
#ifndef CIDKIT_TESTS_FUZZ_TREE_H
#define CIDKIT_TESTS_FUZZ_TREE_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char *fuzz_tree_dir; /* the harness's root, for the atexit() */

/* nftw(): remove everything below the walk's root, not the root */
static inline int fuzz_tree_rm_below(const char *path, const struct stat *st,
				     int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

static inline void fuzz_tree_remove(void)
{
	nftw(fuzz_tree_dir, fuzz_tree_rm_below, 16, FTW_DEPTH | FTW_PHYS);
	rmdir(fuzz_tree_dir);
}

/*
 * Empty @root (@size bytes, "" before the first call, then the tree's
 * path): the first call makes /dev/shm/cidkit-fuzz-TAG-XXXXXX (or the same
 * in /tmp) and has it removed at exit.
 */
static inline void fuzz_tree_clear(char *root, size_t size, const char *tag)
{
	if (!root[0]) {
		snprintf(root, size, "/dev/shm/cidkit-fuzz-%s-XXXXXX", tag);
		if (!mkdtemp(root)) {
			snprintf(root, size, "/tmp/cidkit-fuzz-%s-XXXXXX", tag);
			if (!mkdtemp(root))
				abort();
		}
		fuzz_tree_dir = root;
		atexit(fuzz_tree_remove);
	}
	nftw(root, fuzz_tree_rm_below, 16, FTW_DEPTH | FTW_PHYS);
}

#endif /* CIDKIT_TESTS_FUZZ_TREE_H */
