/* SPDX-License-Identifier: MIT */
/*
 * check/shardio.h - the files of a sharded search: what `--shard K/N
 * --json` adds to each scenario's item (the part, and what makes two
 * parts parts of the same search: the scenario's text, the policy, the
 * options), and `--merge FILE...` reading them back, one file per part.
 * Bad files are one "cidkit: check: --merge: ..." line and exit status 2.
 */
#ifndef CIDKIT_CHECK_SHARDIO_H
#define CIDKIT_CHECK_SHARDIO_H

#include "chk.h"
#include "scenario.h"
#include "shard.h"

struct jw;

/*
 * The fields of a --shard item: "shard", "scenario_text" (@arg's file,
 * or the library's text of @s), "options" (of the whole search @o),
 * "part" (@r).
 */
void shardio_json(struct jw *w, const char *arg, const struct scenario *s,
		  const struct chk_opts *o, const struct shard_spec *sp,
		  const struct chk_result *r);

/* One scenario of the merged search: its N parts in order of K. */
struct merge_item {
	char *text, *policy, *options;
	bool own_policy; /* the parts ran the scenario's own policy */
	struct shard_part *parts;
};

struct merge_set {
	unsigned int n, nitems;
	struct merge_item *item;
};

/* Read @nfiles files, one part each: 0, or a message printed and 2. */
int merge_load(char *const *files, unsigned int nfiles, struct merge_set *set);
void merge_free(struct merge_set *set);

#endif /* CIDKIT_CHECK_SHARDIO_H */
