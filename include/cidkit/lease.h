/* SPDX-License-Identifier: MIT */
/*
 * cidkit/lease.h - CIDs for real threads.
 *
 * User space has no context-switch hook, so a thread holds a CID for the
 * duration of a burst of work:
 *
 *	int cid = cidk_lease_enter(dom);	// 0 <= cid < capacity
 *	... per_cid_data[cid] is ours alone ...
 *	cidk_lease_exit(dom);
 *
 * A domain is one mm of a policy of cid.h; each thread that uses it is one
 * task of that mm (it "forks" into the domain on its first enter and
 * "exits" when the thread ends), and the CPU the thread runs on at enter
 * plays the policy's CPU, so per-CPU hints (the lazy family's slots, the
 * inherit policy's CPU-last CID) give cache locality.  enter is a
 * switch-in from idle, exit a switch-out to idle.  Time (CLOCK_MONOTONIC,
 * at tick resolution) is read only for the policies that use it (the lazy
 * family), once per pair, at exit; their compaction scan, when due, runs
 * at exit too, after the burst (whatever the params' trigger says).
 *
 * Capacity: CIDs stay below the domain's capacity (default: the number of
 * possible CPUs).  bitmap and inherit also hand out CIDs below
 * min(capacity, threads using the domain) at every enter.  The lazy family
 * (lazy, lazy-batched, cache-local) does not: like the kernel's, it reuses
 * the CID parked on the thread's CPU with no bound check (thread A on CPU
 * 0 takes 0, B on CPU 1 takes 1, A ends, B enters again on CPU 1 and gets
 * 1 with one thread), and comes back under min(capacity, threads) through
 * its compaction scan: a thread that ends gives its CPU's CID back at
 * once, and the first due scan after that (every 100 ms, run at exit)
 * takes back the CIDs at or above the number in use.  When every CID
 * is held, enter waits (a brief spin, then sched_yield()) and try_enter
 * returns -EAGAIN.
 *
 * Synchronization table (one domain):
 *
 *   | op \ concurrent with      | enter/try/exit   | destroy |
 *   |---------------------------|------------------|---------|
 *   | enter, try_enter, exit    | yes (any thread) | no      |
 *   | create, destroy           | -                | no      |
 *   | stats (cidk_cid_stats)    | yes, approximate | no      |
 *
 * A thread holds at most one lease per domain at a time (enter is not
 * reentrant), but may hold leases of several domains.  A thread that ends
 * while holding a lease gives it back.  Threads that used a domain may
 * outlive it: destroy only requires that no lease of it is held.
 */
#ifndef CIDKIT_LEASE_H
#define CIDKIT_LEASE_H

#include <cidkit/cid.h>
#include <cidkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cidk_lease_domain; /* opaque */

/*
 * cidk_lease_domain_create - a domain of @capacity CIDs (0: the number of
 * possible CPUs) allocated by the policy @p (NULL: inherit with defaults).
 * Returns 0 and *out, or -EINVAL (bad params, capacity above
 * CIDK_MASK_MAX_BITS) or -ENOMEM.  MT-safe.
 */
CIDK_EXPORT int cidk_lease_domain_create(const struct cidk_cid_params *p,
					 unsigned int capacity,
					 struct cidk_lease_domain **out);

/*
 * cidk_lease_domain_destroy - free @d; no thread may hold or be taking a
 * lease of it.  NULL: no-op.
 */
CIDK_EXPORT void cidk_lease_domain_destroy(struct cidk_lease_domain *d);

/*
 * cidk_lease_enter - take a CID of @d for the calling thread, waiting
 * while all are held.  Returns the CID (>= 0, < capacity), or -EBUSY (the
 * thread already holds a lease of @d) or -ENOMEM (the thread's first use
 * of @d could not allocate its record); on error nothing is held.  MT-safe.
 */
CIDK_EXPORT int cidk_lease_enter(struct cidk_lease_domain *d);

/*
 * cidk_lease_try_enter - as cidk_lease_enter(), but returns -EAGAIN at
 * once when every CID is held.
 */
CIDK_EXPORT int cidk_lease_try_enter(struct cidk_lease_domain *d);

/*
 * cidk_lease_exit - give back the calling thread's lease of @d.
 * Returns 0, or -EINVAL (the thread holds none; nothing changes).
 */
CIDK_EXPORT int cidk_lease_exit(struct cidk_lease_domain *d);

/* The domain's capacity (its CIDs stay below it). */
CIDK_EXPORT unsigned int cidk_lease_capacity(const struct cidk_lease_domain *d);

/* The domain's mm: for cidk_cid_stats() and the cidk_cid_* queries. */
CIDK_EXPORT const struct cidk_cid_mm *
cidk_lease_mm(const struct cidk_lease_domain *d);

#ifdef __cplusplus
}
#endif

#endif /* CIDKIT_LEASE_H */
