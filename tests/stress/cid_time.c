/* SPDX-License-Identifier: MIT */
/*
 * The lazy family (lazy, lazy-batched, cache-local) under contention with
 * time supplied by the test, so that its compaction scans really run.
 *
 * Leases read CLOCK_MONOTONIC_COARSE and scan at most every 100 ms: a
 * stress run of a second sees a handful of scans.  Here threads drive the
 * policy directly with cidk_cid_* (the scheduler events a lease maps to)
 * and a virtual clock that every switch-in advances by STEP_NS, so that
 * 100 ms of policy time pass every few hundred switches.  Each thread is
 * one task of one mm (nr_cpu_ids 8) and plays a CPU of its choosing:
 *
 *   1. all threads switch in and out concurrently, each on its own CPU,
 *      moving to the next CPU every 64 switches (cidk_cid_migrate while
 *      switched out), one thread leaving the mm and forking back in now
 *      and then (users change under the scan), another one away for
 *      150 ms of policy time halfway (its slot expires meanwhile);
 *   2. all threads switch in at once (so they hold distinct CIDs, the
 *      highest at least NTH - 1) and out again; then only the one that
 *      held the highest runs, on the same CPU, for 600 ms of policy time:
 *      the others' slots expire and are released by the scan (clear_old),
 *      the CIDs in use drop to one, and the lone thread's slot -- busy
 *      while the scan runs from its own return to user -- is marked for a
 *      deferred release (clear_weight).  This phase makes both paths
 *      certain; 1 and 3 race scans against everything else;
 *   3. all threads again, as in 1.
 *
 * Inside each switch-in a NON-atomic counter[cid]++ with a pause: a CID
 * held twice at once loses increments, so the sum must be exact; every CID
 * must be below nr_cpu_ids, and at the end the checker finds no leak.  Per
 * run it prints the scans, scan releases, deferred releases and migration
 * moves, and fails when scans, releases or deferred releases are zero:
 * the paths this test exists for.  Under TSan a CID held twice is also a
 * data race on the counter.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include <cidkit/cid.h>
#include <cidkit/arch/select.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "tap.h"
#include "tsan.h"

#define NCPU 8
#define NTH 4
#if TEST_TSAN
#define ITERS 2000
#else
#define ITERS 16000
#endif
#define STEP_NS 200000ull  /* 0.2 ms of policy time per switch-in */
#define LONE 3000	   /* phase 2: 600 ms of policy time */

struct slotc {
	_Alignas(64) unsigned long v;
};

struct worker {
	pthread_t th;
	unsigned int id;
	struct cidk_cid_task task;
	unsigned int cpu;
	unsigned int last_cid;
	unsigned long leases;
};

static struct slotc counter[NCPU];
static struct cidk_cid_mm *mm;
static struct cidk_mask *all;
static _Atomic uint64_t vclock;
static atomic_uint bad, lone, finished;
static pthread_barrier_t phase;
static struct worker w[NTH];

/* the library's one spin-wait hint per architecture (cidkit/arch/) */
static inline void relax(void)
{
	cidk__cpu_relax();
}

static void one(struct worker *me, unsigned int i)
{
	uint64_t now = atomic_fetch_add(&vclock, STEP_NS) + STEP_NS;
	unsigned int cid = cidk_cid_switch(me->cpu, NULL, NULL, mm, &me->task, now);
	unsigned long v;

	if (cid >= NCPU) {
		atomic_fetch_add(&bad, 1);
	} else {
		v = counter[cid].v;
		for (int k = 0; k < 8; k++)
			relax();
		if ((i + me->id) % 127 == 0)
			sched_yield(); /* preempted while running with the CID */
		counter[cid].v = v + 1;
		me->leases++;
		me->last_cid = cid;
	}
	/* the return to user space, where the lazy family's scan runs */
	cidk_cid_return_to_user(mm, &me->task, me->cpu, now);
	cidk_cid_switch(me->cpu, mm, &me->task, NULL, NULL, now + STEP_NS / 2);
}

static void busy_phase(struct worker *me)
{
	for (unsigned int i = 0; i < ITERS; i++) {
		if (i % 64 == 63) { /* migrate to the next CPU while out */
			unsigned int to = (me->cpu + 1) % NCPU;

			cidk_cid_migrate(mm, &me->task, me->cpu, to,
					 atomic_load(&vclock));
			me->cpu = to;
		}
		if (me->id == 0 && i % 500 == 499) { /* leave, come back */
			cidk_cid_exit(mm, &me->task, atomic_load(&vclock));
			for (int k = 0; k < 200; k++)
				relax();
			cidk_cid_fork(mm, &me->task, all);
		}
		if (me->id == 1 && i == ITERS / 2) { /* away for 150 ms */
			uint64_t until = atomic_load(&vclock) + 150000000ull;

			while (atomic_load(&vclock) < until &&
			       atomic_load(&finished) < NTH - 1)
				sched_yield();
		}
		one(me, i);
	}
	atomic_fetch_add(&finished, 1);
}

static void *worker_main(void *arg)
{
	struct worker *me = arg;
	uint64_t now;

	busy_phase(me);
	/* all in at once (distinct CIDs, the highest >= NTH - 1), all out */
	pthread_barrier_wait(&phase);
	now = atomic_fetch_add(&vclock, STEP_NS) + STEP_NS;
	me->last_cid = cidk_cid_switch(me->cpu, NULL, NULL, mm, &me->task, now);
	pthread_barrier_wait(&phase);
	cidk_cid_switch(me->cpu, mm, &me->task, NULL, NULL, now);
	pthread_barrier_wait(&phase); /* main picks the lone runner */
	pthread_barrier_wait(&phase);
	if (me->id == atomic_load(&lone))
		for (unsigned int i = 0; i < LONE; i++)
			one(me, i);
	pthread_barrier_wait(&phase);
	busy_phase(me);
	return NULL;
}

static void run(enum cidk_cid_policy_kind kind, unsigned int batch)
{
	struct cidk_cid_params p;
	struct cidk_cid_stats st;
	struct cidk_cid_task *live[NTH];
	unsigned long sum = 0, n = 0;
	unsigned int best = 0;
	const char *name = cidk_cid_policy_name(kind);
	char why[200] = "";
	int rc;

	cidk_cid_params_default(&p, kind);
	if (batch)
		p.batch = batch;
	memset(counter, 0, sizeof(counter));
	memset(w, 0, sizeof(w));
	atomic_store(&vclock, 0);
	atomic_store(&bad, 0);
	atomic_store(&finished, 0);
	if (cidk_cid_mm_create(&p, NCPU, all, &mm)) {
		ok(false, "%s: mm_create", name);
		return;
	}
	pthread_barrier_init(&phase, NULL, NTH + 1);
	for (unsigned int i = 0; i < NTH; i++) {
		w[i].id = i;
		w[i].cpu = 2 * i; /* each its own CPU to start with */
		cidk_cid_fork(mm, &w[i].task, all);
		pthread_create(&w[i].th, NULL, worker_main, &w[i]);
	}
	pthread_barrier_wait(&phase);
	pthread_barrier_wait(&phase);
	pthread_barrier_wait(&phase);
	for (unsigned int i = 1; i < NTH; i++)
		if (w[i].last_cid > w[best].last_cid)
			best = i;
	atomic_store(&lone, best);
	atomic_store(&finished, 0); /* for phase 3 */
	ok(w[best].last_cid >= NTH - 1 && w[best].last_cid < NCPU,
	   "%s: %u tasks running at once hold distinct CIDs, the highest %u",
	   name, NTH, w[best].last_cid);
	pthread_barrier_wait(&phase);
	pthread_barrier_wait(&phase);
	for (unsigned int i = 0; i < NTH; i++)
		pthread_join(w[i].th, NULL);
	pthread_barrier_destroy(&phase);

	for (unsigned int c = 0; c < NCPU; c++)
		sum += counter[c].v;
	for (unsigned int i = 0; i < NTH; i++) {
		n += w[i].leases;
		live[i] = &w[i].task;
	}
	cidk_cid_stats(mm, &st);
	rc = cidk_cid_check(mm, live, NTH, false, why, sizeof(why));
	diag("%s%s: %.0f ms of policy time, %lu switch-ins: %llu scans "
	     "(%llu CPUs visited), %llu scan releases, %llu deferred releases, "
	     "%llu migration moves, %llu bitmap RMWs; largest CID %llu",
	     name, batch ? " (batch 2)" : "",
	     (double)atomic_load(&vclock) / 1e6, n,
	     (unsigned long long)st.compaction_calls,
	     (unsigned long long)st.compaction_cpus,
	     (unsigned long long)st.compaction_releases,
	     (unsigned long long)st.deferred_releases,
	     (unsigned long long)st.migrate_moves,
	     (unsigned long long)st.bitmap_rmw,
	     (unsigned long long)st.max_cid);
	ok(sum == n && !atomic_load(&bad),
	   "%s: exact sum %lu of %lu, every CID below %u (bad %u)", name, sum, n,
	   NCPU, atomic_load(&bad));
	ok(st.compaction_calls > 0 && st.compaction_releases > 0 &&
	   st.deferred_releases > 0,
	   "%s: the scan ran (%llu), released (%llu) and deferred releases (%llu)",
	   name, (unsigned long long)st.compaction_calls,
	   (unsigned long long)st.compaction_releases,
	   (unsigned long long)st.deferred_releases);
	ok(rc == 0, "%s: checker after the run: %s", name, rc ? why : "ok");
	for (unsigned int i = 0; i < NTH; i++)
		cidk_cid_exit(mm, &w[i].task, atomic_load(&vclock));
	rc = cidk_cid_check(mm, NULL, 0, false, why, sizeof(why));
	ok(rc == 0 && cidk_cid_nr_users(mm) == 0,
	   "%s: every task exited, nothing leaked (%s)", name, rc ? why : "ok");
	cidk_cid_mm_destroy(mm);
}

int main(void)
{
	all = cidk_mask_alloc(NCPU);
	cidk_mask_fill(all);
	run(CIDK_CID_LAZY, 0);
	run(CIDK_CID_LAZY_BATCHED, 2);
	run(CIDK_CID_CACHE_LOCAL, 0);
	cidk_mask_free(all);
	return done_testing();
}
