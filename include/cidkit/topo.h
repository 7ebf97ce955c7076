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

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Largest nr_cpu_ids cidkit accepts (from sysfs, a spec, or
 * cidk_topo_alloc()): eight times the kernel's largest NR_CPUS.
 */
#define CIDK_TOPO_MAX_CPUS 65536u

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
	char path[CIDK_PATH_MAX]; /* the file, or the spec string */
	char msg[160];	     /* e.g. "malformed cpulist at offset 3" */
};

/* Which rule a topology broke (struct cidk_topo_insane.kind). */
enum cidk_topo_insane_kind {
	CIDK_TOPO_INSANE_SPAN, /* two masks overlap without being equal */
	CIDK_TOPO_INSANE_NEST, /* a group is not a union of groups below */
};

/*
 * Where sanity failed.  SPAN: at @level the masks of cpu_a and cpu_b
 * overlap without being equal (cpu_a == cpu_b: a CPU outside its own
 * mask).  NEST: cpu_a's group at @level is not a union of groups at
 * @below: cpu_b shares cpu_a's group at @below but is in another group at
 * @level.  Always cpu_a <= cpu_b.
 */
struct cidk_topo_insane {
	enum cidk_topo_level level;
	unsigned int cpu_a, cpu_b;
	enum cidk_topo_insane_kind kind;
	enum cidk_topo_level below; /* NEST only */
};

struct cidk_topo; /* opaque */

CIDK_EXPORT const char *cidk_topo_level_name(enum cidk_topo_level l);
CIDK_EXPORT const char *cidk_topo_dist_name(enum cidk_topo_dist d);

/*
 * cidk_topo_alloc - an empty topology of @nr_cpu_ids possible CPUs, none
 * online, no level present.  NULL with errno EINVAL (0 or more than
 * CIDK_TOPO_MAX_CPUS) or ENOMEM.  MT-safe.
 */
CIDK_EXPORT struct cidk_topo *cidk_topo_alloc(unsigned int nr_cpu_ids);
CIDK_EXPORT void cidk_topo_free(struct cidk_topo *t);

/*
 * cidk_topo_set_online - the online CPUs (copied).  Returns 0 or -EINVAL
 * (width mismatch); @t is unchanged on failure.  Not MT-safe against any
 * other use of @t.
 */
CIDK_EXPORT int cidk_topo_set_online(struct cidk_topo *t,
				     const struct cidk_mask *online);

/*
 * cidk_topo_set_mask - CPU @cpu's group at @level is @m (copied); marks
 * the level present.  Returns 0 or -EINVAL (cpu out of range, width,
 * level out of range), or -ENOMEM; @t is unchanged on failure.
 *
 * CPUs whose masks are equal share one stored group (as the kernel's
 * sched_group is shared), so building a level costs one mask compare per
 * CPU and a group's mask is stored once.  @cpu need not be online yet;
 * queries and span sanity only look at online CPUs.  Not MT-safe against
 * any other use of @t.
 */
CIDK_EXPORT int cidk_topo_set_mask(struct cidk_topo *t,
				   enum cidk_topo_level level, unsigned int cpu,
				   const struct cidk_mask *m);

/*
 * cidk_topo_from_sysfs - discover this machine from @root ("/sys" or a
 * saved tree holding devices/system/cpu/...).  Returns 0 and *out, or a
 * negative errno with @err naming the missing or garbled file.
 *
 * nr_cpu_ids is the last CPU of devices/system/cpu/possible plus one; the
 * online CPUs come from .../online; each online CPU must have a topology/
 * folder.  Kernels before 2.6.27 have neither file: then the cpuN/
 * folders give the possible CPUs and each cpuN/online ("1", "0"; absent
 * or empty, as old hwloc-gather-topology dumps hold them: online) the
 * online ones.  A CPU without package files is grouped by its
 * physical_package_id, or, without one, into one package; an LLC whose
 * shared_cpu_map is all zeros gets the CPU's SMT group; a cluster or die
 * level of one-CPU groups is dropped as degenerate.  Each inference is a
 * note (cidk_topo_note()), and so is a containment order of the levels
 * other than the enum's (cidk_topo_level_order()).  Every mask read is intersected with the online
 * CPUs and must contain its own CPU.  Which files are read, in which
 * order, and when the cluster and die levels count as present:
 * docs/topo.md.  Errors: -ENOENT (a required file is missing), -EINVAL (a
 * file is garbled: a file that exists is never skipped), -ERANGE (a CPU
 * beyond possible, or more than CIDK_TOPO_MAX_CPUS), -EISDIR or -EINVAL (a
 * directory, FIFO or device where a file belongs: refused at once, never
 * read), -ENAMETOOLONG (@root leaves no room for the paths under it),
 * -ENOMEM, or the errno of a failed read.  Every file is at most 4 MiB and
 * parses in O(size + regions x nr_cpu_ids / 64); a folder listing costs
 * O(entries).  *out is untouched on failure.  MT-safe.
 */
CIDK_EXPORT int cidk_topo_from_sysfs(const char *root, struct cidk_topo **out,
				     struct cidk_topo_err *err);

/*
 * cidk_topo_read_nr_cpu_ids - the kernel's nr_cpu_ids under @root ("/sys" when
 * NULL, or a saved tree): the last CPU of devices/system/cpu/possible plus
 * one, or before 2.6.27 (no such file) the last cpuN folder plus one --
 * the rule cidk_topo_from_sysfs() sizes a topology by, read the same way.
 * Every CPU number the kernel gives (and every mm_cid) is below it; it
 * counts the holes of a sparse possible list ("0-3,8" gives 9, where
 * sysconf(_SC_NPROCESSORS_CONF) may say 5).  Returns it (1 ..
 * CIDK_TOPO_MAX_CPUS), or -ENOENT (neither the file nor a cpuN folder),
 * -EINVAL (garbled, or no CPU listed), -ERANGE (a CPU at or beyond
 * CIDK_TOPO_MAX_CPUS), -ENAMETOOLONG, -ENOMEM, or a read's errno, with
 * @err (may be NULL) naming the file.  Reads at most one file or one
 * folder listing; not cached.  MT-safe.
 */
CIDK_EXPORT int cidk_topo_read_nr_cpu_ids(const char *root,
					  struct cidk_topo_err *err);

/*
 * cidk_topo_from_spec - a synthetic machine: a preset name
 * ("epyc-9654-2s", "uv-1920", "power-360", ...; "host" reads /sys) or the
 * grammar of docs/topo.md ("2s96c2t:llc=8").  Returns 0 and *out, or
 * -EINVAL with @err saying what is wrong in the spec (-ERANGE: more than
 * CIDK_TOPO_MAX_CPUS CPUs; -ENOMEM; "host": as cidk_topo_from_sysfs()).
 * Cost: O(strlen(spec) + N log N) time and O(N) memory for N CPUs, each
 * group stored once whatever the number of groups ("65536c:llc=1" builds
 * in milliseconds and a few MB).  MT-safe.
 */
CIDK_EXPORT int cidk_topo_from_spec(const char *spec, struct cidk_topo **out,
				    struct cidk_topo_err *err);

/* ---- queries (MT-safe) --------------------------------------------------- */

CIDK_EXPORT unsigned int cidk_topo_nr_cpu_ids(const struct cidk_topo *t);
CIDK_EXPORT const struct cidk_mask *cidk_topo_online(const struct cidk_topo *t);
CIDK_EXPORT unsigned int cidk_topo_nr_online(const struct cidk_topo *t);
CIDK_EXPORT bool cidk_topo_has_level(const struct cidk_topo *t,
				     enum cidk_topo_level level);

/*
 * The group of @cpu at @level; NULL if the level is absent or cpu offline
 * (or, with errno ENOMEM, if the copy could not be made).  Groups are
 * stored sparsely; the first call for a group makes its full-width copy
 * (nr_cpu_ids / 8 bytes, kept until the topology is freed), later calls
 * return it in O(1).  Ask for the masks you need: asking for every group
 * of a level with G groups costs G x nr_cpu_ids / 8 bytes.
 */
CIDK_EXPORT const struct cidk_mask *cidk_topo_mask(const struct cidk_topo *t,
						   enum cidk_topo_level level,
						   unsigned int cpu);

/*
 * The number of online CPUs in @cpu's group at @level (0 if the level is
 * absent or @cpu offline), without making a full-width copy: O(non-zero
 * words of the group).
 */
CIDK_EXPORT unsigned int cidk_topo_group_weight(const struct cidk_topo *t,
						enum cidk_topo_level level,
						unsigned int cpu);

/* Group id of @cpu at @level: the lowest CPU of its group (nr_cpu_ids if none). */
CIDK_EXPORT unsigned int cidk_topo_group_id(const struct cidk_topo *t,
					    enum cidk_topo_level level,
					    unsigned int cpu);
/* Number of distinct groups of online CPUs at @level (0 if absent). */
CIDK_EXPORT unsigned int cidk_topo_nr_groups(const struct cidk_topo *t,
					     enum cidk_topo_level level);

/*
 * cidk_topo_span_range - the smallest and largest number of online CPUs in
 * one group at @level, over the groups of online CPUs.  Returns 0, or
 * -ENOENT (level absent, or no online CPU has a group there; *min and
 * *max are then 0).  O(groups x words).
 */
CIDK_EXPORT int cidk_topo_span_range(const struct cidk_topo *t,
				     enum cidk_topo_level level,
				     unsigned int *min, unsigned int *max);

/*
 * Distance class between two online CPUs: the lowest level present at
 * which they share a group (die counts as package); CIDK_DIST_REMOTE when
 * no such level, when either CPU is offline or out of range.  MT-safe,
 * O(1) after build (one group index per CPU per level).
 */
CIDK_EXPORT enum cidk_topo_dist cidk_topo_distance(const struct cidk_topo *t,
						   unsigned int a,
						   unsigned int b);

/*
 * cidk_topo_nr_notes, cidk_topo_note - what discovery had to infer, one
 * sentence each ("cpu/possible missing: ..."): a fallback of
 * cidk_topo_from_sysfs() (docs/topo.md lists them), a level dropped as
 * degenerate, or levels ordered by containment in another order than the
 * enum's.  cidk_topo_note() returns NULL for @i >= the number of
 * notes.  At most one note per kind, each at most 200 bytes, naming files
 * relative to devices/system/cpu.  MT-safe.
 */
CIDK_EXPORT unsigned int cidk_topo_nr_notes(const struct cidk_topo *t);
CIDK_EXPORT const char *cidk_topo_note(const struct cidk_topo *t,
				       unsigned int i);

/*
 * cidk_topo_group_cpus - one online CPU of each group at @level (the
 * group's lowest online CPU), ascending, into @cpus[0..@n); returns the
 * number of groups (cidk_topo_nr_groups(), 0 if the level is absent),
 * which may exceed @n (then only the first @n are written).  Each stored
 * group once, also on a level that fails sanity (where groups overlap).
 * O(N + groups) time, O(groups / 8) bytes of scratch; -1U (UINT_MAX) if
 * the scratch cannot be allocated.  MT-safe.
 */
CIDK_EXPORT unsigned int cidk_topo_group_cpus(const struct cidk_topo *t,
					      enum cidk_topo_level level,
					      unsigned int *cpus,
					      unsigned int n);

/*
 * cidk_topo_group_list - the online CPUs of @cpu's group at @level as a
 * canonical cpulist ("0-7,192-199") into @buf, cut to @size - 1 bytes and
 * NUL-terminated when @size > 0; returns the length of the whole list (as
 * snprintf does: call with size 0 to learn it), 0 for no group.  No
 * full-width copy: O(group's non-zero words + its CPUs).  MT-safe.
 */
CIDK_EXPORT size_t cidk_topo_group_list(const struct cidk_topo *t,
					enum cidk_topo_level level,
					unsigned int cpu, char *buf,
					size_t size);

/* ---- span sanity ---------------------------------------------------------- */

/*
 * cidk_topo_span_sane - at every non-NUMA level present, any two online
 * CPUs' masks are equal or disjoint, and every online CPU is in its own
 * mask (a CPU missing from its own mask is reported with cpu_a == cpu_b).
 * Online CPUs without a mask at a level are skipped there.  Levels are
 * checked bottom-up; the first failing one is reported, with cpu_a < cpu_b
 * two online CPUs whose masks overlap without being equal.
 *
 * O(N) per level: one pass over the online CPUs with a covered mask and a
 * seen-ids mask (docs/topo.md), each step touching only the non-zero words
 * of one group.  If its scratch memory cannot be allocated it falls back to
 * the pairwise check, so the answer is always right.  MT-safe (read-only).
 */
CIDK_EXPORT bool cidk_topo_span_sane(const struct cidk_topo *t,
				     struct cidk_topo_insane *why);

/*
 * cidk_topo_sane - span sanity (above) and level nesting: the non-NUMA
 * levels present form one chain by containment (the scheduler's "child
 * domain inside its parent"), each group of a level a union of groups of
 * the level before it in the chain.  The chain is usually the enum order
 * (smt < cluster < llc < die < pkg), but need not be: when an old arm64
 * kernel calls each cluster a package and one L3 holds two of them, the
 * chain is smt < pkg < llc, and the topology is sane
 * (cidk_topo_level_order() gives the chain).  Bottom-up in enum order,
 * each level is span-checked, then placed: on top of the chain when it is
 * a union of the top's groups, else lower down, where it contains the
 * level below and the level above contains it.  A level that fits nowhere
 * has a group that straddles groups of another level: the first failure
 * is reported in @why (kind SPAN, or NEST at that level with @below the
 * top of the chain so far and a witness of that pair).  Only online CPUs
 * with a mask at both levels count.
 *
 * Each containment test costs O(N), after the span check of both levels
 * has passed: then a group is named by its lowest CPU, and a level
 * contains another iff all online CPUs of one group of the other share
 * one group of it, which one pass with one array of N ids checks.  One
 * test per level when the chain is the enum order; at most one per level
 * already placed otherwise.  Falls back to the pairwise check if its
 * scratch memory cannot be allocated.  MT-safe (read-only).
 */
CIDK_EXPORT bool cidk_topo_sane(const struct cidk_topo *t,
				struct cidk_topo_insane *why);

/*
 * cidk_topo_level_order - the levels present, bottom-up by containment,
 * into @order (room for CIDK_TOPO_NR_LEVELS): the non-NUMA levels in the
 * chain of cidk_topo_sane() (each group a union of groups of the level
 * before; levels with equal groups in enum order), then NUMA, which is
 * not ordered.  When cidk_topo_sane() fails there is no chain: the levels
 * present in enum order.  Returns how many were written.  O(N) per
 * level, as cidk_topo_sane().  MT-safe (read-only).
 */
CIDK_EXPORT unsigned int cidk_topo_level_order(const struct cidk_topo *t,
					       enum cidk_topo_level *order);

/*
 * cidk_topo_remove_cpu - take @cpu offline: drop it from the online mask
 * and from every group mask (what the kernel's rebuild does).  Returns 0
 * or -EINVAL (cpu >= nr_cpu_ids).  O(groups + words) per level.  Not
 * MT-safe against any other use of @t.
 */
CIDK_EXPORT int cidk_topo_remove_cpu(struct cidk_topo *t, unsigned int cpu);

#ifdef __cplusplus
}
#endif

#endif /* CIDKIT_TOPO_H */
