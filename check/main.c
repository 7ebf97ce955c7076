/* SPDX-License-Identifier: MIT */
/*
 * cidkit check - systematic exploration of interleavings of lib/cid.
 *
 * This is the program `cidkit-check`, built from the checker build of
 * lib/cid (CIDK_CHECKER: every shared-memory step a scheduling point);
 * `cidkit check` runs it (tools/cidkit/cmd_check.c).  It prints; the
 * explorer (explore.c) and the models (cid_model.c) do not.
 *
 * Exit status: 0 when every scenario's bounded space holds no violation,
 * 1 when one does (with its trace), 2 for bad input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cidkit/cid.h>

#include "chk.h"
#include "cid_model.h"
#include "cli.h"
#include "gen.h"
#include "json.h"
#include "opt.h"
#include "scenario.h"

#define MAX_FILE (64u * 1024)
#define MAX_REPLAY 1024u /* directives of --replay */
#define REPLAY_LEN 16384u /* bytes of --replay, and of a trace's */

static const char about[] =
	"Explore the interleavings of the real lib/cid code on small scenarios and\n"
	"check, at every step, that no CID has two owners, that running tasks hold\n"
	"one within the policy's bound, that nothing leaks, and that every retry\n"
	"loop makes progress.  A violation prints the shortest schedule found as a\n"
	"numbered trace (step, thread, event, operation, lib/cid source line).\n";

static const char epilog[] =
	"Policies: bitmap, lazy, lazy-batched, cache-local, inherit, ownership,\n"
	"ownership:v6.19.  --list, --mutants and --growth exclude each other.\n"
	"Exit: 0 no violation in the bounded space, 1 a violation, 2 bad input.\n";

static const struct {
	unsigned int id;
	const char *name;
	const char *policy;
	const char *what;
} mutants[] = {
	{ CIDK__MUT_TAKE_TEST_THEN_SET, "take-test-then-set", "bitmap",
	  "a CID bit taken by a load and a store, not one RMW" },
	{ CIDK__MUT_BITMAP_PUT_EARLY, "bitmap-put-early", "bitmap",
	  "the bit given back right after it was taken" },
	{ CIDK__MUT_INHERIT_NO_PUT, "inherit-no-put", "inherit",
	  "switch-out never gives the CID back" },
	{ CIDK__MUT_INHERIT_NO_BOUND, "inherit-no-bound", "inherit",
	  "a last-used CID reused above min(allowed, users)" },
	{ CIDK__MUT_LAZY_SCAN_BUSY, "lazy-scan-busy", "lazy",
	  "the scan releases a slot a task is running with" },
	{ CIDK__MUT_LAZY_PUT_KEEPS_SLOT, "lazy-put-keeps-slot", "lazy",
	  "LAZY_PUT honoured at switch-out, but the CID left in the slot" },
	{ CIDK__MUT_OWN_NO_TRANSIT_CLEAR, "own-no-transit-clear", "ownership",
	  "the CPU->task walk never ends the transit phase" },
	{ CIDK__MUT_OWN_WALK_DROP_RUNNING, "own-walk-drop-running", "ownership",
	  "the task->CPU walk drops a running task's CID" },
	{ CIDK__MUT_OWN_KEEP_TRANSIT, "own-keep-transit", "ownership",
	  "switch-out keeps a CID borrowed in transit" },
	{ CIDK__MUT_OWN_CONVERGE_NO_PUT, "own-converge-no-put", "ownership",
	  "convergence takes a CID below max_cids, keeps the old one" },
	{ CIDK__MUT_OWN_NO_RQ_RECHECK, "own-no-rq-recheck", "ownership",
	  "task_rq_lock without re-checking the task's CPU" },
	{ CIDK__MUT_LEASE_CLAIM_NO_CAS, "lease-claim-no-cas", "lazy",
	  "a lease's fast enter claims its slot by a load and a store" },
	{ CIDK__MUT_LEASE_EXIT_ANY, "lease-exit-any", "lazy",
	  "a lease's fast leave stores over a slot it does not hold" },
	{ CIDK__MUT_LAZY_MIGRATE_BUSY, "lazy-migrate-busy", "lazy",
	  "migration moves a slot's CID while a task runs with it (BUSY ignored)" },
};
#define NR_MUTANTS (sizeof(mutants) / sizeof(mutants[0]))

struct opts {
	struct chk_opts c;
	const char *policy, *scenario, *mutant, *replay;
	bool json, list, mutants, growth, no_por;
	struct gen_opts gen; /* --generate (gen.h) */
};

/* ---- one exploration ----------------------------------------------------------- */

static void progress(void *arg, unsigned long n)
{
	const char *name = arg;

	fprintf(stderr, "\rcheck: %s: %lu schedules...", name, n);
	fflush(stderr);
}

struct run {
	struct scenario s;
	struct chk_replay replay[MAX_REPLAY];
	char replay_buf[REPLAY_LEN];
	unsigned int nreplay;
	struct cidk_cid_params p;
	char policy[40];
	struct chk_model m;
	struct cid_model *cm;
	struct chk_result r;
};

static int run_prepare(struct run *x, const struct opts *o)
{
	const char *pol = o->policy ? o->policy : x->s.policy;

	if (!pol[0])
		pol = "ownership";
	if (cidk_cid_params_parse(pol, &x->p))
		return cli_error("check: unknown policy '%s' (see --help)", pol);
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
		sep = item + strcspn(item, ":/@");
		if (*sep == '@') {
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
	rc = chk_explore(&x->m, &c, &x->r);
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
}

static const char *verdict_str(const struct chk_result *r)
{
	return r->verdict == CHK_VIOLATION ? "violation" :
	       r->verdict == CHK_LIMIT	   ? "limit" : "pass";
}

/*
 * The trace as --replay directives ("T0:19,T1:24,..."), so that a found
 * schedule can be run again, or changed and run.
 */
static const char *replay_str(const struct run *x, char *buf, size_t len)
{
	const struct chk_result *r = &x->r;
	unsigned int items = 0;
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0, k; i < r->trace_len; i = k, items++) {
		unsigned int tid = r->trace[i].tid;

		for (k = i; k < r->trace_len && r->trace[k].tid == tid; k++)
			;
		n += (size_t)snprintf(buf + n, len - n, "%s%s:%u", i ? "," : "",
				      x->m.thread_name(x->m.ctx, tid), k - i);
		if (n >= len || items == MAX_REPLAY)
			return "(longer than --replay takes)";
	}
	return buf;
}

static void print_human(const struct run *x, const struct opts *o)
{
	const struct chk_result *r = &x->r;
	char rep[REPLAY_LEN];

	printf("%s (%s, %u CPUs, %u tasks): %s", x->s.name, x->policy,
	       x->s.cpus, x->s.ntasks,
	       r->verdict == CHK_VIOLATION ? "VIOLATION" :
	       r->verdict == CHK_LIMIT	   ? "stopped at --max-schedules" : "pass");
	if (o->replay)
		printf(" - a replay of %u directive(s), %lu steps%s\n",
		       x->nreplay, r->steps, r->stopped ? ", stopped" : "");
	else if (o->c.random)
		printf(" - %lu random executions (seed %llu, depth %u), %lu states\n",
		       r->schedules, (unsigned long long)o->c.seed,
		       o->c.pct_depth, r->states);
	else
		printf(" - %lu schedules, %lu states, preemption bound %u of %u, "
		       "sleep sets %s\n",
		       r->schedules, r->states, r->bound, o->c.preemptions,
		       o->c.sleep_sets ? "on" : "off");
	if (r->verdict == CHK_VIOLATION) {
		printf("%s: %s\n", r->property, r->why);
		printf("trace: %u steps, %u preemption(s) (* marks one)\n",
		       r->trace_len, r->trace_preemptions);
		chk_print_trace(stdout, &x->m, r);
		printf("replay: --replay %s\n", replay_str(x, rep, sizeof(rep)));
		printf("state at the violation:\n%s", r->dump ? r->dump : "");
	} else if (o->replay) {
		printf("trace: %u steps, %u preemption(s) (* marks one)\n",
		       r->trace_len, r->trace_preemptions);
		chk_print_trace(stdout, &x->m, r);
		printf("state at the %s:\n%s", r->stopped ? "stop" : "end",
		       r->dump ? r->dump : "");
	}
}

/*
 * The wall clock goes to stderr, so that standard output (text or JSON)
 * is the same bytes for the same scenario and bounds.
 */
static void print_time(const struct chk_result *r)
{
	double s = r->seconds > 0 ? r->seconds : 0.0;

	fflush(stdout);
	fprintf(stderr,
		"time: %.2f s, %.0f schedules/s, %.0f distinct states/s, "
		"%.0f steps/s\n",
		r->seconds, s ? (double)r->schedules / s : 0.0,
		s ? (double)r->states / s : 0.0, s ? (double)r->steps / s : 0.0);
}

static void json_trace(struct jw *w, const struct chk_model *m,
		       const struct chk_result *r)
{
	jw_arr(w);
	for (unsigned int i = 0; i < r->trace_len; i++) {
		const struct chk_step *s = &r->trace[i];
		char what[160];

		chk_step_what(s, what, sizeof(what));
		jw_break(w, "\n   ");
		jw_obj(w);
		jw_kuint(w, "step", i + 1);
		jw_kstr(w, "thread", m->thread_name(m->ctx, s->tid));
		if (s->cpu >= 0)
			jw_kint(w, "cpu", s->cpu);
		else
			jw_knull(w, "cpu");
		jw_kbool(w, "preemption", s->preempt);
		jw_kstr(w, "event", s->event);
		jw_kstr(w, "op", chk_op_name(s->op));
		jw_kstr(w, "what", what);
		jw_kstr(w, "source", chk_short_file(s->site.file));
		jw_kuint(w, "line", s->site.line);
		jw_kstr(w, "function", s->site.func ? s->site.func : "");
		if (s->has_values) {
			jw_kuint(w, "found", s->found);
			jw_kuint(w, "left", s->left);
		}
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

/* One scenario's result, an item of the top-level array (no wall clock). */
static void print_json(struct jw *w, const struct run *x, const struct opts *o)
{
	const struct chk_result *r = &x->r;
	char rep[REPLAY_LEN];

	jw_break(w, "\n  ");
	jw_obj(w);
	jw_kstr(w, "scenario", x->s.name);
	jw_kstr(w, "policy", x->policy);
	jw_kuint(w, "cpus", x->s.cpus);
	jw_kuint(w, "tasks", x->s.ntasks);
	jw_kstr(w, "verdict", verdict_str(r));
	jw_kuint(w, "schedules", r->schedules);
	jw_kuint(w, "steps", r->steps);
	jw_kuint(w, "states", r->states);
	jw_kuint(w, "preemption_bound", o->c.preemptions);
	jw_kuint(w, "bound_reached", r->bound);
	jw_kbool(w, "sleep_sets", o->c.sleep_sets);
	jw_kuint(w, "random", o->c.random);
	if (r->verdict == CHK_VIOLATION) {
		jw_kstr(w, "property", r->property);
		jw_kstr(w, "why", r->why);
	}
	if (r->verdict == CHK_VIOLATION || o->replay) {
		if (o->replay)
			jw_kbool(w, "stopped", r->stopped);
		jw_kuint(w, "preemptions", r->trace_preemptions);
		jw_key(w, "trace");
		json_trace(w, &x->m, r);
		jw_kstr(w, "replay", replay_str(x, rep, sizeof(rep)));
		jw_kstr(w, "state", r->dump ? r->dump : "");
	}
	jw_obj_end(w);
}

static int load_scenario(const char *arg, struct scenario *s)
{
	char why[256], *buf;
	size_t n;
	FILE *f;
	int rc;

	if (scn_find(arg, s) == 0)
		return 0;
	if (!strchr(arg, '/') && !strchr(arg, '.'))
		return cli_error("check: no scenario named '%s' (see --list)", arg);
	f = fopen(arg, "r");
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
		return cli_error("check: %s: %s", cli_q(arg), why);
	return 0;
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

static int do_check(const struct opts *o)
{
	unsigned int n = 0, bad = 0;
	struct jw w;
	int rc;

	for (unsigned int i = 0; o->scenario || scn_library[i]; i++) {
		struct run x;

		memset(&x, 0, sizeof(x));
		rc = o->scenario ? load_scenario(o->scenario, &x.s)
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
			print_json(&w, &x, o);
		} else {
			print_human(&x, o);
		}
		print_time(&x.r);
		bad += x.r.verdict == CHK_VIOLATION;
		n++;
		run_free(&x);
		if (o->scenario)
			break;
	}
	if (o->json)
		json_finish(&w); /* (n >= 1: a scenario, or all of them) */
	else if (n > 1)
		printf("%u scenarios, %u with a violation\n", n, bad);
	return bad ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

/* A --mutants item, left open for the killer's fields. */
static void json_mutant(struct jw *w, size_t k, bool killed,
			unsigned long schedules)
{
	jw_break(w, "\n  ");
	jw_obj(w);
	jw_kstr(w, "mutant", mutants[k].name);
	jw_kstr(w, "policy", mutants[k].policy);
	jw_kbool(w, "killed", killed);
	jw_kuint(w, "schedules", schedules);
}

/* Every mutant against every scenario, under the mutant's policy. */
static int do_mutants(const struct opts *o)
{
	unsigned int killed = 0;
	double elapsed = 0;
	struct jw w;

	if (o->json)
		json_begin(&w);
	else
		printf("%-22s %-10s %-18s %5s %9s  %s\n", "mutant", "policy",
		       "killed by", "steps", "schedules", "fault");
	for (size_t k = 0; k < NR_MUTANTS; k++) {
		struct run x;
		bool dead = false;
		unsigned long total = 0;

		cidk__chk_mutant = mutants[k].id;
		for (unsigned int i = 0; scn_library[i] && !dead; i++) {
			struct opts mo = *o;

			memset(&x, 0, sizeof(x));
			scn_find_index(i, &x.s);
			if (x.s.expect == 1)
				continue; /* the published-bug scenarios */
			mo.policy = mutants[k].policy;
			if (run_prepare(&x, &mo))
				return CLI_EXIT_USAGE;
			mo.c.keep_searching = false;
			if (run_explore(&x, &mo)) {
				run_free(&x);
				return CLI_EXIT_USAGE;
			}
			total += x.r.schedules;
			elapsed += x.r.seconds;
			if (x.r.verdict == CHK_VIOLATION) {
				dead = true;
				killed++;
				if (o->json) {
					json_mutant(&w, k, true, total);
					jw_kstr(&w, "scenario", x.s.name);
					jw_kstr(&w, "property", x.r.property);
					jw_kuint(&w, "steps", x.r.trace_len);
					jw_obj_end(&w);
				} else {
					printf("%-22s %-10s %-18s %5u %9lu  %s (%s)\n",
					       mutants[k].name, mutants[k].policy,
					       x.s.name, x.r.trace_len, total,
					       mutants[k].what, x.r.property);
				}
			}
			run_free(&x);
		}
		if (!dead) {
			if (o->json) {
				json_mutant(&w, k, false, total);
				jw_obj_end(&w);
			} else
				printf("%-22s %-10s %-18s %5s %9lu  %s\n",
				       mutants[k].name, mutants[k].policy, "SURVIVED",
				       "-", total, mutants[k].what);
		}
	}
	cidk__chk_mutant = CIDK__MUT_NONE;
	if (o->json)
		json_finish(&w);
	else
		printf("%u of %zu mutants killed\n", killed, NR_MUTANTS);
	fflush(stdout);
	fprintf(stderr, "time: %.2f s\n", elapsed);
	return killed == NR_MUTANTS ? CLI_EXIT_OK : CLI_EXIT_FAIL;
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
		printf("%-8s %-10s %10s %10s %9s %8s  %s\n", "tasks", "policy",
		       "schedules", "states", "seconds", "sched/s", "verdict");
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
			jw_knum(&w, "seconds", x.r.seconds, 3);
			jw_kstr(&w, "verdict", verdict_str(&x.r));
			jw_obj_end(&w);
		} else
			printf("%ux%-6u %-10s %10lu %10lu %9.2f %8.0f  %s\n",
			       shape[k][0], shape[k][1], x.policy, x.r.schedules,
			       x.r.states, x.r.seconds,
			       x.r.seconds > 0 ? (double)x.r.schedules / x.r.seconds : 0,
			       verdict_str(&x.r));
		run_free(&x);
	}
	if (o->json)
		json_finish(&w);
	return 0;
}

/* ---- options ---------------------------------------------------------------------- */

static int parse(int argc, char **argv, struct opts *o)
{
	uint64_t max_steps = 20000, max_schedules = 0, random = 0, seed = 1;
	uint64_t generate = 0, budget = 0;
	bool print_gen = false;
	struct opt opts[] = {
		{ OPT_STRING("policy", 0, &o->policy, "P",
			     "a policy, or ownership:v6.19 (default: each "
			     "scenario's own)") },
		{ OPT_STRING("scenario", 0, &o->scenario, "S",
			     "a name from --list, or a scenario file (default: all)") },
		{ OPT_UINT("preemptions", 0, &o->c.preemptions, 0, 8, "N",
			   "at most N preemptions per schedule") },
		{ OPT_U64("max-steps", 0, &max_steps, 10, 10000000, "N",
			  "steps per execution before it counts as no progress") },
		{ OPT_U64("max-schedules", 0, &max_schedules, 1, 1000000000, "N",
			  "stop after N schedules"), .def = "none" },
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
			     "there), comma-separated; then no preemption.  "
			     "Prints the trace and the state at the end") },
		{ OPT_FLAG("no-por", 0, &o->no_por,
			   "no sleep sets (partial-order reduction)") },
		{ OPT_STRING("mutant", 0, &o->mutant, "NAME",
			     "switch on one deliberately broken behaviour (--mutants)") },
		{ OPT_FLAG("list", 0, &o->list, "the scenarios"), .group = 1 },
		{ OPT_FLAG("mutants", 0, &o->mutants, "the mutation table"),
		  .group = 1 },
		{ OPT_FLAG("growth", 0, &o->growth,
			   "schedules and time as tasks and CPUs grow"), .group = 1 },
		{ OPT_FLAG("json", 0, &o->json, "JSON instead of text") },
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
	struct opt_cmd cmd = { "check", about, epilog, NULL, 0, 0, opts };
	int rc, first;

	memset(o, 0, sizeof(*o));
	o->c.preemptions = 2;
	o->c.sleep_sets = true;
	o->c.pct_depth = 3;
	o->c.keep_searching = true;
	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return rc == OPT_HELP ? OPT_HELP : rc;
	o->c.max_steps = (unsigned long)max_steps;
	o->c.max_schedules = (unsigned long)max_schedules;
	o->c.random = (unsigned long)random;
	o->c.seed = seed;
	o->c.sleep_sets = !o->no_por;
	o->gen = (struct gen_opts){ generate, seed, (double)budget, o->policy,
				    print_gen };
	if ((budget || print_gen) && !generate)
		return cli_error("check: --budget and --print-generated need "
				 "--generate");
	if (generate && (o->scenario || o->replay || o->c.random || o->list ||
			 o->mutants || o->growth || o->json))
		return cli_error("check: --generate takes no --scenario, --replay, "
				 "--random, --list, --mutants, --growth or --json");
	if ((o->mutants || o->list) && (o->scenario || o->mutant))
		return cli_error("check: --%s takes no --scenario or --mutant",
				 o->list ? "list" : "mutants");
	if (o->replay && (!o->scenario || o->c.random || o->list ||
			  o->mutants || o->growth))
		return cli_error("check: --replay needs --scenario and takes no "
				 "--random, --list, --mutants or --growth");
	if (o->mutant) {
		size_t k;

		for (k = 0; k < NR_MUTANTS; k++)
			if (!strcmp(o->mutant, mutants[k].name))
				break;
		if (k == NR_MUTANTS)
			return cli_error("check: unknown mutant '%s' (see --mutants)",
					 o->mutant);
		cidk__chk_mutant = mutants[k].id;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	int rc = parse(argc, argv, &o);

	if (rc)
		return opt_status(rc);
	if (o.list)
		return do_list(&o);
	if (o.mutants)
		return do_mutants(&o);
	if (o.growth)
		return do_growth(&o);
	if (o.gen.n)
		return gen_run(&o.gen, &o.c);
	return do_check(&o);
}
