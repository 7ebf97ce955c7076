/* SPDX-License-Identifier: MIT */
/*
 * The checker's scenario files (check/scenario.c, `cidkit check
 * --scenario FILE`) on any bytes.  Properties:
 *   - scn_parse() returns 0 or -EINVAL; a refusal is one line, "line N: ...",
 *     with no control byte (the file's bytes it quotes included), N one of
 *     the text's lines;
 *   - what it accepts makes sense: 1..64 CPUs, 1..8 tasks with distinct
 *     names, the first one initial, every CPU and affinity inside the
 *     machine, every fork naming a task that is not initial, and every
 *     task that is not initial forked exactly once;
 *   - printed back as text by this harness (its own writer, not the
 *     parser's) and parsed again, it is the same scenario, field by field.
 */
#include <errno.h>
#include <stdarg.h>

#include "fuzz.h"
#include "scenario.h"

/* Append to a growing text (no overflow: the buffer is sized for the worst case). */
struct out {
	char buf[16384];
	size_t n;
};

__attribute__((format(printf, 2, 3))) static void put(struct out *o,
						      const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(o->buf + o->n, sizeof(o->buf) - o->n, fmt, ap);
	va_end(ap);
	FUZZ_CHECK(k >= 0 && (size_t)k < sizeof(o->buf) - o->n);
	o->n += (size_t)k;
}

/*
 * A cpulist in ranges ("0-3,5"): never longer than any way of writing
 * the same set, so that the text printed back fits the parser's line
 * limit whenever the input did.
 */
static void put_cpus(struct out *o, uint64_t mask)
{
	const char *sep = "";

	for (unsigned int c = 0; c < 64; c++) {
		unsigned int end = c;

		if (!(mask & (1ull << c)))
			continue;
		while (end + 1 < 64 && (mask & (1ull << (end + 1))))
			end++;
		if (end == c)
			put(o, "%s%u", sep, c);
		else if (end == c + 1)
			put(o, "%s%u,%u", sep, c, end);
		else
			put(o, "%s%u-%u", sep, c, end);
		sep = ",";
		c = end;
	}
}

static void write_scenario(const struct scenario *s, struct out *o)
{
	uint64_t all = s->cpus == 64 ? UINT64_MAX : (1ull << s->cpus) - 1;

	if (strcmp(s->name, "(unnamed)"))
		put(o, "name %s\n", s->name);
	if (s->about[0])
		put(o, "about %s\n", s->about);
	if (s->policy[0])
		put(o, "policy %s\n", s->policy);
	if (s->expect >= 0)
		put(o, "expect %s\n", s->expect ? "violation" : "pass");
	put(o, "cpus %u\n", s->cpus);
	if (s->allowed != all) {
		put(o, "allowed ");
		put_cpus(o, s->allowed);
		put(o, "\n");
	}
	for (unsigned int i = 0; i < s->ntasks; i++) {
		const struct scn_task *t = &s->task[i];

		/* (the shortest spelling, see put_cpus; a word may hold a
		 * colon, so a space after it) */
		put(o, "task %s%s", t->name, t->initial ? " initial" : "");
		if (t->affinity) {
			put(o, " affinity ");
			put_cpus(o, t->affinity);
		}
		put(o, ": ");
		for (unsigned int k = 0; k < t->nev; k++) {
			const struct scn_event *e = &t->ev[k];

			put(o, "%s", k ? ";" : "");
			switch (e->kind) {
			case SCN_IN:
				put(o, "%s %u", e->lease ? "enter" : "in", e->arg);
				break;
			case SCN_OUT:
				put(o, "%s", e->lease ? "leave" : "out");
				break;
			case SCN_MIGRATE:
				put(o, "migrate %u", e->arg);
				break;
			case SCN_FORK:
				put(o, "fork %s", s->task[e->arg].name);
				break;
			case SCN_EXIT:
				put(o, "exit");
				break;
			case SCN_AFFINITY:
				put(o, "affinity ");
				put_cpus(o, e->mask);
				break;
			case SCN_TICK:
				put(o, "tick");
				break;
			case SCN_RTU:
				put(o, "rtu");
				break;
			}
		}
		put(o, "\n");
	}
}

static void check_sense(const struct scenario *s)
{
	uint64_t all = s->cpus == 64 ? UINT64_MAX : (1ull << s->cpus) - 1;
	unsigned int forked[CHK_MAX_THREADS] = { 0 };

	FUZZ_CHECK(s->cpus >= 1 && s->cpus <= 64);
	FUZZ_CHECK(s->allowed && !(s->allowed & ~all));
	FUZZ_CHECK(s->ntasks >= 1 && s->ntasks <= CHK_MAX_THREADS);
	FUZZ_CHECK(s->task[0].initial);
	FUZZ_CHECK(s->expect >= -1 && s->expect <= 1);
	for (unsigned int i = 0; i < s->ntasks; i++) {
		const struct scn_task *t = &s->task[i];

		FUZZ_CHECK(t->name[0] && !strchr(t->name, ':') &&
			   !strchr(t->name, ','));
		for (unsigned int j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(t->name, s->task[j].name));
		FUZZ_CHECK(t->nev <= SCN_MAX_EVENTS);
		FUZZ_CHECK(!(t->affinity & ~all));
		for (unsigned int k = 0; k < t->nev; k++) {
			const struct scn_event *e = &t->ev[k];

			if (e->kind == SCN_IN || e->kind == SCN_MIGRATE)
				FUZZ_CHECK(e->arg < s->cpus);
			if (e->kind == SCN_AFFINITY)
				FUZZ_CHECK(e->mask && !(e->mask & ~all));
			if (e->kind == SCN_FORK) {
				FUZZ_CHECK(e->arg < s->ntasks);
				FUZZ_CHECK(!s->task[e->arg].initial);
				forked[e->arg]++;
			}
		}
	}
	for (unsigned int i = 0; i < s->ntasks; i++)
		FUZZ_CHECK(s->task[i].initial || forked[i] == 1);
}

static void check_same(const struct scenario *a, const struct scenario *b)
{
	FUZZ_CHECK(!strcmp(a->name, b->name));
	FUZZ_CHECK(!strcmp(a->about, b->about));
	FUZZ_CHECK(!strcmp(a->policy, b->policy));
	FUZZ_CHECK(a->expect == b->expect && a->cpus == b->cpus &&
		   a->allowed == b->allowed && a->ntasks == b->ntasks);
	for (unsigned int i = 0; i < a->ntasks; i++) {
		const struct scn_task *x = &a->task[i], *y = &b->task[i];

		FUZZ_CHECK(!strcmp(x->name, y->name) &&
			   x->initial == y->initial && x->nev == y->nev &&
			   x->affinity == y->affinity);
		for (unsigned int k = 0; k < x->nev; k++)
			FUZZ_CHECK(x->ev[k].kind == y->ev[k].kind &&
				   x->ev[k].arg == y->ev[k].arg &&
				   x->ev[k].mask == y->ev[k].mask &&
				   x->ev[k].lease == y->ev[k].lease);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct scenario s, again;
	static struct out o;
	char *text = fuzz_str(data, size), why[256];
	int rc;

	why[0] = '\0';
	rc = scn_parse(text, &s, why, sizeof(why));
	FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	if (rc) {
		unsigned int line = 0, lines = 1;

		for (const char *q = text; *q; q++)
			lines += *q == '\n';
		FUZZ_CHECK(!strncmp(why, "line ", 5));
		FUZZ_CHECK(sscanf(why, "line %u:", &line) == 1 && line >= 1 &&
			   line <= lines);
		for (const char *q = why; *q; q++)
			FUZZ_CHECK((unsigned char)*q >= 0x20 && *q != 0x7f);
	} else {
		check_sense(&s);
		o.n = 0;
		write_scenario(&s, &o);
		rc = scn_parse(o.buf, &again, why, sizeof(why));
		if (rc)
			fprintf(stderr, "fuzz: reparse: %s\n%s", why, o.buf);
		FUZZ_CHECK(rc == 0);
		check_same(&s, &again);
	}
	free(text);
	return 0;
}
