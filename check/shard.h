/* SPDX-License-Identifier: MIT */
/*
 * check/shard.h - one search spread over processes and machines:
 * `--shard K/N` explores the K-th of N parts of the schedule tree,
 * `--merge FILE...` puts the parts' --json back together, `--jobs N` does
 * both on N processes of this machine.
 *
 * The depth-first search (DFS) is cut into *units* (chk.h, struct
 * chk_shard): every shard walks the same prefixes and explores below the
 * units it takes.  A part records, per preemption bound, the schedules and
 * steps it counted, the bound it stopped at, its shortest violation (its
 * length, its unit, its schedule) and every distinct state's hash with the
 * bound it was first seen at.  The merge is exact: the search stops at the
 * lowest bound b* at which any part found a violation (or at the bound
 * asked for); totals are the parts' sums up to b*, distinct states the
 * union of the hashes first seen at or below b*, and the violation the
 * shortest at b*, the first in DFS order among equals (the lowest unit) --
 * what one unsharded search keeps -- replayed to print its trace.
 *
 * PCT (--random R) splits by seed, as SPIN's swarm does: part K runs its
 * share of the R executions from its own seed; the merge adds them up (R
 * executions in all, not those of one unsharded run).
 *
 * Runs in the cidkit-check program (it prints through cli.h); not MT-safe.
 */
#ifndef CIDKIT_CHECK_SHARD_H
#define CIDKIT_CHECK_SHARD_H

#include <stdbool.h>
#include <stdint.h>

#include "chk.h"

struct jw;
struct json_t;

struct shard_spec {
	unsigned int k, n; /* part k (1..n) of n */
};

/* "K/N", 1 <= K <= N <= 100000: 0, or -1. */
int shard_parse_spec(const char *s, struct shard_spec *sp);

/*
 * The search of @o, part @sp only: units taken greedily, in DFS order, by
 * the part with the least estimated work so far (Knuth estimates, the same
 * in every part).  Returns what chk_explore() returns; @r holds the part.
 */
int shard_explore(const struct chk_model *m, const struct chk_opts *o,
		  const struct shard_spec *sp, struct chk_result *r);

/*
 * The search of @o on @jobs processes (fork): units taken dynamically
 * (each process claims the next free unit from a shared counter), the
 * parts merged as --merge does.  0, or -errno with a reason in @why.
 */
int shard_jobs(const struct chk_model *m, const struct chk_opts *o,
	       unsigned int jobs, struct chk_result *r, char *why, size_t len);

/* A part as read back. */
struct shard_part {
	struct shard_spec sp;
	bool violation;
	unsigned int bound;
	unsigned long bsched[CHK_MAX_BOUND + 1], bsteps[CHK_MAX_BOUND + 1];
	unsigned long bstep_cuts[CHK_MAX_BOUND + 1], bstarved[CHK_MAX_BOUND + 1];
	unsigned long schedules, steps, unit, cut;
	unsigned int trace_len;
	struct chk_replay *sched; /* the violation's schedule, as directives */
	unsigned int nsched;
	uint64_t *hashes;
	uint8_t *hash_bound;
	unsigned long nhashes;
};

/* Write @r as a part ("part": {...}) of an open --json object. */
void shard_write_part(struct jw *w, const struct chk_result *r,
		      const struct shard_spec *sp);
/*
 * Parse the @len bytes at @text (JSON, through jansson; a key twice is
 * refused): the tree, which the caller frees with json_decref(), or NULL
 * and why ("truncated at byte N" when the text ends early).
 */
struct json_t *shard_parse(const char *text, size_t len, char *why,
			   size_t wlen);
/* Read the "part" of --json object @item: 0, or -1 and why. */
int shard_read_part(const struct json_t *item, struct shard_part *p, char *why,
		    size_t len);
void shard_part_free(struct shard_part *p);

/*
 * Merge @n parts (one of each K of N) of the search @o on model @m into
 * @r, as one unsharded search reports it (the violation replayed on @m).
 * 0, or -errno with a reason in r->why.
 */
int shard_merge(const struct chk_model *m, const struct chk_opts *o,
		const struct shard_part *parts, unsigned int n,
		struct chk_result *r);

/* The options a part depends on, as one line ("preemptions=2 ..."), and
 * back (0, or -1). */
void shard_options(const struct chk_opts *o, char *buf, size_t len);
int shard_options_parse(const char *s, struct chk_opts *o);

#endif /* CIDKIT_CHECK_SHARD_H */
