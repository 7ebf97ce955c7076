/* SPDX-License-Identifier: MIT */
/*
 * trace/open.c - a recorded trace file opened for a reader, compressed
 * ones through their decompressor (cidk_trace_open_file(), trace.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cidkit/trace.h>

FILE *cidk_trace_open_file(const char *file, pid_t *pid)
{
	size_t n = strlen(file);
	const char *tool = NULL;
	int fd[2];
	FILE *f;

	*pid = -1;
	if (n > 3 && !strcmp(file + n - 3, ".xz"))
		tool = "xz";
	else if (n > 3 && !strcmp(file + n - 3, ".gz"))
		tool = "gzip";
	if (!tool)
		return fopen(file, "r");
	if (access(file, R_OK) || pipe(fd))
		return NULL;
	fflush(NULL); /* the child must not write the parent's buffers again */
	*pid = fork();
	if (*pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return NULL;
	}
	if (*pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(fd[1], 1);
		if (null >= 0)
			dup2(null, 2); /* its message would be a second line */
		close(fd[0]);
		close(fd[1]);
		execlp(tool, tool, "-dc", "--", file, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	f = fdopen(fd[0], "r");
	if (!f)
		close(fd[0]);
	return f;
}
