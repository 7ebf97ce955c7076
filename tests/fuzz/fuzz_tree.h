/* SPDX-License-Identifier: MIT */
/*
 * The temporary tree a harness writes its input into (fuzz_sysfs,
 * fuzz_resctrl_tree): one directory per process, in tmpfs when there is
 * one (thousands of small files a second), emptied before every input and
 * removed at exit, and what one record of the input makes in it.  Needs
 * _GNU_SOURCE (nftw) before the first include.  The records are
 * tests/support/fake_tree.py's encode() form (the seeds are written with
 * it); this is their in-harness reader, kept here because scripts/fuzz.sh
 * builds each harness alone, and the tests' other C trees are written by
 * tests/support/fake_tree.c.
 */
#ifndef CIDKIT_TESTS_FUZZ_TREE_H
#define CIDKIT_TESTS_FUZZ_TREE_H

#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* What fuzz_tree_make() made. */
enum fuzz_tree_made {
	FUZZ_TREE_NOTHING, /* it failed */
	FUZZ_TREE_FILE,
	FUZZ_TREE_DIR,
	FUZZ_TREE_FIFO,
};

/*
 * A record's body at @path (its parents made): "\x02fifo" a FIFO,
 * "\x02dir" a directory, anything else a regular file of those bytes.
 */
static inline enum fuzz_tree_made fuzz_tree_make(const char *path,
						 const uint8_t *body,
						 size_t blen)
{
	int fd;

	if (blen == 5 && !memcmp(body, "\x02" "fifo", 5))
		return mkfifo(path, 0644) ? FUZZ_TREE_NOTHING : FUZZ_TREE_FIFO;
	if (blen == 4 && !memcmp(body, "\x02" "dir", 4))
		return mkdir(path, 0755) ? FUZZ_TREE_NOTHING : FUZZ_TREE_DIR;
	/* O_NONBLOCK: an earlier record may have made this path a FIFO */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK,
		  0644);
	if (fd < 0)
		return FUZZ_TREE_NOTHING;
	if (write(fd, body, blen) < 0)
		abort();
	close(fd);
	return FUZZ_TREE_FILE;
}

#endif /* CIDKIT_TESTS_FUZZ_TREE_H */
