/* SPDX-License-Identifier: MIT */
/*
 * cidkit check - systematic exploration of interleavings of lib/cid.
 *
 * This is the program `cidkit-check`, built from the checker build of
 * lib/cid (CIDK_CHECKER: every shared-memory step a scheduling point);
 * `cidkit check` runs it (tools/cidkit/cmd_check.c).  It prints; the
 * explorer (explore.c) and the models (cid_model.c) do not.
 *
 * Exit status (the first that applies over the scenarios run): 1 a
 * violation (with its trace); 4 a scenario mistake (its script cannot
 * finish whatever the code does); 5 an unexpected pass (a scenario that
 * says `expect violation`, run under its own policy, passed); 3 a limit
 * (--max-schedules stopped the search, or --max-steps cut executions
 * that were not loops: inconclusive); 0 pass.  2 for bad input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cidkit/cid.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "chk.h"
#include "cid_model.h"
#include "cli.h"
#include "gen.h"
#include "json.h"
#include "litmus.h"
#include "memory.h"
#include "opt.h"
#include "report.h"
#include "fromtrace.h"
#include "kreplay.h"
#include "scenario.h"
#include "shard.h"
#include "shardio.h"

static const char about[] =
	"Explore the interleavings of the real lib/cid code on small scenarios and\n"
	"check, at every step, that no CID has two owners, that running tasks hold\n"
	"one within the policy's bound, that nothing leaks, and that every retry\n"
	"loop makes progress.  A violation prints the shortest schedule found as a\n"
	"numbered trace (step, thread, event, operation, lib/cid source line).\n";

static const char epilog[] =
	"Policies: bitmap, lazy, lazy-batched, cache-local, inherit, ownership;\n"
	"ownership without published fixes: ownership:v6.19 (none), :-W1 (all but\n"
	"W1), :-W1-FORK, :+W1+W4 (only those); fixes W1 W2 W3 W4 FEB FORK VFORK\n"
	"(docs/check.md).  --list, --show and --growth exclude each other.\n"
	"\n"
	"A scenario file (one statement a line, # comments; --show NAME prints one):\n"
	"  name NAME / about TEXT / cpus N / allowed CPULIST / policy P\n"
	"  expect violation|pass              (what its own policy gives)\n"
	"  task NAME [initial] [affinity CPULIST]: EVENT; EVENT; ...\n"
	"  events: in CPU, out, enter CPU, leave, fork TASK, exit, migrate CPU,\n"
	"          affinity CPULIST, tick, rtu\n"
	"--scenario: a built-in name, else a file (./NAME for a file named like one).\n"
	"\n"
	"Verdicts and exit status (several scenarios: the first that applies):\n"
	"  1 violation        a property failed, or a retry loop made no progress\n"
	"  4 scenario mistake the script cannot finish whatever the code does\n"
	"  5 unexpected pass  `expect violation`, under its own policy, passed\n"
	"  3 limit            --max-schedules stopped the search, or --max-steps\n"
	"                     cut runs that were not loops: inconclusive\n"
	"  0 pass             exhaustive, or within the bounds (the cut is counted)\n"
	"  2 bad input (one 'cidkit:' line on stderr)\n"
	"An explorer switch (--preemptions) is the explorer running another task's\n"
	"step while the current one could go on; not a scheduler preemption.\n";


/* ---- one exploration ----------------------------------------------------------- */

static void progress(void *arg, unsigned long n)
{
	const char *name = arg;

	fprintf(stderr, "\rcheck: %s: %lu schedules...", name, n);
	fflush(stderr);
}

static int run_prepare_kernel(struct run *x)
{
	int rc;

	if (!kmodel_version())
		return cli_error("check: --policy kernel needs --kernel-source "
				 "VERSION or --kernel-tree DIR");
	cidk_cid_params_parse("ownership", &x->p); /* (for what reads it) */
	snprintf(x->policy, sizeof(x->policy), "kernel:%s", kmodel_version());
	rc = kmodel_new(&x->s, &x->m, &x->km);
	if (rc)
		return cli_error("check: scenario %s cannot run under kernel%s",
				 x->s.name, rc == -EINVAL ?
				 " (too many tasks or CPUs)" : "");
	return 0;
}

static int run_prepare(struct run *x, const struct opts *o)
{
	const char *pol = o->policy ? o->policy : x->s.policy;

	if (!pol[0])
		pol = "ownership";
	if (!strcmp(pol, "kernel")) /* the kernel's own code (kmodel.h) */
		return run_prepare_kernel(x);
	if (cidk_cid_params_parse(pol, &x->p))
		return cli_error("check: unknown policy '%s' (see --help)", pol);
	if (cidk_cid_params_name(&x->p, x->policy, sizeof(x->policy)) < 0)
		snprintf(x->policy, sizeof(x->policy), "%s", pol);
	if (cid_model_new(&x->s, &x->p, &x->m, &x->cm))
		return cli_error("check: scenario %s cannot run under %s", x->s.name,
				 pol);
	return 0;
}

/* A directive's count, 1..10000000: 0, or prints one line and returns 2. */
static int parse_count(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return *s < '0' || *s > '9' || *end || errno || !*v || *v > 10000000 ?
		       cli_error("check: --replay: '%s': a count must be "
				 "1..10000000", cli_q(s)) : 0;
}

/*
 * --replay LIST: comma-separated directives, T a task of the scenario:
 * "T" (as long as it can), "T:N" (N steps), "T/N" (N events),
 * "T@FUNC" or "T@FUNC*K" (until its next step is in FUNC, the K-th
 * time), "!" (stop there, last).  Fills @c's replay from @x's arrays.
 */
static int parse_replay(struct run *x, const char *arg, struct chk_opts *c)
{
	char *p = x->replay_buf, *item;
	unsigned int n = 0;

	if (strlen(arg) >= sizeof(x->replay_buf))
		return cli_error("check: --replay: longer than %zu bytes",
				 sizeof(x->replay_buf) - 1);
	strcpy(p, arg);
	for (item = p; item; item = p) {
		struct chk_replay *d = &x->replay[n];
		char *sep, *star;
		unsigned int t;

		p = strchr(item, ',');
		if (p)
			*p++ = '\0';
		if (n == MAX_REPLAY)
			return cli_error("check: --replay: more than %u directives",
					 MAX_REPLAY);
		memset(d, 0, sizeof(*d));
		n++;
		if (!strcmp(item, "!")) {
			if (p)
				return cli_error("check: --replay: '!' (stop) must be "
						 "the last directive");
			d->stop = true;
			continue;
		}
		sep = item + strcspn(item, ":/@~");
		if (*sep == '~') { /* one step, memory way K (check/memory.h) */
			unsigned long k;

			if (parse_count(sep + 1, &k))
				return CLI_EXIT_USAGE;
			d->steps = 1;
			d->way = (unsigned int)k;
		} else if (*sep == '@') {
			d->until = sep + 1;
			d->nth = 1;
			star = strchr(d->until, '*');
			if (star) {
				*star = '\0';
				if (parse_count(star + 1, &d->nth))
					return CLI_EXIT_USAGE;
			}
			if (!*d->until)
				return cli_error("check: --replay: '%s' names no function",
						 cli_q(item));
		} else if (*sep && parse_count(sep + 1, *sep == ':' ? &d->steps :
							      &d->events)) {
			return CLI_EXIT_USAGE;
		}
		*sep = '\0';
		for (t = 0; t < x->s.ntasks; t++)
			if (!strcmp(item, x->s.task[t].name))
				break;
		if (t == x->s.ntasks)
			return cli_error("check: --replay: no task '%s' in scenario %s",
					 cli_q(item), x->s.name);
		d->tid = t;
	}
	c->replay = x->replay;
	c->nreplay = x->nreplay = n;
	return 0;
}

static int run_explore(struct run *x, const struct opts *o)
{
	struct chk_opts c = o->c;
	int rc;

	if (o->replay && parse_replay(x, o->replay, &c))
		return CLI_EXIT_USAGE;
	if (!o->json && isatty(2)) {
		c.progress = progress;
		c.progress_arg = x->s.name;
	}
	if (o->jobs > 1) {
		char why[CHK_WHY];

		rc = shard_jobs(&x->m, &c, o->jobs, &x->r, why, sizeof(why));
		if (rc)
			return cli_error("check: --jobs: %s", why);
	} else if (o->shard) {
		rc = shard_explore(&x->m, &c, &o->sp, &x->r);
	} else {
		rc = chk_explore(&x->m, &c, &x->r);
	}
	if (c.progress)
		fprintf(stderr, "\r\033[K");
	if (rc == -EINVAL && c.nreplay)
		return cli_error("check: --replay: %s", x->r.why);
	if (rc)
		return cli_error("check: %s", strerror(-rc));
	return 0;
}

static void run_free(struct run *x)
{
	chk_result_free(&x->r);
	cid_model_free(x->cm);
	x->cm = NULL;
	kmodel_free(x->km);
	x->km = NULL;
}

/*
 * A parse error of file @arg: scn_parse says "line N: WHAT"; the line
 * goes next to the file's name, as a compiler writes it.
 */
static int parse_error(const char *arg, const char *why)
{
	unsigned int line;
	int off = 0;

	if (sscanf(why, "line %u: %n", &line, &off) == 1 && off > 0)
		return cli_error("%s:%u: %s", cli_q(arg), line, why + off);
	return cli_error("%s: %s", cli_q(arg), why);
}

/*
 * --scenario ARG: a built-in scenario's name, else a file.  A word that
 * names no built-in scenario and no file is reported as the name it
 * looks like; ./NAME reads a file named like a built-in scenario.
 */
static int load_scenario(const char *arg, struct scenario *s)
{
	char why[256], *buf;
	size_t n;
	FILE *f;
	int rc;

	if (scn_find(arg, s) == 0)
		return 0;
	f = fopen(arg, "r");
	if (!f && errno == ENOENT && !strchr(arg, '/') && !strstr(arg, ".scn"))
		return cli_error("check: no scenario named '%s' (see --list), "
				 "and no file of that name", cli_q(arg));
	if (!f)
		return cli_error("check: %s: %s", cli_q(arg), strerror(errno));
	buf = malloc(MAX_FILE + 1);
	if (!buf) {
		fclose(f);
		return cli_error("check: out of memory");
	}
	n = fread(buf, 1, MAX_FILE + 1, f);
	fclose(f);
	if (n > MAX_FILE) {
		free(buf);
		return cli_error("check: %s: larger than %u bytes", cli_q(arg), MAX_FILE);
	}
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		free(buf);
		return cli_error("check: %s: not a text file", cli_q(arg));
	}
	rc = scn_parse(buf, s, why, sizeof(why));
	free(buf);
	if (rc)
		return parse_error(arg, why);
	return 0;
}

/* --show NAME: a built-in scenario's text, as a file would hold it. */
static int do_show(const struct opts *o)
{
	struct scenario s;

	for (unsigned int i = 0; scn_library[i]; i++)
		if (!scn_find_index(i, &s) && !strcmp(s.name, o->show)) {
			fputs(scn_library[i], stdout);
			return 0;
		}
	return cli_error("check: --show: no scenario named '%s' (see --list)",
			 cli_q(o->show));
}

/* ---- the modes ------------------------------------------------------------------ */

/* The top-level array of a --json report, one item per line. */
static void json_begin(struct jw *w)
{
	jw_init(w, stdout);
	jw_arr(w);
}

static void json_finish(struct jw *w)
{
	jw_break(w, "\n");
	jw_arr_end(w);
	jw_end(w);
}

static int do_list(const struct opts *o)
{
	struct scenario s;
	char why[200];
	struct jw w;

	if (o->json)
		json_begin(&w);
	for (unsigned int i = 0; scn_library[i]; i++) {
		if (scn_parse(scn_library[i], &s, why, sizeof(why)))
			return cli_error("check: library scenario %u: %s", i, why);
		if (o->json) {
			jw_break(&w, "\n  ");
			jw_obj(&w);
			jw_kstr(&w, "name", s.name);
			jw_kstr(&w, "policy", s.policy);
			jw_kstr(&w, "expect",
				s.expect == 1 ? "violation" : "pass");
			jw_kuint(&w, "cpus", s.cpus);
			jw_kuint(&w, "tasks", s.ntasks);
			jw_kstr(&w, "about", s.about);
			jw_obj_end(&w);
		} else {
			printf("%-18s %-16s %u CPUs, %u tasks, expect %s\n  %s\n",
			       s.name, s.policy, s.cpus, s.ntasks,
			       s.expect == 1 ? "violation" : "pass", s.about);
		}
	}
	if (o->json)
		json_finish(&w);
	return 0;
}
/* --from-trace TRACE: the scenario chk_from_trace() wrote. */
static int load_text(const char *arg, const char *text, struct scenario *s)
{
	char why[256];

	if (scn_parse(text, s, why, sizeof(why)))
		return cli_error("check: --from-trace: %s: the scenario made of "
				 "it does not parse: %s", cli_q(arg), why);
	return 0;
}

static int do_check(const struct opts *o)
{
	unsigned int n = 0, bad = 0, other = 0;
	int status = CLI_EXIT_OK;
	struct jw w;
	int rc;

	for (unsigned int i = 0; o->scenario || scn_library[i]; i++) {
		struct run x;

		memset(&x, 0, sizeof(x));
		rc = o->trace_text ? load_text(o->from_trace, o->trace_text, &x.s)
		     : o->scenario ? load_scenario(o->scenario, &x.s)
				   : scn_find_index(i, &x.s);
		if (rc)
			return CLI_EXIT_USAGE;
		rc = run_prepare(&x, o);
		if (rc)
			return rc;
		rc = run_explore(&x, o);
		if (rc) {
			run_free(&x);
			return rc;
		}
		if (o->json) {
			/* opened at the first result: bad input prints nothing */
			if (!n)
				json_begin(&w);
			report_json(&w, &x, o);
		} else {
			report_human(&x, o);
			if (o->trace_text)
				printf("scenario file (save as trace.scn; "
				       "--scenario trace.scn):\n%s",
				       o->trace_text);
		}
		report_time(&x.r);
		bad += x.r.verdict == CHK_VIOLATION;
		other += report_status(&x, o) != ST_PASS &&
			 report_status(&x, o) != ST_STOPPED &&
			 x.r.verdict != CHK_VIOLATION;
		status = report_worse_exit(status, report_exit(report_status(&x, o)));
		n++;
		run_free(&x);
		if (o->scenario)
			break;
	}
	if (o->json)
		json_finish(&w); /* (n >= 1: a scenario, or all of them) */
	else if (n > 1)
		printf("%u scenarios, %u with a violation, %u with another "
		       "verdict than pass (exit %d)\n", n, bad, other, status);
	return status;
}

/* tasks x CPUs: each task switches in and out twice on two CPUs. */
static void growth_scenario(struct scenario *s, unsigned int tasks,
			    unsigned int cpus)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "grow-%ux%u", tasks, cpus);
	s->cpus = cpus;
	s->allowed = (1ull << cpus) - 1;
	s->ntasks = tasks;
	s->expect = 0;
	for (unsigned int i = 0; i < tasks; i++) {
		struct scn_task *t = &s->task[i];

		snprintf(t->name, sizeof(t->name), "T%u", i & 7u);
		t->initial = true;
		t->nev = 4;
		t->ev[0].kind = SCN_IN;
		t->ev[0].arg = i % cpus;
		t->ev[1].kind = SCN_OUT;
		t->ev[2].kind = SCN_IN;
		t->ev[2].arg = (i + 1) % cpus;
		t->ev[3].kind = SCN_OUT;
	}
}

static int do_growth(const struct opts *o)
{
	static const unsigned int shape[][2] = {
		{ 2, 1 }, { 2, 2 }, { 3, 2 }, { 4, 2 }, { 4, 3 }, { 5, 3 },
		{ 4, 4 }, { 6, 4 },
	};
	struct jw w;

	if (o->json)
		json_begin(&w);
	else
		printf("%-8s %-10s %10s %10s %9s %8s %8s %8s  %s\n", "tasks",
		       "policy", "schedules", "states", "seconds", "sched/s",
		       "states/s", "Msteps/s", "verdict");
	for (size_t k = 0; k < sizeof(shape) / sizeof(shape[0]); k++) {
		struct run x;
		int rc;

		memset(&x, 0, sizeof(x));
		growth_scenario(&x.s, shape[k][0], shape[k][1]);
		rc = run_prepare(&x, o);
		if (rc)
			return rc;
		if (run_explore(&x, o)) {
			run_free(&x);
			return CLI_EXIT_USAGE;
		}
		if (o->json) {
			/* (a measurement: the one report with the wall clock) */
			jw_break(&w, "\n  ");
			jw_obj(&w);
			jw_kuint(&w, "tasks", shape[k][0]);
			jw_kuint(&w, "cpus", shape[k][1]);
			jw_kstr(&w, "policy", x.policy);
			jw_kuint(&w, "schedules", x.r.schedules);
			jw_kuint(&w, "states", x.r.states);
			jw_kuint(&w, "steps", x.r.steps);
			jw_knum(&w, "seconds", x.r.seconds, 3);
			jw_kstr(&w, "verdict", report_verdict(&x.r));
			jw_obj_end(&w);
		} else
			printf("%ux%-6u %-10s %10lu %10lu %9.2f %8.0f %8.0f %8.2f  %s\n",
			       shape[k][0], shape[k][1], x.policy, x.r.schedules,
			       x.r.states, x.r.seconds,
			       x.r.seconds > 0 ? (double)x.r.schedules / x.r.seconds : 0,
			       x.r.seconds > 0 ? (double)x.r.states / x.r.seconds : 0,
			       x.r.seconds > 0 ? (double)x.r.steps / x.r.seconds / 1e6 : 0,
			       report_verdict(&x.r));
		fflush(stdout); /* a row as soon as its shape is done */
		run_free(&x);
	}
	if (o->json)
		json_finish(&w);
	return 0;
}

/* The parts of a sharded search, merged: the report one search gives. */
static int do_merge(const struct opts *o)
{
	struct merge_set set;
	unsigned int bad = 0, other = 0;
	int status = CLI_EXIT_OK;
	struct jw w;
	int rc = merge_load(o->files, o->nfiles, &set);

	for (unsigned int i = 0; !rc && i < set.nitems; i++) {
		struct merge_item *it = &set.item[i];
		struct opts mo = *o;
		struct run x;
		char why[256];

		memset(&x, 0, sizeof(x));
		/* the scenario's own policy when its parts said expect applied */
		mo.policy = it->own_policy ? NULL : it->policy;
		if (shard_options_parse(it->options, &mo.c) ||
		    scn_parse(it->text, &x.s, why, sizeof(why))) {
			rc = cli_error("check: --merge: item %u: bad options or "
				       "scenario", i + 1);
			break;
		}
		rc = run_prepare(&x, &mo);
		if (!rc && shard_merge(&x.m, &mo.c, it->parts, set.n, &x.r))
			rc = cli_error("check: --merge: %s", x.r.why);
		if (rc) {
			run_free(&x);
			break;
		}
		if (o->json) {
			if (!i)
				json_begin(&w);
			report_json(&w, &x, &mo);
		} else {
			report_human(&x, &mo);
		}
		bad += x.r.verdict == CHK_VIOLATION;
		other += report_status(&x, &mo) != ST_PASS &&
			 x.r.verdict != CHK_VIOLATION;
		status = report_worse_exit(status, report_exit(report_status(&x, &mo)));
		run_free(&x);
	}
	if (!rc && o->json)
		json_finish(&w);
	else if (!rc && set.nitems > 1)
		printf("%u scenarios, %u with a violation, %u with another "
		       "verdict than pass (exit %d)\n", set.nitems, bad, other,
		       status);
	merge_free(&set);
	return rc ? rc : status;
}

/* ---- options ---------------------------------------------------------------------- */

/* --shard, --jobs, --merge: what they take and exclude. */
static int check_scale_opts(struct opts *o)
{
	bool other = o->list || o->growth || o->replay;

	if (o->merge)
		return !o->nfiles ? cli_error("check: --merge needs the parts' files") :
		       other || o->shard || o->jobs > 1 || o->scenario ||
		       o->policy ?
			cli_error("check: --merge takes the files and --json only") : 0;
	if (o->nfiles)
		return cli_error("check: %s: files only with --merge",
				 cli_q(o->files[0]));
	if (!o->shard && o->jobs == 1)
		return 0;
	if (o->shard && o->jobs > 1)
		return cli_error("check: --shard and --jobs exclude each other");
	if (other || o->c.max_schedules || o->c.state_cache)
		return cli_error("check: --%s takes no --list, --growth, "
				 "--replay, --max-schedules or --state-cache",
				 o->shard ? "shard" : "jobs");
	if (o->shard && shard_parse_spec(o->shard, &o->sp))
		return cli_error("check: --shard: '%s': K/N expected, 1 <= K <= N "
				 "<= 100000", cli_q(o->shard));
	if (o->c.random && o->c.random < (o->shard ? o->sp.n : o->jobs))
		return cli_error("check: --random %lu: fewer executions than parts",
				 o->c.random);
	return 0;
}

/* --trace-cids: the recorded schedule alone on the kernel's code
 * (kreplay.h); 0 every rseq_update agrees, 1 else, 2 bad input. */
static int do_trace_cids(const struct opts *o)
{
	struct kreplay_result *r = malloc(sizeof(*r));
	char why[512];
	int rc;

	if (!r)
		return cli_error("check: out of memory");
	rc = kreplay_run(o->from_trace, r, why, sizeof(why));
	if (rc) {
		free(r);
		return cli_error("check: --trace-cids: %s", why);
	}
	kreplay_print(o->from_trace, r, o->json);
	rc = r->agree == r->rseq_updates && !r->bug[0] && !r->stopped ? 0 : 1;
	free(r);
	return rc;
}

/* --from-trace: its scenario text, and it stands for --scenario. */
static int from_trace_opt(struct opts *o)
{
	const char *rep;
	char why[512];

	if (o->trace_cids && (!o->from_trace || (!o->kb.tree && !o->kb.source) ||
			      o->scenario || o->replay || o->c.random))
		return cli_error("check: --trace-cids needs --from-trace and "
				 "--kernel-source or --kernel-tree, and takes no "
				 "--scenario, --replay or --random");
	if (!o->from_trace || o->trace_cids)
		return 0;
	if (o->scenario)
		return cli_error("check: --from-trace and --scenario exclude "
				 "each other");
	if (chk_from_trace(o->from_trace, 16, &o->trace_text, &rep, why,
			   sizeof(why)))
		return cli_error("check: --from-trace: %s", why);
	o->scenario = o->from_trace;
	return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	uint64_t max_steps = 20000, max_schedules = 0, random = 0, seed = 1;
	uint64_t generate = 0, budget = 0;
	bool print_gen = false;
	struct opt opts[] = {
		{ OPT_STRING("policy", 0, &o->policy, "P",
			     "a policy, or ownership:v6.19, ownership:-W1... (default: each "
			     "scenario's own)") },
		{ OPT_STRING("scenario", 0, &o->scenario, "S",
			     "a name from --list, else a scenario file (default: "
			     "all)") },
		{ OPT_STRING("from-trace", 0, &o->from_trace, "TRACE",
			     "the scenario of a schedule `cidkit trace record` "
			     "wrote (ftrace text): its thread group's tasks and "
			     "events, the first 16; printed after the verdict") },
		{ OPT_FLAG("trace-cids", 0, &o->trace_cids,
			   "with --from-trace and --kernel-source/--kernel-tree: "
			   "no search; the recorded schedule alone, one event at "
			   "a time, through the kernel's code, and each "
			   "rseq_update's mm_cid compared with its CID (exit 1: "
			   "one differs; docs/check-kernel.md)") },
		{ OPT_UINT("preemptions", 0, &o->c.preemptions, 0, 8, "N",
			   "at most N explorer switches per schedule: the "
			   "explorer runs another task's step while the "
			   "current one could go on (not the scheduler's "
			   "preemption; the scenario's events are those)") },
		{ OPT_UINT("cl-shrink-tries", 0, &cidk__chk_cl_shrink_tries, 1, 4,
			   "N", "cache-local: the shrink of the count of "
			   "never-used CIDs gives up after N lost "
			   "compare-and-swaps, not the library's 4: fewer "
			   "explorer switches reach the give-up "
			   "(docs/check.md, \"Retry bounds\")"), .def = "4" },
		{ OPT_UINT("cl-claim-races", 0, &cidk__chk_cl_claim_races, 0, 64,
			   "N", "cache-local: the claims of never-used CIDs "
			   "give up after the bound's number of iterations "
			   "plus N, not twice the bound (the library's): "
			   "fewer lost races reach the give-up"),
		  .def = "the bound" },
		{ OPT_U64("max-steps", 0, &max_steps, 10, 10000000, "N",
			  "steps per execution: one cut there is a live lock if "
			  "it loops over the same states, else a limit (exit 3)") },
		{ OPT_U64("max-schedules", 0, &max_schedules, 1, 1000000000, "N",
			  "stop after N schedules (verdict limit, exit 3)"),
		  .def = "none" },
		{ OPT_U64("random", 0, &random, 1, 1000000000, "N",
			  "N randomized executions (PCT) instead of the full search"),
		  .def = "" },
		{ OPT_U64("seed", 0, &seed, 0, UINT64_MAX, "S", "PCT seed") },
		{ OPT_UINT("depth", 0, &o->c.pct_depth, 1, 8, "D", "PCT depth") },
		{ OPT_STRING("replay", 0, &o->replay, "LIST",
			     "one schedule instead of the search, directives "
			     "for tasks of the scenario: T (as long as it can), "
			     "T:N (N steps), T/N (N events), T@FUNC[*K] (until "
			     "its next step is in FUNC, the K-th time), ! (stop "
			     "there), comma-separated; then no explorer switch.  "
			     "Prints the trace and the state at the end") },
		{ OPT_FLAG("state-every-step", 0, &o->c.state_every_step,
			   "with --replay: the state after every step, under it") },
		{ OPT_FLAG("no-por", 0, &o->no_por,
			   "no sleep sets (partial-order reduction)") },
		{ OPT_STRING("memory", 0, &o->memory, "MODEL",
			     "sc (sequential consistency), tso (store buffers) "
			     "or rc11 (C11 orders): which store a load may read "
			     "(sleep sets off but with sc)"), .def = "sc" },
		{ OPT_UINT("weak-bound", 0, &o->c.weak_bound, 0, 64, "N",
			   "--memory tso/rc11: at most N weak choices per "
			   "schedule (a load of an older store, a store placed "
			   "before a newer one)") },
		{ OPT_FLAG("state-cache", 0, &o->c.state_cache,
			   "skip states explored before (check/statecache.h): "
			   "the same verdict and trace, fewer schedules") },
		{ OPT_FLAG("plain-points", 0, &o->c.plain_points,
			   "the ownership policy's task list: its plain loads "
			   "and stores scheduling points too (sc only)") },
		{ OPT_STRING("kernel-tree", 0, &o->kb.tree, "DIR",
			     "policy kernel: the mm_cid code of this kernel "
			     "source tree, built at run time (docs/check-kernel.md)") },
		{ OPT_STRING("kernel-source", 0, &o->kb.source, "VERSION",
			     "policy kernel: Debian's linux-source-VERSION (7.2, "
			     "7.2.13), fetched once into the kernel lab's cache") },
		{ OPT_STRING("kernel-patch", 0, &o->kb.patch, "FILES",
			     "policy kernel: patches applied to a copy of the tree "
			     "first (comma-separated, -FILE reversed)") },
		{ OPT_STRING("kernel-plant", 0, &o->kb.plant, "SPEC",
			     "policy kernel: FILE:OLD=>NEW, one line of the "
			     "extracted blocks changed") },
		{ OPT_FLAG("kernel-plain", 0, &o->kb.plain,
			   "policy kernel: every plain load and store of the "
			   "kernel code a scheduling point too (sc only)") },
		{ OPT_FLAG("list", 0, &o->list, "the scenarios"), .group = 1 },
		{ OPT_STRING("show", 0, &o->show, "NAME",
			     "print a built-in scenario's text (a file to start "
			     "from)"), .group = 1 },
		{ OPT_FLAG("growth", 0, &o->growth,
			   "schedules and time as tasks and CPUs grow"), .group = 1 },
		{ OPT_FLAG("litmus", 0, &o->litmus,
			   "the litmus tests under each --memory model"),
		  .group = 1 },
		{ OPT_FLAG("json", 0, &o->json, "JSON instead of text") },
		{ OPT_STRING("shard", 0, &o->shard, "PART",
			     "PART is K/N: explore only the K-th of N parts of "
			     "the search (with --json: a part for --merge)") },
		{ OPT_UINT("jobs", 0, &o->jobs, 1, 64, "N",
			   "the same search on N processes") },
		{ OPT_FLAG("merge", 0, &o->merge,
			   "merge the --json of the parts of a --shard search, "
			   "one FILE each: the report of one search") },
		{ OPT_U64("generate", 0, &generate, 1, 100000000, "N",
			  "N generated scenarios (--seed S picks them), each "
			  "under every policy (or --policy); a violation prints "
			  "the scenario file and its --replay"), .def = "" },
		{ OPT_U64("budget", 0, &budget, 1, 86400, "SECONDS",
			  "--generate: stop starting scenarios after SECONDS"),
		  .def = "none" },
		{ OPT_FLAG("print-generated", 0, &print_gen,
			   "--generate: print the scenario texts, explore nothing") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { "check", about, epilog, "FILE", 0, ~0u, opts };
	int rc, first;

	memset(o, 0, sizeof(*o));
	o->c.preemptions = 2;
	o->c.sleep_sets = true;
	o->c.pct_depth = 3;
	o->c.keep_searching = true;
	o->c.weak_bound = 2;
	o->jobs = 1;
	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return rc == OPT_HELP ? OPT_HELP : rc;
	o->c.max_steps = (unsigned long)max_steps;
	o->c.max_schedules = (unsigned long)max_schedules;
	o->c.random = (unsigned long)random;
	o->c.seed = seed;
	o->c.sleep_sets = !o->no_por;
	if (o->memory && chk_memory_parse(o->memory, &o->c.memory))
		return cli_error("check: --memory: '%s': sc, tso or rc11",
				 cli_q(o->memory));
	if (o->c.memory)
		o->c.sleep_sets = false; /* (their independence is sc's) */
	o->files = argv + first;
	o->nfiles = (unsigned int)(argc - first);
	rc = check_scale_opts(o);
	if (rc)
		return rc;
	rc = from_trace_opt(o);
	if (rc)
		return rc;
	o->gen = (struct gen_opts){ generate, seed, (double)budget, o->policy,
				    print_gen };
	if ((budget || print_gen) && !generate)
		return cli_error("check: --budget and --print-generated need "
				 "--generate");
	if (generate && (o->scenario || o->replay || o->c.random || o->list ||
			 o->show || o->growth || o->json ||
			 o->shard || o->jobs > 1 || o->merge))
		return cli_error("check: --generate takes no --scenario, --replay, "
				 "--random, --list, --show, --growth, "
				 "--json, --shard, --jobs or --merge");
	if ((o->list || o->show) && o->scenario)
		return cli_error("check: --%s takes no --scenario",
				 o->list ? "list" : "show");
	if (o->c.state_every_step && !o->replay)
		return cli_error("check: --state-every-step needs --replay");
	if (o->c.state_cache && (o->c.random || o->replay))
		return cli_error("check: --state-cache is for the full search: "
				 "no --random or --replay");
	/* The fingerprint (check/statecache.c) holds no store buffer or
	 * view of check/memory.c: under tso or rc11 two states it calls
	 * equal may differ. */
	if (o->c.state_cache && o->c.memory)
		return cli_error("check: --state-cache is for --memory sc only "
				 "(the cache does not see store buffers or views)");
	if (o->replay && (!o->scenario || o->c.random || o->list ||
			  o->growth))
		return cli_error("check: --replay needs --scenario and takes no "
				 "--random, --list or --growth");
	if (o->c.plain_points && o->c.memory)
		return cli_error("check: --plain-points is for --memory sc only");
	if (o->kb.tree && o->kb.source)
		return cli_error("check: --kernel-tree and --kernel-source exclude "
				 "each other");
	if ((o->kb.patch || o->kb.plant || o->kb.plain) && !o->kb.tree &&
	    !o->kb.source)
		return cli_error("check: --kernel-patch, --kernel-plant and "
				 "--kernel-plain need --kernel-tree or --kernel-source");
	if (o->kb.plain && o->c.memory)
		return cli_error("check: --kernel-plain is for --memory sc only "
				 "(a plain step's store has no value for the models)");
	if (o->kb.tree || o->kb.source) {
		char why[512];

		if (o->policy && strcmp(o->policy, "kernel"))
			return cli_error("check: --kernel-%s is for --policy kernel",
					 o->kb.tree ? "tree" : "source");
		o->policy = "kernel";
		rc = kmodel_build(&o->kb, why, sizeof(why));
		if (rc == 2)
			return CLI_EXIT_USAGE; /* the build said why */
		if (rc)
			return cli_error("check: %s", rc == -EINVAL ? why :
					 strerror(-rc));
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	int rc = parse(argc, argv, &o);

	if (rc) {
		free(o.trace_text);
		return opt_status(rc);
	}
	if (o.merge)
		return do_merge(&o);
	if (o.list)
		return do_list(&o);
	if (o.show)
		return do_show(&o);
	if (o.growth)
		return do_growth(&o);
	if (o.litmus)
		return litmus_table(stdout, o.c.weak_bound) ? 1 : 0;
	if (o.gen.n)
		return gen_run(&o.gen, &o.c);
	if (o.trace_cids)
		return do_trace_cids(&o);
	rc = do_check(&o);
	free(o.trace_text);
	return rc;
}
