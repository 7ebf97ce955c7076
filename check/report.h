/* SPDX-License-Identifier: MIT */
/*
 * check/report.h - what cidkit-check prints of one run (human and --json)
 * and the verdict and exit status it gives, for check/main.c (which
 * parses the options and runs the modes).  The command's options and one
 * run's state are shared by both, so they are defined here.
 */
#ifndef CIDKIT_CHECK_REPORT_H
#define CIDKIT_CHECK_REPORT_H

#include <stdbool.h>

#include <cidkit/cid.h>

#include "chk.h"
#include "cid_model.h"
#include "gen.h"
#include "kmodel.h"
#include "scenario.h"
#include "shard.h"

struct jw;

#define EXIT_LIMIT 3
#define EXIT_MISTAKE 4
#define EXIT_UNEXPECTED 5

#define MAX_FILE (64u * 1024)
#define MAX_REPLAY 1024u /* directives of --replay */
#define REPLAY_LEN 16384u /* bytes of --replay, and of a trace's */

struct opts {
	struct chk_opts c;
	struct kbuild kb; /* --kernel-tree/-source/-patch/-plant (kmodel.h) */
	const char *policy, *scenario, *replay, *show;
	bool json, list, growth, no_por;
	const char *memory; /* --memory, --litmus (check/memory.h) */
	bool litmus;
	/* --shard K/N, --jobs N, --merge FILE... (check/shard.h) */
	const char *shard;
	struct shard_spec sp;
	unsigned int jobs;
	bool merge;
	char **files;
	unsigned int nfiles;
	struct gen_opts gen; /* --generate (gen.h) */
	const char *from_trace;	/* --from-trace (fromtrace.h) */
	char *trace_text;	/* its scenario file */
	bool trace_cids;	/* --trace-cids (kreplay.h) */
};

struct run {
	struct scenario s;
	struct chk_replay replay[MAX_REPLAY];
	char replay_buf[REPLAY_LEN];
	unsigned int nreplay;
	struct cidk_cid_params p;
	char policy[40];
	struct chk_model m;
	struct cid_model *cm;
	struct kmodel *km;	/* the kernel policy (check/kmodel.h) */
	struct chk_result r;
};

/*
 * The verdict of one run, beyond the explorer's: a replay's prefix
 * (stopped at '!') has none; a scenario that expects a violation under
 * its own policy and finds none is an unexpected pass.
 */
enum status { ST_PASS, ST_VIOLATION, ST_LIMIT, ST_MISTAKE, ST_UNEXPECTED,
	      ST_STOPPED };

/* The run's status under the options: the explorer's verdict, then a
 * replay's stopped prefix and an unexpected pass. */
enum status report_status(const struct run *x, const struct opts *o);
/* The exit status of @st; of two exit statuses, the first that applies
 * (1, 4, 5, 3, 0). */
int report_exit(enum status st);
int report_worse_exit(int a, int b);
/* The explorer's verdict as --json and --merge name it. */
const char *report_verdict(const struct chk_result *r);
/* One run on stdout: the verdict line, its scope and, for a violation,
 * the trace, the replay directives and the state. */
void report_human(const struct run *x, const struct opts *o);
/* The wall and CPU time of @r on stderr (stdout stays byte-stable). */
void report_time(const struct chk_result *r);
/* One run as an object of the --json array. */
void report_json(struct jw *w, const struct run *x, const struct opts *o);

#endif /* CIDKIT_CHECK_REPORT_H */
