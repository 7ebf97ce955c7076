/* SPDX-License-Identifier: MIT */
/*
 * lib/lease/lease.c - CIDs for real threads: a domain is one mm of a
 * policy, each thread one of its tasks.
 *
 * Per-thread state: a thread-local table of records, one per domain the
 * thread used, with a one-entry cache of the last domain.  Records are
 * keyed by the domain's id (unique for the life of the process, never
 * reused), so a stale record of a destroyed domain can never match a new
 * domain at the same address.
 *
 * Life cycle of a record (all under reg_lock, a slow path only):
 *   - created on the thread's first enter of a domain: cidk_cid_fork(), and
 *     linked on the domain's list and in the thread's table;
 *   - when the thread ends (pthread key destructor): cidk_cid_exit() if
 *     the domain still exists, unlinked, freed;
 *   - when the domain is destroyed: rec->dom = NULL; the thread frees the
 *     record at its next registration or at its end.
 *
 * Fast path (enter + exit): the cache hit, the CPU, the policy's lease
 * switch-in and switch-out -- for the lazy family one slot CAS and one
 * release store (lazy.c), no clock read and no "scan due?" check but at
 * every LEASE_TICK-th exit; for inherit one bitmap RMW each; for bitmap
 * two; for ownership its runqueue lock twice.  No other lock.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cidkit/arch/select.h> /* cidk__cpu_relax() */
#include <cidkit/lease.h>

#include "cid/cid_internal.h"
#include "cid/lease_fast.h"
#include "lease/lease_cpu.h"
#include "topo/possible.h"

/*
 * The lazy family's time, for leases: a thread reads the clock at a slow
 * enter and at every LEASE_TICK-th exit, and runs the "scan due?" check
 * then; the other exits stamp their slot with the thread's last reading.
 * So a slot's time may be older than its last use by up to LEASE_TICK - 1
 * bursts of that thread (an idle CID may expire sooner, never later), and
 * a due scan waits for some thread's next tick.  The kernel reads its
 * runqueue clock at every switch; a clock read (8 ns coarse, 33 ns
 * precise here, docs/cid.md) is what a lease pair could not afford.
 */
#define LEASE_TICK 64u

struct lease_rec {
	struct cidk_cid_task task;	/* task.running: inside a lease */
	unsigned int ticks;		/* owner: exits to a tick; 0 not lazy */
	unsigned int fast;		/* owner: fast enters not yet counted */
	uint64_t now;			/* owner thread only: last clock read */
	uint64_t dom_id;		/* constant */
	struct cidk_lease_domain *dom;	/* NULL once destroyed; reg_lock */
	struct lease_rec *dom_next;	/* the domain's list; reg_lock */
};

struct cidk_lease_domain {
	struct cidk_cid_mm *mm;
	uint64_t id;
	unsigned int capacity, nr_cpu_ids;
	bool lazy; /* the lazy family: time, scans, lease_fast.h */
	struct cidk_mask *allowed;  /* [0, capacity) */
	struct lease_rec *recs;	    /* reg_lock */
};

struct lease_tls {
	uint64_t last_id;
	uint64_t last_fast_id; /* last_id when that domain is lazy, else 0 */
	struct lease_rec *last;
	struct lease_rec **recs;
	unsigned int n, cap;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static int key_err;
static _Atomic uint64_t next_dom_id = 1;
/* initial-exec: no __tls_get_addr call on the fast path, also in the .so */
static _Thread_local struct lease_tls tls __attribute__((tls_model("initial-exec")));

/*
 * The policies' time: CLOCK_MONOTONIC at tick resolution (the COARSE
 * variant, the same clock).  The lazy family only compares it with a
 * 100 ms expiry and scan period, and the precise clock costs four times as
 * much (33 vs 8 ns on the development VM's kvm-clock; docs/cid.md).
 */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The fast enters a thread made are counted in its record and added to
 * the mm's counters here (at its ticks and its end): the counters may lag
 * by LEASE_TICK - 1 fast enters per thread.
 */
static void flush_fast(struct cidk_lease_domain *d, struct lease_rec *r)
{
	if (r->fast)
		cidk__cid_count_lease_fast(d->mm, r->task.cpu, r->fast);
	r->fast = 0;
}

/* Detach @r from its domain, if any.  reg_lock held. */
static void unlink_rec(struct lease_rec *r)
{
	struct lease_rec **pp;

	if (!r->dom)
		return;
	for (pp = &r->dom->recs; *pp; pp = &(*pp)->dom_next)
		if (*pp == r) {
			*pp = r->dom_next;
			break;
		}
	r->dom = NULL;
}

/* Free this thread's records of destroyed domains.  reg_lock held. */
static void purge_dead(struct lease_tls *l)
{
	unsigned int j = 0;

	for (unsigned int i = 0; i < l->n; i++) {
		if (l->recs[i]->dom) {
			l->recs[j++] = l->recs[i];
		} else {
			if (l->last == l->recs[i]) {
				l->last = NULL;
				l->last_id = 0;
				l->last_fast_id = 0;
			}
			free(l->recs[i]);
		}
	}
	l->n = j;
}

static void thread_end(void *arg)
{
	struct lease_tls *l = arg;

	pthread_mutex_lock(&reg_lock);
	for (unsigned int i = 0; i < l->n; i++) {
		struct lease_rec *r = l->recs[i];

		if (r->dom) {
			flush_fast(r->dom, r);
			cidk_cid_exit(r->dom->mm, &r->task, now_ns());
			unlink_rec(r);
		}
		free(r);
	}
	pthread_mutex_unlock(&reg_lock);
	free(l->recs);
	memset(l, 0, sizeof(*l));
}

static void make_key(void)
{
	key_err = pthread_key_create(&key, thread_end);
}

/* The calling thread's record for @d, registering it on first use. */
static struct lease_rec *lookup_slow(struct cidk_lease_domain *d, bool create)
{
	struct lease_tls *l = &tls;
	struct lease_rec *r = NULL;
	int err;

	for (unsigned int i = 0; i < l->n; i++)
		if (l->recs[i]->dom_id == d->id) {
			r = l->recs[i];
			goto found;
		}
	if (!create)
		return NULL;

	pthread_once(&key_once, make_key);
	if (key_err)
		return NULL;
	pthread_mutex_lock(&reg_lock);
	purge_dead(l);
	if (l->n == l->cap) {
		unsigned int cap = l->cap ? 2 * l->cap : 4;
		struct lease_rec **v = realloc(l->recs, cap * sizeof(*v));

		if (!v)
			goto unlock;
		l->recs = v;
		l->cap = cap;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		goto unlock;
	err = cidk_cid_fork(d->mm, &r->task, d->allowed);
	if (err || pthread_setspecific(key, l)) {
		if (!err)
			cidk_cid_exit(d->mm, &r->task, 0);
		free(r);
		r = NULL;
		goto unlock;
	}
	r->dom_id = d->id;
	r->ticks = d->lazy; /* the first exit reads the clock */
	r->dom = d;
	r->dom_next = d->recs;
	d->recs = r;
	l->recs[l->n++] = r;
unlock:
	pthread_mutex_unlock(&reg_lock);
	if (!r)
		return NULL;
found:
	l->last = r;
	l->last_id = d->id;
	l->last_fast_id = d->lazy ? d->id : 0;
	return r;
}

static inline struct lease_rec *lookup(struct cidk_lease_domain *d,
				       bool create)
{
	if (tls.last_id == d->id)
		return tls.last;
	return lookup_slow(d, create);
}

int cidk_lease_domain_create(const struct cidk_cid_params *p,
			     unsigned int capacity,
			     struct cidk_lease_domain **out)
{
	struct cidk_cid_params def;
	struct cidk_lease_domain *d;
	unsigned int possible = cidk__topo_nr_possible();
	int rc = -ENOMEM;

	if (!out || capacity > CIDK_MASK_MAX_BITS)
		return -EINVAL;
	if (!p) {
		cidk_cid_params_default(&def, CIDK_CID_INHERIT);
		p = &def;
	}
	if (!capacity)
		capacity = possible;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	/*
	 * The domain is a machine of @capacity CPUs: a thread on CPU c plays
	 * CPU c mod capacity (lease_cpu.h), so CIDs -- which the policies keep
	 * below nr_cpu_ids -- stay below the capacity whatever the policy's
	 * fallbacks do.
	 */
	d->capacity = capacity;
	d->nr_cpu_ids = capacity;
	d->lazy = p->kind == CIDK_CID_LAZY ||
		  p->kind == CIDK_CID_LAZY_BATCHED ||
		  p->kind == CIDK_CID_CACHE_LOCAL;
	d->allowed = cidk_mask_alloc(d->nr_cpu_ids);
	if (!d->allowed)
		goto fail;
	cidk_mask_set_range(d->allowed, 0, capacity);
	rc = cidk_cid_mm_create(p, d->nr_cpu_ids, d->allowed, &d->mm);
	if (rc)
		goto fail;
	d->id = atomic_fetch_add(&next_dom_id, 1);
	*out = d;
	return 0;
fail:
	cidk_mask_free(d->allowed);
	free(d);
	return rc;
}

void cidk_lease_domain_destroy(struct cidk_lease_domain *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&reg_lock);
	while (d->recs)
		unlink_rec(d->recs);
	purge_dead(&tls);
	pthread_mutex_unlock(&reg_lock);
	cidk_cid_mm_destroy(d->mm);
	cidk_mask_free(d->allowed);
	free(d);
}

/*
 * Enter.  Fast path, inline: the cached record, the CPU, and for the lazy
 * family the one-CAS re-claim of the thread's last CID (lease_fast.h).
 * Else the policy's lease switch-in (cidk__cid_lease_in), after a fresh
 * clock reading.
 */
static __attribute__((noinline)) int try_enter_slow(struct cidk_lease_domain *d,
						   struct lease_rec *r,
						   unsigned int cpu)
{
	unsigned int cid;

	if (r->task.running)
		return -EBUSY;
	if (d->lazy)
		r->now = now_ns();
	cid = cidk__cid_lease_in(d->mm, &r->task, cpu, r->now);
	if (cid == CIDK_CID_NONE)
		return -EAGAIN;
	return (int)cid;
}

/* The first enter of a domain, or a wait for a free CID. */
static __attribute__((noinline)) int enter_slow(struct cidk_lease_domain *d,
						bool wait)
{
	struct lease_rec *r = lookup(d, true);

	if (!r)
		return -ENOMEM;
	for (unsigned int spins = 0;; spins++) {
		int cid = try_enter_slow(d, r, cidk__lease_cpu(&d->nr_cpu_ids));

		if (cid != -EAGAIN || !wait)
			return cid;
		if (spins < 64)
			cidk__cpu_relax();
		else
			sched_yield();
	}
}

static inline int enter(struct cidk_lease_domain *d, bool wait)
{
	/* the CPU first: nothing else is live across its fallback's call */
	unsigned int cpu = cidk__lease_cpu(&d->nr_cpu_ids);
	struct lease_rec *r;
	int cid;

	/*
	 * (No "inside already?" test: the thread's slot is then BUSY, or
	 * holds another CID than the one the thread holds, so the claim
	 * fails and try_enter_slow says -EBUSY.)
	 */
	if (__builtin_expect(tls.last_fast_id == d->id, 1)) {
		r = tls.last;
		if (cidk__lazy_lease_claim(d->mm, &r->task, cpu)) {
			r->fast++;
			return (int)r->task.cid;
		}
	}
	if (tls.last_id == d->id) {
		/* the thread's record, cached: the policy's lease switch-in */
		cid = try_enter_slow(d, tls.last, cpu);
		if (cid != -EAGAIN || !wait)
			return cid;
	}
	return enter_slow(d, wait);
}

int cidk_lease_try_enter(struct cidk_lease_domain *d)
{
	return enter(d, false);
}

int cidk_lease_enter(struct cidk_lease_domain *d)
{
	return enter(d, true);
}

static __attribute__((noinline)) int exit_slow(struct cidk_lease_domain *d,
					       struct lease_rec *r)
{
	bool tick = d->lazy && --r->ticks == 0;

	if (tick) {
		r->ticks = LEASE_TICK;
		r->now = now_ns();
		flush_fast(d, r);
	}
	cidk__cid_lease_out(d->mm, &r->task, r->now);
	/*
	 * The compaction work, when due, runs here: after the burst, on the
	 * way out (for a lease, the end of a burst is where the kernel's
	 * return to user space would be; the tick trigger maps here too).
	 */
	if (tick)
		d->mm->ops->scan(d->mm, r->task.cpu, r->now);
	return 0;
}

/*
 * Exit without the fast path: a domain not of the lazy family, or another
 * domain's record cached.
 */
static __attribute__((noinline)) int exit_lookup(struct cidk_lease_domain *d)
{
	struct lease_rec *r = lookup(d, false);

	if (!r || !r->task.running)
		return -EINVAL;
	return exit_slow(d, r);
}

/*
 * Exit.  Fast path, inline: for the lazy family, when this is not the
 * thread's LEASE_TICK-th exit, the release store of lease_fast.h.  Else
 * the clock and the scan check when due, and the policy's lease
 * switch-out.
 */
int cidk_lease_exit(struct cidk_lease_domain *d)
{
	struct lease_rec *r;

	if (__builtin_expect(tls.last_fast_id != d->id, 0))
		return exit_lookup(d);
	r = tls.last;
	if (!r->task.running)
		return -EINVAL;
	/* (ticks is 0, never above 1, when the domain is not lazy) */
	if (r->ticks > 1 && cidk__lazy_lease_release(d->mm, &r->task, r->now)) {
		r->ticks--;
		return 0;
	}
	return exit_slow(d, r);
}

unsigned int cidk_lease_capacity(const struct cidk_lease_domain *d)
{
	return d->capacity;
}

const struct cidk_cid_mm *cidk_lease_mm(const struct cidk_lease_domain *d)
{
	return d->mm;
}
