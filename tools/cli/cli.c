/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* @c as an escape into @out (at least 5 bytes); returns its length. */
static size_t escape_byte(unsigned char c, char *out)
{
	static const char hex[] = "0123456789abcdef";

	switch (c) {
	case '\n': memcpy(out, "\\n", 2); return 2;
	case '\t': memcpy(out, "\\t", 2); return 2;
	case '\r': memcpy(out, "\\r", 2); return 2;
	default:
		out[0] = '\\';
		out[1] = 'x';
		out[2] = hex[c >> 4];
		out[3] = hex[c & 15];
		return 4;
	}
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

#define CLI_Q_BYTES 80 /* of the user's text, before the cut */
#define CLI_Q_SLOTS 8

const char *cli_q(const char *s)
{
	/* each byte up to 4 escaped bytes, plus the ellipsis and the NUL */
	static char bufs[CLI_Q_SLOTS][4 * CLI_Q_BYTES + 8];
	static unsigned int next;
	char *buf = bufs[next++ % CLI_Q_SLOTS];
	size_t n = 0, i;

	if (!s)
		s = "";
	for (i = 0; s[i] && i < CLI_Q_BYTES; i++) {
		unsigned char c = (unsigned char)s[i];

		if (is_control(c))
			n += escape_byte(c, buf + n);
		else if (c == '\\')
			n += (memcpy(buf + n, "\\\\", 2), 2);
		else
			buf[n++] = (char)c;
	}
	if (s[i]) {
		/* do not cut a UTF-8 sequence in two */
		while (n && ((unsigned char)buf[n - 1] & 0xc0) == 0x80)
			n--;
		if (n && ((unsigned char)buf[n - 1] & 0xc0) == 0xc0)
			n--;
		memcpy(buf + n, "\u2026", 3); /* ... */
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}

/* "cidkit: <message>" on stderr, one line, whatever the message holds. */
static void say(const char *fmt, va_list ap)
{
	char msg[1024];
	int len;

	fflush(stdout);
	len = vsnprintf(msg, sizeof(msg), fmt, ap);
	fputs("cidkit: ", stderr);
	/*
	 * The last guard of the one-line rule: whatever reached the message
	 * (a library error naming a file, a value not passed through cli_q),
	 * no control byte leaves it raw.
	 */
	for (const char *p = msg; *p; p++) {
		char esc[5];

		if (is_control((unsigned char)*p))
			fwrite(esc, 1, escape_byte((unsigned char)*p, esc), stderr);
		else
			fputc(*p, stderr);
	}
	if (len >= (int)sizeof(msg))
		fputs("\u2026", stderr);
	fputc('\n', stderr);
}

int cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	return CLI_EXIT_USAGE;
}

int cli_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	return CLI_EXIT_FAIL;
}

int cli_parse_u64(const char *what, const char *s, uint64_t min, uint64_t max,
		  uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s < '0' || *s > '9')
		return cli_error("%s: '%s' is not a number", what, cli_q(s));
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return cli_error("%s: '%s' is not a number", what, cli_q(s));
	/* reported as written, never as a saturated value */
	if (errno == ERANGE || v < min || v > max)
		return cli_error("%s: %s is out of range [%llu, %llu]", what, cli_q(s),
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
	size_t digits = 0, dots = 0;
	double v;
	char *end;

	/* decimal only: digits and one point (strtod would take 0x1p3, 1e3) */
	const char *p = s ? s : "";

	for (; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digits++;
		else if (*p == '.' && !dots)
			dots++;
		else
			break;
	}
	if (!digits || *p)
		return cli_error("%s: '%s' is not a decimal number", what,
				 cli_q(s));
	errno = 0;
	v = strtod(s, &end);
	if (*end || !isfinite(v))
		return cli_error("%s: '%s' is not a decimal number", what,
				 cli_q(s));
	if (v < min || v > max)
		return cli_error("%s: %s is out of range [%g, %g]", what, cli_q(s),
				 min, max);
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
		if (!strcmp(argv[0], c->name))
			return c->run(argc, argv);
	/* options go after the command's name: "cidkit sim replay --json" */
	if (argv[0][0] == '-' && argv[0][1])
		return cli_error("%s%sunknown option '%s' before the command "
				 "(try 'cidkit %s%s--help')", prefix,
				 *prefix ? ": " : "", cli_q(argv[0]), prefix,
				 *prefix ? " " : "");
	return cli_error("unknown command '%s%s%s' (try 'cidkit %s%s--help')",
			 prefix, *prefix ? " " : "", cli_q(argv[0]), prefix,
			 *prefix ? " " : "");
}

/*
 * The length of the well-formed UTF-8 sequence at @s (RFC 3629: no
 * overlong form, no surrogate, nothing above U+10FFFF), 0 if there is none.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void cli_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		size_t n = utf8_len(p);

		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (is_control(*p))
			fprintf(f, "\\u%04x", *p);
		else if (n)
			fwrite(p, 1, n, f);
		else /* a byte that is not UTF-8: PEP 383's lone surrogate */
			fprintf(f, "\\udc%02x", *p);
		p += n ? n : 1;
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
	size_t len = 1;
	char *cut;
	const char *q;

	/* up to the next separator, then through the one escaping helper */
	if (*s)
		while (s[len] && s[len] != ',' && s[len] != ' ' &&
		       s[len] != '\t' && s[len] != '\n')
			len++;
	cut = strndup(s, *s ? len : 0);
	q = cli_q(cut ? cut : "");
	free(cut);
	if (strlen(q) < size) {
		memcpy(buf, q, strlen(q) + 1);
		return;
	}
	/* too long for @buf: cut at a byte that starts a character */
	len = size >= 4 ? size - 4 : 0;
	while (len && ((unsigned char)q[len] & 0xc0) == 0x80)
		len--;
	memcpy(buf, q, len);
	memcpy(buf + len, "\u2026", size >= 4 ? 4 : 0);
	if (size < 4 && size)
		buf[0] = '\0';
}
