/* SPDX-License-Identifier: MIT */
/*
 * check/scenario.c - the scenario grammar (scenario.h) and the library of
 * named scenarios.
 *
 * The parser reads each line once, keeps nothing but the scenario, and
 * rejects what it does not know (with the line number and the token it
 * stopped at): a scenario is input a user writes, so a typo must not
 * become a silently different scenario.  A script is also checked for sense before it runs: `in` only
 * when not running, `out`, `fork`, `tick`, `rtu` only while running,
 * nothing after `exit`, every forked task forked exactly once.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/cid.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "scenario.h"

/* ---- the library -------------------------------------------------------------- */

const char *const scn_library[] = {
	/* the two published ownership bugs */
	"name published-livelock\n"
	"about the BPF CI live lock: 4 CPUs, the main thread creates the 5th thread "
	"while T1 schedules in, out, migrates and in again before the walk reaches it\n"
	"cpus 4\n"
	"policy ownership:v6.19\n"
	"expect violation\n"
	"task T0 initial: in 0; fork T4; out\n"
	"task T1 initial: in 1; out; migrate 2; in 2; out\n"
	"task T2 initial:\n"
	"task T3 initial:\n"
	"task T4:\n",

	"name livelock-3cpu\n"
	"about the same live lock on 3 CPUs: T0 creates the 4th thread\n"
	"cpus 3\n"
	"policy ownership:v6.19\n"
	"expect violation\n"
	"task T0 initial: in 0; fork T3; out\n"
	"task T1 initial: in 1; out; migrate 2; in 2; out\n"
	"task T2 initial:\n"
	"task T3:\n",

	"name concurrent-forks\n"
	"about two forks at once, the second crosses the per-CPU threshold while "
	"the first's new task is not yet on the task list\n"
	"cpus 3\n"
	"policy ownership:v6.19\n"
	"expect violation\n"
	"task T0 initial: in 0; fork TA\n"
	"task T1 initial: in 1; fork TB\n"
	"task TA: in 2; out\n"
	"task TB: in 2; out\n",

	/* ownership's transitions */
	"name switch-back\n"
	"about per-CPU mode and back, on 2 allowed CPUs of 4: a fork crosses the "
	"threshold, exits fall below pcpu_thrs while T0 runs (the CPU->task walk "
	"with transit)\n"
	"cpus 4\n"
	"allowed 0-1\n"
	"policy ownership\n"
	"expect pass\n"
	"task T0 initial: in 0; fork T2; out; in 0; out\n"
	"task T1 initial: exit\n"
	"task T2: in 1; out; exit\n",

	"name fork-walk-migrate\n"
	"about a fork's task->CPU walk while a task migrates between its "
	"runqueue lock and its re-check\n"
	"cpus 2\n"
	"policy ownership\n"
	"expect pass\n"
	"task T0 initial: in 0; fork T2; out\n"
	"task T1 initial: migrate 1; in 1; out; migrate 0; in 0; out\n"
	"task T2: in 1; out\n",

	/* each 2026 fix shown necessary on its own (docs/check.md) */
	"name exit-switch-back\n"
	"about W3: an exit on the running task switches back to per-task; without "
	"the fix its CPU's CID passes to it in transit and, kept at its last "
	"switch-out (W4), leaks\n"
	"cpus 4\n"
	"allowed 0-1\n"
	"policy ownership\n"
	"expect pass\n"
	"task T0 initial: in 0; fork T2; out\n"
	"task T1 initial: exit\n"
	"task T2: in 0; exit\n",

	"name exit-in-transit\n"
	"about FEB: T1 exits holding the transit CID the fork's walk gave it (W1); "
	"without the fix the switch back gives its CPU's CID back with the TRANSIT "
	"bit in it\n"
	"cpus 4\n"
	"allowed 0-1\n"
	"policy ownership\n"
	"expect pass\n"
	"task T0 initial: in 0; fork T2; out\n"
	"task T1 initial: in 1; exit\n"
	"task T2: exit\n",

	"name vfork-walk\n"
	"about VFORK: a fork goes per-CPU while a CLONE_VM user holds a CID; without "
	"the fix the walk counts the threads twice, misses it, and T2 finds no CID\n"
	"cpus 2\n"
	"policy ownership\n"
	"expect pass\n"
	"task T0 initial: in 0; fork T2; out\n"
	"task V initial clone-vm:\n"
	"task T2: in 1; out\n",

	/* every policy */
	"name switch-race\n"
	"about two tasks switching in and out on two CPUs at the same time\n"
	"cpus 2\n"
	"policy bitmap\n"
	"expect pass\n"
	"task T0 initial: in 0; out; in 1; out\n"
	"task T1 initial: in 1; out; in 0; out\n",

	"name exit-shrink\n"
	"about a task exits while another switches: the bound min(allowed, users) "
	"shrinks under the running one\n"
	"cpus 4\n"
	"policy inherit\n"
	"expect pass\n"
	"task T0 initial: in 0; exit\n"
	"task T1 initial: in 1; out; in 1; out\n",

	"name scan-race\n"
	"about the lazy family's compaction scan (on return to user) against switches, "
	"migration and an exit on other CPUs\n"
	"cpus 2\n"
	"policy lazy\n"
	"expect pass\n"
	"task T0 initial: in 0; out; in 0; rtu; rtu; out\n"
	"task T1 initial: in 1; out; migrate 0; in 0; out; exit\n",

	"name lazy-put\n"
	"about a scan runs while T2 holds CID 2 above the weight: it marks T2's "
	"slot LAZY_PUT and T2 gives the CID back at switch-out\n"
	"cpus 3\n"
	"policy lazy\n"
	"expect pass\n"
	"task T0 initial: in 0; rtu; rtu; rtu; out\n"
	"task T1 initial: in 1; out; exit\n"
	"task T2 initial: in 2; out\n",

	"name converge\n"
	"about users shrink under a task holding a high CID: at its next "
	"switch-in the CID converges below the new bound\n"
	"cpus 4\n"
	"policy ownership\n"
	"expect pass\n"
	"task T0 initial: in 0; out\n"
	"task T1 initial: exit\n"
	"task T2 initial: exit\n"
	"task T3 initial: in 3; out; in 3; out\n",

	"name affinity-grow\n"
	"about a task widens its affinity (the allowed union and max_cids grow) "
	"while the others switch in and out, in per-CPU mode\n"
	"cpus 3\n"
	"allowed 0-1\n"
	"policy ownership\n"
	"expect pass\n"
	"task T0 initial: in 0; out; in 1; out\n"
	"task T1 initial: affinity 0-2; in 2; out\n"
	"task T2 initial: in 1; out\n",

	"name fork-exit\n"
	"about forks and exits racing with switches (users grow and shrink)\n"
	"cpus 2\n"
	"policy cache-local\n"
	"expect pass\n"
	"task T0 initial: in 0; fork T2; out; in 0; out\n"
	"task T1 initial: in 1; out; exit\n"
	"task T2: in 1; out\n",

	/* leases' fast paths (lib/cid/lease_fast.h) */
	"name lease-claim\n"
	"about a lease re-claims its CPU's idle CID with one CAS while the task "
	"that left it there exits and gives it back\n"
	"cpus 1\n"
	"policy lazy\n"
	"expect pass\n"
	"task T0 initial: enter 0; leave; enter 0; leave\n"
	"task T1 initial: enter 0; leave; exit\n",

	"name lease-leave\n"
	"about a lease leaves with one store while a migration parks another "
	"task's CID on its CPU\n"
	"cpus 2\n"
	"policy lazy\n"
	"expect pass\n"
	"task T0 initial: enter 0; leave\n"
	"task T1 initial: in 1; out; migrate 0\n",

	"name lease-scan\n"
	"about leases enter and leave (fast paths) while the compaction scan "
	"marks and releases their CIDs and a task exits\n"
	"cpus 2\n"
	"policy cache-local\n"
	"expect pass\n"
	"task T0 initial: enter 0; rtu; leave; enter 0; rtu; leave\n"
	"task T1 initial: enter 1; leave; enter 1; leave; exit\n"
	"task T2 initial: enter 0; rtu; leave\n",
	NULL,
};

/* ---- the grammar ---------------------------------------------------------------- */

struct parse {
	struct scenario *s;
	unsigned int line;
	char *why;
	size_t len;
};

/* "line N: MSG near 'TOKEN'" (no token: NULL or empty) into p->why. */
static int verr(struct parse *p, const char *tok, const char *fmt, va_list ap)
{
	char msg[200];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	if (tok && *tok)
		snprintf(msg + n, sizeof(msg) - n, " near '%.24s%s'", tok,
			 strlen(tok) > 24 ? "..." : "");
	/* the file's own bytes may be quoted: no control byte on the terminal */
	for (char *q = msg; *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '?';
	snprintf(p->why, p->len, "line %u: %s", p->line, msg);
	return -EINVAL;
}

__attribute__((format(printf, 2, 3))) static int err(struct parse *p,
						     const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = verr(p, NULL, fmt, ap);
	va_end(ap);
	return rc;
}

/* The same, naming the token the parser stopped at. */
__attribute__((format(printf, 3, 4))) static int err_near(struct parse *p,
							  const char *tok,
							  const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = verr(p, tok, fmt, ap);
	va_end(ap);
	return rc;
}

/* The first word at @c, for a message (up to a blank or ';'). */
static const char *token_at(const char *c, char *buf, size_t len)
{
	size_t n;

	while (*c == ' ' || *c == '\t')
		c++;
	n = strcspn(c, " \t;");
	if (!n && *c)
		n = 1;
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), c);
	return buf;
}

static const char *skip_ws(const char *c)
{
	while (*c == ' ' || *c == '\t')
		c++;
	return c;
}

/* A word of [A-Za-z0-9_.:-,] into @buf (':' only inside); the rest after it. */
static const char *word(const char *c, char *buf, size_t len)
{
	size_t n = 0;

	c = skip_ws(c);
	while (*c && (isalnum((unsigned char)*c) || strchr("_.-,", *c) ||
		      (*c == ':' && n && (isalnum((unsigned char)c[1]) ||
					  c[1] == '-')))) {
		if (n + 1 < len)
			buf[n] = *c;
		n++;
		c++;
	}
	buf[n < len ? n : len - 1] = '\0';
	if (n >= len)
		buf[0] = '\0'; /* too long: reported as empty/unknown */
	return c;
}

static int parse_uint(const char *w, unsigned int max, unsigned int *out)
{
	unsigned long v = 0;

	if (!*w || strlen(w) > 6)
		return -1;
	for (const char *c = w; *c; c++) {
		if (!isdigit((unsigned char)*c))
			return -1;
		v = v * 10 + (unsigned long)(*c - '0');
	}
	if (v > max)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static int find_task(const struct scenario *s, const char *name)
{
	for (unsigned int i = 0; i < s->ntasks; i++)
		if (!strcmp(s->task[i].name, name))
			return (int)i;
	return -1;
}

/* "0-3,5" into a mask of CPUs below @cpus */
static int parse_cpus(const char *w, unsigned int cpus, uint64_t *mask)
{
	*mask = 0;
	while (*w) {
		unsigned int a, b;
		char num[8];
		size_t n = strcspn(w, ",-");

		if (n == 0 || n >= sizeof(num))
			return -1;
		memcpy(num, w, n);
		num[n] = '\0';
		if (parse_uint(num, cpus - 1, &a))
			return -1;
		b = a;
		w += n;
		if (*w == '-') {
			w++;
			n = strcspn(w, ",");
			if (n == 0 || n >= sizeof(num))
				return -1;
			memcpy(num, w, n);
			num[n] = '\0';
			if (parse_uint(num, cpus - 1, &b) || b < a)
				return -1;
			w += n;
		}
		for (unsigned int c = a; c <= b; c++)
			*mask |= 1ull << c;
		if (*w == ',')
			w++;
	}
	return *mask ? 0 : -1;
}

/* Pending forks are resolved after all tasks are known: keep names. */
struct fork_ref {
	unsigned int task, ev, line;
	char name[8];
};

static int parse_script(struct parse *p, struct scn_task *t, const char *c,
			struct fork_ref *refs, unsigned int *nrefs)
{
	struct scenario *s = p->s;

	for (;;) {
		char w[16], a[256]; /* the longest cpulist of 64 CPUs: 181 */
		char tok[32];
		const char *at;
		struct scn_event *e;

		c = skip_ws(c);
		if (!*c)
			return 0;
		if (t->nev == SCN_MAX_EVENTS)
			return err(p, "task %s: more than %d events", t->name,
				   SCN_MAX_EVENTS);
		e = &t->ev[t->nev];
		memset(e, 0, sizeof(*e));
		at = c;
		c = word(c, w, sizeof(w));
		if (strchr(w, ',') && strcmp(w, "affinity"))
			return err_near(p, token_at(at, tok, sizeof(tok)),
					"events are separated by ';', not ','");
		if (!strcmp(w, "in") || !strcmp(w, "migrate") ||
		    !strcmp(w, "enter")) {
			at = c;
			c = word(c, a, sizeof(a));
			if (strchr(a, ','))
				return err_near(p, token_at(at, tok, sizeof(tok)),
						"events are separated by ';', not ','");
			if (parse_uint(a, s->cpus - 1, &e->arg))
				return err_near(p, token_at(at, tok, sizeof(tok)),
						"'%s' needs a CPU below %u", w,
						s->cpus);
			e->kind = w[0] == 'm' ? SCN_MIGRATE : SCN_IN;
			e->lease = w[0] == 'e';
		} else if (!strcmp(w, "out") || !strcmp(w, "leave")) {
			e->kind = SCN_OUT;
			e->lease = w[0] == 'l';
		} else if (!strcmp(w, "exit")) {
			e->kind = SCN_EXIT;
		} else if (!strcmp(w, "tick")) {
			e->kind = SCN_TICK;
		} else if (!strcmp(w, "rtu")) {
			e->kind = SCN_RTU;
		} else if (!strcmp(w, "fork")) {
			at = c;
			c = word(c, a, sizeof(a));
			if (strchr(a, ','))
				return err_near(p, token_at(at, tok, sizeof(tok)),
						"events are separated by ';', not ','");
			if (!a[0] || strlen(a) >= sizeof(refs->name))
				return err_near(p, token_at(at, tok, sizeof(tok)),
						"'fork' needs a task name");
			e->kind = SCN_FORK;
			refs[*nrefs].task = (unsigned int)(t - s->task);
			refs[*nrefs].ev = t->nev;
			refs[*nrefs].line = p->line;
			snprintf(refs[*nrefs].name, sizeof(refs->name), "%s", a);
			++*nrefs;
		} else if (!strcmp(w, "affinity")) {
			at = c;
			c = word(c, a, sizeof(a));
			if (parse_cpus(a, s->cpus, &e->mask))
				return err_near(p, token_at(at, tok, sizeof(tok)),
						"'affinity' needs a cpulist below %u",
						s->cpus);
			e->kind = SCN_AFFINITY;
		} else {
			return err_near(p, token_at(at, tok, sizeof(tok)),
					"unknown event");
		}
		t->nev++;
		c = skip_ws(c);
		if (*c == ';')
			c++;
		else if (*c)
			return err_near(p, token_at(c, tok, sizeof(tok)),
					"expected ';' between events");
	}
}

/* An event as its script spells it, for a message ("fork T3", "in 2"). */
static void event_word(const struct scenario *s, const struct scn_event *e,
		       char *buf, size_t len)
{
	if (e->kind == SCN_AFFINITY)
		snprintf(buf, len, "affinity");
	else
		scn_event_str(s, e, buf, len);
}

/* Walk each script as its task would run it: does it make sense? */
static int check_sense(struct parse *p)
{
	struct scenario *s = p->s;
	unsigned int forked_by[CHK_MAX_THREADS] = { 0 };

	for (unsigned int i = 0; i < s->ntasks; i++) {
		const struct scn_task *t = &s->task[i];
		bool running = false, exited = false;
		/* the task's CPUs, as events change them */
		uint64_t mine = scn_task_cpus(s, i);

		p->line = t->line; /* (messages name the task's line) */
		for (unsigned int k = 0; k < t->nev; k++) {
			const struct scn_event *e = &t->ev[k];
			char ev[32];

			event_word(s, e, ev, sizeof(ev));
			if (exited)
				return err_near(p, ev, "task %s: an event after 'exit'",
						t->name);
			switch (e->kind) {
			case SCN_IN:
			case SCN_MIGRATE:
				if (!(mine & (1ull << e->arg)))
					return err_near(p, ev,
							"task %s: CPU %u is not allowed",
							t->name, e->arg);
				if (running)
					return err_near(p, ev, "task %s: '%s' while running",
							t->name, e->kind == SCN_IN ? "in" : "migrate");
				running = e->kind == SCN_IN;
				break;
			case SCN_OUT:
			case SCN_FORK:
			case SCN_TICK:
			case SCN_RTU:
				if (!running)
					return err_near(p, ev,
							"task %s: an event that needs it running, while it is not",
							t->name);
				if (e->kind == SCN_OUT)
					running = false;
				if (e->kind == SCN_FORK) {
					if (s->task[e->arg].initial)
						return err_near(p, ev,
								"task %s forks initial task %s",
								t->name, s->task[e->arg].name);
					forked_by[e->arg]++;
				}
				break;
			case SCN_EXIT:
				exited = true;
				running = false;
				break;
			case SCN_AFFINITY:
				mine = e->mask;
				break;
			}
		}
	}
	for (unsigned int i = 0; i < s->ntasks; i++)
		if (!s->task[i].initial && forked_by[i] != 1) {
			p->line = s->task[i].line;
			return err_near(p, s->task[i].name,
					"task %s is not initial and forked %u times (want 1)",
					s->task[i].name, forked_by[i]);
		}
	return 0;
}

int scn_parse(const char *text, struct scenario *s, char *why, size_t len)
{
	struct parse p = { s, 0, why, len };
	struct fork_ref refs[CHK_MAX_THREADS * SCN_MAX_EVENTS];
	unsigned int nrefs = 0;
	const char *c = text;
	int rc;

	memset(s, 0, sizeof(*s));
	s->expect = -1;
	snprintf(s->name, sizeof(s->name), "(unnamed)");
	while (*c) {
		char line[512], key[16], tok[32];
		size_t n = strcspn(c, "\n");
		const char *r, *at;

		p.line++;
		if (n >= sizeof(line))
			return err(&p, "line longer than %zu bytes", sizeof(line) - 1);
		memcpy(line, c, n);
		line[n] = '\0';
		c += n + (c[n] == '\n');
		for (char *q = line; *q; q++)
			if (*q == '#' || *q == '\r')
				*q = '\0';
		r = skip_ws(line);
		if (!*r)
			continue;
		at = r;
		r = word(r, key, sizeof(key));
		r = skip_ws(r);
		if (!strcmp(key, "name") || !strcmp(key, "policy")) {
			char v[32];
			struct cidk_cid_params pp;

			at = r;
			r = word(r, v, sizeof(v));
			if (!v[0] || *skip_ws(r))
				return err_near(&p, token_at(v[0] ? r : at, tok,
							     sizeof(tok)),
						"'%s' takes one word", key);
			if (key[0] == 'p' && cidk_cid_params_parse(v, &pp))
				return err_near(&p, v,
						"unknown policy (see --help)");
			snprintf(key[0] == 'n' ? s->name : s->policy, 32, "%s", v);
		} else if (!strcmp(key, "about")) {
			snprintf(s->about, sizeof(s->about), "%s", r);
		} else if (!strcmp(key, "cpus")) {
			char v[16];

			/* (once: the tasks' CPUs were checked against it) */
			if (s->cpus)
				return err(&p, "'cpus' given twice");
			at = r;
			r = word(r, v, sizeof(v));
			if (parse_uint(v, SCN_MAX_CPUS, &s->cpus) || !s->cpus ||
			    *skip_ws(r))
				return err_near(&p, token_at(at, tok, sizeof(tok)),
						"'cpus' takes a number from 1 to %d",
						SCN_MAX_CPUS);
			s->allowed = s->cpus == 64 ? UINT64_MAX
						   : (1ull << s->cpus) - 1;
		} else if (!strcmp(key, "allowed")) {
			char v[256]; /* as an affinity's cpulist */

			if (!s->cpus)
				return err(&p, "'cpus' must come before 'allowed'");
			at = r;
			r = word(r, v, sizeof(v));
			if (parse_cpus(v, s->cpus, &s->allowed) || *skip_ws(r))
				return err_near(&p, token_at(at, tok, sizeof(tok)),
						"'allowed' takes a cpulist below %u",
						s->cpus);
		} else if (!strcmp(key, "expect")) {
			char v[16];

			at = r;
			r = word(r, v, sizeof(v));
			if (!strcmp(v, "violation") && !*skip_ws(r))
				s->expect = 1;
			else if (!strcmp(v, "pass") && !*skip_ws(r))
				s->expect = 0;
			else
				return err_near(&p, token_at(at, tok, sizeof(tok)),
						"'expect' takes 'violation' or 'pass'");
		} else if (!strcmp(key, "task")) {
			struct scn_task *t;
			char name[16], flag[16];

			if (!s->cpus)
				return err(&p, "'cpus' must come before the tasks");
			if (s->ntasks == CHK_MAX_THREADS)
				return err(&p, "more than %d tasks", CHK_MAX_THREADS);
			at = r;
			r = word(r, name, sizeof(name));
			if (!name[0] || strlen(name) >= sizeof(t->name) ||
			    strchr(name, ':') || strchr(name, ','))
				return err_near(&p, token_at(at, tok, sizeof(tok)),
						"a task needs a name of 1 to %zu letters",
						sizeof(t->name) - 1);
			if (find_task(s, name) >= 0)
				return err_near(&p, name, "task %s declared twice",
						name);
			t = &s->task[s->ntasks++];
			snprintf(t->name, sizeof(t->name), "%s", name);
			t->line = p.line;
			r = skip_ws(r);
			/* [initial] [clone-vm] [affinity CPULIST], any order */
			while (*r && *r != ':') {
				at = r;
				r = word(r, flag, sizeof(flag));
				if (!strcmp(flag, "initial") && !t->initial) {
					t->initial = true;
				} else if (!strcmp(flag, "clone-vm") && !t->clone_vm) {
					t->clone_vm = true;
				} else if (!strcmp(flag, "affinity") && !t->affinity) {
					char v[256]; /* as an affinity's cpulist */

					r = skip_ws(r);
					at = r;
					r = word(r, v, sizeof(v));
					if (parse_cpus(v, s->cpus, &t->affinity) ||
					    !t->affinity)
						return err_near(&p, token_at(at, tok, sizeof(tok)),
								"'affinity' needs a cpulist below %u",
								s->cpus);
				} else {
					return err_near(&p, token_at(at, tok, sizeof(tok)),
							"expected 'initial', 'clone-vm', "
							"'affinity CPULIST' or ':' after the "
							"task name");
				}
				r = skip_ws(r);
			}
			if (*r != ':')
				return err_near(&p, token_at(r, tok, sizeof(tok)),
						"expected ':' before the events");
			rc = parse_script(&p, t, r + 1, refs, &nrefs);
			if (rc)
				return rc;
		} else {
			return err_near(&p, token_at(at, tok, sizeof(tok)),
					"unknown keyword");
		}
	}
	if (!p.line)
		p.line = 1; /* an empty text: its first line */
	if (!s->cpus || !s->ntasks)
		return err(&p, "a scenario needs 'cpus' and at least one task");
	if (!s->task[0].initial) {
		p.line = s->task[0].line;
		return err_near(&p, s->task[0].name,
				"the first task must be initial");
	}
	for (unsigned int i = 0; i < nrefs; i++) {
		int k = find_task(s, refs[i].name);

		p.line = refs[i].line; /* the fork's own line */
		if (k < 0)
			return err_near(&p, refs[i].name, "fork of an unknown task");
		s->task[refs[i].task].ev[refs[i].ev].arg = (unsigned int)k;
	}
	return check_sense(&p);
}

int scn_find(const char *name, struct scenario *s)
{
	char why[200];

	for (unsigned int i = 0; scn_library[i]; i++) {
		if (scn_parse(scn_library[i], s, why, sizeof(why)))
			return -EINVAL; /* the library is tested: never */
		if (!strcmp(s->name, name))
			return 0;
	}
	return -ENOENT;
}

int scn_find_index(unsigned int i, struct scenario *s)
{
	char why[200];

	if (!scn_library[i])
		return -ENOENT;
	return scn_parse(scn_library[i], s, why, sizeof(why)) ? -EINVAL : 0;
}

void scn_event_str(const struct scenario *s, const struct scn_event *e,
		   char *buf, size_t len)
{
	switch (e->kind) {
	case SCN_IN:
		snprintf(buf, len, "%s %u", e->lease ? "enter" : "in", e->arg);
		break;
	case SCN_OUT:
		snprintf(buf, len, e->lease ? "leave" : "out");
		break;
	case SCN_FORK:
		snprintf(buf, len, "fork %s", s->task[e->arg].name);
		break;
	case SCN_EXIT:
		snprintf(buf, len, "exit");
		break;
	case SCN_MIGRATE:
		snprintf(buf, len, "migrate %u", e->arg);
		break;
	case SCN_AFFINITY:
		snprintf(buf, len, "affinity %#llx", (unsigned long long)e->mask);
		break;
	case SCN_TICK:
		snprintf(buf, len, "tick");
		break;
	case SCN_RTU:
		snprintf(buf, len, "rtu");
		break;
	}
}
