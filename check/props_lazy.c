/* SPDX-License-Identifier: MIT */
/*
 * check/props_lazy.c - the lazy family's locality promises (props_lazy.h).
 * Each property takes the state an event of a task began with (the slots'
 * words, recent CIDs and times, the bitmap, the scan's schedule) and, when
 * the event ran alone (no other event under way as it began, no other
 * task stepping during it), works out on its own what the design says the
 * event leaves, then compares.  The rules are the kernel's (sources in
 * docs/check.md), never read from lib/cid's variables; the per-task facts
 * (the CID a task last ran with, the CPU it last ran on) are the
 * property's own record of the scenario's events.
 *
 *   lazy-switch   a switch-in on an idle slot marks it BUSY; one on an
 *                 empty slot parks the new CID there (BUSY; cache-local:
 *                 its recent CID); a switch-out leaves its CID idle with
 *                 the CPU, stamped with the time of the switch (with
 *                 LAZY_PUT: gives it back), parks a CID of its own in an
 *                 empty slot (recent CID too), else gives it back;
 *   lazy-migrate  a sleeping task's migration moves its CID, idle in the
 *                 source slot, to an empty destination (with the time of
 *                 last use; the source forgets it as its recent CID, the
 *                 destination takes it), or gives it back when the
 *                 destination has one (cache-local: or a recent one);
 *                 nothing moves when the destination has one and users >=
 *                 allowed CPUs, or the source slot holds anything else;
 *   lazy-exit     an exit (after its switch-out) gives its CPU's idle CID
 *                 back (lazy put), nothing else;
 *   lazy-scan     a tick or return to user (whichever triggers the scan)
 *                 scans only when due (period), visits the slots it says,
 *                 frees only idle CIDs older than the expiry, then idle
 *                 CIDs at or above the weight, marks busy ones LAZY_PUT,
 *                 and returns the number of CPUs visited.
 *   cl-count      (cache-local, after every step of any task, races
 *                 included) the count of never-used CIDs handed out, the
 *                 kernel's max_nr_cid, rises one at a time: only a claim
 *                 of the next never-used CID raises it (by one); the
 *                 shrink lowers it.
 * Times are compared only on idle slots (a busy slot's time is never read:
 * the switch-out stamps it before it turns idle), recent CIDs only under
 * cache-local (lazy keeps them as a hint nothing reads).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "cid/cid_internal.h"
#include "memory.h"
#include "props_lazy.h"

static unsigned int ld(const _Atomic unsigned int *p)
{
	return atomic_load_explicit(p, memory_order_relaxed);
}

static uint64_t ld64(const _Atomic uint64_t *p)
{
	return atomic_load_explicit(p, memory_order_relaxed);
}

static unsigned long bitmap(const struct cidk_cid_mm *mm)
{
	return __atomic_load_n(&mm->cidmask->bits[0], __ATOMIC_RELAXED);
}

static unsigned long bit(unsigned int cid)
{
	return cid < 64 ? 1ul << cid : 0;
}

void props_lazy_reset(struct props_lazy *pl, const struct props_view *v,
		      const struct cidk_cid_mm *mm)
{
	memset(pl, 0, sizeof(*pl));
	pl->used = ld(&mm->nr_cids_used);
	pl->off = mm->nr_cpu_ids > PL_CPUS;
	for (unsigned int i = 0; i < v->s->ntasks; i++) {
		pl->last_cid[i] = CIDK_CID_NONE;
		pl->cpu[i] = CIDK_CID_NONE;
		for (unsigned int k = 0; k < v->s->task[i].nev; k++)
			if (v->s->task[i].ev[k].lease)
				pl->off = true;
	}
}

void props_lazy_begin(struct props_lazy *pl, const struct props_view *v,
		      const struct cidk_cid_mm *mm, unsigned int tid,
		      const struct scn_event *e, bool alone)
{
	struct pl_begin *b = &pl->b[tid];

	(void)e;
	/* the design's rules are sequentially consistent ones: under a weak
	 * model a load may read an older store, so nothing is checked */
	if (pl->off || chk_mem_model() != CHK_MEM_SC)
		return;
	for (unsigned int c = 0; c < mm->nr_cpu_ids; c++) {
		b->slot[c].word = ld(&mm->slots[c].word);
		b->slot[c].recent = ld(&mm->slots[c].recent);
		b->slot[c].time = ld64(&mm->slots[c].time);
	}
	b->bm = bitmap(mm);
	b->next_scan = ld64(&mm->next_scan);
	b->now = *v->now;
	b->scan_pos = ld(&mm->scan_pos);
	b->users = ld(&mm->nr_users);
	b->allowed = ld(&mm->nr_cpus_allowed);
	b->running = v->in_user[tid];
	b->cid = v->in_user[tid] ? v->user_cid[tid] : CIDK_CID_NONE;
	b->alone = alone;
	b->valid = true;
}

/* What the event leaves, by the design's rules, from the state it began with. */
struct pl_want {
	struct pl_slot slot[PL_CPUS];
	unsigned long bm;
	uint64_t next_scan;
	unsigned int scan_pos, ret;
	bool scan; /* next_scan, scan_pos and ret are compared */
};

static bool idle(unsigned int s)
{
	return s != SLOT_UNSET && !(s & SLOT_BUSY);
}

/* lazy_switch_out's rules for CID @cid on CPU @p at @now. */
static void want_out(struct pl_want *w, unsigned int p, unsigned int cid,
		     uint64_t now)
{
	struct pl_slot *sl = &w->slot[p];

	if ((sl->word & SLOT_CID_MASK) == cid && (sl->word & SLOT_BUSY)) {
		if (sl->word & SLOT_LAZY_PUT) { /* mm_cid_put_lazy() */
			sl->word = SLOT_UNSET;
			w->bm &= ~bit(cid);
		} else { /* kept with the CPU, stamped (mm_cid_snapshot_time) */
			sl->word = cid;
			sl->time = now;
		}
	} else if (sl->word == SLOT_UNSET) {
		sl->word = cid;
		sl->time = now;
		sl->recent = cid;
	} else {
		w->bm &= ~bit(cid);
	}
}

/* the scan (task_mm_cid_work()) by the design */
static void want_scan(struct pl_want *w, const struct cidk_cid_mm *mm,
		      const struct pl_begin *b)
{
	unsigned int n = mm->nr_cpu_ids, batch = mm->p.batch, lo, hi, weight;
	uint64_t now = b->now;

	w->scan = true;
	w->next_scan = b->next_scan;
	w->scan_pos = b->scan_pos;
	w->ret = 0;
	if (b->scan_pos == 0) {
		if (b->next_scan && now < b->next_scan)
			return; /* not due: at most once per period */
		w->next_scan = now + mm->p.scan_period_ns;
		if (!b->next_scan)
			return; /* the first call arms it */
		lo = 0;
		hi = batch < n ? batch : n;
	} else { /* lazy-batched: the pass goes on, no period check */
		lo = b->scan_pos;
		hi = n - lo > batch ? lo + batch : n;
	}
	w->scan_pos = hi == n ? 0 : hi;
	w->ret = hi - lo;
	/* sched_mm_cid_remote_clear_old(): idle longer than the expiry */
	for (unsigned int c = lo; c < hi; c++) {
		struct pl_slot *sl = &w->slot[c];

		if (idle(sl->word) && now > sl->time &&
		    now - sl->time > mm->p.expiry_ns) {
			w->bm &= ~bit(sl->word);
			sl->word = SLOT_UNSET;
		}
	}
	/* sched_mm_cid_remote_clear_weight(): at or above the weight */
	weight = (unsigned int)__builtin_popcountl(w->bm);
	for (unsigned int c = lo; c < hi; c++) {
		struct pl_slot *sl = &w->slot[c];
		unsigned int s = sl->word;

		if (s == SLOT_UNSET || (s & SLOT_LAZY_PUT) ||
		    (s & SLOT_CID_MASK) < weight)
			continue;
		if (s & SLOT_BUSY) {
			sl->word = s | SLOT_LAZY_PUT;
		} else {
			w->bm &= ~bit(s);
			sl->word = SLOT_UNSET;
		}
	}
}

static const char *ev_name(const struct scn_event *e)
{
	static const char *const names[] = {
		[SCN_IN] = "switch-in", [SCN_OUT] = "switch-out",
		[SCN_FORK] = "fork", [SCN_EXIT] = "exit",
		[SCN_MIGRATE] = "migration", [SCN_AFFINITY] = "affinity change",
		[SCN_TICK] = "tick", [SCN_RTU] = "return to user",
	};

	return names[e->kind];
}

static void slot_str(char *buf, size_t len, unsigned int s)
{
	if (s == SLOT_UNSET)
		snprintf(buf, len, "empty");
	else
		snprintf(buf, len, "CID %u%s%s", s & SLOT_CID_MASK,
			 (s & SLOT_BUSY) ? " BUSY" : " idle",
			 (s & SLOT_LAZY_PUT) ? "+LAZY_PUT" : "");
}

/* 0 when the mm is what @w says; else -1 and why, named @prop. */
static int compare(const struct cidk_cid_mm *mm, const struct props_view *v,
		   unsigned int tid, const struct scn_event *e,
		   const struct pl_want *w, const char *prop, char *why,
		   size_t len)
{
	const char *name = v->s->task[tid].name, *ev = ev_name(e);
	bool cl = mm->p.kind == CIDK_CID_CACHE_LOCAL;
	char a[48], b[48];

	for (unsigned int c = 0; c < mm->nr_cpu_ids; c++) {
		const struct cidk__cid_slot *sl = &mm->slots[c];
		unsigned int s = ld(&sl->word), r = ld(&sl->recent);
		uint64_t t = ld64(&sl->time);

		if (s != w->slot[c].word) {
			slot_str(a, sizeof(a), s);
			slot_str(b, sizeof(b), w->slot[c].word);
			snprintf(why, len, "%s: after %s's %s (alone), CPU %u's "
				 "slot is %s where the design leaves it %s",
				 prop, name, ev, c, a, b);
			return -1;
		}
		if (idle(s) && t != w->slot[c].time) {
			snprintf(why, len, "%s: after %s's %s (alone), CPU %u's "
				 "idle CID %u was last used at %llu ms by its "
				 "slot's time, where the design says %llu ms",
				 prop, name, ev, c, s,
				 (unsigned long long)(t / 1000000),
				 (unsigned long long)(w->slot[c].time / 1000000));
			return -1;
		}
		if (cl && r != w->slot[c].recent) {
			snprintf(why, len, "%s: after %s's %s (alone), CPU %u's "
				 "recent CID is %d where the design says %d",
				 prop, name, ev, c, (int)r, (int)w->slot[c].recent);
			return -1;
		}
	}
	if (bitmap(mm) != w->bm) {
		snprintf(why, len, "%s: after %s's %s (alone), the CIDs in use "
			 "are %#lx where the design says %#lx", prop, name, ev,
			 bitmap(mm), w->bm);
		return -1;
	}
	if (!w->scan)
		return 0;
	if (ld64(&mm->next_scan) != w->next_scan ||
	    ld(&mm->scan_pos) != w->scan_pos || v->scan_ret[tid] != w->ret) {
		snprintf(why, len, "%s: %s's %s at %llu ms visited %u CPUs (next "
			 "pass at %llu ms, from CPU %u) where the design "
			 "visits %u (next pass at %llu ms, from CPU %u)", prop,
			 name, ev, (unsigned long long)(v->now[0] / 1000000),
			 v->scan_ret[tid],
			 (unsigned long long)(ld64(&mm->next_scan) / 1000000),
			 ld(&mm->scan_pos), w->ret,
			 (unsigned long long)(w->next_scan / 1000000),
			 w->scan_pos);
		return -1;
	}
	return 0;
}

static bool scan_trigger(const struct cidk_cid_mm *mm, const struct scn_event *e)
{
	return (e->kind == SCN_TICK && mm->p.trigger == CIDK_CID_SCAN_TICK) ||
	       (e->kind == SCN_RTU &&
		mm->p.trigger == CIDK_CID_SCAN_RETURN_TO_USER);
}

int props_lazy_end(struct props_lazy *pl, const struct props_view *v,
		   const struct cidk_cid_mm *mm, unsigned int tid,
		   const struct scn_event *e, bool alone, char *why,
		   size_t len)
{
	struct pl_begin *b = &pl->b[tid];
	unsigned int cid = v->user_cid[tid], p = pl->cpu[tid];
	unsigned int last = pl->last_cid[tid];
	struct pl_want w;
	const char *prop = NULL;
	int rc = 0;

	if (pl->off || !b->valid)
		return 0;
	/* the property's own record of where the task is and what it had */
	if (e->kind == SCN_IN) {
		pl->cpu[tid] = e->arg;
		if (cid != CIDK_CID_NONE)
			pl->last_cid[tid] = cid;
	} else if (e->kind == SCN_MIGRATE && !b->running) {
		pl->cpu[tid] = e->arg;
	}
	if (!alone || !b->alone)
		goto out;
	memcpy(w.slot, b->slot, sizeof(w.slot));
	w.bm = b->bm;
	w.scan = false;
	switch (e->kind) {
	case SCN_IN: {
		unsigned int s;

		if (cid == CIDK_CID_NONE || e->arg >= mm->nr_cpu_ids)
			goto out;
		s = b->slot[e->arg].word;
		if (idle(s) && cid == s) {
			w.slot[e->arg].word = s | SLOT_BUSY;
		} else if (s == SLOT_UNSET && !(b->bm & bit(cid)) &&
			   cid < b->allowed) {
			w.slot[e->arg].word = cid | SLOT_BUSY;
			w.slot[e->arg].recent = cid;
			w.bm |= bit(cid);
		} else {
			goto out; /* lazy-take's, or a wait and a steal */
		}
		prop = "lazy-switch";
		break;
	}
	case SCN_OUT:
		if (b->cid == CIDK_CID_NONE || p >= mm->nr_cpu_ids)
			goto out;
		want_out(&w, p, b->cid, b->now);
		prop = "lazy-switch";
		break;
	case SCN_EXIT:
		if (p >= mm->nr_cpu_ids)
			goto out;
		if (b->running && b->cid != CIDK_CID_NONE)
			want_out(&w, p, b->cid, b->now);
		if (last != CIDK_CID_NONE && idle(w.slot[p].word)) {
			w.bm &= ~bit(w.slot[p].word);
			w.slot[p].word = SLOT_UNSET;
		}
		prop = "lazy-exit";
		break;
	case SCN_MIGRATE: {
		unsigned int to = e->arg;
		bool dst_set;

		prop = "lazy-migrate";
		if (b->running || last == CIDK_CID_NONE || p == to ||
		    p >= mm->nr_cpu_ids || to >= mm->nr_cpu_ids)
			break; /* nothing moves */
		dst_set = b->slot[to].word != SLOT_UNSET ||
			  (mm->p.kind == CIDK_CID_CACHE_LOCAL &&
			   b->slot[to].recent != CIDK_CID_NONE);
		if (dst_set && b->users >= b->allowed)
			break; /* user space may expect CIDs up to allowed */
		if (b->slot[p].word != last)
			break; /* not its CID idle there */
		w.slot[p].word = SLOT_UNSET;
		w.slot[p].recent = CIDK_CID_NONE;
		if (!dst_set) {
			w.slot[to].word = last;
			w.slot[to].time = b->slot[p].time;
			w.slot[to].recent = last;
		} else {
			w.bm &= ~bit(last);
		}
		break;
	}
	case SCN_TICK:
	case SCN_RTU:
		prop = "lazy-scan";
		if (scan_trigger(mm, e))
			want_scan(&w, mm, b);
		break;
	default:
		goto out;
	}
	rc = compare(mm, v, tid, e, &w, prop, why, len);
out:
	memset(b, 0, sizeof(*b)); /* no stale bytes in the state cache */
	return rc;
}

/*
 * cl-count: cache-local's nr_cids_used is the kernel's mm->max_nr_cid
 * ("sched: Improve cache locality of RSEQ concurrency IDs for
 * intermittent workloads", M. Desnoyers, Dec 2024, 6.15), documented in
 * include/linux/mm_types.h as "Maximum number of concurrency IDs
 * allocated. Track the highest number of concurrency IDs allocated for
 * the mm."  __mm_cid_try_get() (kernel/sched/sched.h) moves it two ways
 * only, each a compare-and-swap against the value it read: up by one,
 * atomic_try_cmpxchg(&mm->max_nr_cid, &cid, cid + 1), for each
 * never-used CID it claims (then tries that CID's bit); down to
 * min(nr_cpus_allowed, mm_users) when users or allowed CPUs shrank (so
 * that expansion starts again from the new bound: lib/cid/cache_local.c's
 * header).  So, whatever the interleaving, a step never raises it by
 * more than one: a rise of two or more counts CIDs that no switch-in
 * claimed (a store computed from a value that a concurrent shrink or
 * claim has replaced).  Checked after every step of every task, under
 * every memory model: every write of the count is a read-modify-write,
 * which reads the newest value.  Leases too (their switch-in takes as a
 * switch-in does).
 */
int props_lazy_step(struct props_lazy *pl, const struct cidk_cid_mm *mm,
		    char *why, size_t len)
{
	unsigned int n;

	if (mm->p.kind != CIDK_CID_CACHE_LOCAL)
		return 0;
	n = ld(&mm->nr_cids_used);
	if (n > pl->used && n - pl->used > 1) {
		snprintf(why, len, "cl-count: the count of never-used CIDs "
			 "handed out rose from %u to %u in one step, where a "
			 "claim raises it by one", pl->used, n);
		pl->used = n;
		return -1;
	}
	pl->used = n;
	return 0;
}
