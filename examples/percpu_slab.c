/* SPDX-License-Identifier: MIT */
/*
 * percpu_slab.c - tcmalloc's per-CPU slab on <cidkit/percpu.h>: for each
 * CPU an array of object pointers and a header with its bounds, objects
 * pushed and popped one at a time or in batches without atomic
 * instructions, and another thread resizing a CPU's slab through
 * cidk_percpu_fence().  It checks its own results and says so.
 *
 *   cc -O2 percpu_slab.c $(pkg-config --cflags --libs cidkit) -lpthread -o percpu_slab
 *   ./percpu_slab [THREADS [ROUNDS [OPS]]]      (defaults 6 10 20000)
 *
 * The layout, as tcmalloc's (tcmalloc/internal/percpu_tcmalloc.h, the
 * header {current, end_copy, begin, end} in one word): each CPU's copy of
 * the pool object holds one header word and CAP slots; the header packs
 * current (bits 0-15), end (bits 16-31) and a "stopped" bit (48), begin
 * is 0.  slots[begin, current) hold objects, [current, end) are free,
 * [end, CAP) are not the CPU's to use until a resize gives them.  Every
 * operation compares the whole header, so a resize or a stop in between
 * makes it fail and retry:
 *   push      cidk_percpu_cmpeqv_trystorev_storev_release_on: the object
 *             into slots[current] (an attempt), then current + 1;
 *   pop       cidk_percpu_cmpeqv_cmpeqv_storev_on: the header and
 *             slots[current - 1] unchanged, then current - 1;
 *   push_n    cidk_percpu_cmpeqv_trymemcpy_storev_release_on: k objects
 *             into slots[current, current + k), then current + k;
 *   pop_n     cidk_percpu_cmpeqv_trymemcpy_storev_on: slots[current - k,
 *             current) into the caller's array, then current - k.
 * A full or empty slab sends the thread to a central list (a mutex).
 * The resizer thread, as tcmalloc's ResizeSlabs, gives a CPU a new end:
 * close (set "stopped" with a compare-and-swap), cidk_percpu_fence(cpu)
 * (a section that compared the old header and had not committed is now
 * finished; if its commit cleared the bit, close again), own (move the
 * objects above the new end to the central list), open (one store of the
 * new header).
 * After each round, threads joined: every object is in exactly one place
 * (a slab below its current, the central list), none was handed to two
 * threads at once, and the resizer resized more than 0 times.
 * Exit 0 when every round was exact, 1 at the first loss, 2 on bad
 * arguments.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/percpu.h>
#include <cidkit/pool.h>

#define CAP 32          /* slots per CPU */
#define BATCH 8         /* at most per batch */
#define HOLD 16         /* objects one thread keeps at most */
#define STOPPED ((intptr_t)1 << 48)
#define CUR(hd) ((unsigned int)((hd) & 0xffff))
#define END(hd) ((unsigned int)(((hd) >> 16) & 0xffff))
#define HDR(cur, end) ((intptr_t)(cur) | (intptr_t)(end) << 16)

struct slab {
	intptr_t hdr;
	intptr_t slots[CAP];
};

struct object {
	unsigned int id;
	atomic_int taken; /* 1 while a thread holds it */
	unsigned int seen;
};

static struct cidk_pool *pool;
static cidk_pool_handle sh;
static unsigned int ncpu;
static struct object *objects;
static long nobjects, ops = 20000;
static atomic_long doubled, resizes, aborts;
static atomic_int stop;
static atomic_int resized; /* the round's first resize is done */

/* The central list: what does not fit in a slab. */
static pthread_mutex_t central_lock = PTHREAD_MUTEX_INITIALIZER;
static struct object **central;
static long ncentral;

static struct slab *slab_of(unsigned int cpu)
{
	return cidk_pool_ptr(pool, sh, cpu);
}

static intptr_t hdr_load(struct slab *s)
{
	return __atomic_load_n(&s->hdr, __ATOMIC_ACQUIRE);
}

static void central_put(struct object **o, unsigned int k)
{
	pthread_mutex_lock(&central_lock);
	for (unsigned int j = 0; j < k; j++)
		central[ncentral++] = o[j];
	pthread_mutex_unlock(&central_lock);
}

static struct object *central_get(void)
{
	struct object *o = NULL;

	pthread_mutex_lock(&central_lock);
	if (ncentral)
		o = central[--ncentral];
	pthread_mutex_unlock(&central_lock);
	return o;
}

/* The CPU now; -1 when the pool cannot serve it. */
static int cpu_now(void)
{
	int c = cidk_percpu_index_read(CIDK_PERCPU_CPU_ID);

	return c >= 0 && (unsigned int)c < ncpu ? c : -1;
}

/* Push @k objects (1: the single form) onto this CPU's slab: how many. */
static unsigned int slab_push(struct object **o, unsigned int k)
{
	for (;;) {
		int c = cpu_now(), rc;
		struct slab *s;
		intptr_t hd;
		unsigned int cur, room;

		if (c < 0)
			return 0;
		s = slab_of((unsigned int)c);
		hd = hdr_load(s);
		cur = CUR(hd);
		room = hd & STOPPED || END(hd) <= cur ? 0 : END(hd) - cur;
		if (!room)
			return 0;
		if (k > room)
			k = room;
		if (k == 1)
			rc = cidk_percpu_cmpeqv_trystorev_storev_release_on(
				pool, sh, CIDK_PERCPU_CPU_ID, (unsigned int)c,
				hd, &s->slots[cur], (intptr_t)o[0], hd + 1);
		else
			rc = cidk_percpu_cmpeqv_trymemcpy_storev_release_on(
				pool, sh, CIDK_PERCPU_CPU_ID, (unsigned int)c,
				hd, &s->slots[cur], o, k * sizeof(*o),
				hd + (intptr_t)k);
		if (!rc)
			return k;
		if (rc < 0 && rc != -EAGAIN)
			return 0;
	}
}

/* Pop up to @k objects from this CPU's slab into @o: how many. */
static unsigned int slab_pop(struct object **o, unsigned int k)
{
	for (;;) {
		int c = cpu_now(), rc;
		struct slab *s;
		intptr_t hd, top;
		unsigned int cur;

		if (c < 0)
			return 0;
		s = slab_of((unsigned int)c);
		hd = hdr_load(s);
		cur = CUR(hd);
		if (hd & STOPPED || !cur)
			return 0;
		if (k > cur)
			k = cur;
		if (k == 1) {
			top = __atomic_load_n(&s->slots[cur - 1],
					      __ATOMIC_RELAXED);
			rc = cidk_percpu_cmpeqv_cmpeqv_storev_on(
				pool, sh, CIDK_PERCPU_CPU_ID, (unsigned int)c,
				hd, &s->slots[cur - 1], top, hd - 1);
			if (!rc)
				o[0] = (struct object *)top;
		} else {
			rc = cidk_percpu_cmpeqv_trymemcpy_storev_on(
				pool, sh, CIDK_PERCPU_CPU_ID, (unsigned int)c,
				hd, o, &s->slots[cur - k], k * sizeof(*o),
				hd - (intptr_t)k);
		}
		if (!rc)
			return k;
		if (rc < 0 && rc != -EAGAIN)
			return 0;
	}
}

static void take(struct object *o)
{
	if (atomic_exchange(&o->taken, 1))
		atomic_fetch_add(&doubled, 1);
}

static void *worker(void *arg)
{
	struct object *held[HOLD];
	unsigned int n = 0;
	uint64_t r = (uint64_t)(uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;

	/* start once the resizer has fenced a CPU: every round then runs its
	   operations beside resizes, however the threads are scheduled */
	while (!atomic_load(&resized))
		sched_yield();
	for (long i = 0; i < ops; i++) {
		unsigned int k, got;

		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		k = 1 + (unsigned int)(r % BATCH);
		if (n + k <= HOLD && (n == 0 || r & 256)) { /* allocate */
			got = slab_pop(&held[n], k);
			if (!got && (held[n] = central_get()))
				got = 1;
			for (unsigned int j = 0; j < got; j++)
				take(held[n + j]);
			n += got;
		} else if (n) {                             /* free */
			if (k > n)
				k = n;
			for (unsigned int j = 0; j < k; j++)
				atomic_store(&held[n - k + j]->taken, 0);
			got = slab_push(&held[n - k], k);
			if (got < k)
				central_put(&held[n - k + got], k - got);
			n -= k;
		}
	}
	for (unsigned int j = 0; j < n; j++)
		atomic_store(&held[j]->taken, 0);
	central_put(held, n);
	atomic_fetch_add(&aborts, (long)cidk_percpu_aborts());
	return NULL;
}

/* Give @cpu's slab the end @end: close, fence, own, open. */
static int resize(unsigned int cpu, unsigned int end)
{
	struct slab *s = slab_of(cpu);
	intptr_t hd;
	int err;

	do {
		hd = hdr_load(s);
		while (!(hd & STOPPED) &&
		       !__atomic_compare_exchange_n(&s->hdr, &hd, hd | STOPPED,
						    0, __ATOMIC_ACQ_REL,
						    __ATOMIC_ACQUIRE))
			;
		if ((err = cidk_percpu_fence(cpu)))
			return err;
	} while (!(hdr_load(s) & STOPPED)); /* a commit cleared it */
	hd = hdr_load(s);
	if (CUR(hd) > end) { /* the objects above the new end go central */
		central_put((struct object **)&s->slots[end], CUR(hd) - end);
		hd = HDR(end, END(hd)) | STOPPED;
	}
	__atomic_store_n(&s->hdr, HDR(CUR(hd), end), __ATOMIC_RELEASE);
	atomic_fetch_add(&resizes, 1);
	return 0;
}

static void *resizer(void *arg)
{
	uint64_t r = 12345;

	(void)arg;
	while (!atomic_load(&stop)) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		int failed = resize((unsigned int)(r % ncpu),
				    2 + (unsigned int)(r >> 8) % (CAP - 1));

		atomic_store(&resized, 1);
		if (failed)
			return (void *)1;
		sched_yield();
	}
	return NULL;
}

/* Every object in exactly one place; returns the number misplaced. */
static long check(void)
{
	long bad = 0;

	for (long k = 0; k < nobjects; k++)
		objects[k].seen = 0;
	for (unsigned int c = 0; c < ncpu; c++) {
		struct slab *s = slab_of(c);

		if (s->hdr & STOPPED || CUR(s->hdr) > END(s->hdr) || END(s->hdr) > CAP)
			bad++;
		for (unsigned int j = 0; j < CUR(s->hdr) && j < CAP; j++)
			((struct object *)s->slots[j])->seen++;
	}
	for (long k = 0; k < ncentral; k++)
		central[k]->seen++;
	for (long k = 0; k < nobjects; k++)
		bad += objects[k].seen != 1 || atomic_load(&objects[k].taken);
	return bad;
}

static int arg(int argc, char **argv, int i, long *v, long max)
{
	char *end;

	if (argc <= i)
		return 0;
	errno = 0;
	*v = strtol(argv[i], &end, 10);
	if (errno || *end || end == argv[i] || *v < 1 || *v > max) {
		fprintf(stderr, "percpu_slab: bad argument '%s' (1..%ld)\n",
			argv[i], max);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long threads = 6, rounds = 10;
	pthread_t *t, rt;
	void *rv = NULL;

	if (arg(argc, argv, 1, &threads, 256) || arg(argc, argv, 2, &rounds, 100000) ||
	    arg(argc, argv, 3, &ops, 100000000) || argc > 4)
		return 2;
	ncpu = cidk_percpu_nr_copies();
	pool = cidk_pool_create(ncpu, sizeof(struct slab));
	sh = pool ? cidk_pool_alloc(pool, sizeof(struct slab), sizeof(intptr_t), NULL) : -1;
	nobjects = (long)ncpu * CAP + threads * HOLD;
	objects = calloc((size_t)nobjects, sizeof(*objects));
	central = calloc((size_t)nobjects, sizeof(*central));
	t = calloc((size_t)threads, sizeof(*t));
	if (sh < 0 || !objects || !central || !t) {
		fprintf(stderr, "percpu_slab: out of memory\n");
		return 1;
	}
	for (unsigned int c = 0; c < ncpu; c++)
		slab_of(c)->hdr = HDR(0, CAP / 2);
	for (long k = 0; k < nobjects; k++) {
		objects[k].id = (unsigned int)k;
		central[ncentral++] = &objects[k];
	}
	printf("path %s (%s)\n", cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_CPU_ID)),
	       cidk_percpu_why(CIDK_PERCPU_CPU_ID));
	for (long round = 1; round <= rounds; round++) {
		long bad;

		atomic_store(&stop, 0);
		atomic_store(&resized, 0);
		pthread_create(&rt, NULL, resizer, NULL);
		for (long k = 0; k < threads; k++)
			pthread_create(&t[k], NULL, worker, (void *)(uintptr_t)(k + round * 1000));
		for (long k = 0; k < threads; k++)
			pthread_join(t[k], NULL);
		atomic_store(&stop, 1);
		pthread_join(rt, &rv);
		bad = check();
		if (bad || rv || atomic_load(&doubled) || !atomic_load(&resizes)) {
			printf("round %ld: %ld objects misplaced, %ld handed out twice, "
			       "%ld resizes%s\n", round, bad, atomic_load(&doubled),
			       atomic_load(&resizes), rv ? ", a fence failed" : "");
			return 1;
		}
	}
	printf("%ld rounds x %ld threads x %ld operations: %ld objects each in one "
	       "place, %ld resizes, %ld aborted sections\n", rounds, threads, ops,
	       nobjects, atomic_load(&resizes), atomic_load(&aborts));
	cidk_pool_destroy(pool);
	return 0;
}
