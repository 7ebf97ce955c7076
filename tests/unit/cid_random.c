/* SPDX-License-Identifier: MIT */
/*
 * Randomized single-threaded event sequences for every policy, with the
 * invariant checker after every event: two mms share a machine, tasks fork,
 * exit, change affinity, migrate, switch (to idle, within an mm, across
 * mms), tick and return to user, with long idle gaps past the expiry.
 * Differential part: bitmap and inherit are compared, CID by CID, with a
 * plain reference model of the policy written here.
 */
#include <errno.h>
#include <string.h>

#include <cidkit/cid.h>

#include "tap.h"
#include "util/prng.h"

#define NMM 2
#define MAXT 10
#define EVENTS 60000

struct rtask {
	struct cidk_cid_task t;
	struct cidk_mask *allowed;
	bool alive;
};

struct rmm {
	struct cidk_cid_mm *mm;
	struct rtask task[MAXT];
	struct cidk_mask *uni;	    /* reference union */
	unsigned int users;	    /* reference nr_users */
	unsigned int cpu_last[128]; /* reference (inherit): CPU's last CID */
};

struct machine {
	unsigned int ncpu;
	struct rmm m[NMM];
	int cur_mm[128], cur_t[128]; /* -1: idle */
	struct cidk__prng rng;
	uint64_t now;
	unsigned int diffs, compared, failures, events[16];
	char why[256];
};

static void random_mask(struct machine *w, struct cidk_mask *m)
{
	cidk_mask_zero(m);
	if (cidk__prng_below(&w->rng, 3) == 0) {
		cidk_mask_fill(m);
		return;
	}
	do {
		for (unsigned int c = 0; c < w->ncpu; c++)
			if (cidk__prng_below(&w->rng, 3) == 0)
				cidk_mask_set(m, c);
	} while (cidk_mask_empty(m));
}

static unsigned int ref_max(struct rmm *r)
{
	unsigned int a = cidk_mask_weight(r->uni);

	return a < r->users ? a : r->users;
}

static bool held(struct rmm *r, unsigned int cid)
{
	for (int i = 0; i < MAXT; i++)
		if (r->task[i].alive && r->task[i].t.running &&
		    r->task[i].t.cid == cid)
			return true;
	return false;
}

static unsigned int lowest_free(struct rmm *r, unsigned int limit)
{
	for (unsigned int c = 0; c < limit; c++)
		if (!held(r, c))
			return c;
	return CIDK_CID_NONE;
}

/* What the reference model says task @ti of mm @mi gets on @cpu. */
static unsigned int ref_switch_in(struct machine *w, unsigned int mi,
				  unsigned int ti, unsigned int cpu,
				  unsigned int handover)
{
	struct rmm *r = &w->m[mi];
	unsigned int max = ref_max(r), last = r->task[ti].t.last_cid;

	switch (cidk_cid_mm_policy(r->mm)) {
	case CIDK_CID_BITMAP:
		return lowest_free(r, cidk_mask_weight(r->uni));
	case CIDK_CID_INHERIT:
		if (handover != CIDK_CID_NONE && handover < max)
			return handover;
		if (last < max && !held(r, last))
			return last;
		if (r->cpu_last[cpu] < max && !held(r, r->cpu_last[cpu]))
			return r->cpu_last[cpu];
		return lowest_free(r, max);
	default:
		return CIDK_CID_NONE; /* not modelled */
	}
}

static void check_all(struct machine *w, const char *what)
{
	for (int mi = 0; mi < NMM; mi++) {
		struct cidk_cid_task *tp[MAXT];
		unsigned int n = 0;
		struct rmm *r = &w->m[mi];

		for (int i = 0; i < MAXT; i++)
			if (r->task[i].alive)
				tp[n++] = &r->task[i].t;
		if (cidk_cid_check(r->mm, tp, n, false, w->why, sizeof(w->why))) {
			if (!w->failures++)
				diag("after %s: mm %d: %s", what, mi, w->why);
		}
		if (cidk_cid_nr_users(r->mm) != r->users ||
		    cidk_cid_nr_cpus_allowed(r->mm) != cidk_mask_weight(r->uni)) {
			if (!w->failures++)
				diag("after %s: mm %d: users %u/%u allowed %u/%u",
				     what, mi, cidk_cid_nr_users(r->mm), r->users,
				     cidk_cid_nr_cpus_allowed(r->mm),
				     cidk_mask_weight(r->uni));
		}
	}
}

static void do_switch(struct machine *w, unsigned int cpu)
{
	int pm = w->cur_mm[cpu], pt = w->cur_t[cpu];
	int nm = -1, nt = -1, cand_m[NMM * MAXT], cand_t[NMM * MAXT], nc = 0;
	struct cidk_cid_mm *pmm = NULL, *nmm = NULL;
	struct cidk_cid_task *prev = NULL, *next = NULL;
	unsigned int expect = CIDK_CID_NONE, got, handover = CIDK_CID_NONE;

	for (int mi = 0; mi < NMM; mi++)
		for (int i = 0; i < MAXT; i++) {
			struct rtask *t = &w->m[mi].task[i];

			if (t->alive && !t->t.running && cidk_mask_test(t->allowed, cpu))
				cand_m[nc] = mi, cand_t[nc++] = i;
		}
	if (nc && cidk__prng_below(&w->rng, 4) != 0) {
		unsigned int k = (unsigned int)cidk__prng_below(&w->rng, nc);

		nm = cand_m[k];
		nt = cand_t[k];
	}
	if (pm < 0 && nm < 0)
		return;
	if (pm >= 0) {
		pmm = w->m[pm].mm;
		prev = &w->m[pm].task[pt].t;
		if (pm == nm)
			handover = prev->cid;
		if (cidk_cid_mm_policy(pmm) == CIDK_CID_INHERIT &&
		    !(pm == nm && handover < ref_max(&w->m[pm])))
			w->m[pm].cpu_last[cpu] = prev->cid;
	}
	if (nm >= 0) {
		nmm = w->m[nm].mm;
		next = &w->m[nm].task[nt].t;
		/* the model decides after prev is out (held() skips it) */
		if (prev)
			prev->running = false;
		expect = ref_switch_in(w, nm, nt, cpu, handover);
		if (prev)
			prev->running = true;
	}
	got = cidk_cid_switch(cpu, pmm, prev, nmm, next, w->now);
	if (nm >= 0 && cidk_cid_mm_policy(nmm) == CIDK_CID_INHERIT)
		w->m[nm].cpu_last[cpu] = got;
	w->compared += expect != CIDK_CID_NONE;
	if (expect != CIDK_CID_NONE && got != expect && !w->diffs++)
		diag("%s: cpu %u task %d got CID %u, reference %u",
		     cidk_cid_policy_name(cidk_cid_mm_policy(nmm)), cpu, nt, got,
		     expect);
	w->cur_mm[cpu] = nm;
	w->cur_t[cpu] = nt;
}

/*
 * The injected fault: make a running task claim another running task's
 * CID (switching tasks in on idle CPUs first if fewer than two run); the
 * checker must catch it, and pass again once it is undone.
 */
static void inject_double(struct machine *w)
{
	struct rmm *r = &w->m[0];
	struct cidk_cid_task *tp[MAXT], *run[2];
	unsigned int n = 0, nrun = 0, saved;
	int before, during, after;

	for (unsigned int c = 0; c < w->ncpu && nrun < 2; c++)
		if (w->cur_mm[c] < 0)
			do_switch(w, c);
	for (int i = 0; i < MAXT; i++)
		if (r->task[i].alive) {
			tp[n++] = &r->task[i].t;
			if (r->task[i].t.running && nrun < 2)
				run[nrun++] = &r->task[i].t;
		}
	if (nrun < 2) {
		ok(true, "%s: fault injection skipped (fewer than two running)",
		   cidk_cid_policy_name(cidk_cid_mm_policy(r->mm)));
		return;
	}
	before = cidk_cid_check(r->mm, tp, n, false, w->why, sizeof(w->why));
	saved = run[1]->cid;
	run[1]->cid = run[0]->cid;
	during = cidk_cid_check(r->mm, tp, n, false, w->why, sizeof(w->why));
	ok(before == 0 && during == -EINVAL && strstr(w->why, "held twice"),
	   "%s: the checker catches an injected double-held CID (%s)",
	   cidk_cid_policy_name(cidk_cid_mm_policy(r->mm)), w->why);
	run[1]->cid = saved;
	after = cidk_cid_check(r->mm, tp, n, false, w->why, sizeof(w->why));
	ok(after == 0, "%s: and passes once it is undone",
	   cidk_cid_policy_name(cidk_cid_mm_policy(r->mm)));
}

static void run(enum cidk_cid_policy_kind kind, unsigned int ncpu,
		enum cidk_cid_scan_trigger trig, uint64_t seed)
{
	struct machine w;
	struct cidk_cid_params p;
	struct cidk_cid_stats st;

	memset(&w, 0, sizeof(w));
	w.ncpu = ncpu;
	cidk__prng_seed(&w.rng, seed);
	cidk_cid_params_default(&p, kind);
	p.trigger = trig;
	p.batch = 3;
	for (unsigned int c = 0; c < ncpu; c++)
		w.cur_mm[c] = w.cur_t[c] = -1;
	for (int mi = 0; mi < NMM; mi++) {
		struct rmm *r = &w.m[mi];

		for (int i = 0; i < MAXT; i++)
			r->task[i].allowed = cidk_mask_alloc(ncpu);
		for (unsigned int c = 0; c < ncpu; c++)
			r->cpu_last[c] = CIDK_CID_NONE;
		r->uni = cidk_mask_alloc(ncpu);
		random_mask(&w, r->task[0].allowed);
		cidk_mask_copy(r->uni, r->task[0].allowed);
		if (cidk_cid_mm_create(&p, ncpu, r->task[0].allowed, &r->mm))
			abort();
		cidk_cid_fork(r->mm, &r->task[0].t, r->task[0].allowed);
		r->task[0].alive = true;
		r->users = 1;
	}

	for (unsigned int e = 0; e < EVENTS; e++) {
		unsigned int ev = (unsigned int)cidk__prng_below(&w.rng, 100);
		unsigned int mi = (unsigned int)cidk__prng_below(&w.rng, NMM);
		unsigned int ti = (unsigned int)cidk__prng_below(&w.rng, MAXT);
		unsigned int cpu = (unsigned int)cidk__prng_below(&w.rng, ncpu);
		struct rmm *r = &w.m[mi];
		struct rtask *t = &r->task[ti];
		const char *what = "time";

		if (ev < 3) {
			w.now += 150000000ull + cidk__prng_below(&w.rng, 400000000ull);
			what = "long gap";
		} else if (ev < 30) {
			w.now += cidk__prng_below(&w.rng, 3000000);
		} else if (ev < 33) {
			if (t->alive)
				continue;
			random_mask(&w, t->allowed);
			if (cidk_cid_fork(r->mm, &t->t, t->allowed))
				abort();
			cidk_mask_or(r->uni, r->uni, t->allowed);
			t->alive = true;
			r->users++;
			what = "fork";
		} else if (ev < 36) {
			if (!t->alive || r->users == 1)
				continue;
			if (t->t.running) {
				w.cur_mm[t->t.cpu] = w.cur_t[t->t.cpu] = -1;
				if (cidk_cid_mm_policy(r->mm) == CIDK_CID_INHERIT)
					r->cpu_last[t->t.cpu] = t->t.cid;
			}
			cidk_cid_exit(r->mm, &t->t, w.now);
			t->alive = false;
			r->users--;
			what = "exit";
		} else if (ev < 39) {
			if (!t->alive || t->t.running)
				continue;
			random_mask(&w, t->allowed);
			cidk_cid_set_affinity(r->mm, &t->t, t->allowed);
			cidk_mask_or(r->uni, r->uni, t->allowed);
			what = "set_affinity";
		} else if (ev < 45) {
			if (!t->alive || t->t.running ||
			    !cidk_mask_test(t->allowed, cpu))
				continue;
			cidk_cid_migrate(r->mm, &t->t, t->t.cpu, cpu, w.now);
			what = "migrate";
		} else if (ev < 85) {
			do_switch(&w, cpu);
			what = "switch";
		} else {
			int cm = w.cur_mm[cpu];
			struct cidk_cid_task *ct;

			if (cm < 0)
				continue;
			ct = &w.m[cm].task[w.cur_t[cpu]].t;
			if (ev < 92)
				cidk_cid_tick(w.m[cm].mm, ct, cpu, w.now);
			else
				cidk_cid_return_to_user(w.m[cm].mm, ct, cpu, w.now);
			what = "tick/return_to_user";
		}
		w.events[ev / 10]++;
		check_all(&w, what);
	}

	inject_double(&w);
	cidk_cid_stats(w.m[0].mm, &st);
	ok(w.failures == 0, "%s (%u CPUs, %s trigger): %u events, checker clean "
	   "(allocations %llu, handovers %llu, compaction calls %llu)",
	   cidk_cid_policy_name(kind), ncpu,
	   trig == CIDK_CID_SCAN_TICK ? "tick" : "return-to-user", EVENTS,
	   (unsigned long long)st.allocations, (unsigned long long)st.handovers,
	   (unsigned long long)st.compaction_calls);
	if (kind == CIDK_CID_BITMAP || kind == CIDK_CID_INHERIT)
		ok(w.diffs == 0 && w.compared > EVENTS / 20,
		   "%s: all %u CIDs equal the reference model's",
		   cidk_cid_policy_name(kind), w.compared);
	if (kind == CIDK_CID_OWNERSHIP && ncpu <= 8) /* more users than CPUs */
		ok(st.mode_switches > 0 && st.fixup_walks > 0,
		   "%s: mode switches %llu, fixup walks %llu",
		   cidk_cid_policy_name(kind),
		   (unsigned long long)st.mode_switches,
		   (unsigned long long)st.fixup_walks);
	else if (kind != CIDK_CID_BITMAP && kind != CIDK_CID_INHERIT &&
		 kind != CIDK_CID_OWNERSHIP)
		ok(st.compaction_calls > 0 && st.compaction_releases > 0,
		   "%s: the scan ran and released CIDs",
		   cidk_cid_policy_name(kind));
	for (int mi = 0; mi < NMM; mi++) {
		for (int i = 0; i < MAXT; i++)
			if (w.m[mi].task[i].alive && w.m[mi].task[i].t.running)
				cidk_cid_switch(w.m[mi].task[i].t.cpu, w.m[mi].mm,
						&w.m[mi].task[i].t, NULL, NULL,
						w.now);
		cidk_cid_mm_destroy(w.m[mi].mm);
		for (int i = 0; i < MAXT; i++)
			cidk_mask_free(w.m[mi].task[i].allowed);
		cidk_mask_free(w.m[mi].uni);
	}
}

int main(void)
{
	for (int k = 0; k < CIDK_CID_NR_POLICIES; k++) {
		run(k, 8, CIDK_CID_SCAN_RETURN_TO_USER, 1 + k);
		run(k, 70, CIDK_CID_SCAN_TICK, 100 + k);
	}
	return done_testing();
}
