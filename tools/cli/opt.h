/* SPDX-License-Identifier: MIT */
/*
 * The one option parser of the cidkit command.  Each subcommand declares
 * its options as data - a table of struct opt, one entry per option: long
 * name, short name, type, where the value goes, range, metavar and help -
 * and opt_parse() does the rest: the parsing, the range and syntax errors
 * (one "cidkit: CMD: ..." line, exit status 2), and --help, generated from
 * the same table so that the help text and the parser cannot disagree.
 *
 * Learnt from the kernel's tools/lib/subcmd/parse-options (perf): options
 * as an array of typed entries ending with an end marker, the value behind
 * a pointer, help lines aligned in a column.  Unlike it: numbers are the
 * strict decimal syntax of cli_parse_u64()/cli_parse_double() (no hex, no
 * sign, no exponent, no saturation), ranges are data and shown in --help,
 * the default shown is read from the variable itself before parsing, and
 * an option given twice is an error unless it is a list.
 *
 * The command line grammar: "--name VALUE", "--name=VALUE", "-x VALUE",
 * "-xVALUE", clusters of short flags ("-jk"), an unambiguous prefix of a
 * long name ("--dur" for "--duration"); "-h" and "--help" print the help
 * (on stdout).  Options and operands come in any order, as GNU
 * getopt_long's permutation and Python's argparse take them: a word that
 * does not start with '-', and "-" alone (stdin), is an operand, and the
 * options after it are still options; "--" ends the options, every word
 * after it is an operand ("-- -5", "-- --json").  A value is the next word
 * whatever it looks like ("--offset -5").  opt_parse() permutes argv so
 * that the operands come last, in their order.  A command whose operands
 * are a command line to run (cidkit trace record CMD ARGS...) parses with
 * opt_parse_in_order(): its first operand ends the options, as getopt's
 * "+" (and env, timeout, taskset) do.
 *
 * Not MT-safe (nor is anything that prints); one table per call.
 */
#ifndef CIDKIT_TOOLS_OPT_H
#define CIDKIT_TOOLS_OPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define OPT_LIST_MAX 32  /* values of one list option */
#define OPT_ITEM_LEN 256 /* bytes of one list value, with its NUL */
#define OPT_TABLE_MAX 48 /* entries of one table, with the end */

enum opt_type {
	OT_END,      /* ends the table */
	OT_FLAG,     /* bool *: no value; sets true */
	OT_UINT,     /* unsigned int *: decimal in [min, max] */
	OT_U64,      /* uint64_t *: decimal in [min, max] */
	OT_DOUBLE,   /* double *: digits and one point, in [dmin, dmax] */
	OT_STRING,   /* const char **: the argument itself (argv stays) */
	OT_LIST,     /* struct opt_list *: comma-separated, repeatable */
	OT_UINTS,    /* struct opt_uints *: a list of decimals in [min, max] */
	OT_ENUM,     /* int *: one of choices[], its value */
	OT_CALLBACK, /* cb(ctx, arg, what): 0, or an error line and 2 */
};

/* A name an OT_ENUM option accepts, and what it stores. */
struct opt_choice {
	const char *name;
	int value;
};

/* The values of an OT_LIST option, copied (argv stays intact). */
struct opt_list {
	const char *item[OPT_LIST_MAX];
	char store[OPT_LIST_MAX][OPT_ITEM_LEN];
	unsigned int n;
};

/* The values of an OT_UINTS option. */
struct opt_uints {
	unsigned int v[OPT_LIST_MAX];
	unsigned int n;
};

#define OPT_REQUIRED 0x1u /* must be given */
#define OPT_NOSPLIT 0x2u  /* OT_LIST: repeat the option; no commas */

struct opt {
	const char *name; /* long name without "--"; NULL: none */
	char short_name;  /* 0: none */
	enum opt_type type;
	void *value;
	const char *metavar; /* the value's name in help: "N", "LIST" */
	const char *help;    /* one sentence; wrapped by the generator */
	/*
	 * The default shown in help: NULL reads it from *value (numbers, an
	 * enum, a string that is set: "default 41"), text is shown as it is
	 * ("default: online CPUs"), "" shows none.
	 */
	const char *def;
	uint64_t min, max;   /* OT_UINT, OT_U64, OT_UINTS */
	double dmin, dmax;   /* OT_DOUBLE */
	const struct opt_choice *choices; /* OT_ENUM: ends with a NULL name */
	int (*cb)(void *ctx, const char *arg, const char *what);
	unsigned int flags;  /* OPT_REQUIRED, OPT_NOSPLIT */
	unsigned int group;  /* options of one nonzero group exclude each other */
	unsigned int seen;   /* set by opt_parse: times given */
};

/*
 * The entries, written as designated initializers so that an entry may
 * add fields:  { OPT_UINT("reps", 0, &reps, 1, 100, "R", "repetitions"),
 *                .def = "online CPUs" }
 */
#define OPT_FLAG(l, s, v, h) \
	.name = (l), .short_name = (s), .type = OT_FLAG, .value = (v), \
	.help = (h)
#define OPT_UINT(l, s, v, lo, hi, mv, h) \
	.name = (l), .short_name = (s), .type = OT_UINT, .value = (v), \
	.min = (lo), .max = (hi), .metavar = (mv), .help = (h)
#define OPT_U64(l, s, v, lo, hi, mv, h) \
	.name = (l), .short_name = (s), .type = OT_U64, .value = (v), \
	.min = (lo), .max = (hi), .metavar = (mv), .help = (h)
#define OPT_DOUBLE(l, s, v, lo, hi, mv, h) \
	.name = (l), .short_name = (s), .type = OT_DOUBLE, .value = (v), \
	.dmin = (lo), .dmax = (hi), .metavar = (mv), .help = (h)
#define OPT_STRING(l, s, v, mv, h) \
	.name = (l), .short_name = (s), .type = OT_STRING, .value = (v), \
	.metavar = (mv), .help = (h)
#define OPT_LIST(l, s, v, mv, h) \
	.name = (l), .short_name = (s), .type = OT_LIST, .value = (v), \
	.metavar = (mv), .help = (h)
#define OPT_UINTS(l, s, v, lo, hi, mv, h) \
	.name = (l), .short_name = (s), .type = OT_UINTS, .value = (v), \
	.min = (lo), .max = (hi), .metavar = (mv), .help = (h)
#define OPT_ENUM(l, s, v, ch, mv, h) \
	.name = (l), .short_name = (s), .type = OT_ENUM, .value = (v), \
	.choices = (ch), .metavar = (mv), .help = (h)
#define OPT_CALLBACK(l, s, fn, ctx, mv, h) \
	.name = (l), .short_name = (s), .type = OT_CALLBACK, .cb = (fn), \
	.value = (ctx), .metavar = (mv), .help = (h)

/* A command: its name in messages, its help around the options. */
struct opt_cmd {
	const char *name;    /* "bench mask": messages and "usage: cidkit ..." */
	const char *about;   /* the text between the synopsis and the options */
	const char *epilog;  /* after the options, or NULL */
	const char *operand; /* "FILE", "STRING"; NULL: none taken */
	unsigned int min_operands, max_operands; /* max 0: none; ~0u: any */
	struct opt *opts;    /* ends with an entry of type OT_END */
};

#define OPT_MANY (~0u)

/*
 * opt_parse - parse argv[1..argc-1] (argv[0] is the command's name)
 * against @cmd's table.  Every value is parsed and range-checked as it is
 * met and stored through its entry's pointer; entries not given keep what
 * the caller initialised.  argv[1..argc-1] is permuted (the words, not
 * the strings: values stored keep pointing at them): the options with
 * their values and a "--" first, then the operands in the order given;
 * *@first is the index of the first operand, argc - *@first their number.
 *
 * Returns 0 to go on; OPT_HELP after printing the help on stdout (the
 * command then exits 0: see opt_status()); or CLI_EXIT_USAGE after one
 * "cidkit: CMD: ..." line on stderr: unknown or ambiguous option, missing
 * value, value to a flag, bad number or range, unknown choice, empty list
 * item, too many list values, an option (not a list) given twice, two of
 * one group, a required option missing, operands missing or extra.
 * @cmd->opts[].seen says which options were given.
 */
#define OPT_HELP (-1)
int opt_parse(struct opt_cmd *cmd, int argc, char **argv, int *first);

/*
 * opt_parse_in_order - the same, except that the first operand ends the
 * options (argv is not permuted): for a command whose operands are a
 * command line of their own, "CMD [ARGS...]".
 */
int opt_parse_in_order(struct opt_cmd *cmd, int argc, char **argv, int *first);

/* The exit status for opt_parse()'s nonzero return. */
static inline int opt_status(int rc)
{
	return rc == OPT_HELP ? 0 : rc;
}

/* opt_help - write @cmd's help (synopsis, about, options, epilog) to @f. */
void opt_help(const struct opt_cmd *cmd, FILE *f);

/* Was the option with long name @name given?  (false if there is none) */
bool opt_given(const struct opt_cmd *cmd, const char *name);

/*
 * opt_check_table - a table's own mistakes, for the unit test: a name or
 * short name twice, a list without storage, an empty range, an enum
 * without choices.  0, or -EINVAL with *@why set.
 */
int opt_check_table(const struct opt_cmd *cmd, const char **why);

#endif /* CIDKIT_TOOLS_OPT_H */
