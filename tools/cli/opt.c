/* SPDX-License-Identifier: MIT */
/*
 * The table-driven option parser (opt.h).  Tables are small (at most a
 * dozen entries) and parsed once per run: every lookup is a linear scan,
 * and the table is checked for its own mistakes on every call.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opt.h"

#define HELP_WIDTH 79
#define WHAT_LEN 96 /* "bench burst: --delay-ms" */

/*
 * printf at offset @n of @buf (@size bytes): the new length, never past
 * @size - 1, what does not fit cut off.  The help's fixed buffers take
 * the table's names and texts through it, however long they are.
 */
__attribute__((format(printf, 4, 5))) static size_t
append(char *buf, size_t size, size_t n, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (n >= size)
		return n;
	va_start(ap, fmt);
	len = vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
	if (len < 0)
		return n;
	return n + (size_t)len < size ? n + (size_t)len : size - 1;
}

static bool is_list(const struct opt *o)
{
	return o->type == OT_LIST || o->type == OT_UINTS;
}

/* "CMD: --name" (or "CMD: -x") for messages, into @buf. */
static const char *what_of(const struct opt_cmd *cmd, const struct opt *o,
			   char *buf)
{
	if (o->name)
		snprintf(buf, WHAT_LEN, "%s: --%s", cmd->name, o->name);
	else
		snprintf(buf, WHAT_LEN, "%s: -%c", cmd->name, o->short_name);
	return buf;
}

int opt_check_table(const struct opt_cmd *cmd, const char **why)
{
	for (const struct opt *o = cmd->opts; o->type != OT_END; o++) {
		if (o - cmd->opts >= OPT_TABLE_MAX - 1)
			return *why = "more than OPT_TABLE_MAX options", -EINVAL;
		if (!o->name && !o->short_name)
			return *why = "an option without a name", -EINVAL;
		if ((o->name && !strcmp(o->name, "help")) || o->short_name == 'h')
			return *why = "--help and -h are the parser's", -EINVAL;
		if (o->type != OT_FLAG && !o->metavar)
			return *why = "a value without a metavar", -EINVAL;
		if (!o->value && o->type != OT_CALLBACK)
			return *why = "an option without storage", -EINVAL;
		if (o->type == OT_CALLBACK && !o->cb)
			return *why = "a callback option without a callback", -EINVAL;
		if ((o->type == OT_UINT || o->type == OT_UINTS) &&
		    (o->min > o->max || o->max > UINT_MAX))
			return *why = "an empty or too wide range", -EINVAL;
		if (o->type == OT_U64 && o->min > o->max)
			return *why = "an empty range", -EINVAL;
		if (o->type == OT_DOUBLE && !(o->dmin <= o->dmax))
			return *why = "an empty range", -EINVAL;
		if (o->type == OT_ENUM && (!o->choices || !o->choices[0].name))
			return *why = "an enum without choices", -EINVAL;
		for (const struct opt *p = cmd->opts; p != o; p++) {
			if (o->name && p->name && !strcmp(o->name, p->name))
				return *why = "a long name twice", -EINVAL;
			if (o->short_name && o->short_name == p->short_name)
				return *why = "a short name twice", -EINVAL;
		}
	}
	if (cmd->min_operands > cmd->max_operands ||
	    (cmd->max_operands && !cmd->operand))
		return *why = "operands without a name", -EINVAL;
	return 0;
}

/* Append the items of @s to @l: each nonempty and short enough. */
static int list_add(const char *what, const struct opt *o, struct opt_list *l,
		    const char *s)
{
	const char *start = s;

	for (;;) {
		size_t len = o->flags & OPT_NOSPLIT ? strlen(s) : strcspn(s, ",");

		if (l->n == OPT_LIST_MAX)
			return cli_error("%s: at most %d values", what,
					 OPT_LIST_MAX);
		if (len >= OPT_ITEM_LEN)
			return cli_error("%s: value '%s' too long", what, cli_q(s));
		/* an empty item is a typo, never "the defaults" */
		if (!len)
			return cli_error("%s: empty value in '%s'", what,
					 cli_q(s == start ? s : start));
		memcpy(l->store[l->n], s, len);
		l->store[l->n][len] = '\0';
		l->item[l->n] = l->store[l->n];
		l->n++;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

static int uints_add(const char *what, const struct opt *o,
		     struct opt_uints *u, const char *s)
{
	struct opt_list tmp;

	tmp.n = 0;
	if (list_add(what, o, &tmp, s))
		return CLI_EXIT_USAGE;
	for (unsigned int i = 0; i < tmp.n; i++) {
		if (u->n == OPT_LIST_MAX)
			return cli_error("%s: at most %d values", what,
					 OPT_LIST_MAX);
		if (cli_parse_uint(what, tmp.item[i], (unsigned int)o->min,
				   (unsigned int)o->max, &u->v[u->n]))
			return CLI_EXIT_USAGE;
		u->n++;
	}
	return 0;
}

static int choose(const char *what, const struct opt *o, const char *s)
{
	char names[256] = "";
	size_t n = 0;

	for (const struct opt_choice *c = o->choices; c->name; c++) {
		if (!strcmp(c->name, s)) {
			*(int *)o->value = c->value;
			return 0;
		}
		n = append(names, sizeof(names), n, "%s%s", n ? ", " : "", c->name);
	}
	return cli_error("%s: unknown value '%s' (%s)", what, cli_q(s), names);
}

static int store(struct opt_cmd *cmd, struct opt *o, const char *arg)
{
	char what[WHAT_LEN];

	what_of(cmd, o, what);
	if (o->seen && !is_list(o) && !(o->flags & OPT_NOSPLIT))
		return cli_error("%s given twice", what);
	if (o->group)
		for (const struct opt *p = cmd->opts; p->type != OT_END; p++)
			if (p != o && p->group == o->group && p->seen) {
				const struct opt *a = p < o ? p : o;
				const struct opt *b = p < o ? o : p;

				return cli_error("%s: --%s and --%s exclude each other",
						 cmd->name, a->name, b->name);
			}
	o->seen++;
	switch (o->type) {
	case OT_FLAG:
		*(bool *)o->value = true;
		return 0;
	case OT_UINT:
		return cli_parse_uint(what, arg, (unsigned int)o->min,
				      (unsigned int)o->max, o->value);
	case OT_U64:
		return cli_parse_u64(what, arg, o->min, o->max, o->value);
	case OT_DOUBLE:
		return cli_parse_double(what, arg, o->dmin, o->dmax, o->value);
	case OT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OT_LIST:
		return list_add(what, o, o->value, arg);
	case OT_UINTS:
		return uints_add(what, o, o->value, arg);
	case OT_ENUM:
		return choose(what, o, arg);
	case OT_CALLBACK:
		return o->cb(o->value, arg, what) ? CLI_EXIT_USAGE : 0;
	case OT_END:
		break;
	}
	return cli_error("%s: bad option table", what);
}

/*
 * The option named by the first @len bytes of @s: an exact name, else a
 * unique prefix.  *@out NULL: "--help" (or a prefix of it).
 */
static int find_long(struct opt_cmd *cmd, const char *s, size_t len,
		     const char *arg, struct opt **out)
{
	bool help = len && !strncmp("help", s, len);
	unsigned int hits = help;
	struct opt *hit = NULL;

	if (!len)
		return cli_error("%s: unknown option '%s' (see --help)", cmd->name,
				 cli_q(arg));
	if (help && len == 4) {
		*out = NULL;
		return 0;
	}
	for (struct opt *o = cmd->opts; o->type != OT_END; o++) {
		if (!o->name || strncmp(o->name, s, len))
			continue;
		if (!o->name[len]) {
			*out = o;
			return 0;
		}
		hit = o;
		hits++;
	}
	if (hits > 1)
		return cli_error("%s: option '%s' is ambiguous (see --help)",
				 cmd->name, cli_q(arg));
	if (!hits)
		return cli_error("%s: unknown option '%s' (see --help)", cmd->name,
				 cli_q(arg));
	*out = hit;
	return 0;
}

static struct opt *find_short(struct opt_cmd *cmd, char c)
{
	for (struct opt *o = cmd->opts; o->type != OT_END; o++)
		if (o->short_name && o->short_name == c)
			return o;
	return NULL;
}

static int needs_value(const struct opt_cmd *cmd, const char *arg)
{
	return cli_error("%s: option '%s' needs a value (see --help)", cmd->name,
			 cli_q(arg));
}

/* argv[*i] is "--NAME[=VALUE]". */
static int parse_long(struct opt_cmd *cmd, int argc, char **argv, int *i)
{
	const char *arg = argv[*i], *name = arg + 2;
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	struct opt *o = NULL;

	if (find_long(cmd, name, len, arg, &o))
		return CLI_EXIT_USAGE;
	if (!o)
		return OPT_HELP; /* printed by opt_parse() */
	if (o->type == OT_FLAG) {
		if (eq)
			return cli_error("%s: option '--%s' takes no value",
					 cmd->name, o->name);
		return store(cmd, o, NULL);
	}
	if (eq)
		return store(cmd, o, eq + 1);
	if (*i + 1 >= argc)
		return needs_value(cmd, arg);
	return store(cmd, o, argv[++*i]);
}

/* argv[*i] is "-xyz": flags, the last may take the rest or the next word. */
static int parse_short(struct opt_cmd *cmd, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];

	for (const char *p = arg + 1; *p; p++) {
		struct opt *o = find_short(cmd, *p);
		char name[3] = { '-', *p, '\0' };
		int rc;

		if (!o && *p == 'h')
			return OPT_HELP;
		if (!o)
			return cli_error("%s: unknown option '%s' (see --help)",
					 cmd->name, cli_q(name));
		if (o->type == OT_FLAG) {
			rc = store(cmd, o, NULL);
			if (rc)
				return rc;
			continue;
		}
		if (p[1])
			return store(cmd, o, p + 1);
		if (*i + 1 >= argc)
			return needs_value(cmd, name);
		return store(cmd, o, argv[++*i]);
	}
	return 0;
}

static int check_operands(const struct opt_cmd *cmd, int argc, char **argv,
			  int first)
{
	unsigned int n = (unsigned int)(argc - first);
	char count[16];

	if (n > cmd->max_operands && !cmd->max_operands)
		return cli_error("%s: unexpected argument '%s' (see --help)",
				 cmd->name, cli_q(argv[first]));
	if (n >= cmd->min_operands && n <= cmd->max_operands)
		return 0;
	if (cmd->min_operands == cmd->max_operands) {
		if (cmd->min_operands == 1)
			snprintf(count, sizeof(count), "one");
		else
			snprintf(count, sizeof(count), "%u", cmd->min_operands);
		return cli_error("%s: expected %s %s, got %u (see --help)",
				 cmd->name, count, cmd->operand, n);
	}
	if (n < cmd->min_operands)
		return cli_error("%s: no %s given (see --help)", cmd->name,
				 cmd->operand);
	return cli_error("%s: at most %u %s, got %u (see --help)", cmd->name,
			 cmd->max_operands, cmd->operand, n);
}

static void label(const struct opt *o, bool shorts, char *buf, size_t size);

static void reverse(char **argv, int from, int to)
{
	while (from < --to) {
		char *t = argv[from];

		argv[from++] = argv[to];
		argv[to] = t;
	}
}

/*
 * Swap the blocks argv[a..b-1] (operands) and argv[b..c-1] (an option
 * and its value), each keeping its order: GNU getopt's exchange().
 */
static void rotate(char **argv, int a, int b, int c)
{
	if (a == b || b == c)
		return;
	reverse(argv, a, b);
	reverse(argv, b, c);
	reverse(argv, a, c);
}

/* A scalar option's value, kept so that --help shows the defaults. */
union opt_value {
	bool b;
	unsigned int u;
	uint64_t u64;
	double d;
	const char *s;
	int i;
};

static size_t value_size(const struct opt *o)
{
	switch (o->type) {
	case OT_FLAG: return sizeof(bool);
	case OT_UINT: return sizeof(unsigned int);
	case OT_U64: return sizeof(uint64_t);
	case OT_DOUBLE: return sizeof(double);
	case OT_STRING: return sizeof(const char *);
	case OT_ENUM: return sizeof(int);
	default: return 0; /* lists and callbacks show no value */
	}
}

static int parse(struct opt_cmd *cmd, int argc, char **argv, int *first,
		 bool in_order)
{
	union opt_value saved[OPT_TABLE_MAX];
	const char *why;
	int i, ops = 1, rc = 0;

	if (opt_check_table(cmd, &why))
		return cli_error("%s: bad option table: %s", cmd->name, why);
	for (struct opt *o = cmd->opts; o->type != OT_END; o++) {
		o->seen = 0;
		memcpy(&saved[o - cmd->opts], o->value ? o->value : (void *)&saved[0],
		       o->value ? value_size(o) : 0);
	}
	/*
	 * argv[1..ops-1]: the options met so far (with their values),
	 * argv[ops..i-1]: the operands met so far, argv[i..]: not yet read.
	 */
	for (i = 1; i < argc && !rc;) {
		const char *a = argv[i];
		int end = i;

		if (a[0] != '-' || !a[1]) { /* an operand ("-" is one: stdin) */
			if (in_order)
				break;
			i++;
			continue;
		}
		if (!strcmp(a, "--")) { /* it goes with the options */
			rotate(argv, ops, i, i + 1);
			ops++;
			i = argc;
			break;
		}
		rc = a[1] == '-' ? parse_long(cmd, argc, argv, &end)
				 : parse_short(cmd, argc, argv, &end);
		rotate(argv, ops, i, end + 1);
		ops += end + 1 - i;
		i = end + 1;
	}
	if (rc == OPT_HELP) {
		/* options before --help changed values: the help shows defaults */
		for (struct opt *o = cmd->opts; o->type != OT_END; o++)
			if (o->value)
				memcpy(o->value, &saved[o - cmd->opts], value_size(o));
		opt_help(cmd, stdout);
	}
	if (rc)
		return rc;
	for (const struct opt *o = cmd->opts; o->type != OT_END; o++)
		if ((o->flags & OPT_REQUIRED) && !o->seen) {
			char lab[96];

			label(o, false, lab, sizeof(lab));
			return cli_error("%s: %s is required (see --help)",
					 cmd->name, lab);
		}
	if (check_operands(cmd, argc, argv, ops))
		return CLI_EXIT_USAGE;
	*first = ops;
	return 0;
}

int opt_parse(struct opt_cmd *cmd, int argc, char **argv, int *first)
{
	return parse(cmd, argc, argv, first, false);
}

int opt_parse_in_order(struct opt_cmd *cmd, int argc, char **argv, int *first)
{
	return parse(cmd, argc, argv, first, true);
}

bool opt_given(const struct opt_cmd *cmd, const char *name)
{
	for (const struct opt *o = cmd->opts; o->type != OT_END; o++)
		if (o->name && !strcmp(o->name, name))
			return o->seen > 0;
	return false;
}

/* --- help ------------------------------------------------------------- */

/*
 * Write @text from column *@col, breaking at spaces before HELP_WIDTH and
 * at its own newlines; continuation lines start at column @indent.
 */
static void wrap(FILE *f, const char *text, size_t indent, size_t *col)
{
	const char *p = text;

	while (*p == ' ')
		p++;
	while (*p) {
		size_t word = strcspn(p, " \n");

		if (*col > indent && *col + 1 + word > HELP_WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			*col = indent;
		} else if (*col > indent) {
			fputc(' ', f);
			(*col)++;
		}
		fwrite(p, 1, word, f);
		*col += word;
		p += word;
		if (*p == '\n') {
			fprintf(f, "\n%*s", (int)indent, "");
			*col = indent;
		}
		while (*p == ' ' || *p == '\n')
			p++;
	}
}

/* One synopsis item, never broken inside. */
static void put_item(FILE *f, const char *item, size_t indent, size_t *col)
{
	size_t len = strlen(item);

	if (*col + 1 + len > HELP_WIDTH && *col > indent) {
		fprintf(f, "\n%*s", (int)indent, "");
		*col = indent;
	} else {
		fputc(' ', f);
		(*col)++;
	}
	fputs(item, f);
	*col += len;
}

/*
 * "--name METAVAR" into @buf; in help (@shorts: the table has short
 * names) "-x, --name METAVAR" or four spaces and "--name METAVAR".
 */
static void label(const struct opt *o, bool shorts, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	if (o->short_name && (shorts || !o->name))
		n = append(buf, size, n, "-%c%s", o->short_name, o->name ? ", " : "");
	else if (shorts)
		n = append(buf, size, n, "    ");
	if (o->name)
		n = append(buf, size, n, "--%s", o->name);
	if (o->type != OT_FLAG)
		append(buf, size, n, " %s%s", o->metavar,
		       (o->type == OT_LIST && !(o->flags & OPT_NOSPLIT)) ||
				       o->type == OT_UINTS
			       ? ",..."
			       : "");
}

/* The range (or the choices) of @o, "" when it has none to show. */
static void range_of(const struct opt *o, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	switch (o->type) {
	case OT_UINT:
	case OT_UINTS:
		if (o->min || o->max != UINT_MAX)
			snprintf(buf, size, "%llu..%llu", (unsigned long long)o->min,
				 (unsigned long long)o->max);
		break;
	case OT_U64:
		if (o->min || o->max != UINT64_MAX)
			snprintf(buf, size, "%llu..%llu", (unsigned long long)o->min,
				 (unsigned long long)o->max);
		break;
	case OT_DOUBLE:
		snprintf(buf, size, "%g..%g, may have a fraction", o->dmin, o->dmax);
		break;
	case OT_ENUM:
		for (const struct opt_choice *c = o->choices; c->name && n < size; c++)
			n += (size_t)snprintf(buf + n, size - n, "%s%s",
					      n ? ", " : "", c->name);
		break;
	default:
		break;
	}
}

/* The default of @o as help shows it, "" when none. */
static void default_of(const struct opt *o, char *buf, size_t size)
{
	buf[0] = '\0';
	if (o->def) {
		snprintf(buf, size, "%s", o->def);
		return;
	}
	switch (o->type) {
	case OT_UINT:
		snprintf(buf, size, "%u", *(const unsigned int *)o->value);
		break;
	case OT_U64:
		snprintf(buf, size, "%llu",
			 (unsigned long long)*(const uint64_t *)o->value);
		break;
	case OT_DOUBLE:
		snprintf(buf, size, "%g", *(const double *)o->value);
		break;
	case OT_STRING:
		if (*(const char *const *)o->value)
			snprintf(buf, size, "%s", *(const char *const *)o->value);
		break;
	case OT_ENUM:
		for (const struct opt_choice *c = o->choices; c->name; c++)
			if (c->value == *(const int *)o->value) {
				snprintf(buf, size, "%s", c->name);
				break;
			}
		break;
	default:
		break;
	}
}

static void synopsis(const struct opt_cmd *cmd, FILE *f)
{
	size_t col = (size_t)fprintf(f, "usage: cidkit %s", cmd->name);
	size_t indent = col < 40 ? strlen("usage: cidkit ") + 4 : 11;
	char item[256], lab[96];

	for (const struct opt *o = cmd->opts; o->type != OT_END; o++) {
		const struct opt *g = cmd->opts;
		size_t n;

		/* a group is shown once, at its first member: [--a | --b] */
		while (o->group && g != o && g->group != o->group)
			g++;
		if (g != o && o->group)
			continue;
		item[0] = '\0';
		n = append(item, sizeof(item), 0, "%s",
			   o->flags & OPT_REQUIRED ? "" : "[");
		for (const struct opt *p = o; p->type != OT_END; p++) {
			if (p != o && (!o->group || p->group != o->group))
				continue;
			label(p, false, lab, sizeof(lab));
			n = append(item, sizeof(item), n, "%s%s",
				   p != o ? " | " : "", lab);
			if (!o->group)
				break;
		}
		if (!(o->flags & OPT_REQUIRED))
			append(item, sizeof(item), n, "]");
		put_item(f, item, indent, &col);
	}
	if (cmd->max_operands) {
		snprintf(item, sizeof(item), "%s%s%s%s",
			 cmd->min_operands ? "" : "[", cmd->operand,
			 cmd->max_operands > 1 ? "..." : "",
			 cmd->min_operands ? "" : "]");
		put_item(f, item, indent, &col);
	}
	fputc('\n', f);
}

void opt_help(const struct opt_cmd *cmd, FILE *f)
{
	bool shorts = false, lists = false;
	size_t width = strlen("--help");
	char lab[96], range[256], def[256], tail[600];

	for (const struct opt *o = cmd->opts; o->type != OT_END; o++) {
		shorts |= o->short_name != 0;
		lists |= (o->type == OT_LIST && !(o->flags & OPT_NOSPLIT)) ||
			 o->type == OT_UINTS;
	}
	for (const struct opt *o = cmd->opts; o->type != OT_END; o++) {
		label(o, shorts, lab, sizeof(lab));
		if (strlen(lab) > width)
			width = strlen(lab);
	}
	if (shorts && width < strlen("-h, --help"))
		width = strlen("-h, --help");
	if (width > 24)
		width = 24;

	synopsis(cmd, f);
	if (cmd->about)
		fprintf(f, "\n%s", cmd->about);
	fputc('\n', f);
	for (const struct opt *o = cmd->opts; o->type != OT_END; o++) {
		size_t col, n = 0;

		label(o, shorts, lab, sizeof(lab));
		col = (size_t)fprintf(f, "  %-*s  ", (int)width, lab);
		if (col > width + 4) {
			fprintf(f, "\n%*s", (int)width + 4, "");
			col = width + 4;
		}
		wrap(f, o->help, width + 4, &col);
		/* what the table knows: (range; repeat for several; default) */
		range_of(o, range, sizeof(range));
		default_of(o, def, sizeof(def));
		if (*range)
			n = append(tail, sizeof(tail), n, "%s%s", n ? "; " : "(",
				   range);
		if (o->flags & OPT_NOSPLIT)
			n = append(tail, sizeof(tail), n, "%s%s", n ? "; " : "(",
				   "repeat for several");
		if (*def) /* "default 41", "default: online CPUs" */
			n = append(tail, sizeof(tail), n, "%sdefault%s %s",
				   n ? "; " : "(", o->def ? ":" : "", def);
		if (n) {
			append(tail, sizeof(tail), n, ")");
			wrap(f, tail, width + 4, &col);
		}
		fputc('\n', f);
	}
	fprintf(f, "  %-*s  this help\n", (int)width,
		shorts ? "-h, --help" : "--help");
	if (lists)
		fprintf(f, "A list (X,...) is comma-separated; its option may also be repeated.\n");
	if (cmd->epilog)
		fprintf(f, "\n%s", cmd->epilog);
}
