/* SPDX-License-Identifier: MIT */
/*
 * Leases under contention, in the style of the kernel's rseq param_test:
 * T threads (4x and 8x the CPUs) each do ITERS times: enter, a NON-atomic
 * read-modify-write of counter[cid] with a pause (and now and then a
 * yield) inside to widen races, exit.  A CID ever held by two threads at
 * once loses increments, so the final sum must be exactly T x ITERS; every
 * CID must be below the domain's capacity.  Every policy, with capacity
 * = CPUs (default), 1 (all threads on one CID) and CPUs + 1.  Afterwards
 * the checker proves that nothing leaked and every thread left the mm.
 * Under ThreadSanitizer a double-held CID is also a reported data race.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include <cidkit/lease.h>
#include <cidkit/arch/select.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "tap.h"

#ifndef ITERS
#define ITERS 10000
#endif
#define MAXCAP 64

struct slotc {
	_Alignas(64) unsigned long v;
};

static struct slotc counter[MAXCAP];
static struct cidk_lease_domain *dom;
static unsigned int capacity;
static atomic_uint bad_cid, max_seen;
static pthread_barrier_t barrier;

/* the library's one spin-wait hint per architecture (cidkit/arch/) */
static inline void relax(void)
{
	cidk__cpu_relax();
}

static void *worker(void *arg)
{
	unsigned int id = (unsigned int)(unsigned long)arg;

	pthread_barrier_wait(&barrier);
	for (unsigned int i = 0; i < ITERS; i++) {
		int cid;
		unsigned long v;

		if ((i + id) % 4 == 0) {
			while ((cid = cidk_lease_try_enter(dom)) == -EAGAIN)
				sched_yield();
		} else {
			cid = cidk_lease_enter(dom);
		}
		if (cid < 0 || (unsigned int)cid >= capacity) {
			atomic_fetch_add(&bad_cid, 1);
			continue;
		}
		v = counter[cid].v;
		for (int k = 0; k < 20; k++)
			relax();
		if ((i + id) % 97 == 0)
			sched_yield(); /* preempted while holding the CID */
		counter[cid].v = v + 1;
		if ((unsigned int)cid > atomic_load_explicit(&max_seen, memory_order_relaxed))
			atomic_store_explicit(&max_seen, (unsigned int)cid, memory_order_relaxed);
		cidk_lease_exit(dom);
	}
	return NULL;
}

static void run(enum cidk_cid_policy_kind kind, unsigned int cap,
		unsigned int nthreads, bool fast_scan)
{
	struct cidk_cid_params p;
	pthread_t th[256];
	unsigned long sum = 0;
	char why[200] = "";
	int rc;

	cidk_cid_params_default(&p, kind);
	p.batch = 1;
	if (fast_scan) { /* the scan runs all the time, racing with leases */
		p.expiry_ns = 20000;
		p.scan_period_ns = 50000;
	}
	memset(counter, 0, sizeof(counter));
	atomic_store(&bad_cid, 0);
	atomic_store(&max_seen, 0);
	rc = cidk_lease_domain_create(&p, cap, &dom);
	if (rc) {
		ok(false, "create %s cap %u: %d", cidk_cid_policy_name(kind), cap, rc);
		return;
	}
	capacity = cidk_lease_capacity(dom);
	pthread_barrier_init(&barrier, NULL, nthreads);
	for (unsigned long i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (unsigned int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&barrier);
	for (unsigned int c = 0; c < MAXCAP; c++)
		sum += counter[c].v;
	ok(sum == (unsigned long)nthreads * ITERS && !atomic_load(&bad_cid) &&
	   atomic_load(&max_seen) < capacity,
	   "%s%s, capacity %u, %u threads x %u: sum %lu (want %lu), bad CIDs %u, "
	   "largest CID %u",
	   cidk_cid_policy_name(kind), fast_scan ? " (50 us scans)" : "",
	   capacity, nthreads, ITERS, sum,
	   (unsigned long)nthreads * ITERS, atomic_load(&bad_cid),
	   atomic_load(&max_seen));
	{
		struct cidk_cid_stats st;

		cidk_cid_stats(cidk_lease_mm(dom), &st);
		diag("  allocations %llu, handovers %llu, bitmap RMWs %llu, slot RMWs %llu, "
		     "scans %llu, scan releases %llu, deferred %llu",
		     (unsigned long long)st.allocations,
		     (unsigned long long)st.handovers,
		     (unsigned long long)st.bitmap_rmw,
		     (unsigned long long)st.slot_rmw,
		     (unsigned long long)st.compaction_calls,
		     (unsigned long long)st.compaction_releases,
		     (unsigned long long)st.deferred_releases);
	}
	rc = cidk_cid_check(cidk_lease_mm(dom), NULL, 0, false, why, sizeof(why));
	ok(rc == 0 && cidk_cid_nr_users(cidk_lease_mm(dom)) == 0,
	   "%s, capacity %u: no CID leaked (%s), every thread left (users %u)",
	   cidk_cid_policy_name(kind), capacity, why,
	   cidk_cid_nr_users(cidk_lease_mm(dom)));
	cidk_lease_domain_destroy(dom);
}

int main(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int ncpu = n > 0 ? (unsigned int)n : 1;
	unsigned int t4 = 4 * ncpu, t8 = 8 * ncpu;

	if (t8 > 256)
		t8 = 256;
	if (t4 > 256)
		t4 = 256;
	for (int k = 0; k < CIDK_CID_NR_POLICIES; k++) {
		run(k, 0, t4, false);
		run(k, 0, t4, true);
		run(k, 1, t4, true);
		run(k, ncpu + 1 < MAXCAP ? ncpu + 1 : MAXCAP, t8, true);
	}
	return done_testing();
}
