/* SPDX-License-Identifier: MIT */
/*
 * Domain-affine calls under contention: T threads call, hand off and
 * start/wait into one domain per CPU plus one domain of all CPUs, many
 * times.  Every fn writes plain (non-atomic) memory owned by its caller and
 * the caller checks it after the call returns, so a missing happens-before
 * shows (wrong values here, a report under TSan); every fn checks it ran on
 * a CPU of its domain; the call counts must add up.  Then domains are
 * created, used by several threads at once and destroyed, repeatedly.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include <cidkit/call.h>

#include "tap.h"
#include "prng.h"

#define T 6
#define CALLS 3000
#define MAXDOM 65

static struct cidk_call_domain *dom[MAXDOM];
static unsigned int ndom;
static atomic_ulong ran[MAXDOM], outside;
static pthread_barrier_t barrier;

struct job {
	unsigned int dom;
	unsigned long seq;
	unsigned long out; /* plain: written by fn, read by the caller */
};

static void fn(void *arg)
{
	struct job *j = arg;
	int cpu = sched_getcpu();
	const struct cidk_mask *m = cidk_call_domain_cpus(dom[j->dom]);

	if (cpu < 0 || (unsigned int)cpu >= m->nbits ||
	    !cidk_mask_test(m, (unsigned int)cpu))
		atomic_fetch_add(&outside, 1);
	atomic_fetch_add(&ran[j->dom], 1);
	j->out = j->seq * 3 + 1;
}

static unsigned long wrong[T], calls[T][MAXDOM];

static void *caller(void *arg)
{
	unsigned int id = (unsigned int)(unsigned long)arg;
	struct cidk__prng r;

	cidk__prng_seed(&r, 1234 + id);
	pthread_barrier_wait(&barrier);
	for (unsigned long i = 0; i < CALLS; i++) {
		unsigned int mode = (unsigned int)cidk__prng_below(&r, 3);
		struct job j = { (unsigned int)cidk__prng_below(&r, ndom), i,
				 0 };
		int rc;

		if (mode == 0) {
			rc = cidk_call_on(dom[j.dom], fn, &j);
		} else if (mode == 1) {
			rc = cidk_call_handoff(dom[j.dom], fn, &j);
		} else {
			struct job j2 = { (j.dom + 1) % ndom, i, 0 };
			struct cidk_call_req a, b;

			rc = cidk_call_start(dom[j.dom], &a, fn, &j, false);
			if (!rc && !cidk_call_start(dom[j2.dom], &b, fn, &j2,
						    true)) {
				cidk_call_wait(&b);
				calls[id][j2.dom]++;
				wrong[id] += j2.out != i * 3 + 1;
			}
			if (!rc)
				cidk_call_wait(&a);
		}
		if (!rc)
			calls[id][j.dom]++;
		wrong[id] += rc || j.out != i * 3 + 1;
	}
	return NULL;
}

static void run(void *(*f)(void *))
{
	pthread_t th[T];

	pthread_barrier_init(&barrier, NULL, T);
	for (unsigned long i = 0; i < T; i++)
		pthread_create(&th[i], NULL, f, (void *)i);
	for (int i = 0; i < T; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&barrier);
}

static void *churn_user(void *arg)
{
	struct job j = { (unsigned int)(unsigned long)arg % ndom, 7, 0 };

	pthread_barrier_wait(&barrier);
	for (int i = 0; i < 50; i++) {
		j.out = 0;
		if (cidk_call_handoff(dom[j.dom], fn, &j) || j.out != 22)
			wrong[(unsigned long)arg]++;
	}
	return NULL;
}

int main(void)
{
	cpu_set_t set;
	struct cidk_mask *all = cidk_mask_alloc(64);
	unsigned long total = 0, sum = 0, bad = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		skip_all("no affinity");
	for (unsigned int c = 0; c < 64 && ndom < MAXDOM - 1; c++)
		if (CPU_ISSET(c, &set)) {
			struct cidk_mask *m = cidk_mask_alloc(64);

			cidk_mask_set(m, c);
			cidk_mask_set(all, c);
			dom[ndom++] = cidk_call_domain_create(m);
			cidk_mask_free(m);
		}
	dom[ndom++] = cidk_call_domain_create(all);
	for (unsigned int d = 0; d < ndom; d++)
		bad += !dom[d];
	ok(bad == 0, "%u domains created (one per CPU + all)", ndom);

	run(caller);
	for (unsigned int d = 0; d < ndom; d++) {
		unsigned long c = 0;

		for (int t = 0; t < T; t++)
			c += calls[t][d];
		sum += atomic_load(&ran[d]);
		total += c;
		ok(c == atomic_load(&ran[d]),
		   "domain %u: %lu calls returned, %lu ran", d, c,
		   atomic_load(&ran[d]));
	}
	bad = 0;
	for (int t = 0; t < T; t++)
		bad += wrong[t];
	ok(bad == 0, "every call's result was visible to its caller (%lu bad)",
	   bad);
	ok(atomic_load(&outside) == 0, "every fn ran inside its domain");
	ok(total == sum && total >= (unsigned long)T * CALLS,
	   "%lu calls in all", total);

	/* Create, use from several threads, destroy - repeatedly. */
	for (int round = 0; round < 20; round++) {
		for (unsigned int d = 0; d < ndom; d++) {
			struct cidk_mask *m = cidk_mask_dup(
				cidk_call_domain_cpus(dom[d]));

			cidk_call_domain_destroy(dom[d]);
			dom[d] = cidk_call_domain_create(m);
			cidk_mask_free(m);
		}
		run(churn_user);
	}
	bad = 0;
	for (int t = 0; t < T; t++)
		bad += wrong[t];
	ok(bad == 0, "20 rounds of create/use/destroy");
	for (unsigned int d = 0; d < ndom; d++)
		cidk_call_domain_destroy(dom[d]);
	cidk_mask_free(all);
	return done_testing();
}
