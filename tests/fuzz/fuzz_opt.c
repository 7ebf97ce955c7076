/* SPDX-License-Identifier: MIT */
/*
 * The command's option parser (tools/cli/opt.c) on any command line.
 * The first byte picks a table (every option type; or groups and a
 * required option) and the operands the command takes; the rest is the
 * argv, NUL-separated.  stdout and stderr go to memory files during the
 * parse.  Properties, on every input:
 *  - opt_parse() returns 0, OPT_HELP or CLI_EXIT_USAGE, and agrees with a
 *    reference decoding of the same argv (below, written from opt.h's
 *    grammar and the table's data, not from opt.c): the same outcome and,
 *    for a refusal, the same kind of error;
 *  - a refusal prints nothing on stdout and exactly one stderr line,
 *    "cidkit: t: ...", with no control byte and a bounded length;
 *  - --help prints nothing on stderr, and on stdout the table's help at
 *    its defaults, whatever values came before --help;
 *  - an accepted argv prints nothing; every value is within its declared
 *    range and equals the reference's (numbers decoded digit by digit,
 *    strings as the very argv pointer, lists item by item); options not
 *    given keep their defaults; argv[*first..] are the reference's
 *    operands (GNU's permutation: options and operands in any order, "--"
 *    ends the options; in order for opt_parse_in_order()), same words.
 * A first byte with its top bit set builds the table itself from the
 * input (names, metavars, help texts, defaults, groups of any length):
 * opt_help() never crashes, and a table opt_check_table() refuses is one
 * "bad option table" line.
 */
#include <limits.h>
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "fuzz.h"
#include "opt.h"

#define MAX_WORDS 160 /* a table from the input: 32 entries of 4 */
#define LINE_MAX_BYTES 1100 /* "cidkit: ", 1023 bytes, "…", "\n" */

/* --- the tables ----------------------------------------------------- */

static bool a_flag, a_flag2, a_x;
static unsigned int a_uint, a_k;
static uint64_t a_u64, a_heap;
static double a_double, a_ratio;
static const char *a_str;
static struct opt_list a_list, a_single;
static struct opt_uints a_uints;
static int a_enum;
static unsigned int cb_calls;
static const char *cb_arg;

static int cb(void *ctx, const char *arg, const char *what)
{
	(void)ctx;
	cb_calls++;
	cb_arg = arg;
	if (!strcmp(arg, "bad"))
		return cli_error("%s: bad value '%s'", what, cli_q(arg));
	return 0;
}

static const struct opt_choice fmts[] = {
	{ "list", 0 }, { "hex", 1 }, { "x", 1 }, { "taskset", 7 }, { NULL, 0 },
};

static struct opt table_a[] = {
	{ OPT_FLAG("flag", 'f', &a_flag, "a flag") },
	{ OPT_FLAG("flag-two", 'g', &a_flag2, "another, so that --fl is ambiguous") },
	{ OPT_FLAG(NULL, 'x', &a_x, "a flag with a short name only") },
	{ OPT_UINT("uint", 'u', &a_uint, 3, 4000000000u, "N", "an unsigned int") },
	{ OPT_UINT(NULL, 'k', &a_k, 0, 0, "K", "a short name only, 0 only") },
	{ OPT_U64("u64", 0, &a_u64, 0, UINT64_MAX, "S", "the full 64 bits") },
	{ OPT_U64("heap", 'H', &a_heap, 10, 1000000, "B",
		  "so that --he is ambiguous with --help") },
	{ OPT_DOUBLE("double", 'd', &a_double, 0.5, 100, "D", "a decimal") },
	{ OPT_DOUBLE("ratio", 0, &a_ratio, 0, 1e300, "R", "a wide decimal") },
	{ OPT_STRING("string", 's', &a_str, "STR", "a string") },
	{ OPT_LIST("list", 'l', &a_list, "X", "a list") },
	{ OPT_LIST("single", 0, &a_single, "SPEC", "one value per use"),
	  .flags = OPT_NOSPLIT, .def = "none" },
	{ OPT_UINTS("uints", 'n', &a_uints, 1, 10, "N", "numbers") },
	{ OPT_ENUM("format", 'F', &a_enum, fmts, "FMT", "a choice") },
	{ OPT_CALLBACK("cb", 'c', cb, NULL, "V", "a callback"), .def = "" },
	{ .type = OT_END },
};

static bool b_json, b_csv;
static struct opt_list b_table;
static unsigned int b_need;
static uint64_t b_at;
static double b_every;
static const char *b_name;
static int b_mode;

static struct opt table_b[] = {
	{ OPT_FLAG("json", 'j', &b_json, "JSON"), .group = 1 },
	{ OPT_FLAG("csv", 0, &b_csv, "CSV"), .group = 1 },
	{ OPT_LIST("table", 't', &b_table, "T", "tables"), .group = 1 },
	{ OPT_UINT("need", 'N', &b_need, 0, 9, "N", "required"),
	  .flags = OPT_REQUIRED },
	{ OPT_U64("at", 'a', &b_at, 1, 1000, "T", "at"), .group = 2 },
	{ OPT_DOUBLE("every", 'e', &b_every, 0.001, 60, "S", "every"), .group = 2 },
	{ OPT_STRING("name", 0, &b_name, "NAME", "a name") },
	{ OPT_ENUM("mode", 'm', &b_mode, fmts, "M", "a mode"),
	  .flags = OPT_REQUIRED },
	{ .type = OT_END },
};

static void reset_values(void)
{
	a_flag = a_flag2 = a_x = false;
	a_uint = 7;
	a_k = 0;
	a_u64 = 9;
	a_heap = 100;
	a_double = 1.5;
	a_ratio = 0;
	a_str = NULL;
	a_list.n = a_single.n = a_uints.n = 0;
	a_enum = 0;
	cb_calls = 0;
	cb_arg = NULL;
	b_json = b_csv = false;
	b_table.n = 0;
	b_need = 3;
	b_at = 5;
	b_every = 1;
	b_name = NULL;
	b_mode = 1;
}

/* The operands a command may take: the second field of the first byte. */
static const struct {
	const char *name;
	unsigned int min, max;
} operands[] = {
	{ NULL, 0, 0 }, { "STRING", 1, 1 }, { "FILE", 0, OPT_MANY },
	{ "ARG", 1, 3 }, { "PAIR", 2, 2 },
};

/* --- the reference decoding ------------------------------------------ */

enum ref_rc {
	REF_OK, REF_HELP, E_UNKNOWN, E_AMBIGUOUS, E_NEEDS, E_NOVALUE, E_TWICE,
	E_GROUP, E_NAN, E_NODEC, E_RANGE, E_EMPTY, E_LONG, E_MANY, E_CHOICE,
	E_CB, E_REQUIRED, E_UNEXPECTED, E_EXPECTED, E_NONE, E_ATMOST,
};

/* What each error's one line says (after "cidkit: t: "). */
static const char *const ref_says[] = {
	[E_UNKNOWN] = "unknown option '",
	[E_AMBIGUOUS] = "' is ambiguous (see --help)",
	[E_NEEDS] = "' needs a value (see --help)",
	[E_NOVALUE] = "' takes no value",
	[E_TWICE] = " given twice",
	[E_GROUP] = " exclude each other",
	[E_NAN] = "' is not a number",
	[E_NODEC] = "' is not a decimal number",
	[E_RANGE] = " is out of range [",
	[E_EMPTY] = ": empty value in '",
	[E_LONG] = "' too long",
	[E_MANY] = ": at most 32 values",
	[E_CHOICE] = ": unknown value '",
	[E_CB] = ": bad value '",
	[E_REQUIRED] = " is required (see --help)",
	[E_UNEXPECTED] = "unexpected argument '",
	[E_EXPECTED] = ", got ",
	[E_NONE] = " given (see --help)",
	[E_ATMOST] = "at most ",
};

/* What the reference found for one table entry. */
struct slot {
	unsigned int seen;
	uint64_t num;    /* UINT, U64, ENUM */
	double d;
	const char *str; /* STRING, CALLBACK: the argv pointer */
	unsigned int n;  /* LIST, UINTS */
	const char *item[OPT_LIST_MAX];
	size_t len[OPT_LIST_MAX];
	unsigned int v[OPT_LIST_MAX];
};

static struct slot slots[OPT_TABLE_MAX];

/* A decimal integer: digits only, the value exact (no saturation). */
static enum ref_rc ref_number(const char *s, size_t len, uint64_t min,
			      uint64_t max, uint64_t *out)
{
	unsigned __int128 v = 0;

	if (!len)
		return E_NAN;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return E_NAN;
		if (v <= UINT64_MAX)
			v = v * 10 + (unsigned int)(s[i] - '0');
	}
	if (v < min || v > max)
		return E_RANGE;
	*out = (uint64_t)v;
	return REF_OK;
}

/*
 * A decimal: digits and at most one point, a digit somewhere.  Its value:
 * with at most 15 significant digits, the integer of its digits divided
 * by 10^k (both exact in a double, so the quotient is correctly rounded,
 * as strtod's is); longer, what strtod makes of it, finite.
 */
static enum ref_rc ref_decimal(const char *s, double min, double max,
			       double *out)
{
	unsigned int digits = 0, points = 0, frac = 0, sig = 0;
	uint64_t mant = 0;
	double v;

	for (const char *p = s; *p; p++) {
		if (*p == '.' && !points++)
			continue;
		if (*p < '0' || *p > '9')
			return E_NODEC;
		digits++;
		frac += points;
		if (sig || *p != '0') {
			sig++;
			if (sig <= 15)
				mant = mant * 10 + (uint64_t)(*p - '0');
		}
	}
	if (!digits)
		return E_NODEC;
	if (sig <= 15 && frac <= 22)
		v = (double)mant / pow(10, frac);
	else
		v = strtod(s, NULL);
	if (!isfinite(v))
		return E_NODEC;
	if (v < min || v > max)
		return E_RANGE;
	*out = v;
	return REF_OK;
}

/* Items of a list value, into @sl (@fresh: count from 0, as a UINTS tmp). */
static enum ref_rc ref_items(const struct opt *o, struct slot *sl,
			     const char *s)
{
	for (;;) {
		const char *comma = o->flags & OPT_NOSPLIT ? NULL : strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);

		if (sl->n == OPT_LIST_MAX)
			return E_MANY;
		if (len >= OPT_ITEM_LEN)
			return E_LONG;
		if (!len)
			return E_EMPTY;
		sl->item[sl->n] = s;
		sl->len[sl->n++] = len;
		if (!comma)
			return REF_OK;
		s = comma + 1;
	}
}

static enum ref_rc ref_apply(const struct opt_cmd *cmd, unsigned int k,
			     const char *arg)
{
	const struct opt *o = &cmd->opts[k];
	struct slot *sl = &slots[k], tmp;
	bool list = o->type == OT_LIST || o->type == OT_UINTS;
	enum ref_rc rc;

	if (sl->seen && !list)
		return E_TWICE;
	for (unsigned int j = 0; o->group && cmd->opts[j].type != OT_END; j++)
		if (j != k && cmd->opts[j].group == o->group && slots[j].seen)
			return E_GROUP;
	sl->seen++;
	switch (o->type) {
	case OT_FLAG:
		return REF_OK;
	case OT_UINT:
	case OT_U64:
		return ref_number(arg, strlen(arg), o->min, o->max, &sl->num);
	case OT_DOUBLE:
		return ref_decimal(arg, o->dmin, o->dmax, &sl->d);
	case OT_STRING:
		sl->str = arg;
		return REF_OK;
	case OT_LIST:
		return ref_items(o, sl, arg);
	case OT_UINTS:
		/* every item is split off first, then each is a number */
		tmp.n = 0;
		if ((rc = ref_items(o, &tmp, arg)))
			return rc;
		for (unsigned int i = 0; i < tmp.n; i++) {
			uint64_t v = 0;

			if (sl->n == OPT_LIST_MAX)
				return E_MANY;
			if ((rc = ref_number(tmp.item[i], tmp.len[i], o->min, o->max,
					     &v)))
				return rc;
			sl->v[sl->n++] = (unsigned int)v;
		}
		return REF_OK;
	case OT_ENUM:
		for (const struct opt_choice *c = o->choices; c->name; c++)
			if (!strcmp(c->name, arg))
				return sl->num = (uint64_t)(int64_t)c->value, REF_OK;
		return E_CHOICE;
	case OT_CALLBACK:
		sl->str = arg;
		return strcmp(arg, "bad") ? REF_OK : E_CB;
	case OT_END:
		break;
	}
	return E_UNKNOWN;
}

/* "--NAME[=VALUE]" at argv[*i]: an exact name, or a unique prefix. */
static enum ref_rc ref_long(const struct opt_cmd *cmd, int argc, char **argv,
			    int *i)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	bool help = len && len <= 4 && !memcmp(name, "help", len);
	unsigned int hits = help, hit = 0;
	int exact = -1;

	if (!len)
		return E_UNKNOWN;
	if (help && len == 4)
		return REF_HELP;
	for (unsigned int k = 0; cmd->opts[k].type != OT_END; k++) {
		const char *n = cmd->opts[k].name;

		if (!n || strlen(n) < len || memcmp(n, name, len))
			continue;
		if (strlen(n) == len) {
			exact = (int)k;
			break;
		}
		hits++;
		hit = k;
	}
	if (exact < 0 && hits != 1)
		return hits ? E_AMBIGUOUS : E_UNKNOWN;
	if (exact < 0 && help)
		return REF_HELP;
	if (exact >= 0)
		hit = (unsigned int)exact;
	if (cmd->opts[hit].type == OT_FLAG)
		return eq ? E_NOVALUE : ref_apply(cmd, hit, NULL);
	if (eq)
		return ref_apply(cmd, hit, eq + 1);
	if (*i + 1 == argc)
		return E_NEEDS;
	return ref_apply(cmd, hit, argv[++*i]);
}

/* "-abc" at argv[*i]: flags, then one option that takes the rest. */
static enum ref_rc ref_short(const struct opt_cmd *cmd, int argc, char **argv,
			     int *i)
{
	for (const char *p = argv[*i] + 1; *p; p++) {
		int k = -1;
		enum ref_rc rc;

		for (unsigned int j = 0; cmd->opts[j].type != OT_END && k < 0; j++)
			if (cmd->opts[j].short_name == *p)
				k = (int)j;
		if (k < 0)
			return *p == 'h' ? REF_HELP : E_UNKNOWN;
		if (cmd->opts[k].type == OT_FLAG) {
			if ((rc = ref_apply(cmd, (unsigned int)k, NULL)))
				return rc;
			continue;
		}
		if (p[1])
			return ref_apply(cmd, (unsigned int)k, p + 1);
		if (*i + 1 == argc)
			return E_NEEDS;
		return ref_apply(cmd, (unsigned int)k, argv[++*i]);
	}
	return REF_OK;
}

/*
 * The operands, in order: words that do not start with '-' and "-"
 * alone, wherever they are (GNU's permutation), everything after "--";
 * @in_order: everything from the first operand on.  opt_parse() leaves
 * them at argv[*first..argc-1].
 */
static char *ref_operand[MAX_WORDS + 2];

static enum ref_rc ref_parse(const struct opt_cmd *cmd, int argc, char **argv,
			     bool in_order, int *first)
{
	enum ref_rc rc = REF_OK;
	unsigned int n = 0;
	int i;

	memset(slots, 0, sizeof(slots));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || a[1] == '\0') {
			if (in_order)
				break;
			ref_operand[n++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		rc = a[1] == '-' ? ref_long(cmd, argc, argv, &i)
				 : ref_short(cmd, argc, argv, &i);
		if (rc)
			return rc;
	}
	while (i < argc)
		ref_operand[n++] = argv[i++];
	for (unsigned int k = 0; cmd->opts[k].type != OT_END; k++)
		if ((cmd->opts[k].flags & OPT_REQUIRED) && !slots[k].seen)
			return E_REQUIRED;
	*first = argc - (int)n;
	if (n && !cmd->max_operands)
		return E_UNEXPECTED;
	if (n >= cmd->min_operands && n <= cmd->max_operands)
		return REF_OK;
	if (cmd->min_operands == cmd->max_operands)
		return E_EXPECTED;
	return n < cmd->min_operands ? E_NONE : E_ATMOST;
}

/* --- capturing stdout and stderr ------------------------------------ */

static int cap_out = -1, cap_err, saved_out, saved_err;

/* Sanitizer reports during a capture still reach the real stderr. */
void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

static void capture_start(void)
{
	if (cap_out < 0) {
		cap_out = memfd_create("fuzz-opt-out", MFD_CLOEXEC);
		cap_err = memfd_create("fuzz-opt-err", MFD_CLOEXEC);
		saved_out = dup(1);
		saved_err = dup(2);
		if (cap_out < 0 || cap_err < 0 || saved_out < 0 || saved_err < 0)
			abort();
		if (__sanitizer_set_report_fd)
			__sanitizer_set_report_fd((void *)(intptr_t)saved_err);
	}
	fflush(stdout);
	fflush(stderr);
	if (ftruncate(cap_out, 0) || ftruncate(cap_err, 0) ||
	    lseek(cap_out, 0, SEEK_SET) || lseek(cap_err, 0, SEEK_SET))
		abort();
	dup2(cap_out, 1);
	dup2(cap_err, 2);
}

/* What @fd got, NUL-terminated (the caller frees it). */
static char *captured(int fd)
{
	off_t n = lseek(fd, 0, SEEK_CUR);
	char *buf = malloc((size_t)n + 1);

	if (n < 0 || !buf || pread(fd, buf, (size_t)n, 0) != n)
		abort();
	buf[n] = '\0';
	return buf;
}

static void capture_stop(char **out, char **err, size_t *err_len)
{
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	*out = captured(cap_out);
	*err_len = (size_t)lseek(cap_err, 0, SEEK_CUR);
	*err = captured(cap_err);
}

/* Exactly one line "cidkit: @prefix...\n": no other control byte. */
static bool one_line(const char *err, size_t len, const char *prefix)
{
	if (len < 2 || len > LINE_MAX_BYTES || err[len - 1] != '\n' ||
	    strlen(err) != len || strncmp(err, "cidkit: ", 8) ||
	    strncmp(err + 8, prefix, strlen(prefix)))
		return false;
	for (size_t i = 0; i + 1 < len; i++)
		if ((unsigned char)err[i] < 0x20 || err[i] == 0x7f)
			return false;
	return true;
}

/* --- the checks ------------------------------------------------------ */

/* The table's help at its defaults, made once per table. */
static char *help_of(struct opt_cmd *cmd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	reset_values();
	opt_help(cmd, f);
	fclose(f);
	return buf;
}

/* An accepted argv: each entry's value against the reference's. */
static void check_values(const struct opt_cmd *cmd, struct opt *init)
{
	for (unsigned int k = 0; cmd->opts[k].type != OT_END; k++) {
		const struct opt *o = &cmd->opts[k];
		const struct slot *sl = &slots[k];
		const struct opt_list *l = o->value;
		const struct opt_uints *u = o->value;

		FUZZ_CHECK(o->seen == sl->seen);
		FUZZ_CHECK(!o->name || opt_given(cmd, o->name) == (sl->seen > 0));
		switch (o->type) {
		case OT_FLAG:
			FUZZ_CHECK(*(bool *)o->value == (sl->seen > 0));
			break;
		case OT_UINT:
			if (sl->seen)
				FUZZ_CHECK(*(unsigned int *)o->value == sl->num &&
					   sl->num >= o->min && sl->num <= o->max);
			else
				FUZZ_CHECK(*(unsigned int *)o->value ==
					   *(unsigned int *)init[k].value);
			break;
		case OT_U64:
			if (sl->seen)
				FUZZ_CHECK(*(uint64_t *)o->value == sl->num &&
					   sl->num >= o->min && sl->num <= o->max);
			else
				FUZZ_CHECK(*(uint64_t *)o->value ==
					   *(uint64_t *)init[k].value);
			break;
		case OT_DOUBLE:
			if (sl->seen)
				FUZZ_CHECK(*(double *)o->value == sl->d &&
					   sl->d >= o->dmin && sl->d <= o->dmax);
			else
				FUZZ_CHECK(*(double *)o->value ==
					   *(double *)init[k].value);
			break;
		case OT_STRING:
			/* the argument itself, not a copy */
			FUZZ_CHECK(*(const char **)o->value ==
				   (sl->seen ? sl->str : *(const char **)init[k].value));
			break;
		case OT_LIST:
			FUZZ_CHECK(l->n == sl->n);
			for (unsigned int i = 0; i < l->n; i++)
				FUZZ_CHECK(l->item[i] == l->store[i] &&
					   strlen(l->item[i]) == sl->len[i] &&
					   !memcmp(l->item[i], sl->item[i], sl->len[i]) &&
					   ((o->flags & OPT_NOSPLIT) ||
					    !strchr(l->item[i], ',')));
			break;
		case OT_UINTS:
			FUZZ_CHECK(u->n == sl->n);
			for (unsigned int i = 0; i < u->n; i++)
				FUZZ_CHECK(u->v[i] == sl->v[i] && u->v[i] >= o->min &&
					   u->v[i] <= o->max);
			break;
		case OT_ENUM:
			FUZZ_CHECK(*(int *)o->value ==
				   (sl->seen ? (int)sl->num : *(int *)init[k].value));
			break;
		case OT_CALLBACK:
			FUZZ_CHECK(cb_calls == sl->seen &&
				   (!sl->seen || cb_arg == sl->str));
			break;
		case OT_END:
			break;
		}
	}
}

/* Each entry's default, kept to compare with after a parse. */
union defaults {
	bool b;
	unsigned int u;
	uint64_t u64;
	double d;
	const char *s;
	int i;
};

static void parse_argv(struct opt_cmd *cmd, const char *help, int argc,
		       char **argv, bool in_order)
{
	static union defaults def[OPT_TABLE_MAX];
	struct opt init[OPT_TABLE_MAX];
	char *out, *err, prefix[8];
	int first = -1, ref_first = -1, rc;
	enum ref_rc want;
	size_t err_len;

	reset_values();
	/* the defaults, as values init[k].value points to */
	for (unsigned int k = 0; cmd->opts[k].type != OT_END; k++) {
		const struct opt *o = &cmd->opts[k];

		init[k] = *o;
		init[k].value = &def[k];
		switch (o->type) {
		case OT_UINT: def[k].u = *(unsigned int *)o->value; break;
		case OT_U64: def[k].u64 = *(uint64_t *)o->value; break;
		case OT_DOUBLE: def[k].d = *(double *)o->value; break;
		case OT_STRING: def[k].s = *(const char **)o->value; break;
		case OT_ENUM: def[k].i = *(int *)o->value; break;
		default: break;
		}
	}
	want = ref_parse(cmd, argc, argv, in_order, &ref_first);
	capture_start();
	rc = in_order ? opt_parse_in_order(cmd, argc, argv, &first)
		      : opt_parse(cmd, argc, argv, &first);
	capture_stop(&out, &err, &err_len);

	switch (want) {
	case REF_OK:
		FUZZ_CHECK(rc == 0 && !*out && !err_len);
		FUZZ_CHECK(first == ref_first && first >= 1 && first <= argc);
		/* the operands, the same words in the same order, come last */
		for (int i = first; i < argc; i++)
			FUZZ_CHECK(argv[i] == ref_operand[i - first]);
		check_values(cmd, init);
		break;
	case REF_HELP:
		FUZZ_CHECK(rc == OPT_HELP && opt_status(rc) == 0 && !err_len);
		FUZZ_CHECK(!strcmp(out, help));
		break;
	default:
		FUZZ_CHECK(rc == CLI_EXIT_USAGE && !*out);
		snprintf(prefix, sizeof(prefix), "%s: ", cmd->name);
		FUZZ_CHECK(one_line(err, err_len, prefix));
		if (!strstr(err, ref_says[want])) {
			fprintf(stderr, "fuzz: expected \"%s\", got %s", ref_says[want],
				err);
			fuzz_fail("the error the reference expects");
		}
		break;
	}
	free(out);
	free(err);
}

/* --- tables from the input ------------------------------------------ */

static union {
	bool b;
	unsigned int u;
	uint64_t u64;
	double d;
	const char *s;
	int i;
	struct opt_list l;
	struct opt_uints us;
} store_of[OPT_TABLE_MAX];

/*
 * Four words per entry: "TSGF" + long name (T: the type, '0' for a flag
 * to '8' for a callback, as enum opt_type counts; S: the short name, '.'
 * for none; G: the group, '0' to '2'; F: the flags, '0' to '3', plus 4
 * times a mistake: 3 an empty range, 4 one too wide, 5 no storage,
 * choices or callback), metavar, help, default ("\x01": read it from the
 * value).  @sel's low bits: the operands (none, any number, a maximum
 * without a name, a minimum above the maximum).  opt_parse(--help)
 * checks the table, then writes its help.
 */
static void fuzz_table(unsigned int sel, char **w, int nw)
{
	static const enum opt_type types[] = {
		OT_FLAG, OT_UINT, OT_U64, OT_DOUBLE, OT_STRING, OT_LIST,
		OT_UINTS, OT_ENUM, OT_CALLBACK,
	};
	struct opt t[OPT_TABLE_MAX + 1];
	struct opt_cmd cmd = { "t", NULL, NULL, NULL, 0, 0, t };
	char *out, *err, *help = NULL;
	unsigned int n = 0, mistake;
	const char *why = NULL;
	size_t err_len, len = 0;
	FILE *f;
	int rc, first;
	char *argv[] = { (char *)"t", (char *)"--help", NULL };

	memset(t, 0, sizeof(t));
	memset(store_of, 0, sizeof(store_of));
	for (int i = 0; i + 3 < nw && n < OPT_TABLE_MAX; i += 4, n++) {
		const char *c = w[i];
		size_t clen = strlen(c);
		struct opt *o = &t[n];

		o->type = types[(clen ? (unsigned char)(c[0] - '0') : 0) % 9];
		o->short_name = clen > 1 && c[1] != '.' ? c[1] : 0;
		o->group = clen > 2 ? (unsigned char)(c[2] - '0') % 3 : 0;
		o->flags = clen > 3 ? (unsigned char)(c[3] - '0') % 4 : 0;
		mistake = clen > 3 ? (unsigned char)(c[3] - '0') / 4 % 6 : 0;
		o->name = clen > 4 ? c + 4 : NULL;
		o->value = &store_of[n];
		o->metavar = *w[i + 1] ? w[i + 1] : NULL;
		o->help = w[i + 2];
		o->def = strcmp(w[i + 3], "\x01") ? w[i + 3] : NULL;
		o->min = n % 3 == 2 ? 5 : n % 3;
		o->max = n % 3 == 1 ? UINT_MAX : 40 + n;
		o->dmin = 0;
		o->dmax = n % 2 ? 1e300 : 100;
		o->choices = fmts;
		o->cb = cb;
		if (mistake == 3) {
			o->min = o->max + 1;
			o->dmin = o->dmax + 1;
		} else if (mistake == 4) {
			o->max = UINT64_MAX;
			o->dmin = NAN;
		} else if (mistake == 5) {
			o->value = NULL;
			o->choices = NULL;
			o->cb = NULL;
		}
	}
	t[n].type = OT_END;
	cmd.operand = (sel & 3) == 2 ? NULL : "ARG";
	cmd.min_operands = (sel & 3) == 3 ? 2 : 0;
	cmd.max_operands = (sel & 3) == 1 ? OPT_MANY : (sel & 3) > 1 ? 1 : 0;

	capture_start();
	rc = opt_parse(&cmd, 2, argv, &first);
	capture_stop(&out, &err, &err_len);
	if (getenv("FUZZ_OPT_SHOW"))
		fprintf(stderr, "%s%s", out, err);
	if (opt_check_table(&cmd, &why)) {
		FUZZ_CHECK(rc == CLI_EXIT_USAGE && !*out &&
			   one_line(err, err_len, "t: bad option table: ") &&
			   !strncmp(err + 29, why, strlen(why)));
	} else {
		FUZZ_CHECK(rc == OPT_HELP && !err_len &&
			   !strncmp(out, "usage: cidkit t", 15));
		/* the same text as opt_help() writes anywhere */
		if (!(f = open_memstream(&help, &len)))
			abort();
		opt_help(&cmd, f);
		fclose(f);
		FUZZ_CHECK(!strcmp(out, help));
		/* a name too long for the help's column is cut, not overrun */
		for (unsigned int k = 0; k < n; k++)
			FUZZ_CHECK(!t[k].name || strlen(t[k].name) > 40 ||
				   strstr(help, t[k].name));
		free(help);
	}
	free(out);
	free(err);
}

/* --- the entry point -------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct opt_cmd cmds[2] = {
		{ "t", "About t.\n", "Epilog of t.\n", NULL, 0, 0, table_a },
		{ "t", NULL, NULL, NULL, 0, 0, table_b },
	};
	static char *help[2][5];
	char *argv[MAX_WORDS + 2] = { (char *)"t" }, *s;
	int argc = 1;
	unsigned int sel, ops;
	struct opt_cmd *cmd;

	if (size < 1 || size > 8192)
		return 0;
	sel = data[0];
	/* the rest as NUL-separated words ("a\0" is "a" and "") */
	s = fuzz_str(data + 1, size - 1);
	for (size_t i = 0; size > 1 && i < size && argc <= MAX_WORDS;) {
		argv[argc++] = s + i;
		i += strlen(s + i) + 1;
	}
	if (argc > MAX_WORDS) {
		free(s);
		return 0;
	}
	argv[argc] = NULL;
	if (sel & 0x80) {
		fuzz_table(sel, argv + 1, argc - 1);
		free(s);
		return 0;
	}
	cmd = &cmds[sel & 1];
	ops = (sel >> 1) % (sizeof(operands) / sizeof(*operands));
	cmd->operand = operands[ops].name;
	cmd->min_operands = operands[ops].min;
	cmd->max_operands = operands[ops].max;
	if (!help[sel & 1][ops])
		help[sel & 1][ops] = help_of(cmd);
	/* (sel >> 1) / 5 odd: a command line follows (opt_parse_in_order) */
	parse_argv(cmd, help[sel & 1][ops], argc, argv, ((sel >> 1) / 5) & 1);
	free(s);
	return 0;
}
