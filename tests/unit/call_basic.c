/* SPDX-License-Identifier: MIT */
/*
 * Domain-affine calls: where fn runs (which thread, which CPU), lazy worker
 * creation and clean stop (threads counted in /proc/self/task), the
 * asynchronous pair, and every error path.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include <cidkit/call.h>

#include "tap.h"

struct where {
	pthread_t thread;
	int cpu;
	int runs;
};

static void record(void *arg)
{
	struct where *w = arg;

	w->thread = pthread_self();
	w->cpu = sched_getcpu();
	w->runs++;
}

static unsigned int nr_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	unsigned int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * nr_threads() once it has settled at @want, or after 1 s what it is: a
 * joined thread can still be listed in /proc/self/task for a moment
 * (pthread_join returns at the kernel's clear of its tid, in do_exit,
 * before the task is released), as a slow ASan run showed once.
 */
static unsigned int nr_threads_settled(unsigned int want)
{
	unsigned int n = nr_threads();

	for (int i = 0; i < 1000 && n != want; i++) {
		usleep(1000);
		n = nr_threads();
	}
	return n;
}

static struct cidk_mask *one_cpu(unsigned int cpu, unsigned int nbits)
{
	struct cidk_mask *m = cidk_mask_alloc(nbits);

	if (m)
		cidk_mask_set(m, cpu);
	return m;
}

static bool bind_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return !sched_setaffinity(0, sizeof(set), &set);
}

/* The first two CPUs this process may use; -1 when absent. */
static void two_cpus(int *a, int *b)
{
	cpu_set_t set;

	*a = *b = -1;
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set)) {
			if (*a < 0)
				*a = c;
			else if (*b < 0)
				*b = c;
		}
}

static void test_errors(void)
{
	struct cidk_mask *empty = cidk_mask_alloc(64), *far = one_cpu(63, 64);
	struct cidk_call_domain *d;
	struct where w = { 0 };

	errno = 0;
	ok(!cidk_call_domain_create(NULL) && errno == EINVAL,
	   "create(NULL): EINVAL");
	errno = 0;
	ok(!cidk_call_domain_create(empty) && errno == EINVAL,
	   "create(empty mask): EINVAL");
	ok(cidk_call_on(NULL, record, &w) == -EINVAL, "call_on(NULL): EINVAL");
	d = cidk_call_domain_create(far);
	ok(d != NULL, "a domain over CPU 63 can be created");
	ok(cidk_call_on(d, NULL, &w) == -EINVAL, "call_on(fn NULL): EINVAL");
	if (sched_getcpu() != 63) {
		int rc = cidk_call_on(d, record, &w);

		ok(rc == -EINVAL && w.runs == 0,
		   "a domain of no usable CPU: EINVAL, fn not run (%d)", rc);
	}
	cidk_call_domain_destroy(d);
	cidk_call_domain_destroy(NULL); /* a no-op: a crash fails the program */
	cidk_mask_free(empty);
	cidk_mask_free(far);
}

static void test_places(int a, int b)
{
	struct cidk_mask *ma = one_cpu((unsigned int)a, 64),
			 *mb = b >= 0 ? one_cpu((unsigned int)b, 64) : NULL;
	struct cidk_call_domain *da = cidk_call_domain_create(ma),
				*db = mb ? cidk_call_domain_create(mb) : NULL;
	unsigned int base;
	struct where w = { 0 };
	pthread_t worker_a;

	ok(bind_to(a), "bind the test to CPU %d", a);
	base = nr_threads();
	ok(cidk_call_domain_local(da), "CPU %d is local to its domain", a);
	ok(cidk_call_on(da, record, &w) == 0 &&
		   pthread_equal(w.thread, pthread_self()) && w.cpu == a &&
		   w.runs == 1,
	   "local call runs directly, on the caller");
	ok(nr_threads() == base, "a direct call creates no thread");

	ok(cidk_call_handoff(da, record, &w) == 0 &&
		   !pthread_equal(w.thread, pthread_self()) && w.cpu == a &&
		   w.runs == 2,
	   "forced hand-off runs on the worker, on CPU %d", a);
	ok(nr_threads() == base + 1, "the worker was created lazily (1 thread)");
	worker_a = w.thread;
	ok(cidk_call_handoff(da, record, &w) == 0 &&
		   pthread_equal(w.thread, worker_a) && w.runs == 3,
	   "the same worker serves the next hand-off");

	if (db) {
		ok(!cidk_call_domain_local(db), "CPU %d is not local", b);
		ok(cidk_call_on(db, record, &w) == 0 &&
			   !pthread_equal(w.thread, pthread_self()) &&
			   !pthread_equal(w.thread, worker_a) && w.cpu == b &&
			   w.runs == 4,
		   "remote call runs on the other domain's worker, CPU %d", b);
		ok(nr_threads() == base + 2, "two workers now");
	} else {
		diag("one CPU only: no remote domain");
	}

	/* Asynchronous: both domains at once. */
	{
		struct cidk_call_req ra, rb;
		struct where wa = { 0 }, wb = { 0 };
		int rca = cidk_call_start(da, &ra, record, &wa, true);
		int rcb = db ? cidk_call_start(db, &rb, record, &wb, false) : 0;

		if (!rca)
			cidk_call_wait(&ra);
		if (db && !rcb)
			cidk_call_wait(&rb);
		ok(!rca && !rcb && wa.runs == 1 && wa.cpu == a &&
			   (!db || (wb.runs == 1 && wb.cpu == b)),
		   "start/wait on two domains");
	}
	{
		struct cidk_call_req r;
		struct where wl = { 0 };

		ok(cidk_call_start(da, &r, record, &wl, false) == 0 &&
			   wl.runs == 1,
		   "a local start has run when it returns");
		cidk_call_wait(&r);
		ok(wl.runs == 1, "waiting on a direct call is immediate");
	}

	cidk_call_domain_destroy(da);
	cidk_call_domain_destroy(db);
	ok(nr_threads_settled(base) == base,
	   "destroy stops and joins the workers");
	cidk_mask_free(ma);
	cidk_mask_free(mb);
}

/* fn calling cidk_call_on on its own domain from the worker: direct. */
struct nested {
	struct cidk_call_domain *d;
	struct where inner;
	int rc;
};

static void nested_fn(void *arg)
{
	struct nested *n = arg;

	n->rc = cidk_call_on(n->d, record, &n->inner);
}

static void test_nested(int a)
{
	struct cidk_mask *ma = one_cpu((unsigned int)a, 64);
	struct nested n = { .d = cidk_call_domain_create(ma) };

	ok(cidk_call_handoff(n.d, nested_fn, &n) == 0 && n.rc == 0 &&
		   n.inner.runs == 1 &&
		   !pthread_equal(n.inner.thread, pthread_self()),
	   "cidk_call_on from the worker to its own domain runs directly");
	cidk_call_domain_destroy(n.d);
	cidk_mask_free(ma);
}

int main(void)
{
	int a, b;

	two_cpus(&a, &b);
	if (a < 0)
		skip_all("no CPU in the affinity mask");
	test_errors();
	test_places(a, b);
	test_nested(a);
	return done_testing();
}
