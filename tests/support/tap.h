/* SPDX-License-Identifier: MIT */
/*
 * tests/support/tap.h - a small TAP producer (Test Anything Protocol, version 12),
 * as the kernel selftests and liburcu use.
 *
 *   ok(cond, "what %d", i);     one assertion
 *   diag("note");               a comment line on stdout
 *   skip_all("no rseq");        plan "1..0 # SKIP no rseq", exit 0: meson's
 *                               TAP parser reports SKIP (exit 77, the
 *                               exitcode protocol's skip, is an ERROR
 *                               under protocol: 'tap' in meson 1.0)
 *   return done_testing();      the plan; fails if nothing was asserted
 *
 * A program that asserts nothing fails: no test may pass without checking.
 */
#ifndef CIDKIT_TESTS_TAP_H
#define CIDKIT_TESTS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned int tap_count, tap_failed;

__attribute__((format(printf, 4, 5))) static inline bool
tap_ok(bool cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	char desc[512];

	tap_count++;
	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	for (char *p = desc; *p; p++) /* one line per assertion */
		if (*p == '\n' || *p == '\r' || *p == '#')
			*p = *p == '#' ? '_' : ' ';
	printf("%sok %u - %s\n", cond ? "" : "not ", tap_count, desc);
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

#define ok(cond, ...) tap_ok((cond), __FILE__, __LINE__, __VA_ARGS__)

__attribute__((format(printf, 1, 2))) static inline void diag(const char *fmt,
							       ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

__attribute__((noreturn)) static inline void skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	fflush(stdout);
	exit(0);
}

static inline int done_testing(void)
{
	printf("1..%u\n", tap_count);
	if (!tap_count) {
		printf("# no assertions were made\n");
		return 1;
	}
	if (tap_failed)
		printf("# %u of %u failed\n", tap_failed, tap_count);
	return tap_failed ? 1 : 0;
}

#endif /* CIDKIT_TESTS_TAP_H */
