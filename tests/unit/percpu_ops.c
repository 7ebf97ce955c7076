/* SPDX-License-Identifier: MIT */
/*
 * The operations of issue 37 (cidkit/percpu.h: add_on, the relaxed
 * compare-and-store, cmpeqv_cmpeqv_storev, trystorev_storev and
 * trymemcpy_storev with their release forms, cmpnev_storeoffp_load and
 * offset_deref_addv, each _on and, where it exists, implicit) on one
 * thread pinned to one CPU, for both indexings, on whichever path the
 * environment chose (meson runs it three times: probe, CIDK_PERCPU=rseq,
 * CIDK_PERCPU=atomic; CIDK_EXPECT_PATH names the path to check):
 *  - exact results: each outcome (committed, comparison failed, another
 *    index named: -EAGAIN, an index out of the pool: -ERANGE) with every
 *    word it may and may not touch checked against values fixed here;
 *  - differential: 4000 random operations on a few words of the thread's
 *    copy and of another copy, each result and every word afterwards
 *    compared with a model written here from the contract (plain C on a
 *    shadow array, no cidkit call);
 *  - on the rseq path, every rseq_cs descriptor linked in: version 0,
 *    32-byte aligned, RSEQ_SIG before abort_ip, abort_ip outside.
 */
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sys/rseq.h>

#include <cidkit/percpu.h>
#include <cidkit/rseq.h>

#include "percpu_oracle.h"
#include "tap.h"
#include "test_cpu.h"
#include "test_rand.h"

#if CIDK_PERCPU_HAVE_RSEQ
extern const struct rseq_cs_desc __start___rseq_cs[] __attribute__((weak));
extern const struct rseq_cs_desc __stop___rseq_cs[] __attribute__((weak));

static void check_descriptors(void)
{
	unsigned int n = 0, good = 0;

	for (const struct rseq_cs_desc *d = __start___rseq_cs;
	     d && d < __stop___rseq_cs; d++) {
		n++;
		good += test_rseq_desc_ok(d, 128);
	}
	/* 7 operations x 2 indexings, plus the older ones */
	ok(n >= 14 && good == n,
	   "%u rseq_cs descriptors, %u well formed (version 0, aligned, "
	   "RSEQ_SIG before abort_ip, abort_ip outside)", n, good);
}
#endif

/* A list node with its link at offset 16, as a cmpnev_storeoffp_load list. */
struct node {
	intptr_t pad[2];
	intptr_t link;
};
#define LINK_OFF 16

/* A structure holding a pointer to a counter at offset 8 (deref add). */
struct holder {
	intptr_t pad;
	intptr_t *ctr;
};
#define CTR_OFF 8

/* Each copy: word[0..7] (v, v2 and friends), a 16-word area for copies. */
struct copy {
	intptr_t w[8];
	intptr_t area[16];
};

struct fixture {
	struct cidk_pool *pool;
	cidk_pool_handle h;
	unsigned int nr, i, j; /* copies, my index, another (== i if none) */
	struct copy *mine, *other;
	enum cidk_percpu_index idx;
	const char *name;
};

/* Handle of word k of the copy (the operations' @h). */
static cidk_pool_handle wh(const struct fixture *f, unsigned int k)
{
	return f->h + (cidk_pool_handle)(k * sizeof(intptr_t));
}

static void exact(struct fixture *f)
{
	const char *nm = f->name;
	struct copy *m = f->mine, *o = f->other;
	unsigned int i = f->i, j = f->j, nr = f->nr;
	int other = j != i, rc;
	intptr_t load;

	/* add_on */
	m->w[0] = 10;
	o->w[0] = 20;
	ok(cidk_percpu_add_on(f->pool, wh(f, 0), f->idx, i, 5) == 0 &&
		   cidk_percpu_add_on(f->pool, wh(f, 0), f->idx, i, -2) == 0 &&
		   m->w[0] == 13,
	   "%s add_on: 10 + 5 - 2 == %ld", nm, (long)m->w[0]);
	rc = cidk_percpu_add_on(f->pool, wh(f, 0), f->idx, j, 1);
	ok(!other || (rc == -EAGAIN && o->w[0] == 20 && m->w[0] == 13),
	   "%s add_on another index: -EAGAIN (%d), nothing added", nm, rc);
	ok(cidk_percpu_add_on(f->pool, wh(f, 0), f->idx, nr, 1) == -ERANGE &&
		   m->w[0] == 13,
	   "%s add_on index %u: -ERANGE", nm, nr);

	/* cmpeqv_storev_relaxed_on */
	m->w[1] = 7;
	ok(cidk_percpu_cmpeqv_storev_relaxed_on(f->pool, wh(f, 1), f->idx, i,
						8, 9) == 1 && m->w[1] == 7,
	   "%s cmpeqv_storev_relaxed_on 8 vs 7: 1, unchanged", nm);
	ok(cidk_percpu_cmpeqv_storev_relaxed_on(f->pool, wh(f, 1), f->idx, i,
						7, 9) == 0 && m->w[1] == 9,
	   "%s cmpeqv_storev_relaxed_on 7 vs 7: 0, stored 9", nm);
	rc = cidk_percpu_cmpeqv_storev_relaxed_on(f->pool, wh(f, 1), f->idx,
						  j, o->w[1], 4);
	ok(!other || (rc == -EAGAIN && o->w[1] != 4),
	   "%s cmpeqv_storev_relaxed_on another index: -EAGAIN (%d)", nm, rc);

	/* cmpeqv_cmpeqv_storev_on: v = w[2], v2 = w[3] */
	m->w[2] = 1;
	m->w[3] = 2;
	ok(cidk_percpu_cmpeqv_cmpeqv_storev_on(f->pool, wh(f, 2), f->idx, i,
					       0, &m->w[3], 2, 5) == 1 &&
		   cidk_percpu_cmpeqv_cmpeqv_storev_on(f->pool, wh(f, 2),
						       f->idx, i, 1, &m->w[3],
						       3, 5) == 1 &&
		   m->w[2] == 1 && m->w[3] == 2,
	   "%s cmpeqv_cmpeqv_storev_on: either compare failing: 1, unchanged",
	   nm);
	ok(cidk_percpu_cmpeqv_cmpeqv_storev_on(f->pool, wh(f, 2), f->idx, i,
					       1, &m->w[3], 2, 5) == 0 &&
		   m->w[2] == 5 && m->w[3] == 2,
	   "%s cmpeqv_cmpeqv_storev_on both equal: 0, v = 5, v2 kept", nm);
	rc = cidk_percpu_cmpeqv_cmpeqv_storev_on(f->pool, wh(f, 2), f->idx,
						 nr + 3, 5, &m->w[3], 2, 6);
	ok(rc == -ERANGE && m->w[2] == 5, "%s cmpeqv_cmpeqv_storev_on "
	   "index out of the pool: -ERANGE", nm);

	/* trystorev_storev (relaxed, release): v = w[4], v2 = w[5] */
	for (int rel = 0; rel < 2; rel++) {
		int (*fn)(struct cidk_pool *, cidk_pool_handle,
			  enum cidk_percpu_index, unsigned int, intptr_t,
			  intptr_t *, intptr_t, intptr_t) =
			rel ? cidk_percpu_cmpeqv_trystorev_storev_release_on
			    : cidk_percpu_cmpeqv_trystorev_storev_on;
		const char *form = rel ? "_release_on" : "_on";

		m->w[4] = 3;
		m->w[5] = 0;
		ok(fn(f->pool, wh(f, 4), f->idx, i, 4, &m->w[5], 77, 4) == 1 &&
			   m->w[4] == 3 && m->w[5] == 0,
		   "%s trystorev_storev%s 4 vs 3: 1, neither stored", nm,
		   form);
		ok(fn(f->pool, wh(f, 4), f->idx, i, 3, &m->w[5], 77, 4) == 0 &&
			   m->w[4] == 4 && m->w[5] == 77,
		   "%s trystorev_storev%s: 0, v2 = 77 and v = 4", nm, form);
		o->w[4] = 3;
		o->w[5] = 0;
		rc = fn(f->pool, wh(f, 4), f->idx, j, 3, &o->w[5], 77, 4);
		ok(!other || (rc == -EAGAIN && o->w[4] == 3),
		   "%s trystorev_storev%s another index: -EAGAIN (%d)", nm,
		   form, rc);
	}

	/* trymemcpy_storev (relaxed, release): v = w[6]; 5 bytes, 64 bytes */
	for (int rel = 0; rel < 2; rel++) {
		int (*fn)(struct cidk_pool *, cidk_pool_handle,
			  enum cidk_percpu_index, unsigned int, intptr_t,
			  void *, const void *, size_t, intptr_t) =
			rel ? cidk_percpu_cmpeqv_trymemcpy_storev_release_on
			    : cidk_percpu_cmpeqv_trymemcpy_storev_on;
		const char *form = rel ? "_release_on" : "_on";
		intptr_t src[8];
		unsigned char bytes[13] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 };

		for (int k = 0; k < 8; k++)
			src[k] = 1000 * (rel + 1) + k;
		memset(m->area, 0, sizeof(m->area));
		m->w[6] = 8;
		ok(fn(f->pool, wh(f, 6), f->idx, i, 9, m->area, src,
		      sizeof(src), 16) == 1 && m->w[6] == 8 && m->area[0] == 0,
		   "%s trymemcpy_storev%s 9 vs 8: 1, nothing copied", nm, form);
		ok(fn(f->pool, wh(f, 6), f->idx, i, 8, m->area, src,
		      sizeof(src), 16) == 0 && m->w[6] == 16 &&
			   !memcmp(m->area, src, sizeof(src)) &&
			   m->area[8] == 0,
		   "%s trymemcpy_storev%s 64 bytes: 0, copied exactly, v = 16",
		   nm, form);
		ok(fn(f->pool, wh(f, 6), f->idx, i, 16,
		      (char *)&m->area[10] + 1, bytes, 13, 21) == 0 &&
			   m->w[6] == 21 &&
			   !memcmp((char *)&m->area[10] + 1, bytes, 13) &&
			   ((unsigned char *)&m->area[10])[0] == 0 &&
			   ((unsigned char *)&m->area[10])[14] == 0,
		   "%s trymemcpy_storev%s 13 unaligned bytes (a word and 5): "
		   "copied, neighbours untouched", nm, form);
		ok(fn(f->pool, wh(f, 6), f->idx, i, 21, m->area, src, 0,
		      22) == 0 && m->w[6] == 22,
		   "%s trymemcpy_storev%s 0 bytes: v stored", nm, form);
		rc = fn(f->pool, wh(f, 6), f->idx, j, o->w[6], o->area, src,
			8, 5);
		ok(!other || (rc == -EAGAIN && o->w[6] != 5),
		   "%s trymemcpy_storev%s another index: -EAGAIN (%d)", nm,
		   form, rc);
	}

	/* cmpnev_storeoffp_load (implicit and _on): head = w[7] */
	{
		struct node a = { { 0, 0 }, 0 }, b = { { 0, 0 }, 0 };

		a.link = (intptr_t)&b;
		m->w[7] = (intptr_t)&a;
		load = 0;
		ok(cidk_percpu_cmpnev_storeoffp_load(f->pool, wh(f, 7), f->idx,
						     0, LINK_OFF, &load) == 0 &&
			   load == (intptr_t)&a && m->w[7] == (intptr_t)&b,
		   "%s cmpnev_storeoffp_load: popped a, head b", nm);
		rc = cidk_percpu_cmpnev_storeoffp_load_on(f->pool, wh(f, 7),
							  f->idx, j, 0,
							  LINK_OFF, &load);
		ok(!other || (rc == -EAGAIN && m->w[7] == (intptr_t)&b),
		   "%s cmpnev_storeoffp_load_on another index: -EAGAIN (%d)",
		   nm, rc);
		ok(cidk_percpu_cmpnev_storeoffp_load_on(f->pool, wh(f, 7),
							f->idx, i, 0, LINK_OFF,
							&load) == 0 &&
			   load == (intptr_t)&b && m->w[7] == 0,
		   "%s cmpnev_storeoffp_load_on: popped b, empty", nm);
		load = 42;
		ok(cidk_percpu_cmpnev_storeoffp_load(f->pool, wh(f, 7), f->idx,
						     0, LINK_OFF, &load) == 1 &&
			   load == 42 && m->w[7] == 0,
		   "%s cmpnev_storeoffp_load on empty: 1, load untouched", nm);
		m->w[7] = -1; /* a sentinel other than NULL as expectnot */
		ok(cidk_percpu_cmpnev_storeoffp_load(f->pool, wh(f, 7), f->idx,
						     -1, LINK_OFF, &load) == 1,
		   "%s cmpnev_storeoffp_load: expectnot -1 stops at -1", nm);
	}

	/* offset_deref_addv (implicit and _on): pointer in w[0] */
	{
		intptr_t ctr = 100, octr = 200;
		struct holder hm = { 0, &ctr }, ho = { 0, &octr };

		m->w[0] = (intptr_t)&hm;
		o->w[0] = (intptr_t)&ho;
		ok(cidk_percpu_offset_deref_addv(f->pool, wh(f, 0), f->idx,
						 CTR_OFF, 5) == 0 &&
			   cidk_percpu_offset_deref_addv_on(f->pool, wh(f, 0),
							    f->idx, i, CTR_OFF,
							    -8) == 0 &&
			   ctr == 97,
		   "%s offset_deref_addv 100 + 5 - 8 == %ld", nm, (long)ctr);
		rc = cidk_percpu_offset_deref_addv_on(f->pool, wh(f, 0), f->idx,
						      j, CTR_OFF, 1);
		ok(!other || (rc == -EAGAIN && octr == 200 && ctr == 97),
		   "%s offset_deref_addv_on another index: -EAGAIN (%d)", nm,
		   rc);
		ok(cidk_percpu_offset_deref_addv_on(f->pool, wh(f, 0), f->idx,
						    nr, CTR_OFF, 1) == -ERANGE &&
			   ctr == 97,
		   "%s offset_deref_addv_on index %u: -ERANGE", nm, nr);
		m->w[0] = o->w[0] = 0;
	}
}

/*
 * The model: the contract in plain C on shadow copies of the words
 * (s[0]: the thread's copy, s[1]: the other one).  Returns the result
 * the operation must give.
 */
struct model {
	intptr_t w[2][8];
	intptr_t area[2][16];
};

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	return test_xorshift64(&rnd_state);
}

/* A value for a compare: the word's value half the time. */
static intptr_t guess(intptr_t actual)
{
	return rnd() & 1 ? actual : (intptr_t)(rnd() % 4);
}

static void differential(struct fixture *f)
{
	static struct model md;
	unsigned int bad = 0, ops = 0, fails = 0, commits = 0;
	struct copy *c[2] = { f->mine, f->other };
	unsigned int ix[2] = { f->i, f->j };

	memset(&md, 0, sizeof(md));
	memset(f->mine, 0, sizeof(*f->mine));
	if (f->other != f->mine)
		memset(f->other, 0, sizeof(*f->other));
	for (ops = 0; ops < 4000; ops++) {
		/* the other copy only when there is one */
		unsigned int s = f->j != f->i ? (unsigned int)(rnd() % 4 == 0) : 0;
		unsigned int k = (unsigned int)(rnd() % 6), k2 = (k + 1 + (unsigned int)(rnd() % 5)) % 6;
		intptr_t e = guess(md.w[s][k]), e2 = guess(md.w[s][k2]);
		intptr_t nv = (intptr_t)(rnd() % 4), nv2 = (intptr_t)(rnd() % 1000);
		unsigned int op = (unsigned int)(rnd() % 5), off = (unsigned int)(rnd() % 8), len = (unsigned int)(rnd() % 9);
		int want, got = 0;

		/* what the model says */
		if (s == 1) {
			want = -EAGAIN;
		} else {
			switch (op) {
			case 0: /* add_on */
				want = 0;
				md.w[0][k] = (intptr_t)((uintptr_t)md.w[0][k] + (uintptr_t)nv - 2);
				break;
			case 1: /* cmpeqv relaxed */
				want = md.w[0][k] != e;
				if (!want)
					md.w[0][k] = nv;
				break;
			case 2: /* double compare */
				want = md.w[0][k] != e || md.w[0][k2] != e2;
				if (!want)
					md.w[0][k] = nv;
				break;
			case 3: /* two stores */
				want = md.w[0][k] != e;
				if (!want) {
					md.w[0][k2] = nv2;
					md.w[0][k] = nv;
				}
				break;
			default: /* memcpy of len words into area+off */
				want = md.w[0][k] != e;
				if (!want) {
					for (unsigned int q = 0; q < len && off + q < 16; q++)
						md.area[0][off + q] = md.w[0][q % 6] + 1;
					md.w[0][k] = nv;
				}
				break;
			}
		}
		/* what the library does */
		switch (op) {
		case 0:
			got = cidk_percpu_add_on(f->pool, wh(f, k), f->idx, ix[s], nv - 2);
			break;
		case 1:
			got = cidk_percpu_cmpeqv_storev_relaxed_on(f->pool, wh(f, k), f->idx, ix[s], e, nv);
			break;
		case 2:
			got = cidk_percpu_cmpeqv_cmpeqv_storev_on(f->pool, wh(f, k), f->idx, ix[s], e, &c[s]->w[k2], e2, nv);
			break;
		case 3:
			got = (rnd() & 1 ? cidk_percpu_cmpeqv_trystorev_storev_on : cidk_percpu_cmpeqv_trystorev_storev_release_on)(
				f->pool, wh(f, k), f->idx, ix[s], e, &c[s]->w[k2], nv2, nv);
			break;
		default: {
			intptr_t src[8];
			unsigned int n = len;

			if (off + n > 16)
				n = 16 - off;
			for (unsigned int q = 0; q < 8; q++)
				src[q] = c[s]->w[q % 6] + 1;
			got = (rnd() & 1 ? cidk_percpu_cmpeqv_trymemcpy_storev_on : cidk_percpu_cmpeqv_trymemcpy_storev_release_on)(
				f->pool, wh(f, k), f->idx, ix[s], e, &c[s]->area[off], src, n * sizeof(intptr_t), nv);
			break;
		}
		}
		fails += got == 1;
		commits += got == 0;
		if (got != want || memcmp(md.w[0], f->mine->w, sizeof(md.w[0])) ||
		    memcmp(md.area[0], f->mine->area, sizeof(md.area[0]))) {
			if (!bad++)
				diag("%s op %u (kind %u, word %u): got %d, model %d",
				     f->name, ops, op, k, got, want);
		}
	}
	ok(!bad && commits > 500 && fails > 500,
	   "%s differential: %u random operations, %u committed, %u failed a "
	   "compare, %u disagreements with the model", f->name, ops, commits,
	   fails, bad);
}

static void run(enum cidk_percpu_index idx, const char *name)
{
	struct fixture f = { 0 };
	int now;

	f.nr = cidk_percpu_nr_copies();
	f.pool = cidk_pool_create(f.nr, 512);
	f.h = f.pool ? cidk_pool_alloc(f.pool, sizeof(struct copy), 64, NULL) : -1;
	f.idx = idx;
	f.name = name;
	now = cidk_percpu_index_now(idx);
	if (!ok(f.h >= 0 && now >= 0 && (unsigned int)now < f.nr,
		"%s: pool of %u copies, index %d", name, f.nr, now))
		return;
	f.i = (unsigned int)now;
	f.j = f.nr > 1 ? (f.i + 1) % f.nr : f.i;
	if (f.j == f.i)
		diag("%s: one copy only: the -EAGAIN checks are vacuous", name);
	f.mine = cidk_pool_ptr(f.pool, f.h, f.i);
	f.other = cidk_pool_ptr(f.pool, f.h, f.j);
	memset(f.mine, 0, sizeof(*f.mine));
	exact(&f);
	differential(&f);
	ok(cidk_percpu_index_now(idx) == now,
	   "%s: the index did not change (pinned), so nothing was vacuous", name);
	cidk_pool_destroy(f.pool);
}

int main(void)
{
	const char *want = getenv("CIDK_EXPECT_PATH");
	enum cidk_percpu_path p = cidk_percpu_path(CIDK_PERCPU_CPU_ID);

	if (test_pin_one_cpu(0) < 0)
		skip_all("cannot pin to one CPU");
	diag("path: %s (%s)", cidk_percpu_path_name(p),
	     cidk_percpu_why(CIDK_PERCPU_CPU_ID));
	if (want) {
		/* a kernel without mm_cid (before 6.3): that indexing is atomic */
		struct cidk_rseq_info info;
		int has_mm_cid = !cidk_rseq_info(&info) && info.has_mm_cid;

		ok(!strcmp(want, cidk_percpu_path_name(p)) &&
			   cidk_percpu_path(CIDK_PERCPU_MM_CID) ==
				   (has_mm_cid ? p : CIDK_PERCPU_ATOMIC),
		   "cpu_id on the %s path, mm_cid on %s (the kernel %s mm_cid)",
		   want, has_mm_cid ? "the same" : "the atomic",
		   has_mm_cid ? "has" : "has no");
	}
#if CIDK_PERCPU_HAVE_RSEQ
	if (p == CIDK_PERCPU_RSEQ)
		check_descriptors();
#endif
	run(CIDK_PERCPU_CPU_ID, "cpu_id");
	if (cidk_percpu_path(CIDK_PERCPU_MM_CID) == CIDK_PERCPU_ATOMIC ||
	    cidk_rseq_mm_cid() >= 0)
		run(CIDK_PERCPU_MM_CID, "mm_cid");
	else
		diag("mm_cid: the kernel has none: not run");
	return done_testing();
}
