/* SPDX-License-Identifier: MIT */
/*
 * The command's option parser (tools/cli/opt.c): every type, the range
 * edges, the number syntax, unknown/ambiguous/missing/duplicate options,
 * "--", operands, groups, required options, the one-line error contract
 * (stderr captured: exactly one "cidkit: " line, control bytes escaped),
 * and the generated help (every option of the table in it and nothing
 * else, defaults read from the variables, lines within 79 columns).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "opt.h"
#include "tap.h"

struct res {
	int rc, first, argc;
	char *argv[64]; /* as opt_parse() left it (permuted) */
	char out[16384], err[4096];
};

/* Read what @f got since it was created, into @buf. */
static void slurp(FILE *f, char *buf, size_t size)
{
	size_t n;

	fflush(f);
	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static bool in_order; /* run() calls opt_parse_in_order() */

/* opt_parse(@cmd) on "t" + the NULL-terminated words; stdout and stderr kept. */
static int run(struct opt_cmd *cmd, struct res *r, ...)
{
	char *argv[64] = { (char *)"t" };
	int argc = 1, so, se;
	FILE *fo = tmpfile(), *fe = tmpfile();
	va_list ap;

	va_start(ap, r);
	while (argc < 63 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	dup2(fileno(fo), 1);
	dup2(fileno(fe), 2);
	r->first = -1;
	r->rc = in_order ? opt_parse_in_order(cmd, argc, argv, &r->first)
			 : opt_parse(cmd, argc, argv, &r->first);
	memcpy(r->argv, argv, sizeof(argv));
	r->argc = argc;
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	slurp(fo, r->out, sizeof(r->out));
	slurp(fe, r->err, sizeof(r->err));
	return r->rc;
}

/* The error contract: 2, nothing on stdout, one "cidkit: t: " line. */
static bool usage_error(const struct res *r)
{
	size_t len = strlen(r->err);

	return r->rc == CLI_EXIT_USAGE && !r->out[0] &&
	       !strncmp(r->err, "cidkit: t: ", 11) && len &&
	       r->err[len - 1] == '\n' && !memchr(r->err, '\n', len - 1);
}

/* The values every test case starts from. */
static bool flag, flag2;
static unsigned int u;
static uint64_t u64;
static double d;
static const char *str;
static struct opt_list list, single;
static struct opt_uints uints;
static int choice;
static unsigned int cb_calls;
static char cb_seen[64];

static int cb(void *ctx, const char *arg, const char *what)
{
	(void)ctx;
	cb_calls++;
	snprintf(cb_seen, sizeof(cb_seen), "%s", arg);
	if (!strcmp(arg, "bad"))
		return cli_error("%s: bad value '%s'", what, cli_q(arg));
	return 0;
}

static const struct opt_choice fmts[] = {
	{ "list", 0 }, { "hex", 1 }, { "x", 1 }, { NULL, 0 },
};

static struct opt opts[] = {
	{ OPT_FLAG("flag", 'f', &flag, "a flag") },
	{ OPT_FLAG("flag-two", 'g', &flag2, "another flag, so that --fl is "
					     "ambiguous") },
	{ OPT_UINT("uint", 'u', &u, 3, 4000000000u, "N", "an unsigned int") },
	{ OPT_U64("u64", 0, &u64, 0, UINT64_MAX, "S", "a 64-bit number") },
	{ OPT_DOUBLE("double", 'd', &d, 0.5, 100, "D", "a decimal") },
	{ OPT_STRING("string", 's', &str, "STR", "a string") },
	{ OPT_LIST("list", 'l', &list, "X", "a list") },
	{ OPT_LIST("single", 0, &single, "SPEC", "one value per use"),
	  .flags = OPT_NOSPLIT, .def = "none" },
	{ OPT_UINTS("uints", 0, &uints, 1, 10, "N", "numbers") },
	{ OPT_ENUM("format", 0, &choice, fmts, "FMT", "a choice") },
	{ OPT_CALLBACK("cb", 'c', cb, NULL, "V", "a callback"), .def = "" },
	{ .type = OT_END },
};

static struct opt_cmd cmd = { "t", "About t.\n", "Epilog of t.\n", NULL, 0, 0,
			      opts };

static void reset(void)
{
	flag = flag2 = false;
	u = 7;
	u64 = 9;
	d = 1.5;
	str = NULL;
	list.n = single.n = uints.n = 0;
	choice = 0;
	cb_calls = 0;
	cb_seen[0] = '\0';
	cmd.operand = NULL;
	cmd.min_operands = cmd.max_operands = 0;
}

static void test_types(void)
{
	struct res r;

	reset();
	run(&cmd, &r, "--flag", "--uint", "3", "--u64", "18446744073709551615",
	    "--double", "2.25", "--string", "-x", "--list", "a,b", "--list", "c",
	    "--single", "p,q", "--single", "r", "--uints", "1,10", "--uints=5",
	    "--format", "hex", "--cb", "v", NULL);
	ok(r.rc == 0 && r.first == 25 && !r.err[0], "every type parses (rc %d: %s)",
	   r.rc, r.err);
	ok(flag && !flag2 && u == 3 && u64 == UINT64_MAX && d == 2.25,
	   "flag, uint, u64 (UINT64_MAX), double stored");
	ok(str && !strcmp(str, "-x"), "a string value may start with '-' (%s)",
	   str ? str : "NULL");
	ok(list.n == 3 && !strcmp(list.item[0], "a") && !strcmp(list.item[1], "b") &&
		   !strcmp(list.item[2], "c"),
	   "a list: comma-separated and repeated, in order");
	ok(single.n == 2 && !strcmp(single.item[0], "p,q") &&
		   !strcmp(single.item[1], "r"),
	   "OPT_NOSPLIT: one value per use, commas kept");
	ok(uints.n == 3 && uints.v[0] == 1 && uints.v[1] == 10 && uints.v[2] == 5,
	   "a list of numbers, --name=value too");
	ok(choice == 1 && cb_calls == 1 && !strcmp(cb_seen, "v"),
	   "enum stores the choice's value; the callback sees its argument");
	ok(opt_given(&cmd, "uint") && !opt_given(&cmd, "flag-two") &&
		   !opt_given(&cmd, "nope"),
	   "opt_given says what was given");

	reset();
	run(&cmd, &r, NULL);
	ok(r.rc == 0 && r.first == 1 && u == 7 && u64 == 9 && d == 1.5 && !str &&
		   !list.n && !opt_given(&cmd, "uint"),
	   "nothing given: every value keeps its default");

	reset();
	run(&cmd, &r, "-fg", "-u5", "-d", "3", "-s", "--", "-lz", NULL);
	ok(r.rc == 0 && flag && flag2 && u == 5 && d == 3 && str &&
		   !strcmp(str, "--") && list.n == 1 && !strcmp(list.item[0], "z"),
	   "short options: a cluster of flags, -u5, -d 3, a value '--', -lz");

	reset();
	run(&cmd, &r, "--u6", "8", "--uint", "4", "--flag", "--fo", "x", NULL);
	ok(r.rc == 0 && u64 == 8 && u == 4 && flag && choice == 1,
	   "an unambiguous prefix names its option; an exact name wins (--uint "
	   "next to --uints, --flag next to --flag-two)");
	run(&cmd, &r, "--uin", "8", NULL);
	ok(usage_error(&r) && strstr(r.err, "'--uin' is ambiguous"),
	   "--uin: a prefix of two names is ambiguous");
}

/* One bad command line: usage error whose message holds @want. */
static void bad(const char *what, const char *want, ...)
{
	char *argv[16] = { (char *)"t" };
	int argc = 1;
	struct res r;
	va_list ap;

	va_start(ap, want);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	reset();
	run(&cmd, &r, argc > 1 ? argv[1] : NULL, argc > 2 ? argv[2] : NULL,
	    argc > 3 ? argv[3] : NULL, argc > 4 ? argv[4] : NULL,
	    argc > 5 ? argv[5] : NULL, NULL);
	ok(usage_error(&r) && strstr(r.err, want), "%s: one line, exit 2 (%s)",
	   what, r.err);
}

static void test_errors(void)
{
	char longv[OPT_ITEM_LEN + 8], many[3 * (OPT_LIST_MAX + 1) + 1];

	/* range edges */
	bad("uint below min", "out of range [3, 4000000000]", "--uint", "2", NULL);
	bad("uint above max", "4000000001 is out of range", "--uint", "4000000001",
	    NULL);
	bad("u64 past 2^64 - 1: reported as written, not saturated",
	    "18446744073709551616 is out of range", "--u64",
	    "18446744073709551616", NULL);
	bad("double below min", "0.4 is out of range", "--double", "0.4", NULL);
	bad("double above max", "100.5 is out of range", "--double", "100.5", NULL);
	bad("uints item out of range", "--uints: 11 is out of range", "--uints",
	    "1,11", NULL);
	/* number syntax */
	static const char *const not_uint[] = { "0x10", "-1", "+5", " 5", "5 ",
						"1e3", "", "1.5", "a" };
	for (unsigned int i = 0; i < sizeof(not_uint) / sizeof(*not_uint); i++)
		bad("not a decimal integer", "is not a number", "--uint",
		    not_uint[i], NULL);
	static const char *const not_double[] = { "0x1p3", "1e3", "inf", "nan",
						  "-1", "+1", ".", "1.2.3", "",
						  " 1" };
	for (unsigned int i = 0; i < sizeof(not_double) / sizeof(*not_double); i++)
		bad("not a decimal number (no hex float, exponent, inf)",
		    "is not a decimal number", "--double", not_double[i], NULL);
	/* options */
	bad("unknown long option", "unknown option '--nope'", "--nope", NULL);
	bad("unknown short option", "unknown option '-z'", "-z", NULL);
	bad("unknown short option in a cluster", "unknown option '-z'", "-fz",
	    NULL);
	bad("ambiguous prefix", "option '--fl' is ambiguous", "--fl", NULL);
	bad("missing value at the end (long)", "option '--uint' needs a value",
	    "--uint", NULL);
	bad("missing value at the end (short)", "option '-u' needs a value", "-u",
	    NULL);
	bad("a value given to a flag", "option '--flag' takes no value",
	    "--flag=1", NULL);
	bad("an option given twice", "t: --uint given twice", "--uint", "5",
	    "--uint", "6", NULL);
	bad("a flag given twice", "--flag given twice", "-f", "--flag", NULL);
	bad("empty list value", "--list: empty value in ''", "--list", "", NULL);
	bad("empty list item", "empty value in 'a,,b'", "--list", "a,,b", NULL);
	bad("trailing comma", "empty value", "--list", "a,", NULL);
	bad("empty numbers list item", "empty value", "--uints", ",1", NULL);
	bad("empty no-split value", "empty value", "--single", "", NULL);
	memset(longv, 'v', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = '\0';
	bad("a list value too long", "too long", "--list", longv, NULL);
	for (unsigned int i = 0; i <= OPT_LIST_MAX; i++)
		memcpy(many + 2 * i, "a,", 2);
	many[2 * OPT_LIST_MAX + 1] = '\0';
	bad("too many list values", "at most 32 values", "--list", many, NULL);
	bad("unknown enum value", "--format: unknown value 'oct' (list, hex, x)",
	    "--format", "oct", NULL);
	bad("the callback's own error", "--cb: bad value 'bad'", "--cb", "bad",
	    NULL);
	bad("an operand the command does not take",
	    "unexpected argument 'x' (see --help)", "x", NULL);
	bad("after --, an option is an operand",
	    "unexpected argument '--flag'", "--", "--flag", NULL);
	bad("an operand before options is still an operand",
	    "unexpected argument 'x' (see --help)", "x", "--flag", NULL);
	bad("a newline in a value is escaped", "'a\\nb' is not a number",
	    "--uint", "a\nb", NULL);
	bad("a control byte in an option name is escaped",
	    "unknown option '--a\\x01'", "--a\001", NULL);
	bad("an empty long name", "unknown option '--=1'", "--=1", NULL);
}

/* Does @r's argv hold the NULL-terminated words, in this order? */
static bool words(const struct res *r, ...)
{
	const char *w;
	va_list ap;
	int i = 0;
	bool same = true;

	va_start(ap, r);
	while ((w = va_arg(ap, const char *)) && same)
		same = i < r->argc && !strcmp(r->argv[i++], w);
	va_end(ap);
	return same && i == r->argc;
}

static void test_operands_groups(void)
{
	struct opt_cmd one = cmd;
	struct res r;
	bool a = false, b = false;
	unsigned int need = 0;
	struct opt gopts[] = {
		{ OPT_FLAG("json", 0, &a, "json"), .group = 1 },
		{ OPT_FLAG("csv", 0, &b, "csv"), .group = 1 },
		{ OPT_UINT("need", 0, &need, 0, 9, "N", "required"),
		  .flags = OPT_REQUIRED },
		{ .type = OT_END },
	};
	struct opt_cmd g = { "t", NULL, NULL, NULL, 0, 0, gopts };

	reset();
	one.operand = "FILE";
	one.min_operands = 1;
	one.max_operands = OPT_MANY;
	run(&one, &r, "a", "-f", "b", "--uint", "5", "c", NULL);
	ok(r.rc == 0 && r.first == 4 && flag && u == 5,
	   "options after operands are options (GNU permutation)");
	ok(words(&r, "t", "-f", "--uint", "5", "a", "b", "c", NULL),
	   "argv permuted: the options first, the operands after, each in order");
	reset();
	in_order = true;
	run(&one, &r, "-f", "a", "--uint", "5", NULL);
	in_order = false;
	ok(r.rc == 0 && r.first == 2 && flag && u == 7 &&
		   words(&r, "t", "-f", "a", "--uint", "5", NULL),
	   "opt_parse_in_order: the first operand ends the options, argv kept");
	reset();
	run(&one, &r, "--", "-f", NULL);
	ok(r.rc == 0 && r.first == 2 && !flag, "-- ends the options: -f is an operand");
	reset();
	run(&one, &r, "a", "--uint", "5", "--", "-f", "--uint", NULL);
	ok(r.rc == 0 && r.first == 4 && !flag && u == 5 &&
		   words(&r, "t", "--uint", "5", "--", "a", "-f", "--uint", NULL),
	   "options, then --: what follows -- is operands, after those before it");
	reset();
	run(&one, &r, "a", "--string", "-5", "-", "--flag", NULL);
	ok(r.rc == 0 && r.first == 4 && flag && str && !strcmp(str, "-5") &&
		   words(&r, "t", "--string", "-5", "--flag", "a", "-", NULL),
	   "a value starting with '-' is the option's; '-' alone is an operand");
	run(&one, &r, "-", NULL);
	ok(r.rc == 0 && r.first == 1, "'-' alone is an operand");
	run(&one, &r, "a", "--bogus", NULL);
	ok(r.rc == 2 && strstr(r.err, "t: unknown option '--bogus' (see --help)"),
	   "an unknown option after an operand is named: %s", r.err);
	run(&one, &r, "-f", NULL);
	ok(r.rc == 2 && strstr(r.err, "t: no FILE given (see --help)"),
	   "operands missing: %s", r.err);
	one.operand = "STRING";
	one.min_operands = one.max_operands = 1;
	run(&one, &r, "a", "b", NULL);
	ok(r.rc == 2 && strstr(r.err, "t: expected one STRING, got 2"),
	   "one operand expected, two given: %s", r.err);

	run(&g, &r, "--need", "1", "--csv", "--json", NULL);
	ok(usage_error(&r) && strstr(r.err, "t: --json and --csv exclude each other"),
	   "two of one group: %s", r.err);
	run(&g, &r, "--json", NULL);
	ok(usage_error(&r) && strstr(r.err, "t: --need N is required (see --help)"),
	   "a required option missing: %s", r.err);
	a = b = false;
	run(&g, &r, "--json", "--need", "0", NULL);
	ok(r.rc == 0 && a && !b && need == 0, "one of a group and the required one");

	/* a required flag (no metavar) and a required short-only option */
	{
		bool yes = false;
		unsigned int k = 0;
		struct opt ropts[] = {
			{ OPT_FLAG("yes", 0, &yes, "really"), .flags = OPT_REQUIRED },
			{ OPT_UINT(NULL, 'k', &k, 0, 9, "K", "k"),
			  .flags = OPT_REQUIRED },
			{ .type = OT_END },
		};
		struct opt_cmd rc = { "t", "about", NULL, NULL, 0, 0, ropts };

		run(&rc, &r, "-k", "1", NULL);
		ok(usage_error(&r) &&
			   strstr(r.err, "t: --yes is required (see --help)") &&
			   !strstr(r.err, "(null)"),
		   "a required flag missing: named without a metavar: %s", r.err);
		run(&rc, &r, "--yes", NULL);
		ok(usage_error(&r) &&
			   strstr(r.err, "t: -k K is required (see --help)"),
		   "a required short-only option missing: %s", r.err);
	}
}

static void test_table_check(void)
{
	bool x = false;
	unsigned int v = 0;
	struct opt dup_long[] = {
		{ OPT_FLAG("x", 0, &x, "x") },
		{ OPT_FLAG("x", 0, &x, "x again") },
		{ .type = OT_END },
	};
	struct opt dup_short[] = {
		{ OPT_FLAG("x", 'x', &x, "x") },
		{ OPT_FLAG("y", 'x', &x, "y") },
		{ .type = OT_END },
	};
	struct opt help[] = { { OPT_FLAG("help", 0, &x, "mine") },
			      { .type = OT_END } };
	struct opt empty_range[] = {
		{ OPT_UINT("v", 0, &v, 5, 4, "N", "v") },
		{ .type = OT_END },
	};
	struct opt no_metavar[] = {
		{ OPT_UINT("v", 0, &v, 0, 4, NULL, "v") },
		{ .type = OT_END },
	};
	struct opt *bad_tables[] = { dup_long, dup_short, help, empty_range,
				     no_metavar };
	const char *why = NULL;
	struct res r;

	ok(!opt_check_table(&cmd, &why), "the test's own table is sound");
	for (unsigned int i = 0; i < 5; i++) {
		struct opt_cmd c = { "t", NULL, NULL, NULL, 0, 0, bad_tables[i] };

		why = NULL;
		run(&c, &r, NULL);
		ok(opt_check_table(&c, &why) && why && usage_error(&r) &&
			   strstr(r.err, "bad option table"),
		   "a bad table is refused: %s", why ? why : "(accepted)");
	}
}

/* Does the help's option section name exactly the table's options? */
static bool help_names_table(const char *help, const struct opt *t)
{
	const char *p = strstr(help, "\n\n  -");
	unsigned int found = 0, n = 0;

	for (const struct opt *o = t; o->type != OT_END; o++) {
		char want[64];

		snprintf(want, sizeof(want), "--%s ", o->name);
		if (o->type == OT_FLAG)
			snprintf(want, sizeof(want), "--%s  ", o->name);
		n++;
		found += p && strstr(p, want) != NULL;
	}
	/* and no other --word at the start of an option line */
	for (const char *l = p; l && (l = strstr(l + 1, "\n  ")) != NULL;) {
		const char *dash = l + 3;
		size_t len;
		bool known = false;

		if (*dash == '-' && dash[1] != '-')
			dash += 4; /* "-x, " */
		if (strncmp(dash, "--", 2))
			continue;
		len = strcspn(dash + 2, " \n");
		for (const struct opt *o = t; o->type != OT_END; o++)
			known |= strlen(o->name) == len && !strncmp(o->name, dash + 2, len);
		known |= len == 4 && !strncmp(dash + 2, "help", 4);
		if (!known)
			return false;
	}
	return found == n;
}

static void test_help(void)
{
	struct res r, r2;
	bool wide = false;
	size_t col = 0;

	reset();
	run(&cmd, &r, "--help", NULL);
	ok(r.rc == OPT_HELP && opt_status(r.rc) == 0 && !r.err[0] &&
		   !strncmp(r.out, "usage: cidkit t [--flag] [--flag-two] [--uint N]", 48),
	   "--help: help on stdout, nothing on stderr, status 0");
	run(&cmd, &r2, "-h", NULL);
	ok(r2.rc == OPT_HELP && !strcmp(r.out, r2.out), "-h prints the same help");
	run(&cmd, &r2, "--u64", "1", "--he", NULL);
	ok(r2.rc == OPT_HELP && !strcmp(r.out, r2.out),
	   "--he (a prefix of help only) is --help; it shows the defaults, not "
	   "the values given before it");
	for (const char *p = r.out; *p; p++) {
		col = *p == '\n' ? 0 : col + 1;
		wide |= col > 79;
	}
	ok(!wide, "no help line is wider than 79 columns");
	ok(help_names_table(r.out, opts),
	   "the help names every option of the table and no other");
	ok(strstr(r.out, "-u, --uint N") && strstr(r.out, "(3..4000000000; default 7)"),
	   "a number's range and its default, read from the variable");
	ok(strstr(r.out, "(0.5..100, may have a fraction; default 1.5)"),
	   "a decimal's range and default");
	ok(strstr(r.out, "--format FMT") && strstr(r.out, "(list, hex, x; default list)"),
	   "an enum's choices and the name of its default");
	ok(strstr(r.out, "-l, --list X,...") &&
		   strstr(r.out, "A list (X,...) is comma-separated"),
	   "a list is shown as X,... and explained");
	ok(strstr(r.out, "--single SPEC") &&
		   strstr(r.out, "(repeat for several; default: none)"),
	   "a no-split list says it repeats; a default given as text");
	ok(strstr(r.out, "a 64-bit number (default 9)") != NULL,
	   "a full-width range is not shown");
	ok(strstr(r.out, "\nAbout t.\n") && strstr(r.out, "\nEpilog of t.\n"),
	   "the command's about and epilog text");
	reset();
	u = 12;
	run(&cmd, &r2, "--help", NULL);
	ok(strstr(r2.out, "default 12)"), "the default shown is the variable's");
}

/*
 * Names and metavars longer than the help's buffers (a label of 96 bytes,
 * a synopsis item of 256, found by tests/fuzz/fuzz_opt.c): the help cuts
 * them instead of writing past the buffer (the ASan build proves it).
 */
static void test_help_long_names(void)
{
	char n1[201], n2[201], n3[201], mv[201], big[202];
	unsigned int v1 = 0, v2 = 0, v3 = 0;
	struct opt lopts[] = {
		{ OPT_UINT(n1, 'x', &v1, 0, 9, mv, "one"), .group = 1 },
		{ OPT_UINT(n2, 'y', &v2, 0, 9, mv, "two"), .group = 1 },
		{ OPT_UINT(n3, 'z', &v3, 0, 9, mv, "three"), .group = 1 },
		{ .type = OT_END },
	};
	struct opt_cmd c = { "t", NULL, NULL, NULL, 0, 0, lopts };
	struct res r;

	memset(n1, 'n', 200);
	memset(n2, 'o', 200);
	memset(n3, 'p', 200);
	memset(mv, 'M', 200);
	n1[200] = n2[200] = n3[200] = mv[200] = '\0';
	snprintf(big, sizeof(big), "-x, --%.80s", n1);
	run(&c, &r, "--help", NULL);
	ok(r.rc == OPT_HELP && !r.err[0] && !strncmp(r.out, "usage: cidkit t [--nnn", 22) &&
		   strstr(r.out, big) && !strstr(r.out, n1) && !strstr(r.out, mv),
	   "200-byte names and metavars, three in one group: the help cuts "
	   "them at its buffers");
}

int main(void)
{
	test_types();
	test_errors();
	test_operands_groups();
	test_table_check();
	test_help();
	test_help_long_names();
	return done_testing();
}
