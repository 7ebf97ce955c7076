/* SPDX-License-Identifier: MIT */
/*
 * trace/stream.h - the streaming recorder (`cidkit trace record --stream`):
 * the events of CMD and every process it starts, written as they happen,
 * for a run that may never end (a kernel that freezes: docs/hunt.md).
 *
 * Where trace/record.c reads the buffer once CMD has ended, this reads the
 * instance's trace_pipe while CMD runs and writes each event line at once
 * (one write(2) per read of the pipe), so whatever the kernel logged up to
 * a freeze has left the process; what reaches a disk or a console from
 * there is the writer's.  The kernel keeps only CMD's events: set_event_pid
 * holds CMD's pid and the event-fork option adds each child (threads,
 * CLONE_VM children, forks), sched_switch when either side is one of them.
 * Lost events (the pipe's "CPU:N [LOST M EVENTS]") are counted and kept as
 * comment lines at their place.  The file: a "# cidkit-trace:" header
 * (kernel, CPUs, tgid = CMD's pid, "stream"), the event lines, then a
 * last "# cidkit-trace: stream-end ..." line when CMD ended: a trace
 * without it was cut (the reader takes it as it is).
 */
#ifndef CIDKIT_TRACE_STREAM_H
#define CIDKIT_TRACE_STREAM_H

#include <cidkit/trace.h>

struct cidk_trace_stream_params {
	char *const *argv;   /* CMD and its arguments (NULL-terminated) */
	const char *out;     /* the trace file; "-": standard output (CMD's
				standard output then goes to standard error) */
	const char *command; /* the header's "command=" text */
	double seconds;      /* > 0: CMD killed (SIGKILL) after that */
	unsigned int buffer_kb; /* the instance's buffer per CPU */
	const char *prefix;  /* NULL, or what each line written starts with
				(a console shared with other output) */
	int fifo;            /* > 0: the recorder runs SCHED_FIFO at that
				priority (CMD is put back to SCHED_OTHER) */
};

struct cidk_trace_stream_result {
	enum cidk_trace_record_stage stage; /* DONE, SETUP, EXEC, OUT */
	char msg[256];         /* why, for a stage other than DONE */
	int tgid;              /* CMD's pid */
	int status;            /* CMD's wait status (-1: killed at --seconds) */
	unsigned long lines;   /* event lines written */
	unsigned long before_end; /* of them, written before CMD ended */
	unsigned long lost;    /* events the kernel said it lost */
};

/*
 * cidk_trace_stream - run @p->argv with the scheduler's and rseq's
 * tracepoints on for it and its descendants, writing each event to
 * @p->out as trace_pipe hands it over.  Returns 0 (@res filled; CMD's
 * status in @res->status), or a negative errno with @res->stage and
 * @res->msg (the kernel has no rseq_update tracepoint: SETUP, ENOENT).
 * Needs root or tracefs access.  Not MT-safe (forks; one instance per
 * process id).
 */
int cidk_trace_stream(const struct cidk_trace_stream_params *p,
		      struct cidk_trace_stream_result *res);

#endif
