/* SPDX-License-Identifier: MIT */
/*
 * The --cpus option of the real-hardware benchmarks: a cpulist checked
 * against the CPUs this process may run on.
 */
#ifndef CIDKIT_TOOLS_CPUS_OPT_H
#define CIDKIT_TOOLS_CPUS_OPT_H

#include <cidkit/mask.h>

/* Width of the masks below (sched_setaffinity's cpu_set_t). */
#define CPUS_OPT_NBITS 1024u

/*
 * cpus_opt_allowed - a new mask of CPUS_OPT_NBITS bits holding the CPUs
 * the calling thread may run on (sched_getaffinity).  On failure prints
 * one cidkit: line naming @what and returns NULL.
 */
struct cidk_mask *cpus_opt_allowed(const char *what);

/*
 * cpus_opt_parse - parse the cpulist @s for option @what into a new mask;
 * every CPU must be in @allowed.  On error prints one cidkit: line and
 * returns NULL (malformed list, CPU out of range, empty, CPU not allowed).
 */
struct cidk_mask *cpus_opt_parse(const char *what, const char *s,
				 const struct cidk_mask *allowed);

#endif /* CIDKIT_TOOLS_CPUS_OPT_H */
