/* SPDX-License-Identifier: MIT */
/*
 * Internal: opening a file that another program wrote (sysfs, resctrl, a
 * saved tree someone sent) without trusting what kind of file it is.  A
 * FIFO in place of a sysfs file must not block the reader forever, and a
 * directory or a device must be refused by name, not read.
 */
#ifndef CIDKIT_UTIL_FILE_H
#define CIDKIT_UTIL_FILE_H

/*
 * Open @path read-only, close-on-exec, without blocking (O_NONBLOCK: a
 * FIFO with no writer opens at once), and keep it only if fstat() says it
 * is a regular file.
 * Returns the descriptor, or -errno from open(), -EISDIR (a directory) or
 * -EINVAL (a FIFO, socket or device).  Cost: two system calls.  MT-safe.
 */
int cidk__open_regular(const char *path);

/* A message for a return of cidk__open_regular() (or any -errno). */
const char *cidk__open_strerror(int rc);

#endif /* CIDKIT_UTIL_FILE_H */
