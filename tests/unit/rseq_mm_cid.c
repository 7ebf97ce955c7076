/* SPDX-License-Identifier: MIT */
/*
 * The kernel's mm_cid: T threads sleep and spin in bursts and read their
 * mm_cid; every value must be below the documented bound
 * min(allowed CPUs, threads of the process) (docs/cid.md, docs/rseq.md:
 * on a 2-CPU machine that is 2, not T + 1) and below the possible CPUs.
 * Then the promise that makes mm_cid an index (tests/support/rseq_oracle.h): N
 * threads running at once, each pinned to its own CPU, hold N distinct
 * mm_cids below N; and the value agrees with the raw word of glibc's area
 * read without libcidkit.  Skipped (plan 1..0 # SKIP, exit 0) only when
 * the kernel's auxiliary vector says it fills no mm_cid (feature size
 * below 28); a library that reports no mm_cid on a kernel that has it
 * fails.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include <cidkit/rseq.h>

#include "tap.h"
#include "rseq_oracle.h"

#define T 6
#define ROUNDS 200

static int seen_min[T], seen_max[T];
static atomic_int running;
static pthread_barrier_t barrier;

static void *worker(void *arg)
{
	unsigned int id = (unsigned int)(unsigned long)arg;
	struct timespec ts = { 0, 200000 };

	seen_min[id] = 1 << 30;
	seen_max[id] = -1;
	pthread_barrier_wait(&barrier);
	for (int r = 0; r < ROUNDS; r++) {
		for (int k = 0; k < 200; k++) {
			int c = cidk_rseq_mm_cid();

			if (c < seen_min[id])
				seen_min[id] = c;
			if (c > seen_max[id])
				seen_max[id] = c;
		}
		if (r % 4 == 0)
			nanosleep(&ts, NULL);
		else
			sched_yield();
	}
	atomic_fetch_sub(&running, 1);
	/* Stay alive until every worker is done: the thread count stays T+1. */
	while (atomic_load(&running) > 0)
		sched_yield();
	return NULL;
}

static int read_mm_cid(void)
{
	return cidk_rseq_mm_cid();
}

static void check_concurrent(void)
{
	static struct oracle_run run;

	int rc = oracle_concurrent(&run, read_mm_cid);

	if (!ok(rc == 0 && run.n > 0,
		"%u threads pinned to distinct CPUs started", run.n))
		return;
	ok(run.stable >= ORACLE_ROUNDS / 2,
	   "%u of %d rounds with every thread's mm_cid unchanged across the "
	   "round", run.stable, ORACLE_ROUNDS);
	ok(run.broken == 0,
	   "%u threads running at once hold distinct mm_cids below %u in every "
	   "such round (%u broke it%s%s)", run.n, run.n, run.broken,
	   run.broken ? ", first " : "", run.first_broken);
	if (__rseq_size)
		ok(atomic_load(&run.raw_agree) >= run.n &&
		   atomic_load(&run.raw_disagree) == 0,
		   "glibc's area read through the thread register and __rseq_offset "
		   "agrees with cidk_rseq_mm_cid(): %u agree, %u disagree",
		   atomic_load(&run.raw_agree), atomic_load(&run.raw_disagree));
	else
		diag("glibc registered no area: the raw comparison needs one");
}

int main(void)
{
	struct cidk_rseq_info info;
	pthread_t t[T];
	int lo = 1 << 30, hi = -1, c;
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	cpu_set_t allowed;
	int nallowed, bound;

	/* The process's affinity, before any thread: every thread inherits it. */
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		CPU_ZERO(&allowed);
	cidk_rseq_info(&info);
	if (!oracle_kernel_mm_cid())
		skip_all("this kernel fills no rseq mm_cid (AT_RSEQ_FEATURE_SIZE < 28)");
	ok(info.has_mm_cid, "the kernel fills mm_cid (feature size %lu): the "
	   "library reads it (registered by %s)",
	   getauxval(AT_RSEQ_FEATURE_SIZE), cidk_rseq_owner_name(info.owner));
	c = cidk_rseq_mm_cid();
	ok(c >= 0 && c < ncpus, "main thread alone: mm_cid %d in [0, %ld)", c,
	   ncpus);
	ok(c == 0, "single-threaded process: mm_cid is 0 (got %d)", c);

	atomic_store(&running, T);
	pthread_barrier_init(&barrier, NULL, T);
	for (unsigned long i = 0; i < T; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < T; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&barrier);
	for (int i = 0; i < T; i++) {
		if (seen_min[i] < lo)
			lo = seen_min[i];
		if (seen_max[i] > hi)
			hi = seen_max[i];
	}
	nallowed = CPU_COUNT(&allowed);
	bound = nallowed < T + 1 ? nallowed : T + 1;
	diag("%d threads + main, %d allowed CPUs: mm_cid seen in [%d, %d]", T,
	     nallowed, lo, hi);
	ok(lo >= 0, "no negative mm_cid (min %d)", lo);
	ok(nallowed > 0 && hi < bound,
	   "mm_cid < min(allowed CPUs %d, threads %d) (max %d < %d)", nallowed,
	   T + 1, hi, bound);
	ok(hi < ncpus, "mm_cid < possible CPUs (max %d < %ld)", hi, ncpus);
	check_concurrent();
	return done_testing();
}
