/* SPDX-License-Identifier: MIT */
/*
 * The atomic path of the issue-37 operations (lib/percpu/ops_atomic.c)
 * where it matters most: many threads on ONE copy at the same time.  In a
 * real process the index check keeps threads on different copies almost
 * always (two threads share a cpu_id copy only across a preemption or a
 * migration), so the locks are rarely contended and a broken lock would
 * seldom show.  Here ops_atomic.c is compiled into the test (the real
 * source, untouched) against a stand-in cidk_percpu_index_now() that says
 * "index 0" to every thread, on a pool built by hand: 2 x CPUs + 2 threads
 * run on copy 0 together:
 *  - a slab (top + 64 slots): push with cmpeqv_trystorev_storev_atomic,
 *    pop with cmpeqv_cmpeqv_storev_atomic, batches of 1-8 both ways with
 *    cmpeqv_trymemcpy_storev_atomic;
 *  - a list (link at offset 16): pop with cmpnev_storeoffp_load_atomic,
 *    push with a lock-free compare-and-swap (what
 *    cidk_percpu_cmpeqv_storev_atomic does);
 *  - offset_deref_addv_atomic on a counter;
 *  - and a thread calling cidk__percpu_ops_quiesce() (the fence) in a loop.
 * At the end every token in exactly one place, every node once, the
 * counter exact (a trystorev or trymemcpy without its lock: tokens
 * doubled, in every run here).
 * Then the lock itself, deterministically: thread A runs
 * cmpeqv_trymemcpy_storev_atomic copying 32 MiB whose last word is X,
 * expecting top 0; while it copies (checked: its first word has arrived,
 * its last not yet), the main
 * thread runs cmpeqv_trystorev_storev_atomic storing into X, expecting top
 * 0 too.  Exactly one may commit, and X must hold what the committed one
 * stored.  With the lock, B waits and then fails; without it (either
 * function's lock removed), B commits mid-copy and A's copy overwrites X
 * afterwards: X holds the loser's data.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cidkit/percpu.h>

#include "percpu/percpu_ops.h"
#include "tap.h"
#include "test_rand.h"
#include "tsan.h"

/* The stand-in: every thread runs with index 0. */
int cidk_percpu_index_now(enum cidk_percpu_index idx)
{
	(void)idx;
	return 0;
}

#define SLOTS 64
#define TOKENS 24
#define NODES 16
#define OPS (TEST_TSAN ? 100000 : 3000000) /* TSan: 30x slower */

struct copy {
	intptr_t top, head, holder, pad;
	intptr_t slots[SLOTS];
};

struct node {
	intptr_t pad[2];
	intptr_t link;
};

struct worker {
	pthread_t tid;
	uint64_t rnd;
	intptr_t stash[TOKENS * 4];
	unsigned int nstash;
	struct node *held[NODES];
	unsigned int nheld;
	long derefs;
	int err;
};

static _Alignas(64) struct copy the_copy;
static struct cidk_pool pool;
static intptr_t counter;
static intptr_t holder[2] = { 0, (intptr_t)&counter };
static struct node *nodes;
static int stop, go;
static long quiesces;

#define H(f) ((cidk_pool_handle)offsetof(struct copy, f))
#define IX CIDK_PERCPU_CPU_ID

static uint64_t rnd(struct worker *w)
{
	return test_xorshift64(&w->rnd);
}

static intptr_t ld(const intptr_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void slab(struct worker *w)
{
	intptr_t top = ld(&the_copy.top), buf[8], item;
	unsigned int k = 1 + (unsigned int)(rnd(w) % 8);
	int rc = 0, push = w->nstash && (rnd(w) & 1);

	if (push && k == 1 && top < SLOTS) {
		rc = cidk_percpu_cmpeqv_trystorev_storev_atomic(
			&pool, H(top), IX, 0, top, &the_copy.slots[top],
			w->stash[w->nstash - 1], top + 1);
		if (!rc)
			w->nstash--;
	} else if (push && w->nstash >= k && top + k <= SLOTS) {
		rc = cidk_percpu_cmpeqv_trymemcpy_storev_atomic(
			&pool, H(top), IX, 0, top, &the_copy.slots[top],
			&w->stash[w->nstash - k], k * sizeof(intptr_t),
			top + (intptr_t)k);
		if (!rc)
			w->nstash -= k;
	} else if (!push && k == 1 && top > 0 &&
		   w->nstash < TOKENS * 4) {
		item = ld(&the_copy.slots[top - 1]);
		rc = cidk_percpu_cmpeqv_cmpeqv_storev_atomic(
			&pool, H(top), IX, 0, top, &the_copy.slots[top - 1],
			item, top - 1);
		if (!rc)
			w->stash[w->nstash++] = item;
	} else if (!push && top >= (intptr_t)k &&
		   w->nstash + k <= TOKENS * 4) {
		rc = cidk_percpu_cmpeqv_trymemcpy_storev_atomic(
			&pool, H(top), IX, 0, top, buf,
			&the_copy.slots[top - k], k * sizeof(intptr_t),
			top - (intptr_t)k);
		if (!rc) {
			memcpy(&w->stash[w->nstash], buf, k * sizeof(intptr_t));
			w->nstash += k;
		}
	}
	if (rc < 0)
		w->err = rc;
}

static void push_node(struct node *n)
{
	intptr_t head = ld(&the_copy.head);

	do
		__atomic_store_n(&n->link, head, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&the_copy.head, &head, (intptr_t)n,
					    0, __ATOMIC_RELEASE,
					    __ATOMIC_ACQUIRE));
}

static void list(struct worker *w)
{
	intptr_t got;
	int rc;

	if (w->nheld && (w->nheld == NODES || rnd(w) & 1)) {
		push_node(w->held[--w->nheld]);
		return;
	}
	rc = cidk_percpu_cmpnev_storeoffp_load_atomic(&pool, H(head), IX,
						      CIDK_PERCPU_CURRENT, 0,
						      16, &got);
	if (rc == 0)
		w->held[w->nheld++] = (struct node *)got;
	else if (rc != 1)
		w->err = rc;
}

static void *work(void *arg)
{
	struct worker *w = arg;

	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		;
	for (int n = 0; n < OPS && !w->err; n++) {
		switch (rnd(w) % 8) {
		case 0: case 1: case 2: case 3: case 4: /* the slab: most */
			slab(w);
			break;
		case 5: case 6:
			list(w);
			break;
		default:
			if (cidk_percpu_offset_deref_addv_atomic(
				    &pool, H(holder), IX, 0, 8, 1))
				w->err = -EIO;
			else
				w->derefs++;
		}
	}
	while (w->nheld)
		push_node(w->held[--w->nheld]);
	return NULL;
}

static void *fencer(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		cidk__percpu_ops_quiesce();
		quiesces++;
	}
	return NULL;
}

#define BIG (1u << 22) /* words: 32 MiB */
static intptr_t *big, *src;
static int a_started, a_done, rc_a;

static void *copier(void *arg)
{
	(void)arg;
	__atomic_store_n(&a_started, 1, __ATOMIC_RELEASE);
	rc_a = cidk_percpu_cmpeqv_trymemcpy_storev_atomic(
		&pool, H(top), IX, 0, 0, big, src, BIG * sizeof(intptr_t), 1);
	__atomic_store_n(&a_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The race above, up to 40 times: overlapped rounds, bad rounds. */
static void lock_race(void)
{
	unsigned int overlapped = 0, bad = 0;

	big = calloc(BIG, sizeof(intptr_t));
	src = malloc(BIG * sizeof(intptr_t));
	if (!ok(big && src, "32 MiB buffers"))
		return;
	for (unsigned int k = 0; k < BIG; k++)
		src[k] = 0xA;
	for (int round = 0; round < 40 && overlapped < 3; round++) {
		pthread_t t;
		int rc_b, early;

		the_copy.top = 0;
		a_started = a_done = 0;
		big[0] = big[BIG - 1] = 0;
		pthread_create(&t, NULL, copier, NULL);
		/* A is inside its copy (so past its compare) once the first
		 * word arrived, until the last one does */
		while (!__atomic_load_n(&a_done, __ATOMIC_ACQUIRE) &&
		       __atomic_load_n(&big[0], __ATOMIC_RELAXED) != 0xA)
			;
		early = __atomic_load_n(&big[0], __ATOMIC_RELAXED) == 0xA &&
			!__atomic_load_n(&big[BIG - 1], __ATOMIC_RELAXED) &&
			!__atomic_load_n(&a_done, __ATOMIC_ACQUIRE);
		rc_b = cidk_percpu_cmpeqv_trystorev_storev_atomic(
			&pool, H(top), IX, 0, 0, &big[BIG - 1], 0xB, 1);
		pthread_join(t, NULL);
		if (!early)
			continue; /* A was not copying when B began: no race */
		overlapped++;
		if ((rc_a == 0) == (rc_b == 0) || the_copy.top != 1 ||
		    big[BIG - 1] != (rc_b == 0 ? 0xB : 0xA)) {
			bad++;
			diag("round %d: A %d, B %d, top %ld, X %#lx", round,
			     rc_a, rc_b, (long)the_copy.top,
			     (long)big[BIG - 1]);
		}
	}
	ok(overlapped > 0 && !bad,
	   "lock: %u rounds with B started while A copied, %u where X did not "
	   "hold the committed operation's store", overlapped, bad);
	free(big);
	free(src);
}

int main(void)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int nw = (unsigned int)(online > 0 ? 2 * online + 2 : 6);
	struct worker *ws = calloc(nw, sizeof(*ws));
	unsigned int nt = nw * TOKENS, nn = nw * NODES, seen = 0, dup = 0;
	unsigned int nseen = 0, ndup = 0, stray = 0, errs = 0;
	unsigned char *mt = calloc(nt, 1), *mn = calloc(nn, 1);
	long derefs = 0;
	pthread_t ft;

	nodes = calloc(nn, sizeof(*nodes));
	if (!ws || !mt || !mn || !nodes)
		return 1;
	pool.base = (unsigned char *)&the_copy;
	pool.stride = sizeof(the_copy);
	pool.max_cids = 1;
	the_copy.holder = (intptr_t)holder;
	for (unsigned int k = 0; k < nn; k++)
		push_node(&nodes[k]);
	for (unsigned int k = 0; k < nw; k++) {
		ws[k].rnd = 0x9e3779b97f4a7c15ull * (k + 1);
		for (unsigned int t = 0; t < TOKENS; t++)
			ws[k].stash[ws[k].nstash++] = (intptr_t)(k * TOKENS + t + 1);
	}
	pthread_create(&ft, NULL, fencer, NULL);
	for (unsigned int k = 0; k < nw; k++)
		pthread_create(&ws[k].tid, NULL, work, &ws[k]);
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	for (unsigned int k = 0; k < nw; k++)
		pthread_join(ws[k].tid, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(ft, NULL);

	for (intptr_t s = 0; s < the_copy.top && s < SLOTS; s++) {
		uintptr_t t = (uintptr_t)the_copy.slots[s] - 1;

		if (t >= nt) {
			stray++;
			continue;
		}
		dup += mt[t]++ > 0;
		seen++;
	}
	for (unsigned int k = 0; k < nw; k++) {
		for (unsigned int s = 0; s < ws[k].nstash; s++) {
			uintptr_t t = (uintptr_t)ws[k].stash[s] - 1;

			if (t >= nt) {
				stray++;
				continue;
			}
			dup += mt[t]++ > 0;
			seen++;
		}
		derefs += ws[k].derefs;
		errs += ws[k].err != 0;
	}
	for (intptr_t p = the_copy.head; p && nseen <= nn;
	     p = ((struct node *)p)->link) {
		size_t k = (size_t)((struct node *)p - nodes);

		if (k >= nn) {
			stray++;
			break;
		}
		ndup += mn[k]++ > 0;
		nseen++;
	}
	ok(!errs, "%u threads on one copy, %d operations each, no error, "
	   "%ld quiesces meanwhile", nw, OPS, quiesces);
	ok(seen == nt && !dup && !stray && the_copy.top >= 0 &&
		   the_copy.top <= SLOTS,
	   "slab: %u of %u tokens in the slab (top %ld) or a stash, %u twice, "
	   "%u stray", seen, nt, (long)the_copy.top, dup, stray);
	ok(nseen == nn && !ndup, "list: %u of %u nodes, %u twice", nseen, nn,
	   ndup);
	ok(counter == derefs && derefs > 0,
	   "offset_deref_addv: the counter %ld, the successes %ld",
	   (long)counter, derefs);
	lock_race();
	free(ws);
	free(mt);
	free(mn);
	free(nodes);
	return done_testing();
}
