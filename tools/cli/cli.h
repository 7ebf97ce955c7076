/* SPDX-License-Identifier: MIT */
/*
 * What every subcommand of the cidkit command (tools/cidkit/) and the
 * explorer cidkit-check (check/) share: one-line errors with exit status
 * 2, strict number parsing, sub-dispatch and JSON strings.  Only programs
 * print; the library returns errors.  This folder (tools/cli/) is an
 * internal static library that uses nothing above it: neither check/ nor
 * tools/cidkit/ (nor the library; tools/cli/meson.build).
 */
#ifndef CIDKIT_TOOLS_CLI_H
#define CIDKIT_TOOLS_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1  /* the command ran and found a failure */
#define CLI_EXIT_USAGE 2 /* bad input: one line on stderr */

struct cli_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

/*
 * Print "cidkit: <message>" on stderr and return CLI_EXIT_USAGE.  Always
 * one line: a control byte that reaches the message is escaped as cli_q()
 * does, and a message over 1 KB is cut with "\u2026".  Quote user text with
 * cli_q() so that it is also cut short and its backslashes are unambiguous.
 */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same line for a command that ran and failed: returns CLI_EXIT_FAIL. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Parse an unsigned decimal integer in [min, max] for option @what.
 * On error print one line and return CLI_EXIT_USAGE; else 0.
 */
int cli_parse_u64(const char *what, const char *s, uint64_t min, uint64_t max,
		  uint64_t *out);
int cli_parse_uint(const char *what, const char *s, unsigned int min,
		   unsigned int max, unsigned int *out);
/*
 * A non-negative decimal number (e.g. milliseconds, may have a fraction):
 * digits and at most one point, nothing else (no sign, exponent, hex, inf).
 */
int cli_parse_double(const char *what, const char *s, double min, double max,
		     double *out);

/*
 * Run the subcommand of @cmds named argv[0] with (argc, argv) shifted so
 * that the subcommand sees its own name as argv[0].  @prefix names the
 * parent in messages ("" for the top level, "bench" for cidkit bench).
 * "help", "--help" and "-h" print the list; no argument, an unknown name
 * or an option (a word starting with '-': "PREFIX: unknown option '-x'
 * before the command") is one error line and 2.
 */
int cli_dispatch(const char *prefix, const struct cli_cmd *cmds, int argc,
		 char **argv);

/*
 * The one escaping helper for user text in error messages: control bytes
 * as \n, \t, \r or \xNN, a backslash as \\, and text longer than 80
 * bytes cut with "\u2026" (never inside a UTF-8 character).  Returns one of
 * 8 rotating static buffers: at most 8 uses per message; not MT-safe.
 */
const char *cli_q(const char *s);

/*
 * The part of @s up to the next separator (',' or white space, after the
 * first character), through cli_q(), into @buf of @size bytes (cut with
 * "\u2026" when it does not fit).
 */
void cli_excerpt(const char *s, char *buf, size_t size);

/*
 * Write @s as a JSON string literal (with quotes): '"' and '\\' escaped,
 * control bytes (and DEL) as \u00XX, well-formed UTF-8 as it is.  A byte
 * that is not part of well-formed UTF-8 (a file name may hold any byte but
 * '/' and NUL) is written as the lone surrogate \udcXX, as Python's
 * "surrogateescape" (PEP 383) does: the text stays valid JSON that Python
 * reads back to the same bytes with os.fsencode(); a strict reader (jq)
 * shows U+FFFD.  The JSON writer (json.h) writes every string through it.
 */
void cli_json_str(FILE *f, const char *s);

/* Print the command line as "# cidkit a b c" (reports echo it). */
void cli_echo_command(FILE *f, int argc, char **argv, const char *prefix);

#endif /* CIDKIT_TOOLS_CLI_H */
