/* SPDX-License-Identifier: MIT */
/* Opening files of untrusted kind: see file.h. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"

int cidk__open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	return fd;
}

const char *cidk__open_strerror(int rc)
{
	if (rc == -EINVAL)
		return "not a regular file (a FIFO, socket or device)";
	return strerror(rc < 0 ? -rc : rc);
}
