/* SPDX-License-Identifier: MIT */
/*
 * trace/instance.c - the tracefs instance a recorder owns (instance.h).
 * Prints nothing.
 */
#ifdef CIDKIT_HAVE_TRACEFS
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>

#include <tracefs.h>

#include "instance.h"

static struct tracefs_instance *no(int *err, int e, char *why, size_t len,
				   const char *what, const char *name)
{
	*err = e;
	snprintf(why, len, "%s%s%s: %s", what, name ? " " : "", name ? name : "",
		 strerror(e));
	return NULL;
}

struct tracefs_instance *cidk__trace_instance(const char *name,
					      unsigned int buffer_kb,
					      bool event_fork,
					      const char *const (*ev)[2],
					      unsigned int nev, int *err,
					      char *why, size_t len)
{
	struct tracefs_instance *inst;

	/*
	 * tracefs_tracing_dir() caches the directory it finds (or mounts);
	 * tracefs_tracing_dir_is_mounted() hands out a copy nobody frees (a
	 * leak LeakSanitizer reports).  Mount it ourselves if neither finds it.
	 */
	if (!tracefs_tracing_dir() &&
	    mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) &&
	    errno != EBUSY)
		return no(err, errno, why, len, "cannot mount tracefs", NULL);
	if (!tracefs_tracing_dir()) {
		*err = ENOENT;
		snprintf(why, len, "no tracefs at /sys/kernel/tracing");
		return NULL;
	}
	inst = tracefs_instance_create(name);
	if (!inst)
		return no(err, errno, why, len,
			  "cannot create the tracefs instance", name);
	tracefs_trace_off(inst);
	if (tracefs_instance_set_buffer_size(inst, buffer_kb, -1) < 0 ||
	    tracefs_option_enable(inst, TRACEFS_OPTION_RECORD_TGID) < 0 ||
	    (event_fork &&
	     tracefs_option_enable(inst, TRACEFS_OPTION_EVENT_FORK) < 0)) {
		int e = errno;

		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
		return no(err, e, why, len, "cannot set up the tracefs instance",
			  NULL);
	}
	for (unsigned int i = 0; i < nev; i++)
		if (tracefs_event_enable(inst, ev[i][0], ev[i][1]) < 0) {
			tracefs_instance_destroy(inst);
			tracefs_instance_free(inst);
			*err = ENOENT;
			snprintf(why, len, "this kernel has no tracepoint %s:%s",
				 ev[i][0], ev[i][1]);
			return NULL;
		}
	return inst;
}
#else
typedef int cidk__trace_instance_none; /* (no empty translation unit) */
#endif
