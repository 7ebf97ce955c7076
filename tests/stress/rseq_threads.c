/* SPDX-License-Identifier: MIT */
/*
 * rseq readers in many short-lived threads: waves of W threads start, each
 * reads cpu_id, node_id and mm_cid repeatedly and exits.  Every cpu_id must
 * be an allowed CPU, every mm_cid (when provided) below the documented
 * bound min(allowed CPUs, threads alive) = min(allowed, W + main)
 * (docs/cid.md; on a 2-CPU machine: 0 or 1).  Run also without glibc's registration (meson variant
 * rseq_threads_own): then each thread registers cidkit's area lazily and a
 * thread-exit destructor unregisters it, thousands of times over.
 * Where the kernel fills mm_cid (its auxiliary vector says so, read here),
 * a reader that returns -ENOSYS is a failure, not a pass; and after the
 * waves, threads pinned to distinct CPUs and running at once must hold
 * distinct mm_cids below their number (tests/support/rseq_oracle.h).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include <cidkit/rseq.h>

#include "tap.h"
#include "rseq_oracle.h"

#define WAVES 100
#define W 8
#define READS 2000

static cpu_set_t allowed;
static int cid_bound; /* min(allowed CPUs, W + 1) */
static atomic_uint bad_cpu, bad_cid, reads;
static atomic_int max_cid = -1;
static int kernel_mm_cid;

static void *reader(void *arg)
{
	(void)arg;
	for (int i = 0; i < READS; i++) {
		int cpu = cidk_rseq_cpu_id();
		int cid = cidk_rseq_mm_cid();

		if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed))
			atomic_fetch_add(&bad_cpu, 1);
		if (cid == -ENOSYS ? kernel_mm_cid : cid < 0 || cid >= cid_bound)
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

static int read_mm_cid(void)
{
	return cidk_rseq_mm_cid();
}

int main(void)
{
	static struct oracle_run run;
	struct cidk_rseq_info info;
	pthread_t t[W];
	int rc;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		CPU_ZERO(&allowed);
	cid_bound = CPU_COUNT(&allowed) < W + 1 ? CPU_COUNT(&allowed) : W + 1;
	kernel_mm_cid = oracle_kernel_mm_cid();
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
	if (!kernel_mm_cid) {
		diag("this kernel fills no mm_cid (AT_RSEQ_FEATURE_SIZE < 28): "
		     "-ENOSYS was the right answer");
		return done_testing();
	}
	rc = oracle_concurrent(&run, read_mm_cid);
	ok(rc == 0 && run.stable >= ORACLE_ROUNDS / 2 && run.broken == 0,
	   "%u threads running at once on distinct CPUs: distinct mm_cids below "
	   "%u in %u stable rounds of %d (%u broke it%s%s)", run.n, run.n,
	   run.stable, ORACLE_ROUNDS, run.broken, run.broken ? ", first " : "",
	   run.first_broken);
	return done_testing();
}
