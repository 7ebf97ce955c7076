/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/check_abort.c - "abort-preempt", "abort-migrate", "abort-signal"
 * and "membarrier-rseq": an event inside a critical section must abort it.
 *
 * One driver, four events.  The victim (the check's main thread) runs the
 * section of cs.c over and over; a helper thread makes the event happen:
 *   preempt    helper pinned to the victim's CPU, incrementing a word the
 *              section watches: it can only run while the victim is
 *              preempted, so a committed section that saw the word change
 *              was preempted and not aborted (the April 2026 arm64 report);
 *   migrate    helper moving the victim between allowed CPUs; the section
 *              watches the area's cpu_id, which the kernel rewrites on the
 *              way back to user space: a commit that saw it change was
 *              migrated and not aborted (needs two allowed CPUs);
 *   signal     helper sending SIGUSR1 to the victim; the handler counts;
 *              a commit that saw the count change ran a handler inside;
 *   membarrier helper: gen = g; membarrier(PRIVATE_EXPEDITED_RSEQ); done =
 *              g.  The section reads gen first and done last: done_last >
 *              gen_first means a whole membarrier began after the section
 *              did and returned before it ended, so its IPI found the
 *              section running and had to abort it (Linux >= 5.10).
 * Also, every run: the counter the commit increments must equal the number
 * of commits (a store that survived an abort shows as a surplus).
 *
 * Bounded by count and time (the check's budget); reports attempts,
 * aborts, commits, commits after a change, the helper's events, and
 * aborts_in_event: the aborted attempts across which the watched words
 * moved (the event happened during that attempt).  A pass needs the
 * helper's events, at least one abort, and at least one abort during an
 * event: an abort with nothing to do with the event (a stray preemption
 * by another task) proves nothing about it, and a run with none is n/a.
 *
 * Breaks of this file (for tests of the verdicts themselves): unarmed
 * (the section's descriptor is stored into a word the kernel never reads,
 * so nothing can abort it: what a kernel that forgets the event looks like
 * from user space) and idle-helper (the helper goes through its motions
 * without its event: it pins the thread to the CPU it is already on,
 * sends signal 0, asks membarrier a query, or runs without writing).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "abi/abi_impl.h"
#include "util/clock.h"


#define MAX_ATTEMPTS 10000000ul

enum mode { PREEMPT, MIGRATE, SIGNAL, MEMBARRIER };

struct abort_run {
	enum mode mode;
	pid_t victim;
	const int *cpus;
	unsigned int ncpus;
	uint32_t gen, done; /* the watched words (preempt: gen) */
	int stop;
	int idle;      /* CIDK_ABI_BREAK_IDLE_HELPER */
	uint64_t events;
	int err;
};

static volatile uint32_t signals_seen;

static void on_signal(int sig)
{
	(void)sig;
	signals_seen = signals_seen + 1;
}

static void nap(long ns)
{
	struct timespec ts = { 0, ns };

	nanosleep(&ts, NULL);
}

static int stopped(struct abort_run *a)
{
	return __atomic_load_n(&a->stop, __ATOMIC_RELAXED);
}

static void *helper(void *arg)
{
	struct abort_run *a = arg;
	unsigned int k = 0;

	switch (a->mode) {
	case PREEMPT:
		if (cidk__abi_pin(0, a->cpus[0]))
			a->err = errno;
		while (!stopped(a)) {
			if (!a->idle)
				__atomic_store_n(&a->gen, a->gen + 1, __ATOMIC_RELAXED);
			a->events++;
		}
		break;
	case MIGRATE:
		while (!stopped(a)) {
			k++;
			if (!cidk__abi_pin(a->victim, a->cpus[a->idle ? 0 : k % a->ncpus]))
				a->events++;
			nap(300000);
		}
		break;
	case SIGNAL:
		cidk__abi_pin(0, a->cpus[1 % a->ncpus]);
		while (!stopped(a)) {
			if (!syscall(SYS_tgkill, getpid(), a->victim, a->idle ? 0 : SIGUSR1))
				a->events++;
			nap(100000);
		}
		break;
	case MEMBARRIER:
		cidk__abi_pin(0, a->cpus[1 % a->ncpus]);
		while (!stopped(a)) {
			uint32_t g = a->gen + 1;

			if (a->idle) {
				syscall(__NR_membarrier, CIDK_ABI_MB_QUERY, 0, 0);
				a->events++;
				nap(20000);
				continue;
			}
			__atomic_store_n(&a->gen, g, __ATOMIC_SEQ_CST);
			if (syscall(__NR_membarrier, CIDK_ABI_MB_PRIVATE_EXPEDITED_RSEQ, 0, 0)) {
				a->err = errno;
				break;
			}
			__atomic_store_n(&a->done, g, __ATOMIC_SEQ_CST);
			a->events++;
			nap(20000);
		}
		break;
	}
	return NULL;
}

/* Spins for a section of about @target_ns (measured on committed runs). */
static unsigned long calibrate(struct cidk__abi_cs *cs, uint64_t target_ns)
{
	uint64_t best = UINT64_MAX;
	int32_t d;

	cs->spins = 20000;
	for (int i = 0; i < 9; i++) {
		uint64_t t = cidk__now_ns();

		if (cidk__abi_cs_run(cs, &d) == 0) {
			t = cidk__now_ns() - t;
			if (t < best)
				best = t;
		}
	}
	if (best == UINT64_MAX || !best)
		return 20000;
	best = 20000 * target_ns / best;
	return best < 1000 ? 1000 : best > 100000000 ? 100000000 : (unsigned long)best;
}

static const char *const event_name[] = {
	"preemption on the same CPU", "migration", "signal", "membarrier RSEQ IPI",
};

static void run(enum mode mode, const struct cidk__abi_opts *o,
		struct cidk__abi_result *r)
{
	static int cpus[CIDK_ABI_MAX_CPUS];
	static struct abort_run a;
	unsigned int n = cidk__abi_allowed(cpus, CIDK_ABI_MAX_CPUS);
	uint64_t count = 0, attempts = 0, aborts = 0, commits = 0, bad = 0;
	uint64_t in_event = 0, unarmed_cs = 0;
	uint64_t t0, deadline, budget = (uint64_t)(o->seconds * 1e9);
	struct cidk__abi_area ar;
	struct cidk__abi_cs cs;
	pthread_t th;
	int32_t d;
	int rc;

	memset(&a, 0, sizeof(a));
	a.mode = mode;
	a.victim = cidk__abi_gettid();
	a.cpus = cpus;
	a.ncpus = n;
	a.idle = !!(o->breaks & CIDK_ABI_BREAK_IDLE_HELPER);
	if (!n) {
		cidk__abi_say(r, CIDK__ABI_NA, "cannot read the allowed CPUs");
		return;
	}
	if (mode == MIGRATE && n < 2) {
		cidk__abi_say(r, CIDK__ABI_NA, "only one CPU allowed (%d): nowhere to migrate to",
			      cpus[0]);
		return;
	}
	if (mode == MEMBARRIER) {
		rc = cidk__abi_membarrier_rseq();
		if (rc == -ENOSYS) {
			cidk__abi_say(r, CIDK__ABI_NA,
				      "membarrier has no PRIVATE_EXPEDITED_RSEQ command here (Linux < 5.10, or membarrier off)");
			return;
		}
		if (rc) {
			cidk__abi_say(r, CIDK__ABI_NA, "membarrier RSEQ query or registration refused: %s",
				      strerror(-rc));
			return;
		}
	}
	if (mode == SIGNAL) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR1, &sa, NULL);
	}
	rc = cidk__abi_area_get(&ar, o->breaks);
	if (rc) {
		cidk__abi_say(r, CIDK__ABI_NA, "no rseq area: %s", strerror(-rc));
		return;
	}
	if (cidk__abi_pin(0, cpus[0])) {
		cidk__abi_say(r, CIDK__ABI_NA, "cannot pin to CPU %d", cpus[0]);
		return;
	}
	memset(&cs, 0, sizeof(cs));
	/* unarmed: the descriptor goes where the kernel never looks */
	cs.rseq_cs = o->breaks & CIDK_ABI_BREAK_UNARMED ? &unarmed_cs : &ar.a->rseq_cs;
	cs.count = &count;
	cs.breaks = o->breaks;
	switch (mode) {
	case PREEMPT:
	case MEMBARRIER:
		cs.first = &a.gen;
		cs.last = mode == PREEMPT ? &a.gen : &a.done;
		break;
	case MIGRATE:
		cs.first = cs.last = &ar.a->cpu_id;
		break;
	case SIGNAL:
		cs.first = cs.last = &signals_seen;
		break;
	}
	/*
	 * Before the helper starts: a quiet section of ~50 us; 500 us for
	 * membarrier, where a whole system call must fit inside one.
	 */
	cs.spins = calibrate(&cs, mode == MEMBARRIER ? 500000 : 50000);
	count = 0;
	if (pthread_create(&th, NULL, helper, &a)) {
		cidk__abi_say(r, CIDK__ABI_NA, "cannot start the helper thread");
		return;
	}
	t0 = cidk__now_ns();
	deadline = t0 + budget;
	while (attempts < MAX_ATTEMPTS && cidk__now_ns() < deadline) {
		uint32_t w1 = *cs.first, w2 = *cs.last;

		attempts++;
		if (cidk__abi_cs_run(&cs, &d)) {
			aborts++;
			/* did the event happen during this attempt? */
			in_event += *cs.first != w1 || *cs.last != w2;
			continue;
		}
		commits++;
		if (mode == MEMBARRIER ? d > 0 : d != 0)
			bad++;
	}
	__atomic_store_n(&a.stop, 1, __ATOMIC_RELAXED);
	if (mode == MIGRATE)
		cidk__abi_pin(0, cpus[0]); /* the helper may pin us once more */
	pthread_join(th, NULL);
	cidk__abi_unpin(cpus, n);
	cidk__abi_ev(r, "attempts", (int64_t)attempts);
	cidk__abi_ev(r, "aborts", (int64_t)aborts);
	cidk__abi_ev(r, "commits", (int64_t)commits);
	cidk__abi_ev(r, "commits_after_change", (int64_t)bad);
	cidk__abi_ev(r, "counter", (int64_t)count);
	cidk__abi_ev(r, "events", (int64_t)a.events);
	cidk__abi_ev(r, "aborts_in_event", (int64_t)in_event);
	cidk__abi_ev(r, "spins", (int64_t)cs.spins);
	cidk__abi_ev(r, "loop_ms", (int64_t)((cidk__now_ns() - t0) / 1000000u));
	if (a.err) {
		cidk__abi_say(r, CIDK__ABI_NA, "the helper failed: %s", strerror(a.err));
		return;
	}
	if (bad) {
		cidk__abi_say(r, CIDK__ABI_FAIL,
			      "%llu of %llu commits saw the watched value change inside the section: a %s did not abort it",
			      (unsigned long long)bad, (unsigned long long)commits,
			      event_name[mode]);
		return;
	}
	if (count != commits) {
		cidk__abi_say(r, CIDK__ABI_FAIL,
			      "the commit counter reads %llu after %llu commits: a store inside the section survived an abort",
			      (unsigned long long)count, (unsigned long long)commits);
		return;
	}
	/*
	 * Not a pass without proof that the event hit sections: the helper's
	 * events, aborts, and aborts during an event (each one alone can be
	 * there while the event never landed: see the breaks above).
	 */
	if (!a.events || !aborts || !in_event) {
		cidk__abi_say(r, CIDK__ABI_NA,
			      "no %s landed inside a section in %llu attempts (%llu events, %llu aborts, %llu during an event)",
			      event_name[mode], (unsigned long long)attempts,
			      (unsigned long long)a.events, (unsigned long long)aborts,
			      (unsigned long long)in_event);
		return;
	}
	cidk__abi_say(r, CIDK__ABI_PASS,
		      "%llu of %llu sections aborted (%llu during a %s), no commit saw one",
		      (unsigned long long)aborts, (unsigned long long)attempts,
		      (unsigned long long)in_event, event_name[mode]);
}

void cidk__abi_check_abort_preempt(const struct cidk__abi_opts *o,
				   struct cidk__abi_result *r)
{
	run(PREEMPT, o, r);
}

void cidk__abi_check_abort_migrate(const struct cidk__abi_opts *o,
				   struct cidk__abi_result *r)
{
	run(MIGRATE, o, r);
}

void cidk__abi_check_abort_signal(const struct cidk__abi_opts *o,
				  struct cidk__abi_result *r)
{
	run(SIGNAL, o, r);
}

void cidk__abi_check_membarrier(const struct cidk__abi_opts *o,
				struct cidk__abi_result *r)
{
	run(MEMBARRIER, o, r);
}
