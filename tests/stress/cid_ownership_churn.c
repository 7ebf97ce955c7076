/* SPDX-License-Identifier: MIT */
/*
 * The ownership policy under load, param_test style, while threads come
 * and go: a few "base" threads take leases for the whole run while waves
 * of short-lived threads join the domain (a fork on their first enter),
 * take leases, and end (an exit).  Each wave makes the users cross
 * max_cids = min(opt + opt/4, nr_cpu_ids), opt = min(nr_cpus_allowed,
 * users), upwards -- here the capacity, since a domain allows all its
 * capacity CPUs and nr_cpu_ids is the capacity -- and a fork switches the
 * mm to per-CPU and walks the tasks (a running one's CID in transit, in
 * the current variant, handed to its CPU at its switch-out); each drain
 * brings them below pcpu_thrs = min(opt - opt/4, capacity/2) -- an exit
 * switches back and walks the CPUs with the transit mark -- while the
 * other threads keep entering and leaving.  Inside each lease a NON-atomic counter[cid]++ with a pause
 * (and now and then a yield): a CID ever held by two threads at once
 * loses increments, so the sum must equal the number of leases exactly.
 *
 * Per run it prints the mode switches, fixup walks (tasks or CPUs
 * visited), transit drops and stalls, and fails when the current variant
 * did no mode switch or no walk (the paths the test exists for), when a
 * sum is off, a CID is out of range, a CID leaked or a user is left.
 *
 * The v6.19 variant (the merged design, with the bugs the 2026 fixes
 * removed) runs the same load under a time limit: workers use
 * try_enter and stop at the deadline, so it always ends; the report says
 * what it did (stalls, sums, the checker's verdict) and only finishing in
 * time is required.  Its live lock needs a spin with a runqueue lock held
 * against a walk waiting for that lock: leases give up after
 * CIDK_CID_STALL_SPINS and count a stall instead.
 *
 * Leases serialise forks and exits (the domain's registration lock), so
 * two forks never race here: that interleaving is the checker's (check/).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include <cidkit/lease.h>
#include <cidkit/arch/select.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "tap.h"
#include "test_clock.h"
#include "tsan.h"

#if TEST_TSAN
#define WAVES 8
#define ITERS 300
#else
#define WAVES 16
#define ITERS 1500
#endif
#define MAXCAP 16
#define MAXTH 32

struct slotc {
	_Alignas(64) unsigned long v;
};

static struct slotc counter[MAXCAP];
static struct cidk_lease_domain *dom;
static unsigned int capacity;
static atomic_ulong leases;
static atomic_uint bad_cid, stop, base_up;
static uint64_t deadline;
static pthread_barrier_t wave_met; /* the whole wave has joined the mm */

/* the library's one spin-wait hint per architecture (cidkit/arch/) */
static inline void relax(void)
{
	cidk__cpu_relax();
}

/* One lease: false when the deadline passed before a CID came free. */
static bool one_lease(unsigned int id, unsigned int i)
{
	unsigned long v;
	int cid;

	while ((cid = cidk_lease_try_enter(dom)) == -EAGAIN) {
		if (test_ns(CLOCK_MONOTONIC) > deadline) {
			atomic_store(&stop, 1);
			return false;
		}
		sched_yield();
	}
	if (cid < 0 || (unsigned int)cid >= capacity) {
		atomic_fetch_add(&bad_cid, 1);
		return true;
	}
	v = counter[cid].v;
	for (int k = 0; k < 10; k++)
		relax();
	if ((i + id) % 61 == 0)
		sched_yield(); /* preempted while holding the CID */
	counter[cid].v = v + 1;
	cidk_lease_exit(dom);
	atomic_fetch_add_explicit(&leases, 1, memory_order_relaxed);
	return true;
}

static void *wave_thread(void *arg)
{
	unsigned int id = (unsigned int)(unsigned long)arg;

	/*
	 * The first lease forks the thread into the mm; the barrier makes
	 * the whole wave users at once (else a slow start, as under TSan,
	 * lets each thread finish before the next one forks).
	 */
	one_lease(id, 0);
	pthread_barrier_wait(&wave_met);
	for (unsigned int i = 1; i < ITERS && !atomic_load(&stop); i++)
		if (!one_lease(id, i))
			break;
	return NULL; /* the thread's end is the task's exit */
}

static void *base_thread(void *arg)
{
	unsigned int id = (unsigned int)(unsigned long)arg;

	one_lease(id, 0); /* a user from the start */
	atomic_fetch_add(&base_up, 1);
	for (unsigned int i = 1; !atomic_load(&stop); i++)
		if (!one_lease(id, i))
			break;
	return NULL;
}

struct config {
	unsigned int cap, base, wave; /* users: base <-> base + wave */
};

static void run(unsigned int var, const struct config *c,
		uint64_t limit_ns)
{
	struct cidk_cid_params p;
	struct cidk_cid_stats st;
	pthread_t base[MAXTH], th[MAXTH];
	unsigned long sum = 0, n;
	unsigned int waves = 0;
	const char *vn = var ? "v6.19" : "current";
	bool cur = var == 0, in_time;
	char why[200] = "";
	uint64_t t0 = test_ns(CLOCK_MONOTONIC);
	int rc;

	cidk_cid_params_default(&p, CIDK_CID_OWNERSHIP);
	p.reverted = var;
	memset(counter, 0, sizeof(counter));
	atomic_store(&leases, 0);
	atomic_store(&bad_cid, 0);
	atomic_store(&stop, 0);
	atomic_store(&base_up, 0);
	deadline = t0 + limit_ns;
	rc = cidk_lease_domain_create(&p, c->cap, &dom);
	if (rc) {
		ok(false, "create ownership:%s capacity %u: %d", vn, c->cap, rc);
		return;
	}
	capacity = cidk_lease_capacity(dom);
	for (unsigned long i = 0; i < c->base; i++)
		pthread_create(&base[i], NULL, base_thread, (void *)i);
	while (atomic_load(&base_up) < c->base && !atomic_load(&stop))
		sched_yield();
	pthread_barrier_init(&wave_met, NULL, c->wave);
	for (; waves < WAVES && !atomic_load(&stop); waves++) {
		for (unsigned long i = 0; i < c->wave; i++)
			pthread_create(&th[i], NULL, wave_thread,
				       (void *)(100 + waves * 16 + i));
		for (unsigned int i = 0; i < c->wave; i++)
			pthread_join(th[i], NULL);
		if (test_ns(CLOCK_MONOTONIC) > deadline)
			atomic_store(&stop, 1);
	}
	pthread_barrier_destroy(&wave_met);
	in_time = !atomic_load(&stop);
	atomic_store(&stop, 1);
	for (unsigned int i = 0; i < c->base; i++)
		pthread_join(base[i], NULL);

	for (unsigned int k = 0; k < MAXCAP; k++)
		sum += counter[k].v;
	n = atomic_load(&leases);
	cidk_cid_stats(cidk_lease_mm(dom), &st);
	rc = cidk_cid_check(cidk_lease_mm(dom), NULL, 0, false, why, sizeof(why));
	diag("ownership:%s capacity %u, users %u <-> %u, %u waves in %.2f s: "
	     "%llu mode switches, %llu fixup walks (%llu visits), %llu transit "
	     "drops, %llu stalls; %lu leases, sum %lu, bad CIDs %u, largest CID "
	     "%llu; checker: %s",
	     vn, capacity, c->base, c->base + c->wave, waves,
	     (double)(test_ns(CLOCK_MONOTONIC) - t0) / 1e9,
	     (unsigned long long)st.mode_switches,
	     (unsigned long long)st.fixup_walks,
	     (unsigned long long)st.fixup_visits,
	     (unsigned long long)st.transit_drops,
	     (unsigned long long)st.stalls, n, sum, atomic_load(&bad_cid),
	     (unsigned long long)st.max_cid, rc ? why : "ok");
	if (cur) {
		ok(in_time && waves == WAVES,
		   "ownership:current capacity %u: all %u waves within %.0f s",
		   capacity, WAVES, (double)limit_ns / 1e9);
		ok(sum == n && n > 0 && !atomic_load(&bad_cid) &&
		   st.max_cid < capacity,
		   "ownership:current capacity %u: exact sum %lu of %lu leases, "
		   "every CID below %u", capacity, sum, n, capacity);
		ok(st.mode_switches >= 2 * waves && st.fixup_walks >= 2 * waves,
		   "ownership:current capacity %u: mode switches %llu and fixup "
		   "walks %llu under load (both directions, every wave: >= %u)",
		   capacity, (unsigned long long)st.mode_switches,
		   (unsigned long long)st.fixup_walks, 2 * waves);
		ok(rc == 0 && cidk_cid_nr_users(cidk_lease_mm(dom)) == 0,
		   "ownership:current capacity %u: nothing leaked (%s), every "
		   "thread left (users %u)", capacity, rc ? why : "ok",
		   cidk_cid_nr_users(cidk_lease_mm(dom)));
	} else {
		/* the merged design: report, require only that it ended */
		ok(test_ns(CLOCK_MONOTONIC) - t0 < limit_ns + 2000000000ull,
		   "ownership:v6.19 capacity %u: ended within its %.0f s limit "
		   "(%s; stalls %llu, sum %lu of %lu leases%s)",
		   capacity, (double)limit_ns / 1e9,
		   in_time ? "all waves done" : "stopped at the deadline",
		   (unsigned long long)st.stalls, sum, n,
		   sum == n ? ", exact" : ", LOST INCREMENTS");
	}
	cidk_lease_domain_destroy(dom);
}

int main(void)
{
	static const struct config cfg[] = {
		{ 2, 0, 3 }, /* per-CPU at 3 users; back at 0 (thrs 1) */
		{ 3, 0, 4 }, /* per-CPU at 4; back at 0 (thrs 1) */
		{ 4, 1, 5 }, /* per-CPU at 5; back at 1 (thrs 2), base running */
		{ 8, 2, 8 }, /* per-CPU at 9; back at 3 (thrs 4), bases running */
	};

	for (unsigned int i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++)
		run(0, &cfg[i], 60ull * 1000000000u);
	for (unsigned int i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++)
		run(CIDK_CID_FIXES_ALL, &cfg[i], 3ull * 1000000000u);
	return done_testing();
}
