/* SPDX-License-Identifier: MIT */
/*
 * The operations of issue 37 under load, exact conservation, aborts
 * counted.  2 x online CPUs + 1 workers (more threads than CPUs: they are
 * preempted inside sections) and a fencer thread that calls
 * cidk_percpu_fence_all() in a loop (membarrier's RSEQ command: every CPU
 * running a worker is interrupted, aborting the section it runs; on the
 * atomic path the fence takes every lock of ops_atomic.c) and a signaller
 * thread that sends the workers SIGUSR1 every 20 us (a signal delivered
 * inside a section aborts it; under QEMU's TCG the fences alone came too
 * seldom; the workers run at nice +5 so that it gets a CPU), for each
 * indexing in turn; each worker does, in random order, with sched_yield()
 * now and then:
 *  - add_on(index now, +1), retried on -EAGAIN: the copies sum to the
 *    successes;
 *  - offset_deref_addv (implicit or _on): every copy's pointer leads to
 *    its own counter; the counters sum to the successes;
 *  - a list of nodes whose link is at offset 16: pop with
 *    cmpnev_storeoffp_load (implicit or _on, expectnot NULL), push back
 *    with cidk_percpu_cmpeqv_storev: every node on exactly one list or in
 *    one worker's hands at the end;
 *  - a slab per copy (top + 64 slots): single push with
 *    trystorev_storev_release_on, single pop with cmpeqv_cmpeqv_storev_on
 *    (top and the top slot), batch push and pop of 1-8 with
 *    trymemcpy_storev[_release]_on: every token (each worker starts with
 *    32) in exactly one slab slot below its top or one worker's stash.
 * The aborts each kind of operation saw are counted
 * (cidk_percpu_aborts() around it); on the rseq path the run goes on,
 * round after round (up to 10 s, or CIDK_TEST_SECONDS: a guest under TCG
 * needs more; from the third round on, a round runs
 * only the first kind that has seen none), until every kind has seen
 * one; a kind that saw none by then is a TAP SKIP (said so: on a loaded
 * 2-vCPU host or under TCG an interrupt seldom lands in a few
 * instructions), and the indexing fails if no section at all aborted.  On the atomic path there
 * are none, and the totals must be exact all the same.
 * CIDK_EXPECT_PATH=rseq|atomic is checked when set.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cidkit/percpu.h>

#include "tap.h"
#include "test_clock.h"
#include "test_rand.h"

#define SLOTS 64
#define TOKENS 32   /* per worker */
#define NODES 32    /* per worker */
#define LINK_OFF 16
#define CTR_OFF 8
#define ROUND 4000  /* operations per worker per round */

enum { K_ADD, K_DEREF, K_LIST, K_SLAB1, K_SLABN, NKINDS };
static const char *kind_name[NKINDS] = { "add_on", "offset_deref_addv",
	"cmpnev_storeoffp_load", "trystorev/cmpeqv_cmpeqv",
	"trymemcpy" };

struct copy {
	intptr_t add;
	intptr_t holder; /* struct holder * */
	intptr_t head;   /* struct node * */
	intptr_t top;
	intptr_t slots[SLOTS];
};

struct node {
	intptr_t pad[2];
	intptr_t link;
};

struct holder {
	intptr_t pad;
	intptr_t *ctr;
};

struct worker {
	pthread_t tid;
	unsigned int id;
	uint64_t rnd;
	unsigned long adds, derefs;
	int done;
	unsigned long aborts[NKINDS], moved;
	intptr_t stash[TOKENS * 4];
	unsigned int nstash;
	struct node *held[NODES];
	unsigned int nheld;
	int err;
};

static struct cidk_pool *pool;
static cidk_pool_handle h;
static enum cidk_percpu_index idx;
static unsigned int nr;
static int stop_fencer, go;
static int focus = -1; /* a kind that saw no abort yet: only it */
static unsigned int nworkers;
static struct worker *workers;
static unsigned long fences;
static struct node *nodes;
static intptr_t *counters; /* one per copy, 64 bytes apart */

#define H(field) (h + (cidk_pool_handle)offsetof(struct copy, field))

static struct copy *copy_at(unsigned int i)
{
	return cidk_pool_ptr(pool, h, i);
}

static uint64_t rnd(struct worker *w)
{
	return test_xorshift64(&w->rnd);
}

static intptr_t load(const intptr_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* The thread's index now, in the pool (else the worker stops: error). */
static int index_now(struct worker *w, unsigned int *i)
{
	int n = cidk_percpu_index_read(idx);

	if (n < 0 || (unsigned int)n >= nr) {
		w->err = n < 0 ? n : -ERANGE;
		return -1;
	}
	*i = (unsigned int)n;
	return 0;
}

static void op_add(struct worker *w)
{
	unsigned int i;
	int rc;

	do {
		if (index_now(w, &i))
			return;
		rc = cidk_percpu_add_on(pool, H(add), idx, i, 1);
		w->moved += rc == -EAGAIN;
	} while (rc == -EAGAIN);
	if (rc)
		w->err = rc;
	else
		w->adds++;
}

static void op_deref(struct worker *w)
{
	unsigned int i;
	int rc;

	if (rnd(w) & 1) {
		rc = cidk_percpu_offset_deref_addv(pool, H(holder), idx,
						   CTR_OFF, 1);
	} else {
		do {
			if (index_now(w, &i))
				return;
			rc = cidk_percpu_offset_deref_addv_on(
				pool, H(holder), idx, i, CTR_OFF, 1);
			w->moved += rc == -EAGAIN;
		} while (rc == -EAGAIN);
	}
	if (rc)
		w->err = rc;
	else
		w->derefs++;
}

static void push_node(struct worker *w, struct node *n)
{
	unsigned int i;
	int rc;

	do {
		intptr_t head;

		if (index_now(w, &i))
			return;
		head = load(&copy_at(i)->head);
		__atomic_store_n(&n->link, head, __ATOMIC_RELAXED);
		rc = cidk_percpu_cmpeqv_storev(pool, H(head), idx, i, head,
					       (intptr_t)n);
	} while (rc == 1 || rc == -EAGAIN);
	if (rc)
		w->err = rc;
}

static void op_list(struct worker *w)
{
	intptr_t got = 0;
	unsigned int i;
	int rc;

	if (w->nheld && (w->nheld == NODES || rnd(w) & 1)) {
		push_node(w, w->held[--w->nheld]);
		return;
	}
	if (rnd(w) & 1) {
		rc = cidk_percpu_cmpnev_storeoffp_load(pool, H(head), idx, 0,
						       LINK_OFF, &got);
	} else {
		do {
			if (index_now(w, &i))
				return;
			rc = cidk_percpu_cmpnev_storeoffp_load_on(
				pool, H(head), idx, i, 0, LINK_OFF, &got);
			w->moved += rc == -EAGAIN;
		} while (rc == -EAGAIN);
	}
	if (rc == 0)
		w->held[w->nheld++] = (struct node *)got;
	else if (rc != 1)
		w->err = rc;
}

/* Single push or pop on the slab of the index now. */
static void op_slab1(struct worker *w)
{
	unsigned int i;
	struct copy *c;
	intptr_t top, item;
	int rc;

	if (index_now(w, &i))
		return;
	c = copy_at(i);
	top = load(&c->top);
	if (w->nstash && top < SLOTS && (!top || rnd(w) & 1)) {
		item = w->stash[w->nstash - 1];
		rc = cidk_percpu_cmpeqv_trystorev_storev_release_on(
			pool, H(top), idx, i, top, &c->slots[top], item,
			top + 1);
		if (!rc)
			w->nstash--;
	} else if (top > 0 && w->nstash < TOKENS * 4) {
		item = load(&c->slots[top - 1]);
		rc = cidk_percpu_cmpeqv_cmpeqv_storev_on(
			pool, H(top), idx, i, top, &c->slots[top - 1], item,
			top - 1);
		if (!rc)
			w->stash[w->nstash++] = item;
	} else {
		return;
	}
	w->moved += rc == -EAGAIN;
	if (rc < 0 && rc != -EAGAIN)
		w->err = rc;
}

/* Batch push or pop of 1-8 tokens. */
static void op_slabn(struct worker *w)
{
	unsigned int i, k = 1 + (unsigned int)(rnd(w) % 8);
	struct copy *c;
	intptr_t top, buf[8];
	int rc;

	if (index_now(w, &i))
		return;
	c = copy_at(i);
	top = load(&c->top);
	if (w->nstash >= k && top + k <= SLOTS && rnd(w) & 1) {
		rc = (rnd(w) & 1 ? cidk_percpu_cmpeqv_trymemcpy_storev_release_on
				 : cidk_percpu_cmpeqv_trymemcpy_storev_on)(
			pool, H(top), idx, i, top, &c->slots[top],
			&w->stash[w->nstash - k], k * sizeof(intptr_t),
			top + (intptr_t)k);
		if (!rc)
			w->nstash -= k;
	} else if (top >= (intptr_t)k && w->nstash + k <= TOKENS * 4) {
		rc = cidk_percpu_cmpeqv_trymemcpy_storev_on(
			pool, H(top), idx, i, top, buf, &c->slots[top - k],
			k * sizeof(intptr_t), top - (intptr_t)k);
		if (!rc) {
			memcpy(&w->stash[w->nstash], buf, k * sizeof(intptr_t));
			w->nstash += k;
		}
	} else {
		return;
	}
	w->moved += rc == -EAGAIN;
	if (rc < 0 && rc != -EAGAIN)
		w->err = rc;
}

static void (*const kinds[NKINDS])(struct worker *) = {
	op_add, op_deref, op_list, op_slab1, op_slabn,
};

static void *work(void *arg)
{
	struct worker *w = arg;

	setpriority(PRIO_PROCESS, 0, 5); /* this thread only (Linux) */
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		sched_yield();
	for (unsigned int n = 0; n < ROUND && !w->err; n++) {
		unsigned int k = focus >= 0 ? (unsigned int)focus
					    : (unsigned int)(rnd(w) % NKINDS);
		unsigned long a = cidk_percpu_aborts();

		kinds[k](w);
		w->aborts[k] += cidk_percpu_aborts() - a;
		if (n % 128 == 127)
			sched_yield();
	}
	/* what it holds of the lists goes back */
	while (w->nheld && !w->err)
		push_node(w, w->held[--w->nheld]);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
}

/* SIGUSR1 to the workers in turn, every 20 us, until all are done (a
 * finished worker's id stays valid until it is joined, after this). */
static void *signaller(void *arg)
{
	struct timespec ts = { 0, 20000 };
	unsigned int k = 0, live;

	(void)arg;
	do {
		live = 0;
		for (unsigned int j = 0; j < nworkers; j++)
			live += !__atomic_load_n(&workers[j].done,
						 __ATOMIC_ACQUIRE);
		pthread_kill(workers[k++ % nworkers].tid, SIGUSR1);
		nanosleep(&ts, NULL);
	} while (live);
	return NULL;
}

static void *fencer(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop_fencer, __ATOMIC_ACQUIRE)) {
		if (cidk_percpu_fence_all() == 0)
			__atomic_fetch_add(&fences, 1, __ATOMIC_RELAXED);
		else
			sched_yield();
	}
	return NULL;
}

/* Every node on one list once, every token in one slab slot or stash once. */
static void conserve(const char *name, struct worker *ws, unsigned int nw)
{
	unsigned int nn = nw * NODES, nt = nw * TOKENS, seen_n = 0, seen_t = 0;
	unsigned char *mn = calloc(nn, 1), *mt = calloc(nt, 1);
	unsigned int dup_n = 0, dup_t = 0, stray = 0;
	intptr_t adds = 0, derefs = 0, sum_ctr = 0;

	for (unsigned int i = 0; i < nr; i++) {
		struct copy *c = copy_at(i);
		unsigned int steps = 0;

		for (intptr_t p = c->head; p && steps <= nn; steps++) {
			size_t k = (size_t)((struct node *)p - nodes);

			if (k >= nn) {
				stray++;
				break;
			}
			dup_n += mn[k]++ > 0;
			seen_n++;
			p = ((struct node *)p)->link;
		}
		if (c->top < 0 || c->top > SLOTS)
			stray++;
		for (intptr_t s = 0; s < c->top && s < SLOTS; s++) {
			uintptr_t t = (uintptr_t)c->slots[s] - 1;

			if (t >= nt) {
				stray++;
				continue;
			}
			dup_t += mt[t]++ > 0;
			seen_t++;
		}
		sum_ctr += counters[i * 8];
	}
	for (unsigned int k = 0; k < nw; k++) {
		for (unsigned int s = 0; s < ws[k].nstash; s++) {
			uintptr_t t = (uintptr_t)ws[k].stash[s] - 1;

			if (t >= nt) {
				stray++;
				continue;
			}
			dup_t += mt[t]++ > 0;
			seen_t++;
		}
		adds += (intptr_t)ws[k].adds;
		derefs += (intptr_t)ws[k].derefs;
	}
	ok(cidk_percpu_sum(pool, H(add)) == adds && adds > 0,
	   "%s add_on: the copies sum to %ld, the successes", name,
	   (long)adds);
	ok(sum_ctr == derefs && derefs > 0,
	   "%s offset_deref_addv: the counters sum to %ld of %ld", name,
	   (long)sum_ctr, (long)derefs);
	ok(seen_n == nn && !dup_n && !stray,
	   "%s lists: %u of %u nodes on the lists, %u twice", name, seen_n,
	   nn, dup_n);
	ok(seen_t == nt && !dup_t && !stray,
	   "%s slabs: %u of %u tokens in slabs or stashes, %u twice, %u stray",
	   name, seen_t, nt, dup_t, stray);
	free(mn);
	free(mt);
}

static void run(enum cidk_percpu_index ix, const char *name, int rseq)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int nw = (unsigned int)(online > 0 ? 2 * online + 1 : 5);
	struct worker *ws = calloc(nw, sizeof(*ws));
	struct holder *holders;
	unsigned long ab[NKINDS] = { 0 }, moved = 0, rounds = 0, total = 0;
	pthread_t ft;
	double t0 = test_ms(CLOCK_MONOTONIC) / 1e3;
	const char *bs = getenv("CIDK_TEST_SECONDS");
	double budget = bs && atof(bs) > 0 ? atof(bs) : 10;
	int errs = 0, all;

	idx = ix;
	nr = cidk_percpu_nr_copies();
	pool = cidk_pool_create(nr, sizeof(struct copy));
	h = cidk_pool_alloc(pool, sizeof(struct copy), sizeof(intptr_t), NULL);
	nodes = calloc((size_t)nw * NODES, sizeof(*nodes));
	counters = calloc((size_t)nr * 8, sizeof(intptr_t));
	holders = calloc(nr, sizeof(*holders));
	if (!ok(ws && pool && h >= 0 && nodes && counters && holders,
		"%s: set up %u workers over %u copies", name, nw, nr))
		return;
	for (unsigned int i = 0; i < nr; i++) {
		holders[i].ctr = &counters[i * 8];
		copy_at(i)->holder = (intptr_t)&holders[i];
	}
	for (unsigned int k = 0; k < nw * NODES; k++) { /* spread the nodes */
		struct copy *c = copy_at(k % nr);

		nodes[k].link = c->head;
		c->head = (intptr_t)&nodes[k];
	}
	for (unsigned int k = 0; k < nw; k++) {
		ws[k].id = k;
		ws[k].rnd = 0x9e3779b97f4a7c15ull * (k + 1) + (uint64_t)ix;
		for (unsigned int t = 0; t < TOKENS; t++)
			ws[k].stash[ws[k].nstash++] = (intptr_t)(k * TOKENS + t + 1);
	}
	stop_fencer = 0;
	pthread_create(&ft, NULL, fencer, NULL);
	nworkers = nw;
	workers = ws;
	do {
		pthread_t st;

		go = 0;
		for (unsigned int k = 0; k < nw; k++) {
			ws[k].done = 0;
			pthread_create(&ws[k].tid, NULL, work, &ws[k]);
		}
		pthread_create(&st, NULL, signaller, NULL);
		__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
		pthread_join(st, NULL);
		for (unsigned int k = 0; k < nw; k++)
			pthread_join(ws[k].tid, NULL);
		rounds++;
		all = 1;
		focus = -1;
		for (unsigned int j = 0; j < NKINDS; j++) {
			unsigned long s = 0;

			for (unsigned int k = 0; k < nw; k++)
				s += ws[k].aborts[j];
			all &= s > 0;
			if (!s && focus < 0 && rounds >= 2)
				focus = (int)j; /* next round: only that kind */
		}
		for (unsigned int k = 0; k < nw; k++)
			errs += ws[k].err != 0;
	} while (rseq && !all && !errs && test_ms(CLOCK_MONOTONIC) / 1e3 - t0 < budget);
	__atomic_store_n(&stop_fencer, 1, __ATOMIC_RELEASE);
	pthread_join(ft, NULL);
	for (unsigned int k = 0; k < nw; k++) {
		for (unsigned int j = 0; j < NKINDS; j++)
			ab[j] += ws[k].aborts[j];
		moved += ws[k].moved;
		if (ws[k].err)
			diag("%s worker %u: error %d", name, k, ws[k].err);
	}
	ok(!errs, "%s: %lu rounds of %u workers x %u operations, no error, "
	   "%lu fences, %lu index changes seen (-EAGAIN)", name, rounds, nw,
	   ROUND, fences, moved);
	conserve(name, ws, nw);
	for (unsigned int j = 0; j < NKINDS; j++) {
		total += ab[j];
		if (rseq && !ab[j])
			printf("ok %u - %s %s: 0 aborts # SKIP no interrupt landed "
			       "in its section within %.0f s\n", ++tap_count, name,
			       kind_name[j], budget);
		else
			ok(rseq ? ab[j] > 0 : ab[j] == 0, "%s %s: %lu aborts (%s)",
			   name, kind_name[j], ab[j],
			   rseq ? "rseq: its abort path ran" : "atomic: none");
	}
	ok(rseq ? total > 0 : total == 0,
	   "%s: %lu aborts in all (%s)", name, total,
	   rseq ? "rseq: the abort path ran" : "atomic: none");
	cidk_pool_destroy(pool);
	free(nodes);
	free(counters);
	free(holders);
	free(ws);
}

int main(void)
{
	const char *want = getenv("CIDK_EXPECT_PATH");
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	int rseq_cpu = cidk_percpu_path(CIDK_PERCPU_CPU_ID) == CIDK_PERCPU_RSEQ;
	int rseq_cid = cidk_percpu_path(CIDK_PERCPU_MM_CID) == CIDK_PERCPU_RSEQ;

	diag("cpu_id: %s (%s)", rseq_cpu ? "rseq" : "atomic",
	     cidk_percpu_why(CIDK_PERCPU_CPU_ID));
	if (want)
		ok(!strcmp(want, rseq_cpu ? "rseq" : "atomic"),
		   "cpu_id on the %s path", want);
	run(CIDK_PERCPU_CPU_ID, "cpu_id", rseq_cpu);
	if (!rseq_cid || cidk_rseq_mm_cid() >= 0)
		run(CIDK_PERCPU_MM_CID, "mm_cid", rseq_cid);
	else
		diag("mm_cid: the kernel has none: not run");
	return done_testing();
}
