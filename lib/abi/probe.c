/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/probe.c - the in-process probe of rseq's abort promise
 * (include/cidkit/abi.h), its process-wide cache, and the "probe" row of
 * `cidkit abi` (the same code, run in the check's child process).
 *
 * Two threads and a few words, each written by one side:
 *   A (started here)  announces attempt id in ready (and wakes B), enters
 *                     the wait section (cs.c), stores the id to pub inside
 *                     it, spins until rel == id, and commits by storing
 *                     the id to commit;
 *   B (the caller)    sleeps until ready holds a new id k, waits until pub
 *                     holds it too (A is inside), stores started = k,
 *                     sends membarrier's RSEQ command (with A on B's CPU,
 *                     B runs only while A is preempted: the preemption is
 *                     then the event), then stores rel = k.
 * A section that commits had seen rel == id inside: B's whole event ran
 * while A was inside it (A published the id there, and an aborted
 * attempt never reaches its commit), so the kernel did not abort it --
 * FAIL at once, no luck needed.  An aborted attempt counts for a pass only
 * if started == id when A looks (B's event had begun); an abort before
 * that (a stray preemption) is retried under a new id.  A spin that runs
 * out (B slow to run) is retried too.  Ids grow from 1, so a stale rel or
 * started never matches a new attempt.  Every wait of either side checks
 * the deadline: UNKNOWN, never a hang.
 *
 * Breaks (lib/abi/abi.h, for tests of the verdicts): unarmed (the
 * descriptor goes where the kernel never reads it: nothing can abort A,
 * which is what the broken kernels look like -- FAIL), idle-helper (B
 * makes no event, the control: A must commit -- FAIL), no-event (B never
 * releases A: a good kernel still aborts A, so pass; with unarmed as well,
 * UNKNOWN at the deadline), unmarked (B never stores started: every
 * abort, its own event's included, is stray -- UNKNOWN at the deadline,
 * which a pass that counted stray aborts would not be).  In the child: unarmed -- the signal promise
 * FAILs; idle-helper -- no timer, UNKNOWN; no-event -- no signal raised,
 * cpu_id_start is not rewritten and a legacy registration FAILs.
 *
 * Cold: runs once per process (or on request); each probe starts and
 * joins one thread.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cidkit/abi.h>

#include "abi/abi_impl.h"
#include "util/clock.h"


#define DEFAULT_BUDGET_NS 1000000000ull /* reached only when a thread cannot run */
#define MAX_BUDGET_NS 10000000000ull
#define DEFAULT_ROUNDS 2u
#define WAIT_SPINS (1ul << 16) /* turns of A's spin before it looks at the clock */

#if defined(__SANITIZE_THREAD__)
#define PROBE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PROBE_TSAN 1
#endif
#endif
#ifndef PROBE_TSAN
#define PROBE_TSAN 0
#endif

/* The words, each on its own line: A writes ready, pub and commit, B the rest. */
struct probe_run {
	_Alignas(64) uint32_t ready; /* A's next attempt id, before it enters (B sleeps on it) */
	_Alignas(64) uint32_t pub;
	_Alignas(64) uint32_t started;
	uint32_t rel;
	int stop; /* either side: the verdict is in, or the deadline passed */
	_Alignas(64) uint32_t commit;
	uint64_t deadline;
	unsigned int breaks, rounds;
	int b_cpu; /* where B (the caller) runs, or -1 */
	/* A's tallies and error (read by B after the join) */
	unsigned int attempts, in_event, stray, broken, broken_id;
	int a_err;
	/* B's */
	unsigned int events;
	int b_err;
};

static uint32_t load(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_SEQ_CST);
}

static int stopping(struct probe_run *p)
{
	return __atomic_load_n(&p->stop, __ATOMIC_ACQUIRE) ||
	       cidk__now_ns() >= p->deadline;
}

/*
 * A runs off B's CPU where it can: then B's membarrier is the event, which
 * takes microseconds; on B's CPU the event is a preemption, which takes a
 * scheduler slice.  A starts with the caller's affinity (a pinned caller
 * pins it too), so it widens its own to every CPU but B's; the kernel
 * keeps it inside the process's cpuset, and refuses (nothing changes)
 * when that leaves no CPU.  Only A's own affinity changes; A exits.
 */
static void off_b_cpu(int b_cpu)
{
	cpu_set_t s; /* 128 bytes */

	if (b_cpu < 0 || b_cpu >= CPU_SETSIZE)
		return;
	CPU_ZERO(&s);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (c != b_cpu)
			CPU_SET(c, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static void *side_a(void *arg)
{
	struct probe_run *p = arg;
	struct cidk__abi_area ar;
	struct cidk__abi_wait w;
	uint64_t unarmed = 0;
	uint32_t id = 0;
	int rc;

	off_b_cpu(p->b_cpu);
	rc = cidk__abi_area_get(&ar, 0);
	if (rc) {
		p->a_err = rc;
		goto out;
	}
	memset(&w, 0, sizeof(w));
	w.rseq_cs = p->breaks & CIDK_ABI_BREAK_UNARMED ? &unarmed : &ar.a->rseq_cs;
	w.pub = &p->pub;
	w.rel = &p->rel;
	w.commit = &p->commit;
	w.spins = WAIT_SPINS;
	while (!stopping(p)) {
		w.id = ++id;
		p->attempts++;
		/* wake B: a woken thread is scheduled promptly, a yielding one
		 * waits behind every runnable task (tens of ms on a busy CPU) */
		store(&p->ready, id);
		syscall(SYS_futex, &p->ready, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		rc = cidk__abi_cs_wait(&w);
		if (rc == 0) {
			p->broken++;
			p->broken_id = id;
			break;
		}
		if (rc < 0) {
			if (load(&p->started) == id) {
				if (++p->in_event >= p->rounds)
					break;
			} else {
				p->stray++;
			}
		}
	}
out:
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * B: one event per attempt A announces, until A is done or the deadline.
 * B yield-spins 2 ms for A to announce an attempt, then sleeps until it does
 * (a futex on ready, a millisecond at a time so that the deadline is
 * seen), then waits until A is inside
 * it (pub), spinning a little and then yielding (with one CPU, A needs
 * B off it).  An attempt that ended before B saw it inside is left:
 * A announces the next.
 */
static void side_b(struct probe_run *p)
{
	const struct timespec ms = { 0, 1000000 };
	uint64_t idle_end = cidk__now_ns() + 2000000;
	uint32_t last = 0;

	while (!stopping(p)) {
		uint32_t k = load(&p->ready);
		uint64_t spin_end;

		if (k == last) {
			/* yield-spin for a while first: a sleeping B wakes
			 * slowly on an idle machine (the CPU's idle exit, about
			 * a millisecond in a VM), a spinning one not */
			if (cidk__now_ns() < idle_end) {
				sched_yield();
				continue;
			}
			syscall(SYS_futex, &p->ready, FUTEX_WAIT_PRIVATE, last, &ms, NULL, 0);
			continue;
		}
		spin_end = cidk__now_ns() + 20000;
		while (load(&p->pub) != k && load(&p->ready) == k && !stopping(p))
			if (cidk__now_ns() > spin_end)
				sched_yield();
		if (load(&p->pub) != k) {
			last = k; /* gone by, or stopping */
			continue;
		}
		if (!(p->breaks & CIDK_ABI_BREAK_UNMARKED))
			store(&p->started, k);
		if (!(p->breaks & CIDK_ABI_BREAK_IDLE_HELPER) &&
		    syscall(__NR_membarrier, CIDK_ABI_MB_PRIVATE_EXPEDITED_RSEQ, 0, 0)) {
			p->b_err = errno;
			break;
		}
		p->events++;
		if (!(p->breaks & CIDK_ABI_BREAK_NO_EVENT))
			store(&p->rel, k);
		last = k;
		idle_end = cidk__now_ns() + 2000000;
	}
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
}

static void say(struct cidk_abi_promise_result *r, enum cidk_abi_answer v,
		const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(struct cidk_abi_promise_result *r, enum cidk_abi_answer v,
		const char *fmt, ...)
{
	va_list ap;

	r->verdict = v;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}


/* A run's counts as a promise's evidence. */
static void tally(const struct probe_run *p, struct cidk_abi_promise_result *r)
{
	r->attempts = p->attempts;
	r->aborts_in_event = p->in_event;
	r->stray_aborts = p->stray;
	r->broken = p->broken;
	r->events = p->events;
}

/*
 * A run's verdict, for either promise: @event is what ran inside the
 * sections ("membarrier's RSEQ command", "a signal handler").
 */
static void verdict(const struct probe_run *p, uint64_t budget, const char *event,
		    struct cidk_abi_promise_result *r)
{
	struct utsname u;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	tally(p, r);
	if (p->broken)
		say(r, CIDK_ABI_FAIL,
		    "a critical section committed after %s had run inside it (attempt %u): Linux %s %s does not abort interrupted sections",
		    event, p->broken_id, u.release, u.machine);
	else if (p->a_err)
		say(r, CIDK_ABI_UNKNOWN, "no rseq area for the probe's section: %s",
		    strerror(-p->a_err));
	else if (p->b_err)
		say(r, CIDK_ABI_UNKNOWN, "membarrier's RSEQ command failed: %s",
		    strerror(p->b_err));
	else if (p->in_event >= p->rounds)
		say(r, CIDK_ABI_PASS,
		    "%u of %u sections interrupted by %s were aborted (%u stray aborts retried)",
		    p->in_event, p->in_event, event, p->stray);
	else
		say(r, CIDK_ABI_UNKNOWN,
		    "no answer within %llu us: %u attempts, %u of %u aborts during an event, %u events",
		    (unsigned long long)(budget / 1000), p->attempts, p->in_event,
		    p->rounds, p->events);
}

/* The abort promise: A and B, as above. */
static int probe_abort(const struct cidk_abi_probe_opts *opts, unsigned int breaks,
		       uint64_t budget, struct cidk_abi_promise_result *r)
{
	uint64_t t0 = cidk__now_ns();
	struct probe_run *p;
	pthread_attr_t attr;
	sigset_t all;
	pthread_t th;
	int rc;

	rc = cidk__abi_membarrier_rseq();
	if (rc) {
		say(r, CIDK_ABI_UNKNOWN, "membarrier's RSEQ command is not available: %s",
		    rc == -ENOSYS ? "Linux < 5.10, or membarrier off" : strerror(-rc));
		rc = 0;
		goto done;
	}
	/* aligned words, off the caller's stack (A reads them after B returns) */
	p = aligned_alloc(64, sizeof(*p));
	if (!p) {
		say(r, CIDK_ABI_UNKNOWN, "out of memory");
		rc = -ENOMEM;
		goto done;
	}
	memset(p, 0, sizeof(*p));
	p->breaks = breaks;
	p->rounds = opts->rounds ? opts->rounds : DEFAULT_ROUNDS;
	p->deadline = t0 + budget;
	p->b_cpu = sched_getcpu();
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	/*
	 * A blocks every signal from its first instruction: the process's
	 * signals go to the caller's threads as before, and none can abort
	 * A's sections (a kernel that aborts on signals only -- arm64 7.0.13
	 * -- must not pass).
	 */
	sigfillset(&all);
	pthread_attr_setsigmask_np(&attr, &all);
	rc = -pthread_create(&th, &attr, side_a, p);
	pthread_attr_destroy(&attr);
	if (rc) {
		say(r, CIDK_ABI_UNKNOWN, "cannot start the probe thread: %s", strerror(-rc));
		free(p);
		goto done;
	}
	side_b(p);
	pthread_join(th, NULL);
	verdict(p, budget, "membarrier's RSEQ command", r);
	free(p);
done:
	r->ns = cidk__now_ns() - t0;
	return rc;
}

/* ---- signal and cpu_id_start: in a child -------------------------------- */

#define CIS_TRIALS 4
#define CIS_SENTINEL 0xfffffff0u

/* What the child reports (a shared page). */
struct child_report {
	struct probe_run sig;  /* attempts, in_event, stray, broken, events, a_err */
	int len;               /* the registration's length, or -errno */
	unsigned int cis_trials, cis_rewritten;
	int done;
};

/*
 * The handler releases the attempt the section published from inside
 * (sig_pub): one that runs outside a section (before the next one stores
 * its id) releases an old id, which no section waits for.
 */
static volatile uint32_t sig_rel, sig_pub;

static void on_alarm(int sig)
{
	(void)sig;
	sig_rel = sig_pub;
}

/*
 * The child: its only thread is a copy of the caller's, rseq registration
 * included (fork keeps it).  Signal: the wait section publishes its id
 * and spins (about 2 ms) until a SIGALRM handler (an interval timer,
 * 100 us) copies the published id to sig_rel; a commit means the handler
 * ran inside the section and the kernel did not abort it.  cpu_id_start: after raise(SIGALRM) a legacy registration
 * must find it rewritten.  Async-signal-safe calls only (the caller may
 * have other threads).
 */
static void child(struct child_report *c, unsigned int breaks, unsigned int rounds,
		  uint64_t deadline)
{
	struct itimerval it = { { 0, 0 }, { 0, 100 } }, off = { { 0, 0 }, { 0, 0 } };
	struct cidk__abi_area ar;
	struct cidk__abi_wait w;
	struct sigaction sa;
	uint32_t commit = 0, id = 0;
	uint64_t unarmed = 0;
	sigset_t set;
	int rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	rc = cidk__abi_area_get(&ar, 0);
	if (rc) {
		c->sig.a_err = rc;
		c->len = rc;
		return;
	}
	memset(&w, 0, sizeof(w));
	w.rseq_cs = breaks & CIDK_ABI_BREAK_UNARMED ? &unarmed : &ar.a->rseq_cs;
	w.pub = &sig_pub;
	w.rel = &sig_rel;
	w.commit = &commit;
	w.spins = WAIT_SPINS << 4;
	while (c->sig.in_event < rounds && cidk__now_ns() < deadline) {
		w.id = ++id;
		c->sig.attempts++;
		if (!(breaks & CIDK_ABI_BREAK_IDLE_HELPER)) {
			setitimer(ITIMER_REAL, &it, NULL);
			c->sig.events++;
		}
		rc = cidk__abi_cs_wait(&w);
		setitimer(ITIMER_REAL, &off, NULL);
		if (rc == 0) {
			c->sig.broken++;
			c->sig.broken_id = w.id;
			break;
		}
		if (rc < 0) {
			if (sig_rel == w.id)
				c->sig.in_event++;
			else
				c->sig.stray++;
		}
	}
	c->len = cidk__abi_area_len(ar.a);
	if (c->len == 32)
		for (unsigned int i = 0; i < CIS_TRIALS; i++) {
			ar.a->cpu_id_start = CIS_SENTINEL;
			if (!(breaks & CIDK_ABI_BREAK_NO_EVENT))
				raise(SIGALRM);
			c->cis_trials++;
			c->cis_rewritten += ar.a->cpu_id_start == ar.a->cpu_id;
		}
	c->done = 1;
}

static void probe_in_child(const struct cidk_abi_probe_opts *opts, unsigned int breaks,
			   uint64_t budget, struct cidk_abi_probe_result *out)
{
	struct cidk_abi_promise_result *rs = &out->promise[CIDK_ABI_SIGNAL];
	struct cidk_abi_promise_result *rc = &out->promise[CIDK_ABI_CPU_ID_START];
	uint64_t t0 = cidk__now_ns(), deadline = t0 + budget;
	struct timespec nap = { 0, 1000000 };
	struct child_report *c;
	int status = 0, reaped = 0;
	char died[64] = "";
	pid_t pid;

	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED) {
		say(rs, CIDK_ABI_UNKNOWN, "no shared page: %s", strerror(errno));
		say(rc, CIDK_ABI_UNKNOWN, "no shared page: %s", strerror(errno));
		return;
	}
	memset(c, 0, sizeof(*c));
	pid = fork();
	if (pid == 0) {
		child(c, breaks, opts->rounds ? opts->rounds : DEFAULT_ROUNDS, deadline);
		_exit(0);
	}
	/*
	 * Wait without waking up: a parent that polled would preempt the
	 * child on a shared CPU and abort its sections before the signal.
	 * A pidfd (Linux 5.3+) polled to the deadline plus a grace for the
	 * child's exit; without one, naps of a millisecond.
	 */
	if (pid > 0) {
		int fd = (int)syscall(SYS_pidfd_open, pid, 0);
		uint64_t end = deadline + 20 * 1000000ull;

		while (!reaped) {
			pid_t w = waitpid(pid, &status, WNOHANG);
			uint64_t now = cidk__now_ns();

			if (w == pid || (w < 0 && errno != EINTR)) {
				reaped = w == pid;
				break;
			}
			if (now > end) {
				kill(pid, SIGKILL);
				reaped = waitpid(pid, &status, 0) == pid;
				snprintf(died, sizeof(died), "the child did not finish in time");
				break;
			}
			if (fd >= 0) {
				struct pollfd pf = { fd, POLLIN, 0 };

				poll(&pf, 1, (int)((end - now) / 1000000u) + 1);
			} else {
				nanosleep(&nap, NULL);
			}
		}
		if (fd >= 0)
			close(fd);
	}
	if (pid < 0)
		snprintf(died, sizeof(died), "fork: %s", strerror(errno));
	else if (!reaped)
		snprintf(died, sizeof(died), "the child was reaped by someone else");
	else if (!died[0] && WIFSIGNALED(status))
		snprintf(died, sizeof(died), "the child was killed by signal %d", WTERMSIG(status));
	if (died[0] || !c->done) {
		say(rs, CIDK_ABI_UNKNOWN, "%s", died[0] ? died : "the child stopped early");
		say(rc, CIDK_ABI_UNKNOWN, "%s", died[0] ? died : "the child stopped early");
	} else {
		struct probe_run *sg = &c->sig;

		sg->rounds = opts->rounds ? opts->rounds : DEFAULT_ROUNDS;
		verdict(sg, budget, "a signal handler", rs);
		rc->attempts = c->cis_trials;
		rc->events = c->cis_trials;
		rc->broken = c->cis_trials - c->cis_rewritten;
		if (c->len < 0)
			say(rc, CIDK_ABI_UNKNOWN, "the registration's length is unknown: %s",
			    strerror(-c->len));
		else if (c->len != 32)
			say(rc, CIDK_ABI_UNKNOWN,
			    "a %d-byte (V2) registration: the kernel may skip the rewrite, nothing to ask",
			    c->len);
		else if (c->cis_rewritten < c->cis_trials)
			say(rc, CIDK_ABI_FAIL,
			    "legacy (32-byte) registration: cpu_id_start rewritten after %u of %u signals, must be every one",
			    c->cis_rewritten, c->cis_trials);
		else
			say(rc, CIDK_ABI_PASS,
			    "legacy (32-byte) registration: cpu_id_start rewritten after %u of %u signals",
			    c->cis_rewritten, c->cis_trials);
	}
	munmap(c, sizeof(*c));
	rs->ns = rc->ns = cidk__now_ns() - t0;
}

int cidk__abi_probe_run(const struct cidk_abi_probe_opts *opts,
			unsigned int breaks, struct cidk_abi_probe_result *out)
{
	static const struct cidk_abi_probe_opts defaults;
	unsigned int ask;
	uint64_t t0 = cidk__now_ns(), budget;
	int rc = 0;

	if (!out)
		return -EINVAL;
	if (!opts)
		opts = &defaults;
	if (opts->budget_ns > MAX_BUDGET_NS ||
	    opts->promises >> CIDK_ABI_NR_PROMISES)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	ask = opts->promises ? opts->promises : CIDK_ABI_ASK(CIDK_ABI_ABORT);
	out->asked = ask;
	{
		int cpus[CIDK_ABI_MAX_CPUS];

		out->cpus = cidk__abi_allowed(cpus, CIDK_ABI_MAX_CPUS);
	}
	budget = opts->budget_ns ? opts->budget_ns : DEFAULT_BUDGET_NS;
	for (unsigned int i = 0; i < CIDK_ABI_NR_PROMISES; i++)
		say(&out->promise[i], CIDK_ABI_UNKNOWN, "not asked");
	if (PROBE_TSAN || !cidk__abi_cs_supported()) {
		for (unsigned int i = 0; i < CIDK_ABI_NR_PROMISES; i++)
			if (ask & CIDK_ABI_ASK(i))
				say(&out->promise[i], CIDK_ABI_UNKNOWN, PROBE_TSAN ?
				    "ThreadSanitizer build: it cannot see inside critical sections" :
				    "no critical sections for this architecture");
		rc = -ENOSYS;
		goto done;
	}
	if (ask & CIDK_ABI_ASK(CIDK_ABI_ABORT))
		rc = probe_abort(opts, breaks, budget, &out->promise[CIDK_ABI_ABORT]);
	if (!rc && (ask & (CIDK_ABI_ASK(CIDK_ABI_SIGNAL) | CIDK_ABI_ASK(CIDK_ABI_CPU_ID_START)))) {
		probe_in_child(opts, breaks, budget, out);
		for (unsigned int i = CIDK_ABI_SIGNAL; i < CIDK_ABI_NR_PROMISES; i++)
			if (!(ask & CIDK_ABI_ASK(i)))
				say(&out->promise[i], CIDK_ABI_UNKNOWN, "not asked");
	}
done:
	out->ns = cidk__now_ns() - t0;
	return rc;
}

/* ---- the process's answer ---------------------------------------------- */

/* Breaks of the process's probe, for tests that link the library statically. */
unsigned int cidk__abi_probe_cached_breaks;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cidk_abi_probe_result cache;
static int cache_rc, cached;

void cidk__abi_probe_lock(void)
{
	pthread_mutex_lock(&cache_lock);
}

void cidk__abi_probe_unlock(void)
{
	pthread_mutex_unlock(&cache_lock);
}

int cidk_abi_probe(const struct cidk_abi_probe_opts *opts,
		   struct cidk_abi_probe_result *out, int refresh)
{
	int rc = cidk__abi_probe_run(opts, 0, out);

	if (refresh && (rc == 0 || rc == -ENOSYS)) {
		pthread_mutex_lock(&cache_lock);
		cache = *out;
		cache_rc = rc;
		cached = 1;
		pthread_mutex_unlock(&cache_lock);
	}
	return rc;
}

int cidk_abi_probe_cached(struct cidk_abi_probe_result *out)
{
	int rc;

	if (!out)
		return -EINVAL;
	pthread_mutex_lock(&cache_lock);
	if (!cached) {
		cache_rc = cidk__abi_probe_run(NULL, cidk__abi_probe_cached_breaks, &cache);
		cached = 1;
	}
	*out = cache;
	rc = cache_rc;
	pthread_mutex_unlock(&cache_lock);
	return rc;
}

const char *cidk_abi_promise_name(enum cidk_abi_promise p)
{
	static const char *const names[] = { "abort", "signal", "cpu-id-start" };

	return (unsigned int)p < CIDK_ABI_NR_PROMISES ? names[p] : NULL;
}

const char *cidk_abi_answer_name(enum cidk_abi_answer a)
{
	return a == CIDK_ABI_PASS ? "pass" : a == CIDK_ABI_FAIL ? "FAIL" : "unknown";
}

/* ---- `cidkit abi --only probe`: the same probe in a check's child ------- */

void cidk__abi_check_probe(const struct cidk__abi_opts *o,
			   struct cidk__abi_result *res)
{
	struct cidk_abi_probe_opts po = { 0, 0, 0 };
	struct cidk_abi_probe_result pr;
	const struct cidk_abi_promise_result *r = &pr.promise[CIDK_ABI_ABORT];
	static const enum cidk__abi_verdict as[] = {
		[CIDK_ABI_UNKNOWN] = CIDK__ABI_NA,
		[CIDK_ABI_PASS] = CIDK__ABI_PASS,
		[CIDK_ABI_FAIL] = CIDK__ABI_FAIL,
	};

	/* the row's budget is the probe's, capped at the probe's own maximum */
	po.budget_ns = o->seconds >= 10 ? MAX_BUDGET_NS : (uint64_t)(o->seconds * 1e9);
	cidk__abi_probe_run(&po, o->breaks, &pr);
	cidk__abi_ev(res, "sections", r->attempts);
	cidk__abi_ev(res, "aborts_in_event", r->aborts_in_event);
	cidk__abi_ev(res, "stray_aborts", r->stray_aborts);
	cidk__abi_ev(res, "broken", r->broken);
	cidk__abi_ev(res, "events", r->events);
	cidk__abi_ev(res, "cpus", pr.cpus);
	cidk__abi_ev(res, "us", (int64_t)(r->ns / 1000));
	cidk__abi_say(res, as[r->verdict], "%s", r->why);
}
