/* SPDX-License-Identifier: MIT */
/*
 * trace/dat.h - the trace.dat reader behind cidk_trace_reader (internal).
 */
#ifndef CIDKIT_TRACE_DAT_H
#define CIDKIT_TRACE_DAT_H

#include <cidkit/trace.h>

/* The first bytes of a trace.dat: "\027\010\104tracing". */
#define CIDK__TRACE_DAT_MAGIC "\027\010\104tracing"
#define CIDK__TRACE_DAT_MAGIC_LEN 10

struct cidk__trace_dat;

/*
 * cidk__trace_dat_open - read the trace.dat open at @fd (seekable; the
 * reader owns it and closes it, also on failure).  Returns 0 and *@out;
 * -EINVAL (not a trace.dat libtracecmd can read, no CPU, a kept event
 * without its fields), -ENOMEM, or -ENOTSUP (built without libtracecmd).
 */
int cidk__trace_dat_open(int fd, struct cidk__trace_dat **out);

/*
 * cidk__trace_dat_next - the next kept event, in timestamp order.  Sets
 * @info's nr_cpus from the file when not said.  Returns 1 and *@ev, 0 at
 * the end, -EINVAL for a record that does not hold its fields
 * (cidk__trace_dat_record() says which).
 */
int cidk__trace_dat_next(struct cidk__trace_dat *d, struct cidk_trace_event *ev,
			 struct cidk_trace_info *info);

/* Records read so far (1 = the first), kept or not. */
unsigned long cidk__trace_dat_record(const struct cidk__trace_dat *d);

void cidk__trace_dat_close(struct cidk__trace_dat *d);

#endif
