/* SPDX-License-Identifier: MIT */
/*
 * trace/reader.c - the streaming reader: one line buffer of
 * CIDK_TRACE_LINE_MAX bytes, whatever the trace's length; or, for a file
 * that starts with trace.dat's magic, trace/dat.c (one record per CPU).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cidkit/trace.h>

#include "dat.h"

struct cidk_trace_reader {
	FILE *f;
	unsigned long line;
	struct cidk__trace_dat *dat; /* a trace.dat: read through it */
	struct cidk_trace_info info;
	char buf[CIDK_TRACE_LINE_MAX + 1];
};

/*
 * A trace.dat from @f, whose first @n bytes (@head) were read already: at
 * @f's own descriptor when it seeks (a file), else copied to an unlinked
 * temporary file first (a pipe: libtracecmd seeks).  Returns a descriptor
 * at offset 0, or -errno.
 */
static int dat_fd(FILE *f, const char *head, size_t n)
{
	const char *dir = getenv("TMPDIR");
	char buf[65536];
	int fd = fileno(f), t;
	size_t got;

	if (fd >= 0 && lseek(fd, 0, SEEK_SET) == 0) {
		t = dup(fd);
		return t < 0 ? -errno : t;
	}
	t = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (t < 0)
		return -errno;
	if (write(t, head, n) != (ssize_t)n)
		goto io;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		if (write(t, buf, got) != (ssize_t)got)
			goto io;
	if (ferror(f) || lseek(t, 0, SEEK_SET) != 0)
		goto io;
	return t;
io:
	close(t);
	return -EIO;
}

int cidk_trace_reader_open(FILE *f, struct cidk_trace_reader **out)
{
	struct cidk_trace_reader *r = malloc(sizeof(*r));
	char head[CIDK__TRACE_DAT_MAGIC_LEN];
	size_t n = 0;
	int c, rc;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->f = f;
	r->line = 0;
	r->dat = NULL;
	cidk_trace_info_init(&r->info);
	/* text never starts with trace.dat's first byte (0x17) */
	c = getc(f);
	if (c != CIDK__TRACE_DAT_MAGIC[0]) {
		if (c != EOF)
			ungetc(c, f);
		*out = r;
		return 0;
	}
	head[n++] = (char)c;
	n += fread(head + n, 1, sizeof(head) - n, f);
	if (n < sizeof(head) ||
	    memcmp(head, CIDK__TRACE_DAT_MAGIC, CIDK__TRACE_DAT_MAGIC_LEN)) {
		rc = -EINVAL;
		goto fail;
	}
	rc = dat_fd(f, head, n);
	if (rc < 0)
		goto fail;
	rc = cidk__trace_dat_open(rc, &r->dat);
	if (rc)
		goto fail;
	*out = r;
	return 0;
fail:
	cidk_trace_info_fini(&r->info);
	free(r);
	return rc;
}

int cidk_trace_reader_next(struct cidk_trace_reader *r,
			   struct cidk_trace_event *ev)
{
	if (r->dat)
		return cidk__trace_dat_next(r->dat, ev, &r->info);
	for (;;) {
		size_t n;
		int rc;

		if (!fgets(r->buf, sizeof(r->buf), r->f))
			return ferror(r->f) ? -EIO : 0;
		r->line++;
		n = strlen(r->buf);
		/* a line too long, or a NUL byte in it */
		if (n == sizeof(r->buf) - 1 && r->buf[n - 1] != '\n')
			return -EINVAL;
		if (n && r->buf[n - 1] != '\n' && !feof(r->f))
			return -EINVAL;
		rc = cidk_trace_parse_line(r->buf, n, ev, &r->info);
		if (rc)
			return rc;
	}
}

unsigned long cidk_trace_reader_line(const struct cidk_trace_reader *r)
{
	return r->dat ? cidk__trace_dat_record(r->dat) : r->line;
}

bool cidk_trace_reader_is_dat(const struct cidk_trace_reader *r)
{
	return r->dat != NULL;
}

const struct cidk_trace_info *
cidk_trace_reader_info(const struct cidk_trace_reader *r)
{
	return &r->info;
}

void cidk_trace_reader_close(struct cidk_trace_reader *r)
{
	if (!r)
		return;
	cidk__trace_dat_close(r->dat);
	cidk_trace_info_fini(&r->info);
	free(r);
}
