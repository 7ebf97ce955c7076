/* SPDX-License-Identifier: MIT */
/*
 * Scripted event sequences, one block per policy, with the exact CIDs and
 * cost counters each policy must produce.  Times are in ms (MS()).  The
 * invariant checker runs after every step.
 */
#include <errno.h>
#include <string.h>

#include <cidkit/cid.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "tap.h"

#define MS(x) ((uint64_t)(x) * 1000000ull)
#define NT 8

struct world {
	struct cidk_cid_mm *mm;
	struct cidk_cid_task t[NT];
	struct cidk_cid_task *tp[NT];
	unsigned int n;
	struct cidk_mask *all;
};

static void world_init(struct world *w, enum cidk_cid_policy_kind kind,
		       unsigned int cpus, unsigned int users,
		       enum cidk_cid_scan_trigger trig, unsigned int batch)
{
	struct cidk_cid_params p;

	cidk_cid_params_default(&p, kind);
	p.trigger = trig;
	if (batch)
		p.batch = batch;
	w->all = cidk_mask_alloc(cpus);
	cidk_mask_fill(w->all);
	if (cidk_cid_mm_create(&p, cpus, w->all, &w->mm))
		abort();
	for (unsigned int i = 0; i < users; i++)
		cidk_cid_fork(w->mm, &w->t[i], w->all);
	for (unsigned int i = 0; i < NT; i++)
		w->tp[i] = &w->t[i];
	w->n = users;
}

static void world_fini(struct world *w)
{
	cidk_cid_mm_destroy(w->mm);
	cidk_mask_free(w->all);
}

static bool check(struct world *w, const char *step)
{
	char why[200];
	int rc = cidk_cid_check(w->mm, w->tp, w->n, false, why, sizeof(why));

	if (rc)
		return ok(false, "%s: checker: %s", step, why);
	return true;
}

/* idle -> task i on cpu at ms */
static unsigned int in(struct world *w, unsigned int cpu, unsigned int i,
		       unsigned int ms)
{
	unsigned int cid = cidk_cid_switch(cpu, NULL, NULL, w->mm, &w->t[i],
					   MS(ms));

	check(w, "switch in");
	return cid;
}

static void out(struct world *w, unsigned int i, unsigned int ms)
{
	cidk_cid_switch(w->t[i].cpu, w->mm, &w->t[i], NULL, NULL, MS(ms));
	check(w, "switch out");
}

static unsigned int swap(struct world *w, unsigned int cpu, unsigned int a,
			 unsigned int b, unsigned int ms)
{
	unsigned int cid = cidk_cid_switch(cpu, w->mm, &w->t[a], w->mm,
					   &w->t[b], MS(ms));

	check(w, "same-mm switch");
	return cid;
}

static struct cidk_cid_stats stats(struct world *w)
{
	struct cidk_cid_stats st;

	cidk_cid_stats(w->mm, &st);
	return st;
}

static void test_names(void)
{
	enum cidk_cid_policy_kind k;
	bool all = true;

	for (int i = 0; i < CIDK_CID_NR_POLICIES; i++)
		all &= !cidk_cid_policy_parse(cidk_cid_policy_name(i), &k) &&
		       (int)k == i;
	ok(all, "every policy name parses back to its kind");
	ok(cidk_cid_policy_parse("nope", &k) == -EINVAL, "unknown name: -EINVAL");
	ok(cidk_cid_policy_name(CIDK_CID_NR_POLICIES) == NULL,
	   "name of an unknown kind is NULL");
}

static void test_create_errors(void)
{
	struct cidk_cid_params p;
	struct cidk_mask *m4 = cidk_mask_alloc(4), *m8 = cidk_mask_alloc(8);
	struct cidk_cid_mm *mm = NULL;
	struct cidk_cid_task t;

	cidk_cid_params_default(&p, CIDK_CID_LAZY);
	ok(cidk_cid_mm_create(&p, 4, m4, &mm) == -EINVAL, "empty allowed: -EINVAL");
	cidk_mask_fill(m8);
	ok(cidk_cid_mm_create(&p, 4, m8, &mm) == -EINVAL, "width mismatch: -EINVAL");
	p.kind = CIDK_CID_NR_POLICIES;
	cidk_mask_fill(m4);
	ok(cidk_cid_mm_create(&p, 4, m4, &mm) == -EINVAL, "bad kind: -EINVAL");
	cidk_cid_params_default(&p, CIDK_CID_LAZY_BATCHED);
	p.batch = 0;
	ok(cidk_cid_mm_create(&p, 4, m4, &mm) == -EINVAL, "batch 0: -EINVAL");
	p.batch = 2;
	ok(cidk_cid_mm_create(&p, 4, m4, &mm) == 0, "valid params: 0");
	ok(cidk_cid_fork(mm, &t, m8) == -EINVAL, "fork with a wider mask: -EINVAL");
	ok(cidk_cid_set_affinity(mm, &t, m8) == -EINVAL,
	   "set_affinity with a wider mask: -EINVAL");
	ok(cidk_cid_nr_users(mm) == 0, "failed fork left nr_users at 0");
	cidk_cid_mm_destroy(mm);
	cidk_cid_mm_destroy(NULL);
	cidk_mask_free(m4);
	cidk_mask_free(m8);
}

static void test_bitmap(void)
{
	struct world w;
	struct cidk_cid_stats st;

	world_init(&w, CIDK_CID_BITMAP, 4, 3, CIDK_CID_SCAN_RETURN_TO_USER, 0);
	ok(in(&w, 0, 0, 0) == 0 && in(&w, 1, 1, 0) == 1 && in(&w, 2, 2, 0) == 2,
	   "bitmap: three tasks get 0, 1, 2");
	out(&w, 0, 1);
	ok(in(&w, 3, 0, 2) == 0, "bitmap: CID 0 freed at switch-out is taken again");
	out(&w, 1, 3);
	ok(swap(&w, 3, 0, 1, 4) == 0, "bitmap: same-mm switch re-takes the lowest (0)");
	st = stats(&w);
	ok(st.bitmap_rmw == 8 && st.bitmap_search == 5 && st.handovers == 0,
	   "bitmap: 5 takes + 3 releases: rmw=%llu (8) search=%llu (5) handovers=%llu (0)",
	   (unsigned long long)st.bitmap_rmw,
	   (unsigned long long)st.bitmap_search,
	   (unsigned long long)st.handovers);
	ok(cidk_cid_tick(w.mm, &w.t[1], 3, MS(1000)) == 0 &&
	   cidk_cid_return_to_user(w.mm, &w.t[1], 3, MS(1000)) == 0,
	   "bitmap: no scan");
	world_fini(&w);
}

static void test_inherit(void)
{
	struct world w;
	struct cidk_cid_stats a, b;

	world_init(&w, CIDK_CID_INHERIT, 4, 4, CIDK_CID_SCAN_RETURN_TO_USER, 0);
	ok(in(&w, 0, 0, 0) == 0 && in(&w, 1, 1, 0) == 1 && in(&w, 2, 2, 0) == 2,
	   "inherit: lowest free 0, 1, 2");
	a = stats(&w);
	ok(swap(&w, 2, 2, 3, 1) == 2, "inherit: same-mm switch hands CID 2 over");
	b = stats(&w);
	ok(b.bitmap_rmw == a.bitmap_rmw && b.bitmap_search == a.bitmap_search &&
	   b.handovers == a.handovers + 1,
	   "inherit: the handover did no bitmap work (rmw %llu -> %llu, handovers +%llu)",
	   (unsigned long long)a.bitmap_rmw, (unsigned long long)b.bitmap_rmw,
	   (unsigned long long)(b.handovers - a.handovers));
	out(&w, 0, 2);
	out(&w, 1, 2);
	out(&w, 3, 2);
	/* everyone out: task 1 (last 1) on CPU 0 (last 0) keeps its own */
	ok(in(&w, 0, 1, 3) == 1, "inherit: a task's own last CID comes first");
	/* task 2 never ran since its CID went to 3: last 2, free */
	ok(in(&w, 3, 2, 3) == 2, "inherit: task 2 gets its last CID 2 back");
	/* task 3 (last 2, held) on CPU 1 (last CID 1, held) -> lowest free 0 */
	ok(in(&w, 1, 3, 3) == 0, "inherit: then the lowest free CID");
	out(&w, 3, 4);
	out(&w, 1, 4);
	/* task 0 (last 0, free) */
	ok(in(&w, 2, 0, 5) == 0, "inherit: last CID 0 again");
	out(&w, 0, 6);
	out(&w, 2, 6);
	/* exits shrink the bound: 2 users on 4 CPUs -> CIDs < 2 */
	cidk_cid_exit(w.mm, &w.t[2], MS(7));
	cidk_cid_exit(w.mm, &w.t[3], MS(7));
	w.n = 2;
	ok(cidk_cid_max_cids(w.mm) == 2, "inherit: max_cids = min(4, 2) = 2");
	w.t[0].last_cid = 3; /* a stale hint above the bound is ignored */
	ok(in(&w, 2, 0, 8) == 0 && in(&w, 3, 1, 8) == 1,
	   "inherit: CIDs stay below min(nr_cpus_allowed, nr_users)");
	world_fini(&w);
}

/* The kernel's mm_cid compaction selftest: a leader ends with CID 0. */
static void test_lazy_compaction(enum cidk_cid_policy_kind kind,
				 unsigned int batch,
				 enum cidk_cid_scan_trigger trig)
{
	const char *name = cidk_cid_policy_name(kind);
	unsigned int (*scan)(struct cidk_cid_mm *, struct cidk_cid_task *,
			     unsigned int, uint64_t);
	unsigned int (*other)(struct cidk_cid_mm *, struct cidk_cid_task *,
			      unsigned int, uint64_t);
	struct cidk_cid_stats st;
	struct world w;
	unsigned int visited, calls = 0;

	scan = trig == CIDK_CID_SCAN_TICK ? cidk_cid_tick : cidk_cid_return_to_user;
	other = trig == CIDK_CID_SCAN_TICK ? cidk_cid_return_to_user : cidk_cid_tick;
	world_init(&w, kind, 4, 4, trig, batch);
	/* threads 1..3 on CPUs 0..2, the leader (0) on CPU 3 */
	ok(in(&w, 0, 1, 0) == 0 && in(&w, 1, 2, 0) == 1 && in(&w, 2, 3, 0) == 2 &&
	   in(&w, 3, 0, 0) == 3, "%s/%u: leader on CPU 3 holds CID 3", name, batch);
	ok(scan(w.mm, &w.t[0], 3, MS(1)) == 0, "%s: first trigger only arms", name);
	ok(scan(w.mm, &w.t[0], 3, MS(60)) == 0, "%s: not due at 60 ms", name);
	/*
	 * The followers exit at 90 ms, 60 ms before the scan: their CPUs give
	 * their CIDs back at exit (sched_mm_cid_exit_signals), so the first
	 * due scan converges the leader without waiting for an expiry.
	 */
	for (unsigned int i = 1; i <= 3; i++)
		cidk_cid_exit(w.mm, &w.t[i], MS(90));
	check(&w, "exits");
	ok(other(w.mm, &w.t[0], 3, MS(150)) == 0,
	   "%s: the other trigger never scans", name);
	visited = 0;
	for (unsigned int ms = 150; ms < 160; ms++) {
		unsigned int v = scan(w.mm, &w.t[0], 3, MS(ms));

		check(&w, "scan");
		visited += v;
		calls += v != 0;
	}
	ok(visited == 4 && calls == (4 + batch - 1) / batch,
	   "%s/%u: one pass visits 4 CPUs in %u calls (got %u in %u)", name,
	   batch, (4 + batch - 1) / batch, visited, calls);
	ok(w.t[0].cid == 3, "%s: the running leader keeps CID 3 until it switches",
	   name);
	out(&w, 0, 160);
	ok(in(&w, 3, 0, 170) == 0, "%s/%u: after the scan the leader gets CID 0",
	   name, batch);
	st = stats(&w);
	ok(st.compaction_releases == 0 && st.deferred_releases == 1 &&
	   st.compaction_max_cpus == batch && st.compaction_cpus == 4,
	   "%s/%u: releases %llu (0: the exits did), deferred %llu (1), max cpus/call %llu (%u)",
	   name, batch, (unsigned long long)st.compaction_releases,
	   (unsigned long long)st.deferred_releases,
	   (unsigned long long)st.compaction_max_cpus, batch);
	ok(cidk_cid_releases(w.mm) == 1,
	   "%s/%u: cidk_cid_releases() counts immediate + deferred (1)", name,
	   batch);
	world_fini(&w);
}

static void test_lazy_reuse(void)
{
	struct world w;
	struct cidk_cid_stats a, b;

	world_init(&w, CIDK_CID_LAZY, 4, 2, CIDK_CID_SCAN_RETURN_TO_USER, 0);
	ok(in(&w, 0, 0, 0) == 0, "lazy: first CID 0");
	out(&w, 0, 1);
	a = stats(&w);
	ok(in(&w, 0, 1, 2) == 0, "lazy: another task on CPU 0 reuses its CID 0");
	b = stats(&w);
	ok(b.bitmap_rmw == a.bitmap_rmw && b.bitmap_search == a.bitmap_search &&
	   b.handovers == a.handovers + 1, "lazy: slot reuse without bitmap work");
	ok(in(&w, 1, 0, 2) == 1, "lazy: CPU 1 takes the lowest free, 1");
	out(&w, 0, 3);
	out(&w, 1, 3);
	/* task 1 moves from CPU 0 to CPU 2, taking CPU 0's CID 0 (its own) */
	cidk_cid_migrate(w.mm, &w.t[1], 0, 2, MS(4));
	check(&w, "migrate");
	ok(in(&w, 2, 1, 5) == 0 && stats(&w).migrate_moves == 1,
	   "lazy: a migrating task takes its slot CID along");
	world_fini(&w);
}

/*
 * Exit gives the CPU's CID back (sched_mm_cid_exit_signals -> mm_cid_put),
 * and a slot's CID is reused with no bound check (mm_cid_get): the issue's
 * sequence, on 4 CPUs.
 */
static void test_lazy_exit(enum cidk_cid_policy_kind kind)
{
	const char *name = cidk_cid_policy_name(kind);
	struct world w;

	world_init(&w, kind, 4, 2, CIDK_CID_SCAN_RETURN_TO_USER, 0);
	cidk_cid_return_to_user(w.mm, &w.t[0], 0, MS(0)); /* arm: due at 100 */
	ok(in(&w, 0, 0, 1) == 0 && in(&w, 1, 1, 1) == 1,
	   "%s: A on CPU 0 takes 0, B on CPU 1 takes 1", name);
	out(&w, 1, 2);
	cidk_cid_exit(w.mm, &w.t[0], MS(3)); /* A, running, exits */
	check(&w, "exit");
	ok(in(&w, 1, 1, 4) == 1 && cidk_cid_max_cids(w.mm) == 1,
	   "%s: B gets its CPU's CID 1 back with one user (no bound check, as the kernel)",
	   name);
	cidk_cid_fork(w.mm, &w.t[2], w.all);
	w.n = 3;
	ok(in(&w, 2, 2, 5) == 0,
	   "%s: a new thread on CPU 2 gets 0: A's exit freed CPU 0's CID", name);
	out(&w, 2, 6);
	cidk_cid_exit(w.mm, &w.t[2], MS(7));
	check(&w, "exit of a sleeping task");
	ok(cidk_cid_return_to_user(w.mm, &w.t[1], 1, MS(100)) == 4 &&
	   stats(&w).deferred_releases == 1,
	   "%s: the first due scan marks B's CID 1 (>= weight 1) LAZY_PUT", name);
	out(&w, 1, 101);
	ok(in(&w, 3, 1, 102) == 0,
	   "%s: then B gets 0: below min(capacity, threads) after the scan", name);
	ok(stats(&w).compaction_releases == 0,
	   "%s: the scan had nothing idle left to release (exits did)", name);
	world_fini(&w);
}

/*
 * sched_mm_cid_migrate_to(): the source slot's CID is moved when the
 * destination is empty, released when it is not -- unless users >=
 * nr_cpus_allowed, when nothing moves.
 */
static void test_lazy_migrate(enum cidk_cid_policy_kind kind)
{
	const char *name = cidk_cid_policy_name(kind);
	struct cidk_cid_stats a;
	struct world w;

	/* 2 users on 4 CPUs: destination set -> the source CID is freed */
	world_init(&w, kind, 4, 2, CIDK_CID_SCAN_RETURN_TO_USER, 0);
	in(&w, 0, 0, 0);
	in(&w, 1, 1, 0);
	out(&w, 0, 1);
	out(&w, 1, 1); /* CPU 0 parks 0, CPU 1 parks 1 */
	cidk_cid_migrate(w.mm, &w.t[0], 0, 1, MS(2));
	check(&w, "migrate onto a set CPU");
	a = stats(&w);
	ok(a.migrate_moves == 0 && in(&w, 2, 1, 3) == 0,
	   "%s: users < allowed, destination set: the source's CID 0 is released (CPU 2 gets 0)",
	   name);
	world_fini(&w);

	/* 4 users on 4 CPUs: destination set -> nothing moves */
	world_init(&w, kind, 4, 4, CIDK_CID_SCAN_RETURN_TO_USER, 0);
	in(&w, 0, 0, 0);
	in(&w, 1, 1, 0);
	out(&w, 0, 1);
	out(&w, 1, 1);
	cidk_cid_migrate(w.mm, &w.t[0], 0, 1, MS(2));
	check(&w, "migrate, users >= allowed");
	a = stats(&w);
	ok(in(&w, 0, 2, 3) == 0 && stats(&w).handovers == a.handovers + 1,
	   "%s: users >= allowed: CPU 0 keeps its CID 0 (a slot hit)", name);
	ok(in(&w, 2, 3, 3) == 2, "%s: and CPU 2 takes 2 (0 and 1 are parked)",
	   name);
	world_fini(&w);

	/* destination empty: the CID moves even when users >= allowed */
	world_init(&w, kind, 2, 2, CIDK_CID_SCAN_RETURN_TO_USER, 0);
	in(&w, 0, 0, 0);
	out(&w, 0, 1);
	cidk_cid_migrate(w.mm, &w.t[0], 0, 1, MS(2));
	check(&w, "migrate onto an empty CPU");
	ok(stats(&w).migrate_moves == 1 && in(&w, 1, 0, 3) == 0,
	   "%s: destination empty: CID 0 moves with the task", name);
	ok(in(&w, 0, 1, 3) == 1, "%s: and CPU 0, now empty, takes 1", name);
	world_fini(&w);
}

/* cache-local: migration clears the source's recent CID; an empty
   destination with a recent CID counts as set. */
static void test_cache_local_migrate(void)
{
	struct world w;
	unsigned int lazy_cid = 0, cl_cid = 0;

	for (int k = 0; k < 2; k++) {
		enum cidk_cid_policy_kind kind =
			k ? CIDK_CID_CACHE_LOCAL : CIDK_CID_LAZY;

		world_init(&w, kind, 4, 4, CIDK_CID_SCAN_RETURN_TO_USER, 0);
		in(&w, 0, 0, 0);
		in(&w, 1, 1, 0);
		out(&w, 0, 1);
		out(&w, 1, 1);
		/* CPU 1's CID 1 moves to empty CPU 2 (CPU 1 forgets it) */
		cidk_cid_migrate(w.mm, &w.t[1], 1, 2, MS(2));
		cidk_cid_exit(w.mm, &w.t[1], MS(3)); /* frees CPU 2's 1 */
		check(&w, "migrate and exit");
		w.tp[1] = &w.t[3];
		w.n = 3;
		/* 3 users, 2 CIDs used so far: CPU 1 expands to 2 (its recent
		   1 was cleared); lazy takes the lowest free, 1 */
		if (k)
			cl_cid = in(&w, 1, 2, 4);
		else
			lazy_cid = in(&w, 1, 2, 4);
		world_fini(&w);
	}
	ok(cl_cid == 2 && lazy_cid == 1,
	   "cache-local: the migration cleared CPU 1's recent CID: it spreads to 2 (got %u; lazy %u)",
	   cl_cid, lazy_cid);

	/* CPU 2 empty but with a recent CID: set, so the source CID is freed */
	world_init(&w, CIDK_CID_CACHE_LOCAL, 4, 3, CIDK_CID_SCAN_RETURN_TO_USER, 0);
	cidk_cid_return_to_user(w.mm, &w.t[0], 0, MS(0)); /* arm */
	in(&w, 2, 0, 1); /* CPU 2: 0 */
	out(&w, 0, 2);
	cidk_cid_exit(w.mm, &w.t[0], MS(3)); /* CPU 2 empty, recent 0 */
	cidk_cid_fork(w.mm, &w.t[0], w.all);
	in(&w, 0, 1, 4); /* CPU 0: 1 (expansion) */
	out(&w, 1, 5);
	cidk_cid_migrate(w.mm, &w.t[1], 0, 2, MS(6));
	check(&w, "migrate onto a CPU with a recent CID");
	ok(stats(&w).migrate_moves == 0 && in(&w, 2, 2, 7) == 0,
	   "cache-local: a destination with a recent CID counts as set: CID 1 is freed, not moved (CPU 2 reuses its recent 0)");
	world_fini(&w);
}

/*
 * More tasks inside than CIDs (a lease domain's threads preempted on one
 * CPU): a switch-in steals an idle slot's CID of another CPU, else fails
 * at once -- no retry loop.
 */
static void test_lazy_exhausted(enum cidk_cid_policy_kind kind)
{
	const char *name = cidk_cid_policy_name(kind);
	struct world w;
	char why[200];

	world_init(&w, kind, 2, 3, CIDK_CID_SCAN_RETURN_TO_USER, 0);
	in(&w, 0, 0, 0);
	in(&w, 1, 1, 0);
	out(&w, 1, 1); /* CPU 1 parks 1 */
	ok(in(&w, 0, 1, 2) == 1,
	   "%s: CPU 0 busy, every CID owned: steals CPU 1's idle CID 1", name);
	ok(cidk_cid_switch(0, NULL, NULL, w.mm, &w.t[2], MS(3)) == CIDK_CID_NONE &&
	   cidk_cid_check(w.mm, w.tp, 3, false, why, sizeof(why)) == -EINVAL,
	   "%s: a third task inside on 2 CPUs gets no CID at once (checker: %s)",
	   name, why);
	world_fini(&w);
}

/* cache-local vs lazy: a CPU's recent CID after the scan released it */
static unsigned int recent_after_expiry(enum cidk_cid_policy_kind kind,
					unsigned int *spread)
{
	struct world w;
	unsigned int cid;

	world_init(&w, kind, 4, 2, CIDK_CID_SCAN_RETURN_TO_USER, 0);
	cidk_cid_return_to_user(w.mm, &w.t[0], 0, 0); /* arm */
	in(&w, 0, 0, 1);
	in(&w, 1, 1, 1);
	out(&w, 0, 10);
	out(&w, 1, 10);
	in(&w, 3, 0, 150); /* 0 and 1 parked: gets 2 */
	cidk_cid_return_to_user(w.mm, &w.t[0], 3, MS(150));
	check(&w, "scan");
	out(&w, 0, 160);
	cid = in(&w, 1, 1, 170); /* CPU 1: recent 1, lowest free 0 */
	out(&w, 1, 180);
	*spread = in(&w, 2, 0, 190);
	world_fini(&w);
	return cid;
}

static void test_cache_local(void)
{
	unsigned int spread_lazy, spread_cl;

	ok(recent_after_expiry(CIDK_CID_LAZY, &spread_lazy) == 0,
	   "lazy: after expiry CPU 1 takes the lowest free CID 0");
	ok(recent_after_expiry(CIDK_CID_CACHE_LOCAL, &spread_cl) == 1,
	   "cache-local: after expiry CPU 1 reuses its recent CID 1");
	ok(spread_lazy == 1 && spread_cl == 0,
	   "then CPU 2: lazy 1 (0 is parked on CPU 1), cache-local 0 (got %u, %u)",
	   spread_lazy, spread_cl);
}

static void test_cache_local_spread(void)
{
	struct world w;

	world_init(&w, CIDK_CID_CACHE_LOCAL, 4, 4, CIDK_CID_SCAN_RETURN_TO_USER, 0);
	ok(in(&w, 0, 0, 0) == 0, "cache-local: first CID 0");
	out(&w, 0, 1);
	/* release CPU 0's slot through the scan: arm at 1 ms, run at 200 ms */
	cidk_cid_return_to_user(w.mm, &w.t[0], 0, MS(1));
	in(&w, 1, 1, 200);
	cidk_cid_return_to_user(w.mm, &w.t[1], 1, MS(200));
	out(&w, 1, 201);
	ok(w.t[1].last_cid == 1, "cache-local: CPU 1 spreads to never-used CID 1");
	ok(in(&w, 2, 2, 202) == 2 && in(&w, 3, 3, 202) == 3,
	   "cache-local: CPUs 2 and 3 spread to never-used CIDs 2 and 3, not to free 0");
	out(&w, 2, 203);
	ok(in(&w, 0, 2, 204) == 0, "cache-local: CPU 0's recent CID 0 once all are used");
	world_fini(&w);
}

static void test_checker_fault(void)
{
	struct world w;
	char why[200] = "";

	world_init(&w, CIDK_CID_INHERIT, 4, 2, CIDK_CID_SCAN_RETURN_TO_USER, 0);
	in(&w, 0, 0, 0);
	in(&w, 1, 1, 0);
	ok(cidk_cid_check(w.mm, w.tp, 2, true, why, sizeof(why)) == 0,
	   "checker: a healthy mm passes");
	w.t[1].cid = w.t[0].cid; /* the injected fault: CID 0 held twice */
	ok(cidk_cid_check(w.mm, w.tp, 2, false, why, sizeof(why)) == -EINVAL &&
	   strstr(why, "held twice"), "checker catches a double-held CID (%s)", why);
	w.t[1].cid = 1;
	ok(cidk_cid_check(w.mm, w.tp, 2, false, why, sizeof(why)) == 0,
	   "checker passes again once repaired");
	w.t[1].running = false;
	w.t[1].cid = CIDK_CID_NONE;
	ok(cidk_cid_check(w.mm, w.tp, 2, false, why, sizeof(why)) == -EINVAL &&
	   strstr(why, "leaked"), "checker catches a leaked CID (%s)", why);
	world_fini(&w);
}

int main(void)
{
	test_names();
	test_create_errors();
	test_bitmap();
	test_inherit();
	test_lazy_reuse();
	for (int trig = 0; trig < 2; trig++) {
		test_lazy_compaction(CIDK_CID_LAZY, 4, trig);
		test_lazy_compaction(CIDK_CID_CACHE_LOCAL, 4, trig);
		test_lazy_compaction(CIDK_CID_LAZY_BATCHED, 1, trig);
		test_lazy_compaction(CIDK_CID_LAZY_BATCHED, 2, trig);
		test_lazy_compaction(CIDK_CID_LAZY_BATCHED, 3, trig);
	}
	test_cache_local();
	test_cache_local_spread();
	for (int k = CIDK_CID_LAZY; k <= CIDK_CID_CACHE_LOCAL; k++) {
		test_lazy_exit(k);
		test_lazy_migrate(k);
		test_lazy_exhausted(k);
	}
	test_cache_local_migrate();
	test_checker_fault();
	return done_testing();
}
