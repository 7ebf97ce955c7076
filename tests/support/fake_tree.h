/* SPDX-License-Identifier: MIT */
/*
 * tests/support/fake_tree.h - the C tests' writer of fake sysfs and
 * resctrl trees in a temporary directory: mkdir -p, write a file, remove
 * a tree, and a small sysfs machine.  In process because the C tests
 * rewrite counters and garble files between library calls (thousands of
 * times in tests/stress/call_resctrl.c); the shell and Python tests write
 * their trees with tests/support/fake_tree.py.  Paths are "dir/rel"; the
 * writers return 0 or -1 (errno set) and never exit, except
 * fake_tmpdir(), which exits 1 when there is no temporary directory.
 */
#ifndef CIDKIT_TESTS_FAKE_TREE_H
#define CIDKIT_TESTS_FAKE_TREE_H

#include <stddef.h>

/* mkdir -p of the directory part of @path (or of @path when @whole). */
int fake_mkdirs(const char *path, int whole);

/* Write printf(@fmt...) to the file dir/rel, creating directories. */
__attribute__((format(printf, 3, 4))) int fake_write(const char *dir,
						     const char *rel,
						     const char *fmt, ...);

/* mkdir -p dir/rel. */
int fake_mkdir(const char *dir, const char *rel);

/* rm -rf dir/rel (rel may be "" for dir itself). */
int fake_rm(const char *dir, const char *rel);

/*
 * A fresh temporary directory in @buf (@size bytes) named
 * cidkit-TAG-XXXXXX, in $TMPDIR or /tmp - or in /dev/shm first when
 * @tmpfs (trees of thousands of files); exits 1 when none can be made.
 */
void fake_tmpdir(char *buf, size_t size, const char *tag, int tmpfs);

/*
 * A sysfs with CPUs 0..ncpus-1 online; CPU c has an L1 (index0), an L2 of
 * id c (index1) and an L3 of id l3[c] (index2) unless l3[c] < 0 (no L3
 * cache directory), and package id c / 2.
 */
void fake_sysfs(const char *dir, unsigned int ncpus, const int *l3);

#endif /* CIDKIT_TESTS_FAKE_TREE_H */
