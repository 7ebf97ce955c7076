/* SPDX-License-Identifier: MIT */
/*
 * cidkit check ... - runs the interleaving explorer, `cidkit-check`.
 *
 * The explorer is a separate program because it links a second build of
 * lib/cid in which every shared-memory step is a scheduling point
 * (CIDK_CHECKER, lib/cid/cid_atomic.h); the policies in this program stay
 * plain C11 atomics.  It is looked for, in order: $CIDKIT_CHECK; next to
 * this program in the build tree (check/cidkit-check); in ../libexec/cidkit
 * from this program (an installed tree, wherever it was copied); in the
 * libexec folder the build was configured with (CIDKIT_LIBEXECDIR).  Its arguments and exit status are
 * this command's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"

static int try_exec(const char *path, char **argv)
{
	if (access(path, X_OK))
		return -errno;
	argv[0] = (char *)"cidkit check";
	execv(path, argv);
	return -errno;
}

int cmd_check(int argc, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 32];
	const char *env = getenv("CIDKIT_CHECK");
	ssize_t n;
	char *slash;

	(void)argc;
	if (env && *env) {
		int rc = try_exec(env, argv);

		return cli_error("check: CIDKIT_CHECK=%s: %s", cli_q(env),
				 strerror(-rc));
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/check/cidkit-check", self);
			try_exec(path, argv);
			/* an installed tree moved elsewhere: bin/../libexec */
			snprintf(path, sizeof(path),
				 "%s/../libexec/cidkit/cidkit-check", self);
			try_exec(path, argv);
		}
	}
	snprintf(path, sizeof(path), "%s/cidkit-check", CIDKIT_LIBEXECDIR);
	try_exec(path, argv);
	return cli_error("check: the explorer cidkit-check is not installed "
			 "(looked next to cidkit and in %s)", CIDKIT_LIBEXECDIR);
}
