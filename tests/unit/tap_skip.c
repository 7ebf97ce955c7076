/* SPDX-License-Identifier: MIT */
/*
 * skip_all() of tests/support/tap.h and of tests/cli/tap.sh: plan "1..0 # SKIP
 * why" and exit 0, which meson 1.0's TAP parser reports as SKIP (exit 77
 * is an ERROR under protocol: 'tap', and check.sh counted it as failed).
 *   tap_skip TAP_SH     runs itself with "skip" and sh on TAP_SH's skip_all
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "tap.h"

static int run(const char *cmd, char *out, size_t size)
{
	FILE *f = popen(cmd, "r");
	size_t n;
	int st;

	if (!f)
		return -1;
	n = fread(out, 1, size - 1, f);
	out[n] = '\0';
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(int argc, char **argv)
{
	char cmd[4096], out[256];
	int rc;

	if (argc == 2 && !strcmp(argv[1], "skip"))
		skip_all("no such feature here");
	if (argc != 2)
		return 2;
	snprintf(cmd, sizeof(cmd), "'%s' skip", argv[0]);
	rc = run(cmd, out, sizeof(out));
	ok(rc == 0 && !strcmp(out, "1..0 # SKIP no such feature here\n"),
	   "tap.h skip_all: plan 1..0 with SKIP and exit 0 (exit %d)", rc);
	snprintf(cmd, sizeof(cmd),
		 "sh -c '. \"$0\"; skip_all \"no such feature here\"; "
		 "echo ok 1 - after the skip' '%s'", argv[1]);
	rc = run(cmd, out, sizeof(out));
	ok(rc == 0 && !strcmp(out, "1..0 # SKIP no such feature here\n"),
	   "tap.sh skip_all: plan 1..0 with SKIP, exit 0, nothing after (exit %d)",
	   rc);
	return done_testing();
}
