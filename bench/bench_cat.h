/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_cat.h - reading small counter-like files two ways, side by
 * side in one run: cat-style open+read+close per value, and open once +
 * pread(fd, buf, 4096, 0) per value; on three sets of files: sysfs
 * (the topology/ and cache/indexK/ files of every CPU), a few /proc files, and
 * files in a temporary directory (tmpfs or disk: no kernel callback).
 */
#ifndef CIDKIT_BENCH_CAT_H
#define CIDKIT_BENCH_CAT_H

#include "stats.h"

enum bench_cat_set {
	BENCH_CAT_SYS,
	BENCH_CAT_PROC,
	BENCH_CAT_TMP,
	BENCH_CAT_NSETS,
};

enum bench_cat_way {
	BENCH_CAT_OPEN_READ_CLOSE,
	BENCH_CAT_PREAD,
	BENCH_CAT_NWAYS,
};

struct bench_cat_result {
	unsigned int reps, tmp_files;
	unsigned int nfiles[BENCH_CAT_NSETS];
	struct cidk__summary ns[BENCH_CAT_NSETS][BENCH_CAT_NWAYS]; /* per value */
	char tmp_dir[256];
};

/*
 * bench_cat_run - @reps repetitions; in each, every set is read once each
 * way (order alternating by repetition).  @tmp_files files are created in
 * a fresh directory under $TMPDIR (or /tmp) and removed afterwards.
 * A set without readable files has nfiles 0.
 * Returns 0, -EINVAL (reps 0), -ENOMEM, or the error creating the
 * temporary files.
 */
int bench_cat_run(unsigned int reps, unsigned int tmp_files,
		  struct bench_cat_result *res);

extern const char *const bench_cat_set_name[BENCH_CAT_NSETS];
extern const char *const bench_cat_way_name[BENCH_CAT_NWAYS];

#endif /* CIDKIT_BENCH_CAT_H */
