/* SPDX-License-Identifier: MIT */
/*
 * rseq readers in many short-lived threads: waves of W threads start, each
 * reads cpu_id, node_id and mm_cid repeatedly and exits.  Every cpu_id must
 * be an allowed CPU, every mm_cid (when provided) below the documented
 * bound min(allowed CPUs, threads alive) = min(allowed, W + main)
 * (docs/cid.md; on a 2-CPU machine: 0 or 1).  Run also without glibc's registration (meson variant
 * rseq_threads_own): then each thread registers cidkit's area lazily and a
 * thread-exit destructor unregisters it, thousands of times over.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include <cidkit/rseq.h>

#include "tap.h"

#define WAVES 100
#define W 8
#define READS 2000

static cpu_set_t allowed;
static int cid_bound; /* min(allowed CPUs, W + 1) */
static atomic_uint bad_cpu, bad_cid, reads;
static atomic_int max_cid = -1;

static void *reader(void *arg)
{
	(void)arg;
	for (int i = 0; i < READS; i++) {
		int cpu = cidk_rseq_cpu_id();
		int cid = cidk_rseq_mm_cid();

		if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed))
			atomic_fetch_add(&bad_cpu, 1);
		if (cid != -ENOSYS && (cid < 0 || cid >= cid_bound))
			atomic_fetch_add(&bad_cid, 1);
		for (int m = atomic_load(&max_cid); cid > m;)
			if (atomic_compare_exchange_weak(&max_cid, &m, cid))
				break;
		if (i % 256 == 0)
			sched_yield();
	}
	atomic_fetch_add(&reads, READS);
	return NULL;
}

int main(void)
{
	struct cidk_rseq_info info;
	pthread_t t[W];

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		CPU_ZERO(&allowed);
	cid_bound = CPU_COUNT(&allowed) < W + 1 ? CPU_COUNT(&allowed) : W + 1;
	cidk_rseq_info(&info);
	diag("registered by %s, mm_cid %d", cidk_rseq_owner_name(info.owner),
	     info.has_mm_cid);
	for (int wave = 0; wave < WAVES; wave++) {
		for (int i = 0; i < W; i++)
			pthread_create(&t[i], NULL, reader, NULL);
		for (int i = 0; i < W; i++)
			pthread_join(t[i], NULL);
	}
	ok(atomic_load(&reads) == WAVES * W * READS, "%u reads",
	   atomic_load(&reads));
	ok(atomic_load(&bad_cpu) == 0, "every cpu_id is an allowed CPU (%u bad)",
	   atomic_load(&bad_cpu));
	ok(cid_bound > 0 && atomic_load(&bad_cid) == 0,
	   "every mm_cid is below min(allowed CPUs %d, threads %d + main) = %d "
	   "(largest %d, %u bad)", CPU_COUNT(&allowed), W, cid_bound,
	   atomic_load(&max_cid), atomic_load(&bad_cid));
	return done_testing();
}
