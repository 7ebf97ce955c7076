/* SPDX-License-Identifier: MIT */
/*
 * Leases while threads come and go: waves of short-lived threads, each
 * entering the domain a few hundred times (a non-atomic counter[cid]
 * increment inside) and then ending -- so the domain's mm sees forks and
 * exits (nr_users, hence the inherit and cache-local bounds, moving up
 * and down) concurrently with enters, exits and scans.  Some threads end
 * while holding a lease.  The counters must add up exactly, every CID
 * must stay below the capacity, and at the end no CID may be held or
 * leaked and no thread may be left in the mm.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include <cidkit/lease.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "tap.h"

#define WAVES 12
#define PER_WAVE 10
#define ITERS 300
#define CAP 3

struct slotc {
	_Alignas(64) unsigned long v;
};

static struct slotc counter[CAP];
static struct cidk_lease_domain *dom;
static atomic_uint bad, held_at_end;

static void *worker(void *arg)
{
	unsigned int id = (unsigned int)(unsigned long)arg;

	for (unsigned int i = 0; i < ITERS; i++) {
		int cid = cidk_lease_enter(dom);
		unsigned long v;

		if (cid < 0 || cid >= CAP) {
			atomic_fetch_add(&bad, 1);
			continue;
		}
		v = counter[cid].v;
		if ((i + id) % 31 == 0)
			sched_yield();
		counter[cid].v = v + 1;
		if (i == ITERS - 1 && id % 3 == 0) {
			atomic_fetch_add(&held_at_end, 1);
			return NULL; /* ends holding it: the destructor gives it back */
		}
		cidk_lease_exit(dom);
	}
	return NULL;
}

int main(void)
{
	for (int k = 0; k < CIDK_CID_NR_POLICIES; k++) {
		struct cidk_cid_params p;
		pthread_t th[2 * PER_WAVE];
		unsigned long sum = 0;
		char why[200] = "";
		int rc;

		cidk_cid_params_default(&p, k);
		p.batch = 1;
		p.expiry_ns = 20000;
		p.scan_period_ns = 50000;
		memset(counter, 0, sizeof(counter));
		atomic_store(&bad, 0);
		atomic_store(&held_at_end, 0);
		if (cidk_lease_domain_create(&p, CAP, &dom)) {
			ok(false, "create");
			continue;
		}
		/* overlapping waves: wave w starts before wave w-1 is joined */
		for (unsigned int w = 0; w <= WAVES; w++) {
			unsigned int cur = (w % 2) * PER_WAVE, prev = PER_WAVE - cur;

			if (w < WAVES)
				for (unsigned long i = 0; i < PER_WAVE; i++)
					pthread_create(&th[cur + i], NULL, worker,
						       (void *)(w * PER_WAVE + i));
			if (w > 0)
				for (unsigned int i = 0; i < PER_WAVE; i++)
					pthread_join(th[prev + i], NULL);
		}
		for (int c = 0; c < CAP; c++)
			sum += counter[c].v;
		ok(sum == (unsigned long)WAVES * PER_WAVE * ITERS && !atomic_load(&bad),
		   "%s: %u threads in overlapping waves: sum %lu (want %lu), bad %u",
		   cidk_cid_policy_name(k), WAVES * PER_WAVE, sum,
		   (unsigned long)WAVES * PER_WAVE * ITERS, atomic_load(&bad));
		rc = cidk_cid_check(cidk_lease_mm(dom), NULL, 0, false, why,
				    sizeof(why));
		ok(rc == 0 && cidk_cid_nr_users(cidk_lease_mm(dom)) == 0 &&
		   atomic_load(&held_at_end) > 0,
		   "%s: %u threads ended holding a lease; nothing held or leaked (%s), users %u",
		   cidk_cid_policy_name(k), atomic_load(&held_at_end), why,
		   cidk_cid_nr_users(cidk_lease_mm(dom)));
		cidk_lease_domain_destroy(dom);
	}
	return done_testing();
}
