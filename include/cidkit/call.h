/* SPDX-License-Identifier: MIT */
/*
 * cidkit/call.h - domain-affine calls: run a function on a CPU of a domain.
 *
 * A domain is a set of CPUs (an L3 monitoring domain, a NUMA node, one
 * CPU).  cidk_call_on(d, fn, arg) runs fn(arg) directly when the calling
 * thread is on a CPU of d's mask at the time of the check; otherwise it
 * hands the call to d's worker, a thread bound to d's mask, and waits for
 * it to finish.  The worker is created lazily by the first hand-off and
 * stopped by cidk_call_domain_destroy(), which first runs every call
 * already handed to it.
 *
 * "On a CPU of the mask" is sched_getcpu() at the time of the check: a
 * thread whose affinity is wider than the mask may migrate while fn runs.
 * That costs only speed for counter reads (the kernel forwards a read from
 * outside the domain); callers that need fn to stay inside bind the thread
 * first, or use cidk_call_handoff(), which always runs fn on the worker.
 *
 * Workload: a hand-off is a mutex-protected queue push, a condition-variable
 * signal and a wait; the worker spins briefly before sleeping, so a burst of
 * hand-offs does not pay a wake-up each.  A direct call costs one
 * sched_getcpu() and a mask test.
 *
 * Synchronisation table (same domain):
 *
 *   | op \ concurrent with      | call_on/handoff/start | wait | destroy |
 *   |---------------------------|-----------------------|------|---------|
 *   | call_on, handoff, start   | yes                   | yes  | no      |
 *   | wait (distinct requests)  | yes                   | yes  | no      |
 *   | destroy                   | no                    | no   | no      |
 *
 * fn may itself call cidk_call_on() on any domain, including its own (it
 * runs on the worker, which is inside the domain, so the call is direct);
 * it must not call cidk_call_handoff() on its own domain (deadlock).
 */
#ifndef CIDKIT_CALL_H
#define CIDKIT_CALL_H

#include <stdbool.h>

#include <cidkit/common.h>
#include <cidkit/mask.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cidk_call_domain; /* opaque */

typedef void (*cidk_call_fn)(void *arg);

/*
 * A call in flight, for the asynchronous pair cidk_call_start() /
 * cidk_call_wait().  Owned by the caller (usually on its stack) from start
 * until wait returns; its fields are private.
 */
struct cidk_call_req {
	cidk_call_fn fn;
	void *arg;
	struct cidk_call_domain *dom;
	struct cidk_call_req *next;
	CIDK__ATOMIC(int) done; /* set (release) by whoever ran fn */
	int caller_cpu;	  /* CPU of the caller at start, -1 unknown */
};

/*
 * cidk_call_domain_create - a domain over the CPUs of @cpus (copied).
 * No thread is created yet.
 * Returns the domain, or NULL with errno EINVAL (@cpus NULL or empty) or
 * ENOMEM.  MT-safe.
 */
CIDK_EXPORT struct cidk_call_domain *
cidk_call_domain_create(const struct cidk_mask *cpus);

/*
 * cidk_call_domain_destroy - run the calls already handed off, stop and
 * join the worker (if it was ever started), free @d.  NULL is a no-op.
 * No call on @d may be in progress or follow.  Must not be called from
 * @d's own worker.
 */
CIDK_EXPORT void cidk_call_domain_destroy(struct cidk_call_domain *d);

/* cidk_call_domain_cpus - the domain's mask (read-only, lives with @d). */
CIDK_EXPORT const struct cidk_mask *
cidk_call_domain_cpus(const struct cidk_call_domain *d);

/*
 * cidk_call_domain_local - whether the calling thread is now on a CPU of
 * @d (sched_getcpu()).  False when the CPU cannot be determined.
 */
CIDK_EXPORT bool cidk_call_domain_local(const struct cidk_call_domain *d);

/*
 * cidk_call_on - run @fn(@arg) on a CPU of @d and return when it finished:
 * directly when the caller is local, else on @d's worker.
 * Returns 0 (fn ran), -EINVAL (@d or @fn NULL), or the error creating the
 * worker: -EAGAIN (no thread), -EINVAL (no CPU of the mask usable by this
 * process), -ENOMEM.  On error fn did not run.  MT-safe (see table).
 */
CIDK_EXPORT int cidk_call_on(struct cidk_call_domain *d, cidk_call_fn fn,
			     void *arg);

/*
 * cidk_call_handoff - as cidk_call_on() but always on the worker, even
 * when the caller is local (measures the hand-off; forces the bound
 * thread).  Same returns.
 */
CIDK_EXPORT int cidk_call_handoff(struct cidk_call_domain *d, cidk_call_fn fn,
				  void *arg);

/*
 * cidk_call_start - begin cidk_call_on() (@force = false) or
 * cidk_call_handoff() (@force = true) without waiting, so that calls to
 * several domains run in parallel.  A local direct call runs here, before
 * start returns.  Every successful start must be followed by
 * cidk_call_wait(@req) before @req is reused or freed.
 * Returns as cidk_call_on(); on error @req needs no wait.
 */
CIDK_EXPORT int cidk_call_start(struct cidk_call_domain *d,
				struct cidk_call_req *req, cidk_call_fn fn,
				void *arg, bool force);

/*
 * cidk_call_wait - wait until the call started on @req has finished.
 * Everything fn wrote is visible to the caller afterwards.
 */
CIDK_EXPORT void cidk_call_wait(struct cidk_call_req *req);

#ifdef __cplusplus
}
#endif

#endif /* CIDKIT_CALL_H */
