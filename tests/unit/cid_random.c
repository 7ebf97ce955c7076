/* SPDX-License-Identifier: MIT */
/*
 * Randomized single-threaded event sequences for every policy, with the
 * invariant checker after every event: two mms share a machine, tasks fork,
 * exit, change affinity, migrate, switch (to idle, within an mm, across
 * mms), tick and return to user, with long idle gaps past the expiry.
 * Differential part: every policy is compared, CID by CID, with a plain
 * reference model written here from the policy's documented rules (not
 * from its code): bitmap and inherit (lowest free / hints under the
 * bound, same-mm handover: the model keeps its own bitmap, per-task last
 * CID and per-CPU last CID, and never reads the library's), the lazy family (per-CPU slots with LAZY_PUT, expiry, the
 * weight pass, batches, exit and migration rules; cache-local's recent
 * CID and expansion), and ownership (per-task and per-CPU modes, the two
 * walks, transit, convergence).  The models keep their own bitmap, slots
 * and task records; the scan's return value (CPUs visited) is compared
 * too; for ownership, every task's record (CID and ownership flags)
 * after every event, and a run whose masks leave half the CPUs unused, so
 * that users exceed the allowed CPUs within the 25% allowance.  Strict
 * bounds, where a policy promises them: a CID handed out at
 * switch-in by bitmap and inherit is below min(nr_cpus_allowed, nr_users);
 * the lazy family promises only nr_cpus_allowed (the checker), since it
 * reuses a CPU's CID with no bound check, as the kernel does.
 */
#include <errno.h>
#include <string.h>

#include <cidkit/cid.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "tap.h"
#include "prng.h"

#define NMM 2
#define MAXT 10
#define EVENTS 60000

struct rtask {
	struct cidk_cid_task t;
	struct cidk_mask *allowed;
	bool alive;
};

#define MAXCPU 128
#define NONE CIDK_CID_NONE

/* lazy family model: one CPU's slot */
struct rslot {
	unsigned int cid; /* NONE: empty */
	bool busy, lazy_put;
	uint64_t time;
	unsigned int recent; /* cache-local's hint (NONE: none) */
};

/* a task as the models see it */
struct rtrec {
	bool run;
	unsigned int cid, cpu, last; /* last: NONE until it first ran */
	unsigned int own;	     /* ownership: CID with M_* flags */
};

struct rmm {
	struct cidk_cid_mm *mm;
	enum cidk_cid_policy_kind kind;
	unsigned int ncpu;
	struct rtask task[MAXT];
	struct cidk_mask *uni;	    /* reference union */
	unsigned int users;	    /* reference nr_users */
	unsigned int cpu_last[MAXCPU]; /* inherit model: the CPU's last CID */
	/* the models' own state (lazy family, ownership) */
	bool owned[MAXCPU];	    /* the bitmap */
	struct rtrec rt[MAXT];
	struct rslot slot[MAXCPU];
	uint64_t next_scan;	    /* 0: not armed */
	unsigned int scan_pos, batch, used; /* used: cache-local nr_cids_used */
	bool percpu;		    /* ownership: the mode */
	unsigned int thrs, max_cids;
	unsigned int cpu_cid[MAXCPU]; /* ownership: the CPU's record */
	int curr[MAXCPU];	    /* ownership: the mm's task running there */
	int list[MAXT];		    /* ownership: tasks in creation order */
	unsigned int nlist;
};

struct machine {
	unsigned int ncpu;
	struct rmm m[NMM];
	int cur_mm[128], cur_t[128]; /* -1: idle */
	struct cidk__prng rng;
	uint64_t now;
	unsigned int diffs, compared, failures, bound_fails, scans, events[16];
	unsigned int records, rdiffs; /* ownership records compared, differing */
	unsigned int span;     /* masks stay within CPUs [0, span) */
	unsigned int over_allowed; /* ownership: per-task with users > allowed */
	char why[256];
};

static void random_mask(struct machine *w, struct cidk_mask *m)
{
	cidk_mask_zero(m);
	if (cidk__prng_below(&w->rng, 3) == 0) {
		cidk_mask_set_range(m, 0, w->span);
		return;
	}
	do {
		for (unsigned int c = 0; c < w->span; c++)
			if (cidk__prng_below(&w->rng, 3) == 0)
				cidk_mask_set(m, c);
	} while (cidk_mask_empty(m));
}

static unsigned int ref_max(struct rmm *r)
{
	unsigned int a = cidk_mask_weight(r->uni);

	return a < r->users ? a : r->users;
}

/* ---- the models' bitmap ----------------------------------------------------- */

static unsigned int m_lowest(const struct rmm *r, unsigned int limit)
{
	for (unsigned int c = 0; c < limit && c < r->ncpu; c++)
		if (!r->owned[c])
			return c;
	return NONE;
}

static unsigned int m_take(struct rmm *r, unsigned int cid)
{
	if (cid != NONE)
		r->owned[cid] = true;
	return cid;
}

static unsigned int m_weight(const struct rmm *r)
{
	unsigned int n = 0;

	for (unsigned int c = 0; c < r->ncpu; c++)
		n += r->owned[c];
	return n;
}

static bool is_lazy(enum cidk_cid_policy_kind k)
{
	return k == CIDK_CID_LAZY || k == CIDK_CID_LAZY_BATCHED ||
	       k == CIDK_CID_CACHE_LOCAL;
}

/*
 * ---- lazy family model -------------------------------------------------------
 * Rules: a CPU's slot keeps the CID last used there; a task coming in on a
 * CPU whose slot holds an idle CID uses it, whatever its value.  Else it
 * gets a new CID (lazy: lowest free below nr_cpus_allowed; cache-local:
 * the CPU's recent CID if below nr_cids_used and free, else the next
 * never-used one while fewer than min(allowed, users) were handed out,
 * else lowest free) and the empty slot adopts it.  Going out, the CID stays
 * in the slot, unless marked LAZY_PUT (then freed).  The scan, when due
 * (period from the arming call; a lazy-batched pass continues without the
 * period check), frees idle slot CIDs unused for more than the expiry,
 * then, over the same CPUs, frees idle slot CIDs >= the number of owned
 * CIDs and marks busy ones LAZY_PUT.  Exit frees the CID idle in the slot
 * of the CPU the task last ran on.  Migration of a sleeping task: when the
 * target has a CID (cache-local: or a recent one) and users >= allowed,
 * nothing; else the task's CID idle in the source slot leaves it (recent
 * forgotten) and moves to the empty target (recent = it, time kept) or,
 * when the target has one, is freed.
 */

static unsigned int lz_new(struct rmm *r, unsigned int cpu)
{
	unsigned int max = ref_max(r), c;

	if (r->kind == CIDK_CID_CACHE_LOCAL) {
		if (r->used > max)
			r->used = max;
		c = r->slot[cpu].recent;
		if (c != NONE && c < r->used && r->slot[cpu].cid != c &&
		    !r->owned[c])
			return m_take(r, c);
		while (r->used < max) {
			c = r->used++;
			if (!r->owned[c])
				return m_take(r, c);
		}
	}
	return m_take(r, m_lowest(r, cidk_mask_weight(r->uni)));
}

static unsigned int lz_in(struct machine *w, struct rmm *r, unsigned int ti,
			  unsigned int cpu)
{
	struct rslot *sl = &r->slot[cpu];
	unsigned int cid;

	if (sl->cid != NONE && !sl->busy) {
		cid = sl->cid;
		sl->busy = true;
		sl->time = w->now;
	} else {
		cid = lz_new(r, cpu);
		if (cid == NONE) /* the public switch's last resort */
			cid = m_take(r, m_lowest(r, r->ncpu));
		if (cid != NONE && sl->cid == NONE) {
			sl->cid = cid;
			sl->busy = true;
			sl->time = w->now;
			sl->recent = cid;
		}
	}
	r->rt[ti] = (struct rtrec){ .run = true, .cid = cid, .cpu = cpu,
				    .last = cid != NONE ? cid : r->rt[ti].last };
	return cid;
}

static void lz_out(struct machine *w, struct rmm *r, unsigned int ti)
{
	struct rtrec *t = &r->rt[ti];
	struct rslot *sl = &r->slot[t->cpu];

	if (sl->cid == t->cid && sl->busy) {
		sl->busy = false;
		if (sl->lazy_put) {
			sl->lazy_put = false;
			sl->cid = NONE;
			r->owned[t->cid] = false;
		} else {
			sl->time = w->now;
		}
	} else if (t->cid != NONE && sl->cid == NONE) {
		sl->cid = t->cid;
		sl->time = w->now;
		sl->recent = t->cid;
	} else if (t->cid != NONE) {
		r->owned[t->cid] = false;
	}
	t->run = false;
	t->cid = NONE;
}

static void lz_free_slot(struct rmm *r, unsigned int cpu)
{
	r->owned[r->slot[cpu].cid] = false;
	r->slot[cpu].cid = NONE;
}

static unsigned int lz_scan(struct machine *w, struct rmm *r)
{
	unsigned int lo, hi, n = r->ncpu, weight;

	if (r->scan_pos == 0) {
		uint64_t due = r->next_scan;

		if (due && w->now < due)
			return 0;
		r->next_scan = w->now + CIDK_CID_SCAN_PERIOD_NS;
		if (!due)
			return 0; /* the first call only arms */
		lo = 0;
	} else {
		lo = r->scan_pos;
	}
	hi = lo + r->batch < n ? lo + r->batch : n;
	r->scan_pos = hi == n ? 0 : hi;
	for (unsigned int c = lo; c < hi; c++) {
		struct rslot *sl = &r->slot[c];

		if (sl->cid == NONE)
			continue;
		if (sl->busy)
			sl->time = w->now;
		else if (w->now > sl->time &&
			 w->now - sl->time > CIDK_CID_EXPIRY_NS)
			lz_free_slot(r, c);
	}
	weight = m_weight(r);
	for (unsigned int c = lo; c < hi; c++) {
		struct rslot *sl = &r->slot[c];

		if (sl->cid == NONE || sl->cid < weight)
			continue;
		if (sl->busy)
			sl->lazy_put = true;
		else
			lz_free_slot(r, c);
	}
	return hi - lo;
}

static void lz_exit(struct rmm *r, unsigned int ti)
{
	struct rtrec *t = &r->rt[ti];
	struct rslot *sl = &r->slot[t->cpu];

	if (t->last != NONE && sl->cid != NONE && !sl->busy)
		lz_free_slot(r, t->cpu);
}

static void lz_migrate(struct rmm *r, unsigned int ti, unsigned int from,
		       unsigned int to)
{
	struct rtrec *t = &r->rt[ti];
	struct rslot *src = &r->slot[from], *dst = &r->slot[to];
	bool dst_set = dst->cid != NONE ||
		       (r->kind == CIDK_CID_CACHE_LOCAL && dst->recent != NONE);
	unsigned int cid = src->cid;

	t->cpu = to;
	if (from == to || t->last == NONE ||
	    (dst_set && r->users >= cidk_mask_weight(r->uni)) ||
	    cid == NONE || src->busy || cid != t->last)
		return;
	src->cid = NONE;
	src->recent = NONE;
	if (dst_set) {
		r->owned[cid] = false;
		return;
	}
	dst->cid = cid;
	dst->time = src->time;
	dst->recent = cid;
}

/*
 * ---- ownership model ----------------------------------------------------------
 * Rules (lib/cid/ownership.c's header, the kernel's design with the 2026
 * fixes: the current variant), one thread at a time so no transition is
 * ever in flight at a switch:
 *   - max_cids = min(opt + opt/4, nr_cpu_ids), opt = min(allowed, users),
 *     recomputed at every fork, exit and widening (the 25% allowance: a
 *     CID may be >= allowed, never >= nr_cpu_ids);
 *   - per-task mode: a task owns a CID from its fork and keeps it; at
 *     switch-in a CPU still owning a CID from per-CPU mode gives it to a
 *     task that has none, or frees it; a task owning a CID >= max_cids
 *     swaps it for the lowest free one below max_cids, if any, when its
 *     CPU's record is a task CID too;
 *   - per-CPU mode (entered at a fork making users > max_cids): the fork
 *     walks the tasks in creation order, the CID of a running one goes in
 *     transit (the task's and its CPU's record: CID | transit), the
 *     others' are freed; a task then uses its CPU's CID (swapped down
 *     when >= max_cids and the task arrived with a CPU CID), or gives its
 *     own CID to an empty CPU, or frees it when the CPU has one; a CPU
 *     with nothing takes the lowest free (below max_cids, else anywhere);
 *   - back (users < thrs = min(opt - opt/4, nr_cpu_ids/2), opt = min(allowed,
 *     users) at the switch, recomputed when the union widens): the CPUs
 *     are walked, a CPU's CID goes in transit to the task running there or
 *     is freed; a running task's own CID is marked transit;
 *   - either way, a transit CID is kept at switch-out when below max_cids
 *     (by the CPU in per-CPU mode, by the task in per-task mode), else
 *     freed.
 */
#define M_UNSET 0x80000000u
#define M_CPU 0x40000000u
#define M_TRANSIT 0x20000000u

static unsigned int m_cid(unsigned int v)
{
	return v & ~(M_CPU | M_TRANSIT);
}

static bool m_plain(unsigned int v)
{
	return v < M_TRANSIT;
}

static bool m_cpu(unsigned int v)
{
	return v != M_UNSET && (v & M_CPU);
}

static bool m_transit(unsigned int v)
{
	return v != M_UNSET && (v & M_TRANSIT);
}

static unsigned int ow_get(struct rmm *r)
{
	unsigned int c = m_lowest(r, r->max_cids);

	return m_take(r, c != NONE ? c : m_lowest(r, r->ncpu));
}

/* a CID below max_cids for @v (keeping its CPU flag), else @v */
static unsigned int ow_converge(struct rmm *r, unsigned int v)
{
	unsigned int c = m_lowest(r, r->max_cids);

	if (c == NONE)
		return v;
	r->owned[m_cid(v)] = false;
	return m_take(r, c) | (v & M_CPU);
}

static void ow_update(struct rmm *r, bool widened)
{
	unsigned int allowed = cidk_mask_weight(r->uni), users = r->users;
	unsigned int opt = allowed < users ? allowed : users;
	unsigned int thrs = opt - opt / 4;

	if (thrs > r->ncpu / 2)
		thrs = r->ncpu / 2;
	r->max_cids = opt + opt / 4 < r->ncpu ? opt + opt / 4 : r->ncpu;
	if (!r->percpu) {
		if (users <= r->max_cids)
			return;
		r->percpu = true;
		r->thrs = thrs;
		for (unsigned int k = 0; k < r->nlist; k++) {
			int ti = r->list[k];
			struct rtrec *t = &r->rt[ti];

			if (!r->task[ti].alive || !m_plain(t->own))
				continue;
			if (t->run && r->curr[t->cpu] == ti) {
				/* in transit; its switch-out hands it over */
				t->own |= M_TRANSIT;
				r->cpu_cid[t->cpu] = t->own;
			} else {
				r->owned[t->own] = false;
				t->own = M_UNSET;
			}
		}
		return;
	}
	if (widened)
		r->thrs = thrs;
	if (users >= r->thrs)
		return;
	r->percpu = false;
	for (unsigned int c = 0; c < r->ncpu; c++) {
		int cur = r->curr[c];
		unsigned int *v = &r->cpu_cid[c];

		if (m_cpu(*v)) {
			if (cur >= 0) {
				r->rt[cur].own = m_cid(*v) | M_TRANSIT;
				*v = r->rt[cur].own;
			} else {
				r->owned[m_cid(*v)] = false;
				*v = M_UNSET;
			}
		} else if (cur >= 0 && !m_transit(r->rt[cur].own)) {
			r->rt[cur].own |= M_TRANSIT;
			*v = r->rt[cur].own;
		}
	}
}

static unsigned int ow_in(struct rmm *r, unsigned int ti, unsigned int cpu)
{
	struct rtrec *t = &r->rt[ti];
	unsigned int cc = r->cpu_cid[cpu], tc = t->own;

	if (!r->percpu) {
		if (m_plain(tc) && m_plain(cc)) {
			if (tc >= r->max_cids)
				tc = ow_converge(r, tc);
		} else {
			if (m_cpu(cc)) {
				if (m_plain(tc)) {
					r->owned[m_cid(cc)] = false;
					r->cpu_cid[cpu] = M_UNSET;
				} else {
					tc = m_cid(cc);
				}
			}
			if (!m_plain(tc))
				tc = ow_get(r);
		}
		cc = tc;
	} else {
		if (m_cpu(cc) && m_cpu(tc)) {
			if (m_cid(cc) >= r->max_cids)
				cc = ow_converge(r, cc);
		} else {
			if (m_plain(tc)) {
				if (m_cpu(cc))
					r->owned[tc] = false;
				else
					cc = tc | M_CPU;
			}
			if (!m_cpu(cc))
				cc = ow_get(r) | M_CPU;
		}
	}
	r->cpu_cid[cpu] = cc;
	r->curr[cpu] = (int)ti;
	*t = (struct rtrec){ .run = true, .cid = m_cid(cc), .cpu = cpu,
			     .last = m_cid(cc), .own = cc };
	return m_cid(cc);
}

static void ow_out(struct rmm *r, unsigned int ti)
{
	struct rtrec *t = &r->rt[ti];

	r->curr[t->cpu] = -1;
	if (m_transit(t->own)) {
		unsigned int c = m_cid(t->own);

		if (c < r->max_cids) {
			t->own = r->percpu ? c | M_CPU : c;
			r->cpu_cid[t->cpu] = t->own;
		} else {
			r->owned[c] = false;
			t->own = M_UNSET;
		}
	}
	t->run = false;
	t->cid = NONE;
}

static void ow_fork(struct rmm *r, unsigned int ti)
{
	r->rt[ti] = (struct rtrec){ .cid = NONE, .last = NONE, .own = M_UNSET };
	r->list[r->nlist++] = (int)ti;
	ow_update(r, false); /* users and union already counted */
	if (!r->percpu)
		r->rt[ti].own = ow_get(r);
}

static void ow_exit(struct rmm *r, unsigned int ti)
{
	struct rtrec *t = &r->rt[ti];
	unsigned int k = 0;

	if (m_plain(t->own) || m_transit(t->own))
		r->owned[m_cid(t->own)] = false;
	t->own = M_UNSET;
	ow_update(r, false); /* users already counted, task already dead */
	while (r->list[k] != (int)ti)
		k++;
	for (; k + 1 < r->nlist; k++)
		r->list[k] = r->list[k + 1];
	r->nlist--;
}

/*
 * ---- bitmap and inherit model ------------------------------------------------
 * Rules (docs/cid.md, lib/cid/inherit.c's header), on the model's own
 * bitmap and records, with max = min(nr_cpus_allowed, nr_users) from the
 * model's own union and user count:
 *   - bitmap: switch-in takes the lowest free CID below nr_cpus_allowed;
 *     switch-out frees it;
 *   - inherit: switch-in tries the task's last CID, then the CPU's last
 *     CID (when it differs), each if below max and free, then the lowest
 *     free below max; switch-out frees the CID and makes it the CPU's
 *     last; a switch between two tasks of the same mm passes the CID over
 *     (no bitmap change; it becomes the CPU's last and the new task's
 *     last) when it is below max, else it is an ordinary out and in;
 *   - both: with nothing free under the bound, the lowest free CID below
 *     nr_cpu_ids (the public switch's fallback); a task's last CID is its
 *     latest CID, NONE from its fork.
 */
static unsigned int bi_in(struct rmm *r, unsigned int ti, unsigned int cpu)
{
	unsigned int max = ref_max(r), last = r->rt[ti].last;
	unsigned int hint = r->cpu_last[cpu], c;

	if (r->kind == CIDK_CID_BITMAP)
		c = m_lowest(r, cidk_mask_weight(r->uni));
	else if (last < max && !r->owned[last])
		c = last;
	else if (hint != last && hint < max && !r->owned[hint])
		c = hint;
	else
		c = m_lowest(r, max);
	if (c == NONE)
		c = m_lowest(r, r->ncpu);
	m_take(r, c);
	r->rt[ti] = (struct rtrec){ .run = true, .cid = c, .cpu = cpu,
				    .last = c != NONE ? c : last,
				    .own = r->rt[ti].own };
	return c;
}

static void bi_out(struct rmm *r, unsigned int ti)
{
	struct rtrec *t = &r->rt[ti];

	if (t->cid != NONE) {
		r->cpu_last[t->cpu] = t->cid;
		r->owned[t->cid] = false;
	}
	t->run = false;
	t->cid = NONE;
}

/* inherit's same-mm switch: true (and the CID passed) when it applies */
static bool bi_handover(struct rmm *r, unsigned int pt, unsigned int nt,
			unsigned int cpu, unsigned int *cid)
{
	unsigned int c = r->rt[pt].cid;

	if (r->kind != CIDK_CID_INHERIT || c == NONE || c >= ref_max(r))
		return false;
	r->rt[pt].run = false;
	r->rt[pt].cid = NONE;
	r->cpu_last[cpu] = c;
	r->rt[nt] = (struct rtrec){ .run = true, .cid = c, .cpu = cpu,
				    .last = c, .own = r->rt[nt].own };
	*cid = c;
	return true;
}

/* ---- the models behind the events ------------------------------------------ */

static unsigned int model_in(struct machine *w, struct rmm *r, unsigned int ti,
			     unsigned int cpu)
{
	if (is_lazy(r->kind))
		return lz_in(w, r, ti, cpu);
	if (r->kind == CIDK_CID_OWNERSHIP)
		return ow_in(r, ti, cpu);
	return bi_in(r, ti, cpu);
}

static void model_out(struct machine *w, struct rmm *r, unsigned int ti)
{
	if (!r->rt[ti].run)
		return;
	if (is_lazy(r->kind))
		lz_out(w, r, ti);
	else if (r->kind == CIDK_CID_OWNERSHIP)
		ow_out(r, ti);
	else
		bi_out(r, ti);
}

static void model_fork(struct rmm *r, unsigned int ti)
{
	r->rt[ti] = (struct rtrec){ .cid = NONE, .last = NONE, .own = M_UNSET };
	if (r->kind == CIDK_CID_OWNERSHIP)
		ow_fork(r, ti);
}

/* after the code's exit: users counted, the task dead */
static void model_exit(struct machine *w, struct rmm *r, unsigned int ti)
{
	model_out(w, r, ti);
	if (is_lazy(r->kind))
		lz_exit(r, ti);
	else if (r->kind == CIDK_CID_OWNERSHIP)
		ow_exit(r, ti);
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
		/* ownership: the task's record (flags too) is the model's */
		if (r->kind == CIDK_CID_OWNERSHIP && !r->percpu &&
		    r->users > cidk_mask_weight(r->uni))
			w->over_allowed++; /* inside the 25% allowance */
		for (int i = 0; r->kind == CIDK_CID_OWNERSHIP && i < MAXT; i++) {
			if (!r->task[i].alive)
				continue;
			w->records++;
			if (r->task[i].t.own != r->rt[i].own && !w->rdiffs++)
				diag("after %s: mm %d task %d: record %#x, "
				     "reference %#x", what, mi, i,
				     r->task[i].t.own, r->rt[i].own);
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

/*
 * The policies that promise a CID below min(nr_cpus_allowed, nr_users) at
 * every switch-in (one thread at a time: no transient).
 */
static bool strict_bound(const struct cidk_cid_mm *mm)
{
	enum cidk_cid_policy_kind k = cidk_cid_mm_policy(mm);

	return k == CIDK_CID_BITMAP || k == CIDK_CID_INHERIT;
}

static void do_switch(struct machine *w, unsigned int cpu)
{
	int pm = w->cur_mm[cpu], pt = w->cur_t[cpu];
	int nm = -1, nt = -1, cand_m[NMM * MAXT], cand_t[NMM * MAXT], nc = 0;
	struct cidk_cid_mm *pmm = NULL, *nmm = NULL;
	struct cidk_cid_task *prev = NULL, *next = NULL;
	unsigned int expect = CIDK_CID_NONE, got;

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
	}
	if (nm >= 0) {
		nmm = w->m[nm].mm;
		next = &w->m[nm].task[nt].t;
	}
	/* the model decides from its own state only, before the code runs */
	if (!(pm >= 0 && pm == nm &&
	      bi_handover(&w->m[pm], (unsigned int)pt, (unsigned int)nt, cpu,
			  &expect))) {
		if (pm >= 0)
			model_out(w, &w->m[pm], (unsigned int)pt);
		if (nm >= 0)
			expect = model_in(w, &w->m[nm], (unsigned int)nt, cpu);
	}
	got = cidk_cid_switch(cpu, pmm, prev, nmm, next, w->now);
	if (nm >= 0 && strict_bound(nmm) && got >= ref_max(&w->m[nm]) &&
	    !w->bound_fails++)
		diag("%s: cpu %u task %d got CID %u >= min(allowed, users) %u",
		     cidk_cid_policy_name(cidk_cid_mm_policy(nmm)), cpu, nt, got,
		     ref_max(&w->m[nm]));
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
	/* the injection needs two running tasks: not having them is a failure */
	if (!ok(nrun >= 2, "%s: two tasks running to inject a double-held CID into",
		cidk_cid_policy_name(cidk_cid_mm_policy(r->mm))))
		return;
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

/* @span: the tasks' masks stay within CPUs [0, span), span <= ncpu */
static void run(enum cidk_cid_policy_kind kind, unsigned int ncpu,
		unsigned int span, enum cidk_cid_scan_trigger trig,
		uint64_t seed)
{
	struct machine w;
	struct cidk_cid_params p;
	struct cidk_cid_stats st;

	memset(&w, 0, sizeof(w));
	w.ncpu = ncpu;
	w.span = span;
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
		r->kind = kind;
		r->ncpu = ncpu;
		r->batch = kind == CIDK_CID_LAZY_BATCHED ? p.batch : ncpu;
		for (unsigned int c = 0; c < ncpu; c++) {
			r->slot[c] = (struct rslot){ .cid = NONE, .recent = NONE };
			r->cpu_cid[c] = M_UNSET;
			r->curr[c] = -1;
		}
		cidk_cid_fork(r->mm, &r->task[0].t, r->task[0].allowed);
		r->task[0].alive = true;
		r->users = 1;
		model_fork(r, 0);
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
			model_fork(r, ti);
			what = "fork";
		} else if (ev < 36) {
			if (!t->alive || r->users == 1)
				continue;
			if (t->t.running)
				w.cur_mm[t->t.cpu] = w.cur_t[t->t.cpu] = -1;
			cidk_cid_exit(r->mm, &t->t, w.now);
			t->alive = false;
			r->users--;
			model_exit(&w, r, ti);
			what = "exit";
		} else if (ev < 39) {
			if (!t->alive || t->t.running)
				continue;
			unsigned int before = cidk_mask_weight(r->uni);

			random_mask(&w, t->allowed);
			cidk_cid_set_affinity(r->mm, &t->t, t->allowed);
			cidk_mask_or(r->uni, r->uni, t->allowed);
			if (r->kind == CIDK_CID_OWNERSHIP &&
			    cidk_mask_weight(r->uni) != before)
				ow_update(r, true);
			what = "set_affinity";
		} else if (ev < 45) {
			if (!t->alive || t->t.running ||
			    !cidk_mask_test(t->allowed, cpu))
				continue;
			if (is_lazy(r->kind))
				lz_migrate(r, ti, r->rt[ti].cpu, cpu);
			else
				r->rt[ti].cpu = cpu;
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
			bool tick = ev < 92;
			unsigned int got, expect = 0;

			ct = &w.m[cm].task[w.cur_t[cpu]].t;
			if (is_lazy(w.m[cm].kind) &&
			    (trig == CIDK_CID_SCAN_TICK) == tick)
				expect = lz_scan(&w, &w.m[cm]);
			if (tick)
				got = cidk_cid_tick(w.m[cm].mm, ct, cpu, w.now);
			else
				got = cidk_cid_return_to_user(w.m[cm].mm, ct, cpu,
							      w.now);
			if (got != expect && !w.diffs++)
				diag("%s: scan on cpu %u at %llu visited %u, reference %u",
				     cidk_cid_policy_name(kind), cpu,
				     (unsigned long long)w.now, got, expect);
			w.scans += expect != 0;
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
	ok(w.diffs == 0 && w.compared > EVENTS / 20,
	   "%s: all %u CIDs equal the reference model's (and %u scans' visits)",
	   cidk_cid_policy_name(kind), w.compared, w.scans);
	if (kind == CIDK_CID_BITMAP || kind == CIDK_CID_INHERIT)
		ok(w.bound_fails == 0,
		   "%s: every CID handed out is below min(nr_cpus_allowed, nr_users)",
		   cidk_cid_policy_name(kind));
	if (kind == CIDK_CID_OWNERSHIP)
		ok(w.rdiffs == 0 && w.records > EVENTS,
		   "%s: all %u task records (CID, ONCPU and TRANSIT flags) equal "
		   "the reference model's", cidk_cid_policy_name(kind), w.records);
	if (kind == CIDK_CID_OWNERSHIP && span < ncpu)
		ok(w.over_allowed > 0,
		   "%s: masks within CPUs 0-%u of %u: %u checks in per-task mode "
		   "with more users than allowed CPUs (the 25%% allowance)",
		   cidk_cid_policy_name(kind), span - 1, ncpu, w.over_allowed);
	if (kind == CIDK_CID_OWNERSHIP && span <= 8) /* more users than CPUs */
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
	/* the mm's one total equals the per-CPU counters' sum (one thread) */
	ok(cidk_cid_releases(w.m[0].mm) ==
		   st.compaction_releases + st.deferred_releases,
	   "%s: cidk_cid_releases() %llu == compaction %llu + deferred %llu",
	   cidk_cid_policy_name(kind),
	   (unsigned long long)cidk_cid_releases(w.m[0].mm),
	   (unsigned long long)st.compaction_releases,
	   (unsigned long long)st.deferred_releases);
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
		run(k, 8, 8, CIDK_CID_SCAN_RETURN_TO_USER, 1 + k);
		run(k, 70, 70, CIDK_CID_SCAN_TICK, 100 + k);
	}
	/* fewer allowed CPUs than possible: the 25% allowance matters */
	run(CIDK_CID_OWNERSHIP, 12, 6, CIDK_CID_SCAN_RETURN_TO_USER, 300);
	return done_testing();
}
