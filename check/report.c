/* SPDX-License-Identifier: MIT */
/*
 * check/report.c - what cidkit-check prints of one run: the verdict
 * line with its scope (bounds, memory model, what the bound cut), the
 * trace of a violation with its replay directives and state, and the
 * same as --json; and the verdict and exit status of the run (report.h).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "memory.h"
#include "report.h"
#include "shardio.h"

/* Does the scenario's `expect` apply (its own policy, the code as it is)? */
static bool expect_applies(const struct run *x, const struct opts *o)
{
	return !o->policy && !o->replay && x->s.policy[0];
}

enum status report_status(const struct run *x, const struct opts *o)
{
	switch (x->r.verdict) {
	case CHK_VIOLATION:
		return ST_VIOLATION;
	case CHK_MISTAKE:
		return ST_MISTAKE;
	case CHK_LIMIT:
		return ST_LIMIT;
	case CHK_PASS:
		break;
	}
	if (o->replay && x->r.stopped)
		return ST_STOPPED;
	if (x->s.expect == 1 && expect_applies(x, o))
		return ST_UNEXPECTED;
	return ST_PASS;
}

int report_exit(enum status st)
{
	static const int code[] = {
		[ST_PASS] = CLI_EXIT_OK, [ST_VIOLATION] = CLI_EXIT_FAIL,
		[ST_LIMIT] = EXIT_LIMIT, [ST_MISTAKE] = EXIT_MISTAKE,
		[ST_UNEXPECTED] = EXIT_UNEXPECTED, [ST_STOPPED] = CLI_EXIT_OK,
	};

	return code[st];
}

/* The first that applies: 1, 4, 5, 3, 0. */
int report_worse_exit(int a, int b)
{
	static const int order[] = { CLI_EXIT_FAIL, EXIT_MISTAKE,
				     EXIT_UNEXPECTED, EXIT_LIMIT };

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (a == order[i] || b == order[i])
			return order[i];
	return CLI_EXIT_OK;
}

static const char *status_str(enum status st)
{
	static const char *const name[] = {
		[ST_PASS] = "pass", [ST_VIOLATION] = "violation",
		[ST_LIMIT] = "limit", [ST_MISTAKE] = "mistake",
		[ST_UNEXPECTED] = "unexpected-pass", [ST_STOPPED] = "stopped",
	};

	return name[st];
}

const char *report_verdict(const struct chk_result *r)
{
	return r->verdict == CHK_VIOLATION ? "violation" :
	       r->verdict == CHK_MISTAKE   ? "mistake" :
	       r->verdict == CHK_LIMIT	   ? "limit" : "pass";
}

/* No schedule left out: no bound cut one, no --max-steps, no limit. */
static bool exhaustive(const struct chk_result *r, const struct opts *o)
{
	return !o->c.random && !o->replay && r->verdict == CHK_PASS &&
	       !r->cut && !r->step_cuts && !r->schedule_limit;
}

/*
 * The second line of a search that found nothing (or stopped): what was
 * explored and what the bounds left out, so that "pass" says how much.
 */
static void print_scope(const struct run *x, const struct opts *o,
			enum status st)
{
	const struct chk_result *r = &x->r;
	char what[200];

	if (o->c.random)
		snprintf(what, sizeof(what),
			 "%lu random executions (PCT, seed %llu, depth %u; not "
			 "exhaustive), %s, --max-steps %lu",
			 r->schedules, (unsigned long long)o->c.seed,
			 o->c.pct_depth, chk_memory_scope(&o->c), o->c.max_steps);
	else
		snprintf(what, sizeof(what),
			 "<= %u explorer switch(es), %s, "
			 "sleep sets %s, --max-steps %lu",
			 o->c.preemptions, chk_memory_scope(&o->c),
			 o->c.sleep_sets ? "on" : "off", o->c.max_steps);
	if (st == ST_LIMIT && r->schedule_limit) {
		printf("limit: --max-schedules %lu reached before the search "
		       "was done (%s): inconclusive\n",
		       o->c.max_schedules, what);
	} else if (st == ST_LIMIT) {
		printf("limit: --max-steps %lu cut %lu execution(s) that kept "
		       "changing the state (long runs, not loops): "
		       "inconclusive; raise --max-steps (%s)\n",
		       o->c.max_steps, r->step_cuts, what);
	} else if (exhaustive(r, o)) {
		printf("%s: exhaustive - every schedule ran to its end, none "
		       "cut by the bound or --max-steps (%s, sleep sets %s)\n",
		       st == ST_UNEXPECTED ? "unexpected pass" : "pass",
		       chk_memory_scope(&o->c), o->c.sleep_sets ? "on" : "off");
	} else if (o->c.random) {
		printf("%s: %s\n",
		       st == ST_UNEXPECTED ? "unexpected pass" : "pass", what);
	} else {
		printf("%s: %s; the bound cut at least %lu schedule(s)\n",
		       st == ST_UNEXPECTED ? "unexpected pass" : "pass", what,
		       r->cut);
	}
	if (st == ST_UNEXPECTED)
		printf("the scenario says 'expect violation' under its own "
		       "policy %s, and none was found\n", x->s.policy);
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

		if (r->trace[i].way) { /* T~K: a weak memory choice */
			k = i + 1;
			n += (size_t)snprintf(buf + n, len - n, "%s%s~%u",
					      i ? "," : "",
					      x->m.thread_name(x->m.ctx, tid),
					      r->trace[i].way);
			if (n >= len || items == MAX_REPLAY)
				return "(longer than --replay takes)";
			continue;
		}
		for (k = i; k < r->trace_len && r->trace[k].tid == tid &&
			    !r->trace[k].way; k++)
			;
		n += (size_t)snprintf(buf + n, len - n, "%s%s:%u", i ? "," : "",
				      x->m.thread_name(x->m.ctx, tid), k - i);
		if (n >= len || items == MAX_REPLAY)
			return "(longer than --replay takes)";
	}
	return buf;
}

static void print_trace_block(const struct run *x)
{
	const struct chk_result *r = &x->r;

	printf("trace: %u steps, %u explorer switch(es) (* marks one: another "
	       "task's step while this one could go on)\n",
	       r->trace_len, r->trace_preemptions);
	chk_print_trace(stdout, &x->m, r);
}

void report_human(const struct run *x, const struct opts *o)
{
	const struct chk_result *r = &x->r;
	enum status st = report_status(x, o);
	char rep[REPLAY_LEN];
	static const char *const head[] = {
		[ST_PASS] = "pass", [ST_VIOLATION] = "VIOLATION",
		[ST_LIMIT] = "LIMIT", [ST_MISTAKE] = "SCENARIO MISTAKE",
		[ST_UNEXPECTED] = "UNEXPECTED PASS", [ST_STOPPED] = "stopped",
	};

	printf("%s (%s, %u CPUs, %u tasks): ", x->s.name, x->policy, x->s.cpus,
	       x->s.ntasks);
	if (o->replay && st == ST_STOPPED)
		printf("stopped at '!' after %lu steps - a prefix of a schedule, "
		       "no verdict (the final checks did not run)\n", r->steps);
	else if (o->replay && st == ST_PASS)
		printf("no violation on this one schedule - a replay of %u "
		       "directive(s), %lu steps\n", x->nreplay, r->steps);
	else if (o->replay)
		printf("%s - a replay of %u directive(s), %lu steps\n", head[st],
		       x->nreplay, r->steps);
	else if (o->c.random)
		printf("%s - %lu random executions (seed %llu, depth %u), %lu states%s\n",
		       head[st], r->schedules, (unsigned long long)o->c.seed,
		       o->c.pct_depth, r->states, chk_memory_verdict(&o->c));
	else
		printf("%s - %lu schedules, %lu states, explorer-switch bound %u "
		       "of %u, sleep sets %s%s\n", head[st],
		       r->schedules, r->states, r->bound, o->c.preemptions,
		       o->c.sleep_sets ? "on" : "off", chk_memory_verdict(&o->c));
	if (r->verdict == CHK_VIOLATION || r->verdict == CHK_MISTAKE) {
		if (r->verdict == CHK_MISTAKE)
			printf("scenario mistake: the script cannot finish, "
			       "whatever the code does: %s\n", r->why);
		else
			printf("%s: %s\n", r->property, r->why);
		print_trace_block(x);
		printf("replay: %s--replay %s\n", chk_memory_replay(&o->c),
		       replay_str(x, rep, sizeof(rep)));
		printf("state at the %s:\n%s",
		       r->verdict == CHK_MISTAKE ? "end" : "violation",
		       r->dump ? r->dump : "");
	} else if (o->replay) {
		if (st == ST_LIMIT)
			printf("limit: --max-steps %lu reached before the "
			       "schedule ended, no loop: inconclusive\n",
			       o->c.max_steps);
		print_trace_block(x);
		printf("state at the %s:\n%s", r->stopped ? "stop" : "end",
		       r->dump ? r->dump : "");
	} else {
		print_scope(x, o, st);
	}
}

/*
 * The wall clock goes to stderr, so that standard output (text or JSON)
 * is the same bytes for the same scenario and bounds.
 */
void report_time(const struct chk_result *r)
{
	double s = r->seconds > 0 ? r->seconds : 0.0;

	fflush(stdout);
	fprintf(stderr,
		"time: %.2f s, %.0f schedules/s, %.0f distinct states/s, "
		"%.0f steps/s\n",
		r->seconds, s ? (double)r->schedules / s : 0.0,
		s ? (double)r->states / s : 0.0, s ? (double)r->steps / s : 0.0);
	if (r->cache_states) /* --state-cache */
		fprintf(stderr, "state cache: %lu states recorded, %lu "
			"executions ended at one\n", r->cache_states,
			r->cache_hits);
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
		if (s->state)
			jw_kstr(w, "state", s->state);
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
void report_json(struct jw *w, const struct run *x, const struct opts *o)
{
	const struct chk_result *r = &x->r;
	char rep[REPLAY_LEN];

	jw_break(w, "\n  ");
	jw_obj(w);
	jw_kstr(w, "scenario", x->s.name);
	jw_kstr(w, "policy", x->policy);
	jw_kuint(w, "cpus", x->s.cpus);
	jw_kuint(w, "tasks", x->s.ntasks);
	jw_kstr(w, "verdict", status_str(report_status(x, o)));
	if (x->s.expect >= 0)
		jw_kstr(w, "expect", x->s.expect ? "violation" : "pass");
	jw_kbool(w, "expect_applies", expect_applies(x, o));
	jw_kuint(w, "schedules", r->schedules);
	jw_kuint(w, "steps", r->steps);
	jw_kuint(w, "states", r->states);
	/* (explorer switches: the option's name, --preemptions) */
	jw_kuint(w, "preemption_bound", o->c.preemptions);
	jw_kuint(w, "bound_reached", r->bound);
	jw_kbool(w, "sleep_sets", o->c.sleep_sets);
	if (o->c.memory) { /* (sc: the keys the files had before) */
		jw_kstr(w, "memory", chk_memory_name(o->c.memory));
		jw_kuint(w, "weak_bound", o->c.weak_bound);
	}
	jw_kuint(w, "max_steps", o->c.max_steps);
	jw_kuint(w, "random", o->c.random);
	jw_kbool(w, "exhaustive", exhaustive(r, o));
	jw_kuint(w, "cut_schedules", r->cut);
	jw_kuint(w, "step_cuts", r->step_cuts);
	jw_kuint(w, "starved_cycles", r->starved);
	if (r->verdict == CHK_LIMIT)
		jw_kstr(w, "limit", r->schedule_limit ? "max-schedules" : "max-steps");
	if (r->verdict == CHK_VIOLATION || r->verdict == CHK_MISTAKE) {
		jw_kstr(w, "property", r->property);
		jw_kstr(w, "why", r->why);
	}
	if (r->verdict == CHK_VIOLATION || r->verdict == CHK_MISTAKE ||
	    o->replay) {
		if (o->replay)
			jw_kbool(w, "stopped", r->stopped);
		jw_kuint(w, "preemptions", r->trace_preemptions);
		jw_key(w, "trace");
		json_trace(w, &x->m, r);
		jw_kstr(w, "replay", replay_str(x, rep, sizeof(rep)));
		jw_kstr(w, "state", r->dump ? r->dump : "");
	}
	if (o->shard)
		shardio_json(w, o->scenario, &x->s, &o->c, &o->sp, r);
	jw_obj_end(w);
}