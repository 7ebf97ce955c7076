/* SPDX-License-Identifier: MIT */
/*
 * trace/reader.c - the streaming reader: one line buffer of
 * CIDK_TRACE_LINE_MAX bytes, whatever the trace's length.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/trace.h>

struct cidk_trace_reader {
	FILE *f;
	unsigned long line;
	struct cidk_trace_info info;
	char buf[CIDK_TRACE_LINE_MAX + 1];
};

int cidk_trace_reader_open(FILE *f, struct cidk_trace_reader **out)
{
	struct cidk_trace_reader *r = malloc(sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->f = f;
	r->line = 0;
	cidk_trace_info_init(&r->info);
	*out = r;
	return 0;
}

int cidk_trace_reader_next(struct cidk_trace_reader *r,
			   struct cidk_trace_event *ev)
{
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
	return r->line;
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
	cidk_trace_info_fini(&r->info);
	free(r);
}
