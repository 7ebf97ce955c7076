/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("cidkit: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_EXIT_USAGE;
}

int cli_parse_u64(const char *what, const char *s, uint64_t min, uint64_t max,
		  uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s < '0' || *s > '9')
		return cli_error("%s: '%s' is not a number", what, s ? s : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return cli_error("%s: '%s' is not a number", what, s);
	if (errno == ERANGE || v < min || v > max)
		return cli_error("%s: %s is out of range [%llu, %llu]", what, s,
				 (unsigned long long)min,
				 (unsigned long long)max);
	*out = v;
	return 0;
}

int cli_parse_uint(const char *what, const char *s, unsigned int min,
		   unsigned int max, unsigned int *out)
{
	uint64_t v;
	int rc = cli_parse_u64(what, s, min, max, &v);

	if (!rc)
		*out = (unsigned int)v;
	return rc;
}

int cli_parse_double(const char *what, const char *s, double min, double max,
		     double *out)
{
	double v;
	char *end;

	if (!s || !*s || !((*s >= '0' && *s <= '9') || *s == '.'))
		return cli_error("%s: '%s' is not a number", what, s ? s : "");
	errno = 0;
	v = strtod(s, &end);
	if (*end || !isfinite(v))
		return cli_error("%s: '%s' is not a number", what, s);
	if (v < min || v > max)
		return cli_error("%s: %s is out of range [%g, %g]", what, s, min,
				 max);
	*out = v;
	return 0;
}

static void list_cmds(FILE *f, const char *prefix, const struct cli_cmd *cmds)
{
	fprintf(f, "usage: cidkit %s%sCOMMAND [OPTIONS]\n\ncommands:\n", prefix,
		*prefix ? " " : "");
	for (const struct cli_cmd *c = cmds; c->name; c++)
		fprintf(f, "  %-16s %s\n", c->name, c->summary);
	fprintf(f, "\n'cidkit %s%sCOMMAND --help' describes one command.\n",
		prefix, *prefix ? " " : "");
}

int cli_dispatch(const char *prefix, const struct cli_cmd *cmds, int argc,
		 char **argv)
{
	if (argc < 1)
		return cli_error("missing command (try 'cidkit %s%s--help')", prefix,
				 *prefix ? " " : "");
	if (!strcmp(argv[0], "help") || !strcmp(argv[0], "--help") ||
	    !strcmp(argv[0], "-h")) {
		list_cmds(stdout, prefix, cmds);
		return CLI_EXIT_OK;
	}
	for (const struct cli_cmd *c = cmds; c->name; c++)
		if (!strcmp(argv[0], c->name)) {
			cli_getopt_reset();
			return c->run(argc, argv);
		}
	return cli_error("unknown command '%s%s%s' (try 'cidkit %s%s--help')",
			 prefix, *prefix ? " " : "", argv[0], prefix,
			 *prefix ? " " : "");
}

int cli_extra_arg(const char *cmd, const char *arg)
{
	return cli_error("%s: unexpected argument '%s' (see --help)", cmd, arg);
}

void cli_getopt_reset(void)
{
	optind = 0; /* glibc: full re-initialisation */
	opterr = 0;
}

int cli_bad_option(const char *cmd, char **argv, int c)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		return cli_error("%s: option '%s' needs a value (see --help)",
				 cmd, arg);
	if (optopt && optopt != '?')
		return cli_error("%s: unknown option '-%c' (see --help)", cmd,
				 optopt);
	return cli_error("%s: unknown option '%s' (see --help)", cmd, arg);
}

void cli_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void cli_echo_command(FILE *f, int argc, char **argv, const char *prefix)
{
	fprintf(f, "# cidkit%s%s", *prefix ? " " : "", prefix);
	for (int i = 0; i < argc; i++)
		fprintf(f, " %s", argv[i]);
	fputc('\n', f);
}

void cli_excerpt(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	for (; *s && n + 4 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (n && (c == ',' || c == ' ' || c == '\t' || c == '\n'))
			break;
		buf[n++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	if (*s && n + 4 >= size && size > 4) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
}
