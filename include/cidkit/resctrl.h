/* SPDX-License-Identifier: MIT */
/*
 * cidkit/resctrl.h - sample resctrl monitoring counters: memory bandwidth
 * (mbm_total_bytes, mbm_local_bytes, cumulative byte counters) and LLC
 * occupancy (llc_occupancy, bytes now) of every monitoring group in every
 * monitoring domain, each domain read by a thread bound inside it through
 * file descriptors opened once and pread() at offset 0.
 *
 * Layout read (the kernel's resctrl filesystem, default /sys/fs/resctrl):
 *   ROOT/mon_data/mon_<RES>_<ID>/<event>              the root group "/"
 *   ROOT/mon_groups/<M>/mon_data/...                  group "mon_groups/M"
 *   ROOT/<C>/mon_data/...                             control group "C"
 *   ROOT/<C>/mon_groups/<M>/mon_data/...              group "C/mon_groups/M"
 * A counter file holds a decimal number and a newline, or "Unavailable"
 * (no value this time, e.g. the RMID is not being counted), "Error" (the
 * hardware reported an error), or "Unassigned" (counter-assignment mode, no
 * hardware counter assigned to this group); these are reported as such,
 * never as 0.  Sub-NUMA-cluster directories (mon_sub_*) inside a domain are
 * not read; the domain's own files are their sum.
 *
 * Domains map to CPUs through sysfs (under the sysfs root, default /sys):
 * for resource L3 (and, an assumption, any resource other than L2 and
 * PERF_PKG) <ID> is the cache id of level 3 (devices/system/cpu/cpuN/
 * cache/indexK/{level,id}); for L2 the level-2 cache id; for PERF_PKG the
 * CPU's topology/physical_package_id.  Only online CPUs are considered.
 *
 * Rates are computed from two samples and the time between them, which
 * the caller passes in (cidk_resctrl_sample()'s @now_ns), so that tests
 * drive the clock and check rates exactly.
 */
#ifndef CIDKIT_RESCTRL_H
#define CIDKIT_RESCTRL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cidkit/common.h>
#include <cidkit/mask.h>

#ifdef __cplusplus
extern "C" {
#endif

enum cidk_rc_event {
	CIDK_RC_MBM_TOTAL,     /* mbm_total_bytes (cumulative bytes) */
	CIDK_RC_MBM_LOCAL,     /* mbm_local_bytes (cumulative bytes) */
	CIDK_RC_LLC_OCCUPANCY, /* llc_occupancy (bytes now) */
	CIDK_RC_NR_EVENTS,
};
#define CIDK_RC_ALL_EVENTS ((1u << CIDK_RC_NR_EVENTS) - 1)

/* What one read of a counter file gave. */
enum cidk_rc_state {
	CIDK_RC_OK,	     /* a number: value.v */
	CIDK_RC_UNAVAILABLE, /* "Unavailable" */
	CIDK_RC_ERROR,	     /* "Error" */
	CIDK_RC_UNASSIGNED,  /* "Unassigned" */
	CIDK_RC_GARBLED,     /* anything else (empty, not a number, overflow) */
	CIDK_RC_READ_FAILED, /* open or pread failed: value.err (errno) */
	CIDK_RC_ABSENT,	     /* the event is not present (or not selected) */
	CIDK_RC_NR_STATES,
};

struct cidk_rc_value {
	enum cidk_rc_state state;
	int err;    /* errno when READ_FAILED, else 0 */
	uint64_t v; /* when OK */
};

enum cidk_rc_rate_state {
	CIDK_RC_RATE_OK,	/* bytes_per_s and delta are valid */
	CIDK_RC_RATE_NOBASE,	/* no previous number (first sample, new
				   group, previous read not a number) */
	CIDK_RC_RATE_NOVALUE,	/* this read is not a number: see its state */
	CIDK_RC_RATE_BACKWARDS, /* the counter went backwards (reset or
				   reused RMID): no rate, never negative */
	CIDK_RC_RATE_NOTIME,	/* elapsed time 0 */
	CIDK_RC_NR_RATE_STATES,
};

struct cidk_rc_rate {
	enum cidk_rc_rate_state state;
	uint64_t delta;	    /* bytes since the previous sample */
	double bytes_per_s; /* delta * 1e9 / elapsed_ns */
};

/* Why opening failed: the file or directory and what was wrong. */
struct cidk_resctrl_err {
	char path[CIDK_PATH_MAX];
	char msg[160];
};

/* "mbm_total_bytes", ...; NULL for an out-of-range value. */
CIDK_EXPORT const char *cidk_resctrl_event_name(enum cidk_rc_event e);
/* "ok", "Unavailable", "Error", "Unassigned", "garbled", "read failed",
 * "absent". */
CIDK_EXPORT const char *cidk_resctrl_state_name(enum cidk_rc_state s);
/* "ok", "no base", "no value", "backwards", "no time". */
CIDK_EXPORT const char *cidk_resctrl_rate_state_name(enum cidk_rc_rate_state s);

/*
 * cidk_resctrl_parse_events - a comma-separated list of event names (the
 * file names, or the short forms total, local, occupancy) into a bit mask
 * of (1u << enum cidk_rc_event).  Returns 0, or -EINVAL (unknown or empty
 * name; @errpos, when not NULL, gets its byte offset).  MT-safe.
 */
CIDK_EXPORT int cidk_resctrl_parse_events(const char *list, unsigned int *mask,
					  size_t *errpos);

/*
 * cidk_resctrl_parse_value - classify the @len bytes read from a counter
 * file (one trailing newline allowed) into @out.  Never fails; anything
 * not recognised is CIDK_RC_GARBLED.  MT-safe.
 */
CIDK_EXPORT void cidk_resctrl_parse_value(const char *buf, size_t len,
					  struct cidk_rc_value *out);

/*
 * cidk_resctrl_rate - the rate of a cumulative byte counter between
 * @prev (NULL: none) and @cur, @elapsed_ns apart, into @out.  Only OK
 * values have a rate; a counter lower than before is BACKWARDS.
 * bytes_per_s = delta * 1e9 / elapsed_ns in double precision (exact when
 * the quotient is representable).  MT-safe.
 */
CIDK_EXPORT void cidk_resctrl_rate(const struct cidk_rc_value *prev,
				   const struct cidk_rc_value *cur,
				   uint64_t elapsed_ns, struct cidk_rc_rate *out);

/*
 * cidk_resctrl_domain_cpus - the online CPUs of domain @id of resource
 * @resource ("L3", ...), from sysfs under @sysfs_root (NULL: "/sys"), as a
 * new mask of (highest online CPU + 1) bits in *@out; the mask is empty
 * when no online CPU reports that id.
 * Returns 0, -ENOENT / -EINVAL (devices/system/cpu/online missing or
 * garbled, or not a regular file: a FIFO is refused without blocking;
 * @err, when not NULL, says which and why), -ERANGE (a CPU number at or
 * beyond CIDK_TOPO_MAX_CPUS, checked before anything is allocated),
 * -ENAMETOOLONG (@sysfs_root too long for a path) or -ENOMEM.
 * Cost: O(size of online + online CPUs x cache indexes) and
 * O(CIDK_TOPO_MAX_CPUS) memory at most, whatever the numbers in the file.
 * MT-safe.
 */
CIDK_EXPORT int cidk_resctrl_domain_cpus(const char *sysfs_root,
					 const char *resource, unsigned int id,
					 struct cidk_mask **out,
					 struct cidk_resctrl_err *err);

struct cidk_resctrl_opts {
	const char *root;	/* NULL: "/sys/fs/resctrl" */
	const char *sysfs_root; /* NULL: "/sys" */
	unsigned int events;	/* bit mask of events; 0: all */
	bool no_bind;		/* read every domain from the caller */
};

/* One monitoring group in one domain, as of the last sample. */
struct cidk_resctrl_row {
	const char *group;    /* "/", "mon_groups/M", "C", "C/mon_groups/M" */
	const char *resource; /* "L3", ... */
	unsigned int domain;  /* the <ID> of mon_<RES>_<ID> */
	bool bound;	      /* read by a thread bound inside the domain */
	struct cidk_rc_value value[CIDK_RC_NR_EVENTS];
	struct cidk_rc_rate rate[CIDK_RC_NR_EVENTS]; /* mbm_* only */
};

struct cidk_resctrl_stats {
	uint64_t sample;     /* samples taken, this one included */
	uint64_t elapsed_ns; /* since the previous sample (0 for the first) */
	uint64_t scan_ns;    /* cost of the rescan (directory walk, opens) */
	uint64_t read_ns;    /* cost of reading every counter (wall time) */
	unsigned int groups, domains, domains_bound, counters;
	unsigned int opened, closed; /* counter files this sample */
	unsigned int not_ok;	     /* reads that were not a number */
};

struct cidk_resctrl; /* opaque */

/*
 * cidk_resctrl_open - check @o->root has monitoring data and read the
 * sysfs CPU map; no counter is read yet.
 * Returns 0 and *@out, or -ENOENT (no root, or no ROOT/mon_data: resctrl is
 * not mounted or has no monitoring), -ENOTDIR, -EINVAL (sysfs online file
 * garbled or not a regular file), -ERANGE (a CPU beyond
 * CIDK_TOPO_MAX_CPUS), -ENAMETOOLONG (a root too long for the paths under
 * it), -ENOMEM; @err (not NULL) names the path and the reason.  Counter
 * files are opened O_NONBLOCK and must be regular files: a FIFO there is
 * that counter's error (EINVAL), never a hang.
 * MT-safe for distinct samplers.
 */
CIDK_EXPORT int cidk_resctrl_open(const struct cidk_resctrl_opts *o,
				  struct cidk_resctrl **out,
				  struct cidk_resctrl_err *err);

/*
 * cidk_resctrl_sample - rescan the groups and domains (opening the files
 * of new ones, closing those of vanished ones), read every counter once,
 * each domain from its bound reader and all domains in parallel, and
 * compute rates against the previous sample taken at the previous
 * @now_ns.  @now_ns is the caller's clock (CLOCK_MONOTONIC in the
 * command, anything monotonic in tests).  A file that vanished or fails to
 * read is a READ_FAILED value, never an error of the call.
 * Returns 0, -ENOENT (ROOT/mon_data vanished: resctrl unmounted), -ENOMEM
 * (the previous sample's rows stay valid then).  Not MT-safe on one
 * sampler.
 */
CIDK_EXPORT int cidk_resctrl_sample(struct cidk_resctrl *rc, uint64_t now_ns);

/* The rows of the last sample, sorted by group, resource, domain; valid
 * until the next sample or close. */
CIDK_EXPORT size_t cidk_resctrl_nr_rows(const struct cidk_resctrl *rc);
CIDK_EXPORT const struct cidk_resctrl_row *
cidk_resctrl_row(const struct cidk_resctrl *rc, size_t i);

CIDK_EXPORT void cidk_resctrl_stats(const struct cidk_resctrl *rc,
				    struct cidk_resctrl_stats *s);

/* cidk_resctrl_close - stop the readers, close every file, free. NULL ok. */
CIDK_EXPORT void cidk_resctrl_close(struct cidk_resctrl *rc);

#ifdef __cplusplus
}
#endif

#endif /* CIDKIT_RESCTRL_H */
