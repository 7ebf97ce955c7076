/* SPDX-License-Identifier: MIT */
/*
 * check/memory.c - the memory models of memory.h: per word, its stores in
 * coherence order (mo); per thread, what it has seen.
 *
 * rc11.  A *view* maps each word to a position in its mo.  A thread has
 * three: cur (the newest store of each word it has seen: it reads and
 * writes nothing older), acq (what its relaxed loads' stores carried, for
 * its next acquire or seq_cst fence) and rel (cur at its last release or
 * seq_cst fence, carried by its later relaxed stores).  A store carries
 * its thread's cur (release, seq_cst) or rel (relaxed) plus itself.  An
 * acquire load joins the store's view into cur; a seq_cst fence joins
 * acq and the global view S into cur and sets S and rel to cur
 * (Kang et al., "A promising semantics for relaxed-memory concurrency",
 * POPL 2017, without promises: no load reads a store not yet made, so
 * load buffering (LB) is forbidden, as RC11 forbids po u rf cycles).
 * How lib/cid's steps map (cid_atomic.h): relaxed load/store as such;
 * cidk__ldp an acquire load, cidk__st_rel/cidk__stp release stores;
 * cidk__st_mb (seq_cst) a release store then a seq_cst fence (the
 * kernel's smp_store_mb()); RMW and CAS (seq_cst) a seq_cst fence, the
 * access on the newest store (acquire and release), a seq_cst fence;
 * LOCK an acquire RMW, UNLOCK a release store, both at the newest.
 *
 * tso.  Stores are appended to mo when issued and reach memory (flushed)
 * later, in each thread's issue order and in mo order per word: the
 * memory of a word is a prefix of its mo.  A load reads its own thread's
 * newest unflushed store to the word, or else any store from the
 * memory's on, flushing what it reads (and so everything before it in its
 * writer's buffer and in the word's mo).  Fences, seq_cst stores, RMWs,
 * CAS and LOCK drain their thread's buffer; RMW, CAS and LOCK flush their
 * word.  mo follows issue order (not flush order) across threads: a
 * narrowing of TSO (docs/check.md says what it leaves out).
 *
 * Limits: MEM_LOCS words and MEM_MSGS stores of a word per execution;
 * past them the execution goes on sequentially consistent (ways 1) and
 * chk_mem_options() never offers a weak choice again in it.
 */
#include <stdio.h>
#include <string.h>

#include "chk.h"
#include "memory.h"

#define MEM_LOCS 48
#define MEM_MSGS 160
#define NOBODY 0xffu

struct msg {
	uint64_t val;
	uint32_t seq;		/* issue order (tso) */
	uint8_t tid;		/* writer, or NOBODY (initial, model) */
	bool rmw;		/* stays right after the store it read */
	uint16_t view[MEM_LOCS];/* rc11 */
};

struct loc {
	const void *addr;
	unsigned int width;
	unsigned int n;		/* stores in mo */
	unsigned int flushed;	/* tso: mo positions <= this are in memory */
	struct msg m[MEM_MSGS];
};

struct tview {
	uint16_t cur[MEM_LOCS], acq[MEM_LOCS], rel[MEM_LOCS];
};

static struct {
	unsigned int model, nthreads;
	bool overflow;
	uint32_t seq;
	unsigned int nlocs;
	struct loc l[MEM_LOCS];
	struct tview t[CHK_MAX_THREADS];
	uint16_t S[MEM_LOCS];
	/* the step in progress */
	unsigned int tid, li, kind, mo, ways;
	int op;
	bool active;		/* the step touches a word */
	unsigned int pick;	/* load: mo position read; store: placed after */
	bool restore;		/* memory to be set back to the newest at end */
	bool fence_after;	/* rc11: a seq_cst fence once the step ran */
	/* the last step: a load whose value is not its word's newest */
	const void *stale_addr;
} M;

static const char *const names[CHK_MEM_NR] = { "sc", "tso", "rc11" };

const char *chk_memory_name(unsigned int model)
{
	return model < CHK_MEM_NR ? names[model] : "?";
}

int chk_memory_parse(const char *s, unsigned int *model)
{
	for (unsigned int i = 0; i < CHK_MEM_NR; i++)
		if (!strcmp(s, names[i])) {
			*model = i;
			return 0;
		}
	return -1;
}

const char *chk_memory_verdict(const struct chk_opts *o)
{
	static char buf[64];

	if (!o->memory)
		return "";
	snprintf(buf, sizeof(buf), ", memory %s, weak-choice bound %u",
		 chk_memory_name(o->memory), o->weak_bound);
	return buf;
}

const char *chk_memory_scope(const struct chk_opts *o)
{
	static char buf[64];

	if (!o->memory)
		return "sequential consistency";
	snprintf(buf, sizeof(buf), "memory %s, <= %u weak choice(s)",
		 chk_memory_name(o->memory), o->weak_bound);
	return buf;
}

const char *chk_memory_replay(const struct chk_opts *o)
{
	static char buf[32];

	if (o->plain_points) /* sc only (main.c): the other option it needs */
		return "--plain-points ";
	if (!o->memory)
		return "";
	snprintf(buf, sizeof(buf), "--memory %s ", chk_memory_name(o->memory));
	return buf;
}

unsigned int chk_mem_model(void)
{
	return M.model;
}

void chk_mem_reset(unsigned int model, unsigned int nthreads)
{
	M.model = model;
	M.nthreads = nthreads;
	M.overflow = false;
	M.seq = 0;
	M.nlocs = 0;
	M.active = false;
	if (model == CHK_MEM_SC)
		return;
	memset(M.t, 0, sizeof(M.t));
	memset(M.S, 0, sizeof(M.S));
}

/* ---- words ----------------------------------------------------------------- */

static uint64_t mem_read(const struct loc *l)
{
	uint64_t v = 0;

	if (l->width == 8) {
		memcpy(&v, l->addr, 8);
	} else if (l->width == 4) {
		uint32_t w;

		memcpy(&w, l->addr, 4);
		v = w;
	} else {
		uint8_t b;

		memcpy(&b, l->addr, 1);
		v = b;
	}
	return v;
}

static void mem_write(const struct loc *l, uint64_t v)
{
	if (l->width == 8) {
		memcpy((void *)l->addr, &v, 8);
	} else if (l->width == 4) {
		uint32_t w = (uint32_t)v;

		memcpy((void *)l->addr, &w, 4);
	} else {
		uint8_t b = (uint8_t)v;

		memcpy((void *)l->addr, &b, 1);
	}
}

static struct msg *newest(struct loc *l)
{
	return &l->m[l->n - 1];
}

/*
 * Append a store nobody ordered (the initial value, or one the model
 * wrote outside lib/cid's steps): every thread has seen it.
 */
static void append_seen(unsigned int li, uint64_t v)
{
	struct loc *l = &M.l[li];
	struct msg *m;

	if (l->n == MEM_MSGS) {
		M.overflow = true;
		return;
	}
	m = &l->m[l->n++];
	memset(m, 0, sizeof(*m));
	m->val = v;
	m->tid = NOBODY;
	m->seq = M.seq++;
	m->view[li] = (uint16_t)(l->n - 1);
	l->flushed = l->n - 1;
	for (unsigned int t = 0; t < M.nthreads; t++) {
		M.t[t].cur[li] = (uint16_t)(l->n - 1);
		M.t[t].rel[li] = (uint16_t)(l->n - 1);
	}
	M.S[li] = (uint16_t)(l->n - 1);
}

/* The word at @addr (width @w): its index, or -1 (too many words). */
static int loc_of(const void *addr, unsigned int w)
{
	unsigned int i;

	for (i = 0; i < M.nlocs; i++)
		if (M.l[i].addr == addr)
			break;
	if (i == M.nlocs) {
		if (M.nlocs == MEM_LOCS)
			return -1;
		M.nlocs++;
		M.l[i].addr = addr;
		M.l[i].width = w;
		M.l[i].n = 0;
		append_seen(i, mem_read(&M.l[i]));
		return (int)i;
	}
	/* a write the model made outside the steps: new, seen by all */
	if (mem_read(&M.l[i]) != newest(&M.l[i])->val)
		append_seen(i, mem_read(&M.l[i]));
	return (int)i;
}

static void join(uint16_t *a, const uint16_t *b)
{
	for (unsigned int i = 0; i < M.nlocs; i++)
		if (b[i] > a[i])
			a[i] = b[i];
}

/* ---- rc11 -------------------------------------------------------------------- */

static void fence_sc(unsigned int tid)
{
	struct tview *t = &M.t[tid];

	join(t->cur, t->acq);
	join(t->cur, M.S);
	memcpy(M.S, t->cur, sizeof(M.S));
	memcpy(t->rel, t->cur, sizeof(t->rel));
}

/* May a store be placed right after mo position @p of @l? */
static bool slot_ok(const struct loc *l, unsigned int p)
{
	return p + 1 >= l->n || !l->m[p + 1].rmw;
}

/* The @k-th place (0: after the newest) a store of @tid may take in @l. */
static unsigned int rc11_slot(const struct loc *l, unsigned int li,
			      unsigned int tid, unsigned int k, unsigned int *ways)
{
	unsigned int n = 0, at = l->n - 1;

	for (unsigned int p = l->n; p-- > M.t[tid].cur[li];) {
		if (!slot_ok(l, p))
			continue;
		if (n == k)
			at = p;
		n++;
	}
	if (ways)
		*ways = n ? n : 1;
	return at;
}

/* Insert a store of value @v after mo position @p of word @li. */
static void rc11_insert(unsigned int li, unsigned int p, uint64_t v,
			bool rmw)
{
	struct loc *l = &M.l[li];
	struct tview *t = &M.t[M.tid];
	unsigned int at = p + 1;
	struct msg *m;

	if (l->n == MEM_MSGS) {
		M.overflow = true;
		return;
	}
	/* every view past @p moves up one */
	for (unsigned int i = 0; i < M.nlocs; i++)
		for (unsigned int j = 0; j < M.l[i].n; j++)
			if (M.l[i].m[j].view[li] > p)
				M.l[i].m[j].view[li]++;
	for (unsigned int i = 0; i < M.nthreads; i++) {
		struct tview *o = &M.t[i];

		o->cur[li] += o->cur[li] > p;
		o->acq[li] += o->acq[li] > p;
		o->rel[li] += o->rel[li] > p;
	}
	M.S[li] += M.S[li] > p;
	memmove(&l->m[at + 1], &l->m[at], (l->n - at) * sizeof(l->m[0]));
	l->n++;
	m = &l->m[at];
	memset(m, 0, sizeof(*m));
	m->val = v;
	m->tid = (uint8_t)M.tid;
	m->seq = M.seq++;
	m->rmw = rmw;
	t->cur[li] = (uint16_t)at;
	if (M.mo == CIDK__MO_RLX)
		memcpy(m->view, t->rel, sizeof(m->view));
	else
		memcpy(m->view, t->cur, sizeof(m->view));
	m->view[li] = (uint16_t)at;
}

/* ---- tso --------------------------------------------------------------------- */

static void flush_to(unsigned int li, unsigned int p);

/* Flush every store of @tid issued before @seq (its buffer's front). */
static void flush_before(unsigned int tid, uint32_t seq)
{
	for (;;) {
		unsigned int bi = 0, bp = 0;
		uint32_t best = UINT32_MAX;

		for (unsigned int i = 0; i < M.nlocs; i++) {
			const struct loc *l = &M.l[i];

			for (unsigned int j = l->flushed + 1; j < l->n; j++)
				if (l->m[j].tid == tid && l->m[j].seq < seq &&
				    l->m[j].seq < best) {
					best = l->m[j].seq;
					bi = i;
					bp = j;
				}
		}
		if (best == UINT32_MAX)
			return;
		flush_to(bi, bp);
	}
}

/* Memory of word @li up to mo position @p, and what that needs first. */
static void flush_to(unsigned int li, unsigned int p)
{
	struct loc *l = &M.l[li];

	while (l->flushed < p) {
		const struct msg *m = &l->m[l->flushed + 1];

		if (m->tid != NOBODY)
			flush_before(m->tid, m->seq);
		l->flushed++;
	}
}

static void drain(unsigned int tid)
{
	flush_before(tid, UINT32_MAX);
}

/* @tid's newest unflushed store to @l, or -1. */
static int own_buffered(const struct loc *l, unsigned int tid)
{
	for (unsigned int j = l->n; j-- > l->flushed + 1;)
		if (l->m[j].tid == tid)
			return (int)j;
	return -1;
}

static void tso_append(unsigned int li, uint64_t v, bool flushed)
{
	struct loc *l = &M.l[li];
	struct msg *m;

	if (l->n == MEM_MSGS) {
		M.overflow = true;
		return;
	}
	m = &l->m[l->n++];
	memset(m, 0, sizeof(*m));
	m->val = v;
	m->tid = (uint8_t)M.tid;
	m->seq = M.seq++;
	if (flushed)
		flush_to(li, l->n - 1);
}

/*
 * A pause of a retry loop (CIDK__OP_SPIN): the thread waits for another's
 * progress, and stores reach every thread in finite time (C11
 * [atomics.order]: "should be visible ... within a reasonable amount of
 * time"), so after the pause it sees every word's newest store: tso
 * drains every buffer, rc11 moves the thread's view to the newest.
 * Without it a loop that reads an older store again and again would be
 * reported as a live lock that no machine has.
 */
static void catch_up(unsigned int tid)
{
	if (M.model == CHK_MEM_TSO) {
		for (unsigned int t = 0; t < M.nthreads; t++)
			drain(t);
		return;
	}
	for (unsigned int i = 0; i < M.nlocs; i++) {
		uint16_t top = (uint16_t)(M.l[i].n - 1);

		M.t[tid].cur[i] = top;
		if (M.t[tid].acq[i] < top)
			M.t[tid].acq[i] = top;
	}
}

/* ---- the steps ----------------------------------------------------------------- */

enum kind { K_NONE, K_LOAD, K_STORE, K_RMW, K_FENCE, K_SPIN };

static enum kind kind_of(int op)
{
	switch (op) {
	case CIDK__OP_LOAD: return K_LOAD;
	case CIDK__OP_STORE: case CIDK__OP_UNLOCK: return K_STORE;
	case CIDK__OP_RMW: case CIDK__OP_CAS: case CIDK__OP_LOCK: return K_RMW;
	case CHK_OP_FENCE: return K_FENCE;
	case CIDK__OP_SPIN: return K_SPIN;
	default: return K_NONE;
	}
}

unsigned int chk_mem_options(unsigned int tid, int op, const void *addr,
			     unsigned int acc)
{
	unsigned int w = acc & 0xfu;
	int li;

	M.active = false;
	M.ways = 1;
	M.stale_addr = NULL;
	if (M.model == CHK_MEM_SC || M.overflow)
		return 1;
	M.tid = tid;
	M.op = op;
	M.kind = kind_of(op);
	M.mo = (acc >> 4) & 3u;
	M.restore = false;
	M.fence_after = false;
	if (M.kind == K_FENCE || M.kind == K_SPIN) {
		M.active = true;
		return 1;
	}
	if (M.kind == K_NONE || !addr || !(w == 1 || w == 4 || w == 8))
		return 1;
	li = loc_of(addr, w);
	if (li < 0 || M.overflow) {
		M.overflow = true;
		return 1;
	}
	M.li = (unsigned int)li;
	M.active = true;
	if (M.kind == K_LOAD) {
		const struct loc *l = &M.l[li];

		if (M.model == CHK_MEM_TSO)
			M.ways = own_buffered(l, tid) >= 0 ? 1 : l->n - l->flushed;
		else
			M.ways = l->n - M.t[tid].cur[li];
	} else if (M.kind == K_STORE && M.model == CHK_MEM_RC11 &&
		   op == CIDK__OP_STORE) {
		rc11_slot(&M.l[li], (unsigned int)li, tid, 0, &M.ways);
	}
	return M.ways;
}

void chk_mem_begin(unsigned int k)
{
	struct loc *l;

	if (!M.active)
		return;
	if (M.kind == K_FENCE) {
		if (M.model == CHK_MEM_TSO)
			drain(M.tid);
		else
			fence_sc(M.tid);
		return;
	}
	if (M.kind == K_SPIN) {
		catch_up(M.tid);
		return;
	}
	l = &M.l[M.li];
	if (M.kind == K_LOAD) {
		int own = M.model == CHK_MEM_TSO ? own_buffered(l, M.tid) : -1;

		M.pick = own >= 0 ? (unsigned int)own : l->n - 1 - k;
		if (M.model == CHK_MEM_TSO && own < 0)
			flush_to(M.li, M.pick);
		if (M.pick != l->n - 1) {
			mem_write(l, l->m[M.pick].val);
			M.restore = true;
		}
	} else if (M.kind == K_STORE) {
		if (M.model == CHK_MEM_RC11 && M.op == CIDK__OP_STORE)
			M.pick = rc11_slot(l, M.li, M.tid, k, NULL);
		else
			M.pick = l->n - 1;
		if (M.model == CHK_MEM_RC11 && M.mo == CIDK__MO_SC) {
			M.mo = CIDK__MO_REL; /* then a fence, at the end */
			M.fence_after = true;
		}
	} else { /* K_RMW: on the newest store */
		if (M.model == CHK_MEM_TSO) {
			drain(M.tid);
			flush_to(M.li, l->n - 1);
		} else if (M.mo == CIDK__MO_SC) {
			fence_sc(M.tid);
			M.fence_after = true;
		}
	}
}

void chk_mem_access(uint64_t found, uint64_t left)
{
	struct loc *l;

	if (!M.active || M.kind == K_FENCE || M.kind == K_SPIN || M.overflow)
		return;
	l = &M.l[M.li];
	if (M.kind == K_LOAD) {
		if (l->m[M.pick].val != newest(l)->val)
			M.stale_addr = l->addr;
		if (M.restore) {
			mem_write(l, newest(l)->val);
			M.restore = false;
		}
		if (M.model == CHK_MEM_RC11) {
			struct tview *t = &M.t[M.tid];

			if (M.pick > t->cur[M.li])
				t->cur[M.li] = (uint16_t)M.pick;
			join(M.mo == CIDK__MO_RLX ? t->acq : t->cur,
			     l->m[M.pick].view);
		}
		return;
	}
	if (M.kind == K_STORE) {
		if (M.model == CHK_MEM_TSO) {
			tso_append(M.li, left, M.mo == CIDK__MO_SC);
			if (M.mo == CIDK__MO_SC)
				drain(M.tid);
		} else {
			rc11_insert(M.li, M.pick, left, false);
		}
		/* the store itself runs after this hook: set back at the end */
		M.restore = M.pick != l->n - 2;
		return;
	}
	/* K_RMW */
	if (M.model == CHK_MEM_RC11)
		join(M.t[M.tid].cur, newest(l)->view);
	if (found == left && M.op == CIDK__OP_CAS)
		return; /* a failed CAS: a load of the newest */
	if (M.model == CHK_MEM_TSO) {
		tso_append(M.li, left, true);
	} else {
		unsigned int mo = M.mo;

		M.mo = CIDK__MO_REL;
		rc11_insert(M.li, l->n - 1, left, true);
		M.mo = mo;
	}
}

const void *chk_mem_stale_load(void)
{
	return M.stale_addr;
}

void chk_mem_end(void)
{
	struct loc *l;

	if (!M.active)
		return;
	M.active = false;
	if (M.kind == K_FENCE || M.kind == K_SPIN || M.overflow)
		return;
	l = &M.l[M.li];
	if (M.restore)
		mem_write(l, newest(l)->val);
	M.restore = false;
	if (M.fence_after)
		fence_sc(M.tid);
}
