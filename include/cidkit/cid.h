/* SPDX-License-Identifier: MIT */
/*
 * cidkit/cid.h - concurrency ID (CID) allocation policies.
 *
 * A CID is a small integer held by a task of an mm (a process) while it
 * runs, unique among the mm's running tasks, kept below
 * min(nr_cpus_allowed, nr_users) so that per-CID arrays stay compact (the
 * ownership policy, like the kernel since 6.19, below nr_cpu_ids, and
 * converging below min(opt + opt/4, nr_cpu_ids), opt = min(nr_cpus_allowed,
 * nr_users)).  The
 * policies here are the ones the Linux scheduler tried (docs/design.md,
 * "Concurrency IDs"); each is written once and driven by two drivers:
 *   - the simulator (sim/), single-threaded and deterministic;
 *   - leases (lease.h), where real threads enter and exit around a burst.
 *
 * What this header gives a user: the policies' names and parameters (to
 * choose the one a lease domain, lease.h, runs) and the read-only queries
 * and cost counters of a domain's mm (cidk_lease_mm()).  The policies'
 * interface proper -- an mm's life cycle and its scheduler events (fork,
 * switch, tick, migrate...), the invariant checker, the ownership
 * policy's kernel-fix flags -- is the lab's: the simulator, the checker
 * and the tests drive it through lib/internal/cidkit_lab.h, which is not
 * installed, and its symbols are not exported from libcidkit.so.
 *
 * Cost counters are plain relaxed loads and stores (never a shared RMW):
 * exact when one thread drives the mm (the simulator), approximate under
 * concurrent drivers (leases).  Every query below is MT-safe.
 */
#ifndef CIDKIT_CID_H
#define CIDKIT_CID_H

#ifndef __cplusplus
#include <stdatomic.h> /* the library's C files rely on it; C++ has none */
#endif
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cidkit/common.h>
#include <cidkit/mask.h>

#ifdef __cplusplus
extern "C" {
#endif

/* No CID (the task is not running, or is not of this mm). */
#define CIDK_CID_NONE UINT32_MAX

/* The kernel's constants (lazy family). */
#define CIDK_CID_EXPIRY_NS (100ull * 1000 * 1000)      /* slot unused > 100 ms */
#define CIDK_CID_SCAN_PERIOD_NS (100ull * 1000 * 1000) /* one pass per 100 ms */

enum cidk_cid_policy_kind {
	CIDK_CID_BITMAP,       /* lowest free bit on switch-in, freed on switch-out */
	CIDK_CID_LAZY,	       /* per-(mm, CPU) slot + periodic compaction pass */
	CIDK_CID_LAZY_BATCHED, /* same, the pass visits <= batch CPUs per call */
	CIDK_CID_CACHE_LOCAL,  /* lazy + recent CID per slot + spread to nr_cids_used */
	CIDK_CID_INHERIT,      /* task's last -> CPU's last -> lowest free, bounded */
	CIDK_CID_OWNERSHIP,    /* tasks own CIDs, or CPUs do (Linux 6.19 and later) */
	CIDK_CID_NR_POLICIES,
};

/* Where the lazy family's compaction work runs when it is due. */
enum cidk_cid_scan_trigger {
	CIDK_CID_SCAN_TICK,	      /* from the tick of a running task of the mm */
	CIDK_CID_SCAN_RETURN_TO_USER, /* on the mm's tasks' return to user space */
};

struct cidk_cid_params {
	enum cidk_cid_policy_kind kind;
	enum cidk_cid_scan_trigger trigger; /* lazy family; default RETURN_TO_USER */
	unsigned int batch;	   /* lazy-batched: CPUs per scan call (default 16;
				      ignored by the other policies) */
	uint64_t expiry_ns;	   /* 0: CIDK_CID_EXPIRY_NS */
	uint64_t scan_period_ns;   /* 0: CIDK_CID_SCAN_PERIOD_NS */
	unsigned int reverted;	   /* ownership: the kernel fixes taken out
				      (the lab's CIDK_CID_FIX_* bits); 0,
				      the default: every fix applied */
};

/* Per-mm cost counters: what the policies are compared on. */
struct cidk_cid_stats {
	uint64_t bitmap_rmw;	     /* atomic RMWs on the mm's CID bitmap */
	uint64_t bitmap_search;	     /* searches of the CID bitmap (find first zero...) */
	uint64_t compaction_calls;   /* calls of the compaction scan that did work */
	uint64_t compaction_cpus;    /* CPUs visited by those calls, in total */
	uint64_t compaction_max_cpus;/* most CPUs visited by one call */
	uint64_t compaction_releases;/* slot CIDs released by the scan */
	uint64_t deferred_releases;  /* releases deferred to a CPU running the mm */
	uint64_t handovers;	     /* CIDs passed between tasks without bitmap work */
	uint64_t cid_changes;	     /* a task switched in with another CID than last time */
	uint64_t allocations;	     /* a task switched in and needed a CID */
	uint64_t max_cid;	     /* the largest CID ever handed out */
	/* added with the implementation: */
	uint64_t slot_rmw;	     /* atomic RMWs on per-CPU slots and mm counters */
	uint64_t migrate_moves;	     /* slot CIDs moved along with a migrating task */
	/* ownership: */
	uint64_t mode_switches;	     /* per-task <-> per-CPU mode changes */
	uint64_t fixup_walks;	     /* fixup walks (over tasks or CPUs) */
	uint64_t fixup_visits;	     /* tasks or CPUs those walks visited */
	uint64_t transit_drops;	     /* transit CIDs given back at switch-out */
	uint64_t stalls;	     /* allocations that found no free CID after
					CIDK_CID_STALL_SPINS pauses (gave up) */
};

/*
 * How long an allocation that must succeed (ownership's mm_get_cid) waits
 * for another thread to free a CID, in pauses, before it gives up and
 * counts a stall.  The kernel waits forever; a bounded wait keeps a
 * broken variant from hanging a test (docs/cid.md).
 */
#define CIDK_CID_STALL_SPINS (1u << 16)

struct cidk_cid_mm; /* opaque: one mm's CID state */

/* ---- names -------------------------------------------------------------- */

/*
 * cidk_cid_policy_name - "bitmap", "lazy", "lazy-batched", "cache-local",
 * "inherit", "ownership"; NULL for an unknown kind.
 */
CIDK_EXPORT const char *cidk_cid_policy_name(enum cidk_cid_policy_kind kind);

/*
 * cidk_cid_policy_parse - the kind named @name (as above).
 * Returns 0, or -EINVAL for an unknown name (*kind unchanged).
 */
CIDK_EXPORT int cidk_cid_policy_parse(const char *name,
				      enum cidk_cid_policy_kind *kind);

/* Fill @p with the defaults for @kind. */
CIDK_EXPORT void cidk_cid_params_default(struct cidk_cid_params *p,
					 enum cidk_cid_policy_kind kind);

/* ---- queries ------------------------------------------------------------ */

/*
 * min(nr_cpus_allowed, nr_users): the bound a compact mm stays under
 * (ownership converges below its own max_cids, see above).
 */
CIDK_EXPORT unsigned int cidk_cid_max_cids(const struct cidk_cid_mm *mm);

/* The mm's users: its tasks (a lease domain's: the threads that joined it
   and have not ended).  MT-safe. */
CIDK_EXPORT unsigned int cidk_cid_nr_users(const struct cidk_cid_mm *mm);

/* The weight of the union of its users' allowed CPUs (it only grows).
   MT-safe. */
CIDK_EXPORT unsigned int cidk_cid_nr_cpus_allowed(const struct cidk_cid_mm *mm);

/* The width of its CPU masks, fixed at creation: no CID reaches it. */
CIDK_EXPORT unsigned int cidk_cid_nr_cpu_ids(const struct cidk_cid_mm *mm);

/* The policy it runs. */
CIDK_EXPORT enum cidk_cid_policy_kind
cidk_cid_mm_policy(const struct cidk_cid_mm *mm);

/* Copy the mm's cost counters into @st. */
CIDK_EXPORT void cidk_cid_stats(const struct cidk_cid_mm *mm,
				struct cidk_cid_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* CIDKIT_CID_H */
