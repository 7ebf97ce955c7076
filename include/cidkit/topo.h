/* SPDX-License-Identifier: MIT */
/*
 * cidkit/topo.h - the CPU topology: online CPUs and, per level, each CPU's
 * group mask; discovered from sysfs, built from a synthetic spec, or set
 * from masks directly.  Validated by the span sanity check.
 *
 * Levels, bottom-up: smt, cluster, llc, die, pkg, numa.  A level is present
 * only when the machine has it.  All masks are nr_cpu_ids bits wide
 * (possible CPUs); offline CPUs belong to no level.
 *
 * A topology is immutable once built, except through cidk_topo_set_mask()
 * and cidk_topo_remove_cpu(); reading it is MT-safe.
 */
#ifndef CIDKIT_TOPO_H
#define CIDKIT_TOPO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <cidkit/common.h>
#include <cidkit/mask.h>

enum cidk_topo_level {
	CIDK_TOPO_SMT,
	CIDK_TOPO_CLUSTER,
	CIDK_TOPO_LLC,
	CIDK_TOPO_DIE,
	CIDK_TOPO_PKG,
	CIDK_TOPO_NUMA,
	CIDK_TOPO_NR_LEVELS,
};

/* How far apart two CPUs are, nearest first. */
enum cidk_topo_dist {
	CIDK_DIST_SAME_CPU,
	CIDK_DIST_SMT,	   /* SMT siblings */
	CIDK_DIST_CLUSTER, /* same cluster (e.g. L2 shared by a core cluster) */
	CIDK_DIST_LLC,	   /* same last-level cache */
	CIDK_DIST_PKG,	   /* same package (socket) */
	CIDK_DIST_REMOTE,  /* other package */
	CIDK_DIST_NR,
};

/* Why a discovery or spec failed: the file (or spec) and what was wrong. */
struct cidk_topo_err {
	char path[PATH_MAX]; /* the file, or the spec string */
	char msg[160];	     /* e.g. "malformed cpulist at offset 3" */
};

/* Where span sanity failed: level and the two CPUs whose masks overlap. */
struct cidk_topo_insane {
	enum cidk_topo_level level;
	unsigned int cpu_a, cpu_b;
};

struct cidk_topo; /* opaque */

CIDK_EXPORT const char *cidk_topo_level_name(enum cidk_topo_level l);
CIDK_EXPORT const char *cidk_topo_dist_name(enum cidk_topo_dist d);

/*
 * cidk_topo_alloc - an empty topology of @nr_cpu_ids possible CPUs, none
 * online, no level present.  NULL with errno EINVAL/ENOMEM.
 */
CIDK_EXPORT struct cidk_topo *cidk_topo_alloc(unsigned int nr_cpu_ids);
CIDK_EXPORT void cidk_topo_free(struct cidk_topo *t);

/*
 * cidk_topo_set_online - the online CPUs (copied).  Returns 0 or -EINVAL
 * (width mismatch).
 */
CIDK_EXPORT int cidk_topo_set_online(struct cidk_topo *t,
				     const struct cidk_mask *online);

/*
 * cidk_topo_set_mask - CPU @cpu's group at @level is @m (copied); marks
 * the level present.  Returns 0 or -EINVAL (cpu out of range, width).
 */
CIDK_EXPORT int cidk_topo_set_mask(struct cidk_topo *t,
				   enum cidk_topo_level level, unsigned int cpu,
				   const struct cidk_mask *m);

/*
 * cidk_topo_from_sysfs - discover this machine from @root ("/sys" or a
 * saved tree holding devices/system/cpu/...).  Returns 0 and *out, or a
 * negative errno with @err naming the missing or garbled file.
 */
CIDK_EXPORT int cidk_topo_from_sysfs(const char *root, struct cidk_topo **out,
				     struct cidk_topo_err *err);

/*
 * cidk_topo_from_spec - a synthetic machine: a preset name
 * ("epyc-9654-2s", "uv-1920", "power-360", ...; "host" reads /sys) or the
 * grammar of docs/topo.md ("2s96c2t:llc=8").  Returns 0 and *out, or
 * -EINVAL with @err saying what is wrong in the spec.
 */
CIDK_EXPORT int cidk_topo_from_spec(const char *spec, struct cidk_topo **out,
				    struct cidk_topo_err *err);

/* ---- queries (MT-safe) --------------------------------------------------- */

CIDK_EXPORT unsigned int cidk_topo_nr_cpu_ids(const struct cidk_topo *t);
CIDK_EXPORT const struct cidk_mask *cidk_topo_online(const struct cidk_topo *t);
CIDK_EXPORT unsigned int cidk_topo_nr_online(const struct cidk_topo *t);
CIDK_EXPORT bool cidk_topo_has_level(const struct cidk_topo *t,
				     enum cidk_topo_level level);

/* The group of @cpu at @level; NULL if the level is absent or cpu offline. */
CIDK_EXPORT const struct cidk_mask *cidk_topo_mask(const struct cidk_topo *t,
						   enum cidk_topo_level level,
						   unsigned int cpu);

/* Group id of @cpu at @level: the lowest CPU of its group (nr_cpu_ids if none). */
CIDK_EXPORT unsigned int cidk_topo_group_id(const struct cidk_topo *t,
					    enum cidk_topo_level level,
					    unsigned int cpu);
CIDK_EXPORT unsigned int cidk_topo_nr_groups(const struct cidk_topo *t,
					     enum cidk_topo_level level);

/* Distance class between two online CPUs.  MT-safe, O(1) after build. */
CIDK_EXPORT enum cidk_topo_dist cidk_topo_distance(const struct cidk_topo *t,
						   unsigned int a,
						   unsigned int b);

/* ---- span sanity ---------------------------------------------------------- */

/*
 * cidk_topo_span_sane - at every non-NUMA level present, any two online
 * CPUs' masks are equal or disjoint.  O(N) word operations per level.
 * Returns true, or false with @why (if not NULL) saying where.
 */
CIDK_EXPORT bool cidk_topo_span_sane(const struct cidk_topo *t,
				     struct cidk_topo_insane *why);

/* The quadratic pairwise reference (tests, benchmarks). */
CIDK_EXPORT bool cidk_topo_span_sane_pairwise(const struct cidk_topo *t,
					      struct cidk_topo_insane *why);

/*
 * cidk_topo_remove_cpu - take @cpu offline: drop it from the online mask
 * and from every group mask (what the kernel's rebuild does).  Returns 0
 * or -EINVAL.
 */
CIDK_EXPORT int cidk_topo_remove_cpu(struct cidk_topo *t, unsigned int cpu);

#endif /* CIDKIT_TOPO_H */
