/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/check_mm_cid.c - "mm-cid": the concurrency ID stays compact.
 *
 * uapi linux/rseq.h (feature size >= 28, Linux 6.3+): mm_cid is unique
 * among the process's running threads, below the number of possible CPUs,
 * and close to 0 when the process has fewer threads than CPUs or is
 * limited to few CPUs.  The scheduler's own bound is
 * min(allowed CPUs, threads).  Phase 1: as many threads as allowed CPUs
 * spin and sample their mm_cid, and so does the main thread; every sample must be below
 * min(allowed CPUs, threads incl. main) and the possible CPUs.  Phase 2:
 * after they exit, the time until the main thread alone is back at mm_cid
 * 0 is reported, not judged: the uapi promises "close to 0", not when
 * (the kernel's policies differ: a compaction scan from the tick at most
 * every 100 ms before 6.19, the next switch after; a 6.18 host was seen
 * keeping mm_cid 1 for more than 166 ms).
 *
 * Break "unregistered": sample an area the kernel never writes.
 */
#include <pthread.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include "abi/abi_impl.h"
#include "topo/possible.h"
#include "util/clock.h"

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#endif

#define MAX_WORKERS 64u

struct worker {
	pthread_t th;
	unsigned int breaks;
	uint64_t until;
	uint32_t max;
	uint64_t samples;
	uint64_t seen; /* bit i: mm_cid i seen (i < 64) */
	int err;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct cidk__abi_area ar;

	w->err = cidk__abi_area_get(&ar, w->breaks);
	if (w->err)
		return NULL;
	while (cidk__now_ns() < w->until) {
		uint32_t c = ar.a->mm_cid;

		if (c > w->max || !w->samples)
			w->max = c;
		if (c < 64)
			w->seen |= 1ull << c;
		w->samples++;
	}
	return NULL;
}

void cidk__abi_check_mm_cid(const struct cidk__abi_opts *o,
			    struct cidk__abi_result *r)
{
	static int cpus[CIDK_ABI_MAX_CPUS];
	static struct worker w[MAX_WORKERS + 1];
	unsigned int n = cidk__abi_allowed(cpus, CIDK_ABI_MAX_CPUS);
	unsigned int fs = (unsigned int)getauxval(AT_RSEQ_FEATURE_SIZE);
	unsigned int possible = cidk__topo_nr_possible();
	unsigned int t = n < MAX_WORKERS ? n : MAX_WORKERS, started = 0, bound;
	uint64_t budget = (uint64_t)(o->seconds * 1e9), seen = 0, t0;
	uint32_t max = 0, now = 0;
	struct cidk__abi_area ar;
	int64_t converge_us = -1;

	if (fs < CIDK_RSEQ_FEATURE_MM_CID) {
		cidk__abi_say(r, CIDK__ABI_NA,
			      "the kernel provides no mm_cid (rseq feature size %u < 28: Linux < 6.3)", fs);
		return;
	}
	if (!t || cidk__abi_area_get(&ar, o->breaks)) {
		cidk__abi_say(r, CIDK__ABI_NA, "no allowed CPUs or no rseq area");
		return;
	}
	bound = n < t + 1 ? n : t + 1;
	for (unsigned int i = 0; i < t; i++) {
		w[i].breaks = o->breaks;
		w[i].until = cidk__now_ns() + budget / 2;
		if (pthread_create(&w[i].th, NULL, work, &w[i]))
			break;
		started++;
	}
	/* The main thread samples too: it may hold any of the CIDs. */
	w[started].breaks = o->breaks;
	w[started].until = w[0].until;
	work(&w[started]);
	for (unsigned int i = 0; i <= started; i++) {
		if (i < started)
			pthread_join(w[i].th, NULL);
		if (w[i].err || !w[i].samples)
			continue;
		if (w[i].max > max)
			max = w[i].max;
		seen |= w[i].seen;
	}
	/*
	 * Phase 2: the main thread alone, running (so that the tick finds it:
	 * the lazy policies compact from there) with a short nap every 2 ms.
	 */
	t0 = cidk__now_ns();
	while (cidk__now_ns() - t0 < budget / 2) {
		struct timespec ts = { 0, 100000 };
		uint64_t until = cidk__now_ns() + 2000000;

		while ((now = ar.a->mm_cid) >= 1 && cidk__now_ns() < until)
			;
		if (now < 1) {
			converge_us = (int64_t)((cidk__now_ns() - t0) / 1000u);
			break;
		}
		nanosleep(&ts, NULL);
	}
	cidk__abi_ev(r, "threads", started + 1);
	cidk__abi_ev(r, "allowed_cpus", n);
	cidk__abi_ev(r, "bound", bound);
	cidk__abi_ev(r, "max_mm_cid", (int32_t)max);
	cidk__abi_ev(r, "distinct", __builtin_popcountll(seen));
	cidk__abi_ev(r, "alone_mm_cid", (int32_t)now);
	cidk__abi_ev(r, "converge_us", converge_us);
	if (!started) {
		cidk__abi_say(r, CIDK__ABI_NA, "cannot start threads");
		return;
	}
	if (max >= bound || max >= possible) {
		cidk__abi_say(r, CIDK__ABI_FAIL,
			      "mm_cid %d seen with %u threads on %u allowed CPUs: not below min(allowed CPUs, threads) = %u",
			      (int32_t)max, started + 1, n, bound);
		return;
	}
	if (converge_us < 0) {
		cidk__abi_say(r, CIDK__ABI_PASS,
			      "%u threads: mm_cids below %u (largest %d, %d distinct); alone again: still mm_cid %d after %llu ms (compactness is a goal, not a promise)",
			      started + 1, bound, (int32_t)max, __builtin_popcountll(seen),
			      (int32_t)now, (unsigned long long)(budget / 2000000u));
		return;
	}
	cidk__abi_say(r, CIDK__ABI_PASS,
		      "%u threads: mm_cids below %u (largest %d, %d distinct); alone again: mm_cid 0 after %lld us",
		      started + 1, bound, (int32_t)max, __builtin_popcountll(seen),
		      (long long)converge_us);
}
