/* SPDX-License-Identifier: MIT */
/*
 * What every subcommand of the cidkit command shares: one-line errors with
 * exit status 2, strict number parsing, sub-dispatch and JSON strings.
 * Only the command prints; the library returns errors.
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

/* Print "cidkit: <message>" on stderr and return CLI_EXIT_USAGE. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Parse an unsigned decimal integer in [min, max] for option @what.
 * On error print one line and return CLI_EXIT_USAGE; else 0.
 */
int cli_parse_u64(const char *what, const char *s, uint64_t min, uint64_t max,
		  uint64_t *out);
int cli_parse_uint(const char *what, const char *s, unsigned int min,
		   unsigned int max, unsigned int *out);
/* A non-negative decimal number (e.g. milliseconds, may have a fraction). */
int cli_parse_double(const char *what, const char *s, double min, double max,
		     double *out);

/*
 * Run the subcommand of @cmds named argv[0] with (argc, argv) shifted so
 * that the subcommand sees its own name as argv[0].  @prefix names the
 * parent in messages ("" for the top level, "bench" for cidkit bench).
 * "help", "--help" and "-h" print the list; no argument is one error line
 * and 2.
 */
int cli_dispatch(const char *prefix, const struct cli_cmd *cmds, int argc,
		 char **argv);

/* An operand the command does not take: one line, returns 2. */
int cli_extra_arg(const char *cmd, const char *arg);

/* Reset getopt before a subcommand parses its options (quiet mode). */
void cli_getopt_reset(void);

/* The message for getopt's '?' or ':' return, as one cidkit: line. */
int cli_bad_option(const char *cmd, char **argv, int c);

/*
 * Copy at most size-1 printable bytes of @s into @buf for an error message:
 * stops at a separator (',' or white space) after the first character,
 * shows control characters as '?', and ends with "..." when cut short.
 */
void cli_excerpt(const char *s, char *buf, size_t size);

/* Write @s as a JSON string literal (with quotes). */
void cli_json_str(FILE *f, const char *s);

/* Print the command line as "# cidkit a b c" (reports echo it). */
void cli_echo_command(FILE *f, int argc, char **argv, const char *prefix);

#endif /* CIDKIT_TOOLS_CLI_H */
