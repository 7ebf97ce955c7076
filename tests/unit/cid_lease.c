/* SPDX-License-Identifier: MIT */
/*
 * The lease API's contract, single- and two-threaded: CIDs within the
 * capacity, -EBUSY on a nested enter, -EINVAL on an exit without enter,
 * -EAGAIN from try_enter when every CID is held, a thread that ends
 * holding a lease gives it back, threads outlive domains, and the
 * single-thread CID sequence of each policy.
 */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>

#include <cidkit/lease.h>

#include "tap.h"

static struct cidk_lease_domain *shared;
static int thread_cid;

static void *take_and_end(void *arg)
{
	(void)arg;
	thread_cid = cidk_lease_enter(shared); /* ends holding it */
	return NULL;
}

static void *try_while_held(void *arg)
{
	(void)arg;
	thread_cid = cidk_lease_try_enter(shared);
	return NULL;
}

static void *use_then_outlive(void *arg)
{
	struct cidk_lease_domain *other;
	int *res = arg;

	res[0] = cidk_lease_enter(shared);
	__atomic_store_n(&res[1], cidk_lease_exit(shared), __ATOMIC_RELEASE);
	/* the main thread destroys `shared` now; we go on with another */
	while (__atomic_load_n(&res[2], __ATOMIC_ACQUIRE) == 0)
		;
	if (cidk_lease_domain_create(NULL, 4, &other))
		return NULL;
	res[3] = cidk_lease_enter(other);
	res[4] = cidk_lease_exit(other);
	cidk_lease_domain_destroy(other);
	return NULL;
}

static void run_thread(void *(*fn)(void *), void *arg)
{
	pthread_t th;

	pthread_create(&th, NULL, fn, arg);
	pthread_join(th, NULL);
}

int main(void)
{
	struct cidk_cid_params p;
	struct cidk_lease_domain *d;
	int res[5] = { -1, -1, 0, -1, -1 };
	pthread_t th;

	ok(cidk_lease_domain_create(NULL, CIDK_MASK_MAX_BITS + 1, &d) == -EINVAL,
	   "capacity above the mask limit: -EINVAL");
	cidk_cid_params_default(&p, CIDK_CID_LAZY_BATCHED);
	p.batch = 0;
	ok(cidk_lease_domain_create(&p, 2, &d) == -EINVAL,
	   "bad policy params: -EINVAL");

	for (int k = 0; k < CIDK_CID_NR_POLICIES; k++) {
		const char *name = cidk_cid_policy_name(k);
		int a, b, c;

		cidk_cid_params_default(&p, k);
		if (cidk_lease_domain_create(&p, 0, &d)) {
			ok(false, "%s: create", name);
			continue;
		}
		ok(cidk_lease_capacity(d) >= 1, "%s: default capacity %u", name,
		   cidk_lease_capacity(d));
		ok(cidk_lease_exit(d) == -EINVAL, "%s: exit without enter: -EINVAL",
		   name);
		a = cidk_lease_enter(d);
		ok(a == 0, "%s: a lone thread gets CID 0 (got %d)", name, a);
		ok(cidk_lease_enter(d) == -EBUSY && cidk_lease_try_enter(d) == -EBUSY,
		   "%s: nested enter: -EBUSY", name);
		ok(cidk_lease_exit(d) == 0 && cidk_lease_exit(d) == -EINVAL,
		   "%s: exit, then a second exit is -EINVAL", name);
		b = cidk_lease_try_enter(d);
		/* (lazy family: b came from the fast path; it must refuse too) */
		ok(cidk_lease_enter(d) == -EBUSY,
		   "%s: nested enter after a re-enter: -EBUSY", name);
		c = cidk_lease_exit(d);
		ok(b == 0 && c == 0, "%s: the same thread gets CID 0 again", name);
		{
			/*
			 * The fast path ran: a lazy-family pair that re-enters
			 * where its CID waits is one counted RMW (the slot
			 * CAS; the exit's store is not an RMW), where the full
			 * switch-in and -out would count two.  Counters may
			 * lag by 63 fast enters (docs/cid.md).
			 */
			struct cidk_cid_stats st;
			bool lazy = k == CIDK_CID_LAZY || k == CIDK_CID_LAZY_BATCHED ||
				    k == CIDK_CID_CACHE_LOCAL;
			double per;

			for (int i = 0; i < 1000; i++)
				if (cidk_lease_enter(d) != 0 || cidk_lease_exit(d))
					break;
			cidk_cid_stats(cidk_lease_mm(d), &st);
			per = st.allocations ?
				(double)(st.bitmap_rmw + st.slot_rmw) / st.allocations : 0;
			if (lazy)
				ok(st.allocations >= 1000 - 63 && per < 1.01,
				   "%s: 1000 re-enters: %llu counted, %.3f RMW per pair (fast path: 1)",
				   name, (unsigned long long)st.allocations, per);
		}
		ok(cidk_cid_nr_users(cidk_lease_mm(d)) == 1,
		   "%s: the thread is one user of the domain's mm", name);
		cidk_lease_domain_destroy(d);
	}

	/* capacity 1: a second thread's try_enter fails while we hold it */
	cidk_lease_domain_create(NULL, 1, &shared);
	ok(cidk_lease_enter(shared) == 0, "capacity 1: main holds CID 0");
	run_thread(try_while_held, NULL);
	ok(thread_cid == -EAGAIN, "capacity 1: another thread's try_enter: -EAGAIN");
	cidk_lease_exit(shared);
	run_thread(try_while_held, NULL);
	ok(thread_cid == 0, "capacity 1: after exit it gets CID 0");
	/* that thread ended holding CID 0: the lease came back */
	ok(cidk_lease_try_enter(shared) == 0, "a thread that ended holding a lease gave it back");
	cidk_lease_exit(shared);
	run_thread(take_and_end, NULL);
	ok(thread_cid == 0 && cidk_lease_enter(shared) == 0,
	   "enter after a holder's thread ended");
	cidk_lease_exit(shared);
	ok(cidk_cid_nr_users(cidk_lease_mm(shared)) == 1,
	   "ended threads left the mm (users %u)",
	   cidk_cid_nr_users(cidk_lease_mm(shared)));
	cidk_lease_domain_destroy(shared);

	/* a thread outlives the domain it used, and uses another */
	cidk_lease_domain_create(NULL, 4, &shared);
	pthread_create(&th, NULL, use_then_outlive, res);
	while (__atomic_load_n(&res[1], __ATOMIC_ACQUIRE) != 0)
		;
	cidk_lease_domain_destroy(shared);
	__atomic_store_n(&res[2], 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	ok(res[0] == 0 && res[3] == 0 && res[4] == 0,
	   "a thread outlives a destroyed domain and uses a new one");
	return done_testing();
}
