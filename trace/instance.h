/* SPDX-License-Identifier: MIT */
/*
 * trace/instance.h - the tracefs instance a recorder owns (record.c, the
 * whole-run recorder; stream.c, the streaming one): tracefs mounted where
 * it is not, an instance of the recorder's own name, its buffer and the
 * tgid column.  Only with libtracefs (CIDKIT_HAVE_TRACEFS).
 */
#ifndef CIDKIT_TRACE_INSTANCE_H
#define CIDKIT_TRACE_INSTANCE_H

#include <stdbool.h>
#include <stddef.h>

struct tracefs_instance;

/*
 * A new instance named @name (tracing off), @buffer_kb per CPU, the tgid
 * column on, with @event_fork the children of a traced pid traced too,
 * and the @nev tracepoints @ev ({system, event}) enabled.  NULL when
 * something failed: *@err its errno (0: none given), @why (@len bytes)
 * says what, and nothing is left behind.
 */
struct tracefs_instance *cidk__trace_instance(const char *name,
					      unsigned int buffer_kb,
					      bool event_fork,
					      const char *const (*ev)[2],
					      unsigned int nev, int *err,
					      char *why, size_t len);

#endif
