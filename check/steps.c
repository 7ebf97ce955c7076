/* SPDX-License-Identifier: MIT */
/*
 * check/steps.c - a schedule's steps in words: the operation's name, the
 * lib/cid source line, the value it read or wrote, and the numbered
 * trace a violation prints (chk.h: chk_op_name, chk_step_what,
 * chk_print_trace).  The explorer (explore.c) records the steps; this
 * file only reads them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "chk.h"

const char *chk_op_name(int op)
{
	switch (op) {
	case CIDK__OP_LOAD: return "load";
	case CIDK__OP_STORE: return "store";
	case CIDK__OP_RMW: return "rmw";
	case CIDK__OP_CAS: return "cas";
	case CIDK__OP_LOCK: return "lock";
	case CIDK__OP_UNLOCK: return "unlock";
	case CIDK__OP_SPIN: return "spin";
	case CHK_OP_START: return "start";
	case CHK_OP_EVENT: return "event";
	case CHK_OP_FENCE: return "fence";
	default: return "?";
	}
}

/* "lib/cid/ownership.c" from whatever path the compiler recorded */
const char *chk_short_file(const char *f)
{
	const char *p;

	if (!f)
		return "";
	p = strstr(f, "lib/cid/");
	if (!p) /* the kernel policy's: kernel/sched/core.c, include/linux/ */
		p = strstr(f, "kernel/sched/");
	if (!p)
		p = strstr(f, "include/linux/");
	if (p)
		return p;
	p = strrchr(f, '/');
	return p ? p + 1 : f;
}

static void value_str(char *buf, size_t len, uint64_t v)
{
	if (v == 0xffffffffu)
		snprintf(buf, len, "NONE");
	else if (v >= 0x20000000u && v < 0x100000000ull)
		snprintf(buf, len, "%#" PRIx64, v);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

void chk_step_what(const struct chk_step *s, char *buf, size_t len)
{
	char a[24], b[24];
	const char *name = s->addr_name[0] ? s->addr_name : NULL;

	if (s->op == CHK_OP_START || s->op == CHK_OP_EVENT) {
		snprintf(buf, len, "%s", s->op == CHK_OP_START ? "start" : "begin");
		return;
	}
	if (s->op == CIDK__OP_SPIN) {
		snprintf(buf, len, "spin (wait for a free CID)");
		return;
	}
	if (s->op == CHK_OP_FENCE) {
		snprintf(buf, len, "fence (seq_cst)");
		return;
	}
	value_str(a, sizeof(a), s->found);
	value_str(b, sizeof(b), s->left);
	if (!s->has_values)
		snprintf(buf, len, "%s %s", chk_op_name(s->op), name ? name : "?");
	else if (s->op == CIDK__OP_LOAD)
		snprintf(buf, len, "load %s = %s", name ? name : "?", a);
	else if (s->found == s->left && s->op != CIDK__OP_LOCK &&
		 s->op != CIDK__OP_UNLOCK)
		snprintf(buf, len, "%s %s: %s (unchanged)", chk_op_name(s->op),
			 name ? name : "?", a);
	else
		snprintf(buf, len, "%s %s: %s -> %s", chk_op_name(s->op),
			 name ? name : "?", a, b);
	if (s->way) { /* a weak memory choice (check/memory.h) */
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, s->op == CIDK__OP_LOAD ?
			 " (an older store, ~%u)" : " (before a newer store, ~%u)",
			 s->way);
	}
}

void chk_print_trace(FILE *f, const struct chk_model *m,
		     const struct chk_result *r)
{
	for (unsigned int i = 0; i < r->trace_len; i++) {
		const struct chk_step *s = &r->trace[i];
		char what[160], cpu[16] = "-";

		chk_step_what(s, what, sizeof(what));
		if (s->cpu >= 0)
			snprintf(cpu, sizeof(cpu), "cpu%d", s->cpu);
		fprintf(f, "%4u %c %-4s %-5s %-10s ", i + 1, s->preempt ? '*' : ' ',
			m->thread_name(m->ctx, s->tid), cpu, s->event);
		if (s->site.file)
			fprintf(f, "%-36s %s:%u %s\n", what,
				chk_short_file(s->site.file), s->site.line,
				s->site.func);
		else
			fprintf(f, "%s\n", what);
		/* --state-every-step: the state after it, indented */
		for (const char *l = s->state; l && *l;) {
			size_t n = strcspn(l, "\n");

			fprintf(f, "       | %.*s\n", (int)n, l);
			l += n + (l[n] == '\n');
		}
	}
}
