/* SPDX-License-Identifier: MIT */
/*
 * The engine of `cidkit stress`: see stress.h for the shapes and
 * cmd_stress.c for the invariants.  Threads: the main thread runs the
 * phases; a watchdog thread checks progress (and prints the heartbeat);
 * per workload two forker threads and an affinity thread; the workers.
 * All of them and the CLONE_VM children are counted as the mm's users.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cidkit/percpu.h>
#include <cidkit/pool.h>
#include <cidkit/rseq.h>

#include "stress.h"
#include "cidkit_lab.h"
#include "prng.h"

#define BURST 64u             /* adds and reads between progress marks */
#define CHILD_STACK (64u * 1024u)
#define MAX_CHILDREN 4u

struct worker {
	pthread_t tid;
	unsigned int id;
	atomic_int os_tid;
	atomic_bool stop, alive;
	atomic_uint_fast64_t progress;
	atomic_int last_cid;
	uint64_t adds, reads;
	int max_cid;
	unsigned int gate; /* runs once S.release reaches it */
	bool busy;         /* no sleeps (vfork-repro) */
};

static struct {
	struct stress_run *r;
	struct cidk_pool *pool;
	cidk_pool_handle h;
	bool uniq, has_cid;
	atomic_uint users, users_hi;
	atomic_bool done;
	atomic_uint phase, release;
	atomic_ulong forks, affinity_changes;
	uint64_t t0;
	cpu_set_t allowed;
	int cpus[CPU_SETSIZE];
	struct worker w[STRESS_MAX_THREADS];
	unsigned int tight_windows, stale_windows;
	bool percpu_maybe; /* users went above the CPUs, not yet below half */
	pthread_mutex_t lock; /* the first violation's text */
	bool failed[INV_N];
} S;

static double now_s(void)
{
	return (double)(cidk__now_ns() - S.t0) / 1e9;
}

static void sleep_us(uint64_t us)
{
	struct timespec ts = { (time_t)(us / 1000000u), (long)(us % 1000000u) * 1000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The first failure of invariant @i, in words. */
static void violation(enum stress_inv i, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void violation(enum stress_inv i, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&S.lock);
	if (!S.failed[i]) {
		S.failed[i] = true;
		va_start(ap, fmt);
		vsnprintf(S.r->res.why[i], sizeof(S.r->res.why[i]), fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&S.lock);
}

static unsigned int bound_now(unsigned int users)
{
	return users < S.r->allowed ? users : S.r->allowed;
}

/* One add to this thread's mm_cid copy inside an rseq critical section. */
static int add_one(void)
{
#if CIDK_PERCPU_HAVE_RSEQ
	size_t stride = S.r->brk == BREAK_UNIQUENESS ? 0 : S.pool->stride;

	for (;;) {
		int rc = cidk__percpu_cs_add((char *)S.pool->base + S.h, stride,
					     S.pool->max_cids, 1,
					     cidk_percpu_rseq_off, 1);

		if (rc == -1)
			cidk_percpu_count_abort();
		else if (rc != -ERANGE || (rc = cidk_percpu_range_slow()))
			return rc;
	}
#else
	return -ENOSYS;
#endif
}

static void read_cid(struct worker *w)
{
	int real = cidk_rseq_mm_cid();
	int cid = real + (S.r->brk == BREAK_BOUND); /* planted: the check sees + 1 */
	unsigned int users = atomic_load_explicit(&S.users_hi, memory_order_acquire);
	unsigned int b = bound_now(users);

	w->reads++;
	if (real > w->max_cid)
		w->max_cid = real;
	atomic_store_explicit(&w->last_cid, real, memory_order_relaxed);
	if (cid < 0 || (unsigned int)cid >= b)
		violation(INV_BOUND, "worker %u read mm_cid %d >= min(%u CPUs, %u users) at %.2f s",
			  w->id, cid, S.r->allowed, users, now_s());
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct cidk__prng rng;

	atomic_store(&w->os_tid, (int)syscall(SYS_gettid));
	cidk__prng_seed(&rng, S.r->seed * 1000003u + w->id);
	while (atomic_load_explicit(&S.release, memory_order_acquire) < w->gate)
		; /* the barrier: a phase's extra workers start together */
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		for (unsigned int i = 0; i < BURST; i++) {
			if (S.uniq && add_one() == 0)
				w->adds++;
			if (S.has_cid)
				read_cid(w);
		}
		atomic_fetch_add_explicit(&w->progress, 1, memory_order_relaxed);
		if (S.r->brk == BREAK_PROGRESS && w->id == 0)
			while (!atomic_load(&w->stop))
				sleep_us(10000); /* stops advancing */
		if (!w->busy && cidk__prng_below(&rng, 4) == 0)
			sleep_us(cidk__prng_below(&rng, 200));
	}
	return NULL;
}

static void users_add(void)
{
	unsigned int u = atomic_fetch_add(&S.users, 1) + 1;

	atomic_fetch_add(&S.users_hi, 1); /* before the task can exist */
	if (u > S.r->res.max_users)
		S.r->res.max_users = u;
}

static int start_worker(unsigned int id, bool busy, unsigned int gate)
{
	struct worker *w = &S.w[id];
	int rc;

	/* field by field: the watchdog and the affinity thread read the
	 * atomics of every slot at any time */
	w->id = id;
	w->busy = busy;
	w->gate = gate;
	w->adds = w->reads = 0;
	w->max_cid = -1;
	atomic_store(&w->os_tid, 0);
	atomic_store(&w->stop, false);
	atomic_store(&w->progress, 0);
	atomic_store(&w->last_cid, -1);
	users_add();
	atomic_store(&w->alive, true);
	rc = pthread_create(&w->tid, NULL, worker_main, w);
	if (rc) {
		atomic_store(&w->alive, false);
		atomic_fetch_sub(&S.users, 1);
		return -rc;
	}
	S.r->res.threads++;
	return 0;
}

static void stop_worker(unsigned int id)
{
	struct worker *w = &S.w[id];

	atomic_store(&w->stop, true);
	pthread_join(w->tid, NULL);
	atomic_store(&w->alive, false);
	atomic_fetch_sub(&S.users, 1); /* users_hi: after the compaction window */
	S.r->res.reads += w->reads;
	S.r->res.adds += w->adds;
	if (w->max_cid > S.r->res.max_cid)
		S.r->res.max_cid = w->max_cid;
}

/*
 * A CLONE_VM child (not a thread): for its lifetime, runs 2 ms, sleeps
 * 0.1 ms (so that it holds a CID when a crossing comes and is scheduled
 * in again and again, whatever mode the mm's CIDs are in by then), then
 * exits.  Raw system calls only: it shares the creating thread's TLS.
 */
static uint64_t raw_now_ns(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int child_main(void *arg)
{
	struct timespec nap = { 0, 100000L };
	uint64_t end = raw_now_ns() + (uint64_t)(uintptr_t)arg * 1000000u;
	volatile unsigned long spin = 0;

	for (uint64_t t = raw_now_ns(); t < end; t = raw_now_ns()) {
		uint64_t run_end = t + 2000000u;

		while (raw_now_ns() < run_end)
			for (int i = 0; i < 1000; i++)
				spin++;
		syscall(SYS_nanosleep, &nap, NULL);
	}
	return 0;
}

struct child {
	pid_t pid;
	void *stack;
};

/* vfork-repro's CLONE_VM child: runs once (taking a CID), sleeps @arg ms. */
static int child_sleep_main(void *arg)
{
	uint64_t ms = (uint64_t)(uintptr_t)arg;
	struct timespec ts = { (time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L };

	syscall(SYS_nanosleep, &ts, NULL);
	return 0;
}

static int spawn_child(struct child *c, uint64_t ms, int (*fn)(void *))
{
	c->stack = malloc(CHILD_STACK);
	if (!c->stack)
		return -ENOMEM;
	users_add();
	c->pid = clone(fn, (char *)c->stack + CHILD_STACK, CLONE_VM | SIGCHLD,
		       (void *)(uintptr_t)ms);
	if (c->pid < 0) {
		atomic_fetch_sub(&S.users, 1);
		free(c->stack);
		c->stack = NULL;
		return -errno;
	}
	S.r->res.clones++;
	return 0;
}

static void reap_child(struct child *c)
{
	if (!c->stack)
		return;
	while (waitpid(c->pid, NULL, __WALL) < 0 && errno == EINTR)
		;
	atomic_fetch_sub(&S.users, 1);
	free(c->stack);
	c->stack = NULL;
}

static void *forker_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&S.done)) {
		pid_t p = fork();

		if (p == 0)
			_exit(0);
		if (p > 0) {
			while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
				;
			atomic_fetch_add(&S.forks, 1);
		} else {
			sleep_us(1000);
		}
	}
	return NULL;
}

static void *affinity_main(void *arg)
{
	struct cidk__prng rng;
	unsigned int n = S.r->allowed;

	(void)arg;
	cidk__prng_seed(&rng, S.r->seed ^ 0xaff1u);
	while (!atomic_load(&S.done)) {
		unsigned int id = (unsigned int)cidk__prng_below(&rng, S.r->max_threads);
		struct worker *w = &S.w[id];
		int tid = atomic_load(&w->os_tid);
		cpu_set_t one;

		if (!atomic_load(&w->alive) || tid <= 0) {
			sleep_us(200);
			continue;
		}
		CPU_ZERO(&one);
		CPU_SET(S.cpus[cidk__prng_below(&rng, n)], &one);
		if (sched_setaffinity(tid, sizeof(one), &one) == 0)
			atomic_fetch_add(&S.affinity_changes, 1);
		sleep_us(500 + cidk__prng_below(&rng, 1500));
		sched_setaffinity(tid, sizeof(S.allowed), &S.allowed);
		sleep_us(200 + cidk__prng_below(&rng, 800));
	}
	return NULL;
}

/* Progress: every live worker advances within watchdog_ms. */
static void *watchdog_main(void *arg)
{
	uint64_t seen[STRESS_MAX_THREADS], stamp[STRESS_MAX_THREADS];
	bool flagged[STRESS_MAX_THREADS];
	uint64_t tick = (uint64_t)S.r->watchdog_ms * 1000u / 8u, next_beat = 0;

	(void)arg;
	memset(flagged, 0, sizeof(flagged));
	for (unsigned int i = 0; i < STRESS_MAX_THREADS; i++)
		seen[i] = stamp[i] = 0;
	while (!atomic_load(&S.done)) {
		uint64_t t = cidk__now_ns();

		for (unsigned int i = 0; i < S.r->max_threads; i++) {
			struct worker *w = &S.w[i];
			uint64_t p = atomic_load(&w->progress);
			uint64_t gap;

			if (!atomic_load(&w->alive) || atomic_load(&w->stop)) {
				stamp[i] = 0;
				continue;
			}
			if (!stamp[i] || p != seen[i]) {
				seen[i] = p;
				stamp[i] = t;
				continue;
			}
			gap = (t - stamp[i]) / 1000000u;
			if (gap > S.r->res.max_gap_ms)
				S.r->res.max_gap_ms = (unsigned int)gap;
			if (gap > S.r->watchdog_ms && !flagged[i]) {
				flagged[i] = true;
				violation(INV_PROGRESS, "worker %u did not advance for %llu ms "
					  "(at %.2f s, phase %u, its last mm_cid %d)",
					  i, (unsigned long long)gap, now_s(),
					  atomic_load(&S.phase), atomic_load(&w->last_cid));
			}
		}
		if (S.r->heartbeat_ms && t >= next_beat) {
			fprintf(stderr, "# t=%.1f s phase %u users %u forks %lu\n", now_s(),
				atomic_load(&S.phase), atomic_load(&S.users),
				atomic_load(&S.forks));
			next_beat = t + (uint64_t)S.r->heartbeat_ms * 1000000u;
		}
		sleep_us(tick ? tick : 1000);
	}
	return NULL;
}

/*
 * Compaction: after the exits, every survivor (workers 0..n-1) reads a
 * CID below min(allowed, users) within compact_ms, each having read
 * afresh since the exits.  Returns the milliseconds it took.
 */
static void compaction_window(unsigned int n)
{
	uint64_t start = cidk__now_ns(), deadline = start + (uint64_t)S.r->compact_ms * 1000000u;
	uint64_t from[STRESS_MAX_THREADS];
	unsigned int u = atomic_load(&S.users), b, ms, stale = 0;
	int worst = -1;
	bool all = false;

	/*
	 * Per-CPU mode's hysteresis (6.19's CID rework): once users went
	 * above the CPUs, the mm may keep per-CPU CIDs (any below the CPUs)
	 * until users fall below pcpu_thrs = min(opt - opt/4, nr_cpu_ids/2),
	 * opt = min(CPUs, users): the bound is the users' only below half
	 * the CPUs.
	 */
	if (atomic_load(&S.users_hi) > S.r->allowed)
		S.percpu_maybe = true;
	if (S.percpu_maybe && 2 * u >= S.r->allowed)
		u = S.r->allowed;
	else
		S.percpu_maybe = false;
	b = bound_now(u);
	if (b < S.r->allowed)
		S.tight_windows++; /* users < CPUs: the bound is the users */
	if (S.r->brk == BREAK_COMPACTION)
		b = 0; /* planted: no CID is low enough */
	for (unsigned int i = 0; i < n; i++)
		from[i] = atomic_load(&S.w[i].progress);
	for (;;) {
		all = true;
		worst = -1;
		stale = 0;
		for (unsigned int i = 0; i < n; i++) {
			int c = atomic_load(&S.w[i].last_cid);

			if (atomic_load(&S.w[i].progress) < from[i] + 2) {
				stale++; /* not run since the exits: nothing to judge */
				all = false;
			} else if (c < 0 || (unsigned int)c >= b) {
				all = false;
				worst = c > worst ? c : worst;
			}
		}
		if (all || cidk__now_ns() >= deadline)
			break;
		sleep_us(1000);
	}
	ms = (unsigned int)((cidk__now_ns() - start) / 1000000u);
	if (ms > S.r->res.slowest_compaction_ms)
		S.r->res.slowest_compaction_ms = ms;
	if (stale)
		S.stale_windows++; /* a starved survivor: the watchdog's to judge */
	if (!all && worst >= 0)
		violation(INV_COMPACTION, "phase %u: a survivor's mm_cid still %d >= %u "
			  "(min(CPUs, users)) %u ms after the exits",
			  atomic_load(&S.phase), worst, b, ms);
	atomic_store(&S.users_hi, u);
}

static unsigned int between(struct cidk__prng *g, unsigned int lo, unsigned int hi)
{
	return hi <= lo ? lo : lo + (unsigned int)cidk__prng_below(g, hi - lo + 1);
}

/*
 * The CLONE_VM children of the vfork workload: up to MAX_CHILDREN alive at
 * a time, each sleeping 1-4 s (so that it holds its CID across several
 * phases' crossings: the fixup walk of the unfixed kernels misses it),
 * reaped once ended.
 */
static struct child vkids[MAX_CHILDREN];
static uint64_t vkids_end[MAX_CHILDREN];

static int tend_children(struct cidk__prng *g, bool all)
{
	uint64_t t = cidk__now_ns();
	int rc = 0;

	for (unsigned int i = 0; i < MAX_CHILDREN; i++) {
		if (vkids[i].stack && all)
			kill(vkids[i].pid, SIGKILL); /* the run is over */
		if (vkids[i].stack && (all || t >= vkids_end[i]))
			reap_child(&vkids[i]);
		if (!all && !vkids[i].stack && i < 2 && !rc) {
			uint64_t ms = between(g, 1000, 4000);

			rc = spawn_child(&vkids[i], ms, child_main);
			vkids_end[i] = t + ms * 1000000u;
		}
	}
	return rc;
}

/* One phase: base -> peak workers (released together), exits. */
static int phase(struct cidk__prng *g, unsigned int base, bool children)
{
	unsigned int allowed = S.r->allowed, peak, hold, gate;
	int rc = children ? tend_children(g, false) : 0;

	peak = between(g, allowed + 1, 2 * allowed + 1);
	if (peak > S.r->max_threads)
		peak = S.r->max_threads;
	hold = between(g, 50, 300);
	gate = atomic_fetch_add(&S.phase, 1) + 1;
	for (unsigned int i = base; i < peak && !rc; i++)
		rc = start_worker(i, false, gate);
	atomic_store_explicit(&S.release, gate, memory_order_release);
	sleep_us((uint64_t)hold * 1000u);
	for (unsigned int i = base; i < peak; i++)
		if (atomic_load(&S.w[i].alive))
			stop_worker(i);
	compaction_window(base);
	return rc;
}

/*
 * The repro workloads run each round in a fresh process (fork()): a new
 * mm starts in per-task mode, and per-CPU mode's hysteresis keeps an mm
 * that crossed once in per-CPU mode (the crossing that matters is the
 * first one).  In the round's process:
 *   vfork-repro  main + CPUs-2 busy threads and one CLONE_VM child that
 *                ran once and sleeps (CPUs users, each holding a task
 *                CID), then one more busy thread (CPUs + 1 users: the
 *                switch to per-CPU CIDs, whose walk misses the child on
 *                the unfixed kernels), all CPUs busy for a second: the
 *                checker's vfork-walk scenario on CPUs CPUs.
 *   fork-race    main + CPUs-2 busy threads (CPUs-1 users), then two of
 *                them create a thread each at the same moment (CPUs + 1
 *                users): the crossing fork's walk may miss the other new
 *                thread, not yet on the thread list (fork-walk).
 * The parent waits for the round's process at most watchdog_ms: one that
 * does not end is a progress failure (the kernel stalled it).
 */
static atomic_bool round_stop;
static atomic_int round_go;

static void *spinner_main(void *arg)
{
	pthread_t t;

	if (arg) { /* fork-race: wait for the barrier, then create one more */
		while (!atomic_load(&round_go))
			;
		if (pthread_create(&t, NULL, spinner_main, NULL) == 0)
			pthread_detach(t);
	}
	while (!atomic_load_explicit(&round_stop, memory_order_relaxed))
		;
	return NULL;
}

static void round_process(unsigned int cpus, bool vfork_case)
{
	unsigned int busy = cpus > 2 ? cpus - 2 : 1;
	struct child c;
	pthread_t t;
	uint64_t until;

	memset(&c, 0, sizeof(c));
	if (vfork_case && spawn_child(&c, 1500, child_sleep_main))
		_exit(3);
	for (unsigned int i = 0; i < busy; i++)
		if (pthread_create(&t, NULL, spinner_main,
				   !vfork_case && i < 2 ? (void *)1 : NULL) == 0)
			pthread_detach(t);
	sleep_us(50000);
	if (vfork_case) { /* the crossing */
		if (pthread_create(&t, NULL, spinner_main, NULL) == 0)
			pthread_detach(t);
	} else {
		atomic_store(&round_go, 1);
	}
	until = cidk__now_ns() + 1000000000u;
	while (cidk__now_ns() < until)
		; /* main too runs */
	atomic_store(&round_stop, true);
	if (c.stack) {
		kill(c.pid, SIGKILL);
		while (waitpid(c.pid, NULL, __WALL) < 0 && errno == EINTR)
			;
	}
	_exit(0);
}

/*
 * Wait for round @n's process @p until @deadline (ns); one that does not
 * end by then is a progress failure, killed.  The heartbeat follows.
 * Returns the process's wait status (-1 when it was killed).
 */
static int wait_round(pid_t p, unsigned int n, uint64_t deadline)
{
	int status = -1;

	for (;;) {
		pid_t w = waitpid(p, &status, WNOHANG);

		if (w == p)
			break;
		if (cidk__now_ns() >= deadline) {
			violation(INV_PROGRESS, "round %u's process did not end within %u ms "
				  "(at %.2f s)", n, S.r->watchdog_ms, now_s());
			kill(p, SIGKILL);
			waitpid(p, &status, 0);
			status = -1;
			break;
		}
		sleep_us(10000);
	}
	if (S.r->heartbeat_ms)
		fprintf(stderr, "# t=%.1f s round %u\n", now_s(), n);
	return status;
}

static int repro_round(bool vfork_case)
{
	uint64_t deadline = cidk__now_ns() + (uint64_t)S.r->watchdog_ms * 1000000u;
	unsigned int n = atomic_fetch_add(&S.phase, 1) + 1;
	pid_t p;

	fflush(NULL);
	p = fork();
	if (p < 0)
		return -errno;
	if (p == 0)
		round_process(S.r->allowed, vfork_case);
	S.r->res.threads += S.r->allowed - 1;
	S.r->res.clones += vfork_case;
	wait_round(p, n, deadline);
	return 0;
}

/*
 * affinity-widen (issue 39, item 4): in 7.2/7.3's mm_update_cpus_allowed()
 * the threshold recomputed after a widening, pcpu_thrs = max(min(opt -
 * opt/4, nr_possible/2), 1) with opt = min(allowed CPUs, users), never
 * exceeds users, so the "users >= pcpu_thrs" return always fires: the
 * switch back to per-task mode its comment promises never comes from an
 * affinity change, only from a later exit (users < the recorded
 * threshold).  Rounds in fresh processes, the kinds in turn:
 *   fresh     forked with the whole mask: main + one thread (2 users, no
 *             more than the CPUs: per-task mode)
 *   widened   forked confined to the first CPU (the mm's allowed CPUs: 1):
 *             main + one thread (2 users > 1: per-CPU mode), then main
 *             widens to the whole mask (2 users, below nr_possible/2 on 6+
 *             CPUs: per-task mode would be due)
 *   exit      as widened with a third task, a sleeping thread, that exits
 *             after the widening: users 3 -> 2, below the threshold the
 *             widening recorded (3 on 6+ CPUs): the exit switches back
 * Then main and the thread swap the first two CPUs AW_SWAPS times, reading
 * their mm_cid on each (both running at once): a swap where each kept its
 * CID shows CIDs owned by the tasks (per-task mode), one where each took
 * the other's, CIDs owned by the CPUs (per-CPU mode); then the thread
 * visits every CPU (the largest CID the mode costs).
 */
#define AW_SWAPS 12u

struct aw_obs {
	int cid, cpu;
};

static struct {
	atomic_uint count, gen;
	atomic_bool go;
	struct aw_obs seen[2][AW_SWAPS];
	atomic_int max_cid; /* both tasks raise it */
	int sleeper_fd;
} AW;

/* Two tasks meet: main and the thread (each on its own CPU by then). */
static void aw_barrier(void)
{
	unsigned int g = atomic_load(&AW.gen);

	if (atomic_fetch_add(&AW.count, 1) == 1) {
		atomic_store(&AW.count, 0);
		atomic_fetch_add(&AW.gen, 1);
	} else {
		while (atomic_load(&AW.gen) == g)
			sched_yield();
	}
}

static void aw_pin(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
}

/* Run on @cpu for 1 ms reading mm_cid; the last read. */
static struct aw_obs aw_read_on(int cpu)
{
	uint64_t until;
	struct aw_obs o;

	aw_pin(cpu);
	until = cidk__now_ns() + 1000000u;
	do {
		o.cid = cidk_rseq_mm_cid();
		o.cpu = cidk_rseq_cpu_id();
		for (int m = atomic_load_explicit(&AW.max_cid, memory_order_relaxed);
		     o.cid > m && !atomic_compare_exchange_weak_explicit(
				 &AW.max_cid, &m, o.cid, memory_order_relaxed,
				 memory_order_relaxed);)
			;
	} while (cidk__now_ns() < until);
	return o;
}

static void aw_side(int side)
{
	for (unsigned int r = 0; r < AW_SWAPS; r++) {
		int cpu = S.cpus[(r + (unsigned int)side) & 1u];

		aw_pin(cpu);
		aw_barrier(); /* both on their CPUs */
		AW.seen[side][r] = aw_read_on(cpu);
		aw_barrier();
	}
}

static void *aw_thread(void *arg)
{
	(void)arg;
	while (!atomic_load(&AW.go))
		sched_yield();
	aw_side(1);
	for (unsigned int i = 0; i < S.r->allowed; i++) /* the tour */
		if (i != 0)
			aw_read_on(S.cpus[i]);
	return NULL;
}

static void *aw_sleeper(void *arg)
{
	char c;

	(void)arg;
	while (read(AW.sleeper_fd, &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* What swap @r (from r-1) showed: AW_TASK, AW_CPU or AW_OTHER. */
static int aw_classify(unsigned int r)
{
	struct aw_obs m0 = AW.seen[0][r - 1], x0 = AW.seen[1][r - 1];
	struct aw_obs m1 = AW.seen[0][r], x1 = AW.seen[1][r];

	if (m0.cid < 0 || x0.cid < 0 || m0.cid == x0.cid ||
	    m0.cpu != x1.cpu || x0.cpu != m1.cpu || m0.cpu == x0.cpu)
		return AW_OTHER; /* not on the CPUs asked, or no two CIDs */
	if (m1.cid == m0.cid && x1.cid == x0.cid)
		return AW_TASK;
	if (m1.cid == x0.cid && x1.cid == m0.cid)
		return AW_CPU;
	return AW_OTHER;
}

/* The round's process: its tasks, the swaps; the counts into @fd. */
static void aw_round_process(int kind, int fd)
{
	int counts[AW_SEEN + 1] = { 0 };
	pthread_t x, sl;
	int p[2] = { -1, -1 };

	memset(&AW, 0, sizeof(AW));
	atomic_store(&AW.max_cid, -1);
	if (kind == AW_EXIT &&
	    (pipe(p) || (AW.sleeper_fd = p[0], pthread_create(&sl, NULL, aw_sleeper, NULL))))
		_exit(3);
	if (pthread_create(&x, NULL, aw_thread, NULL))
		_exit(3);
	sleep_us(20000);
	sched_setaffinity(0, sizeof(S.allowed), &S.allowed); /* the widening */
	if (kind == AW_EXIT) {
		if (write(p[1], "x", 1) != 1)
			_exit(3);
		pthread_join(sl, NULL);
		sleep_us(20000);
	}
	atomic_store(&AW.go, true);
	aw_side(0);
	pthread_join(x, NULL);
	for (unsigned int r = 1; r < AW_SWAPS; r++)
		counts[aw_classify(r)]++;
	counts[AW_SEEN] = atomic_load(&AW.max_cid);
	_exit(write(fd, counts, sizeof(counts)) == (ssize_t)sizeof(counts) ? 0 : 3);
}

static int aw_round(void)
{
	uint64_t deadline = cidk__now_ns() + (uint64_t)S.r->watchdog_ms * 1000000u;
	unsigned int n = atomic_fetch_add(&S.phase, 1) + 1;
	int kind = (int)((n - 1) % AW_KINDS), counts[AW_SEEN + 1], fd[2];
	struct stress_result *s = &S.r->res;
	ssize_t got;
	pid_t p;

	if (pipe(fd))
		return -errno;
	fflush(NULL);
	if (kind != AW_FRESH)
		aw_pin(S.cpus[0]); /* the child's mm starts with one allowed CPU */
	p = fork();
	if (p == 0) {
		close(fd[0]);
		aw_round_process(kind, fd[1]);
	}
	sched_setaffinity(0, sizeof(S.allowed), &S.allowed);
	close(fd[1]);
	if (p < 0) {
		close(fd[0]);
		return -errno;
	}
	s->threads += 1u + (kind == AW_EXIT);
	if (wait_round(p, n, deadline) == 0) {
		got = read(fd[0], counts, sizeof(counts));
		if (got == (ssize_t)sizeof(counts)) {
			for (int i = 0; i < AW_SEEN; i++)
				s->aw[kind][i] += (unsigned long)counts[i];
			if (counts[AW_SEEN] > s->aw_max_cid[kind])
				s->aw_max_cid[kind] = counts[AW_SEEN];
		}
	}
	close(fd[0]);
	return 0;
}

static bool fresh_rounds(const struct stress_run *r)
{
	return r->workload == STRESS_VFORK_REPRO || r->workload == STRESS_FORK_RACE ||
	       r->workload == STRESS_AFFINITY_WIDEN;
}

static void verdicts(struct stress_run *r, int64_t sum)
{
	struct stress_result *s = &r->res;

	if (!S.uniq) {
		s->v[INV_UNIQUENESS] = V_NA;
		snprintf(s->why[INV_UNIQUENESS], sizeof(s->why[0]),
			 "no rseq mm_cid critical sections here: %s",
			 cidk_percpu_why(CIDK_PERCPU_MM_CID));
	} else {
		s->lost = (int64_t)s->adds - sum;
		s->v[INV_UNIQUENESS] = s->lost ? V_FAIL : V_PASS;
		snprintf(s->why[INV_UNIQUENESS], sizeof(s->why[0]),
			 "%llu adds, the copies sum to %lld (%lld lost)",
			 (unsigned long long)s->adds, (long long)sum, (long long)s->lost);
	}
	if (!S.has_cid) {
		s->v[INV_BOUND] = s->v[INV_COMPACTION] = V_NA;
		snprintf(s->why[INV_BOUND], sizeof(s->why[0]), "no mm_cid (Linux < 6.3 or no rseq)");
		snprintf(s->why[INV_COMPACTION], sizeof(s->why[0]), "no mm_cid");
	} else {
		s->v[INV_BOUND] = S.failed[INV_BOUND] ? V_FAIL : V_PASS;
		if (!S.failed[INV_BOUND])
			snprintf(s->why[INV_BOUND], sizeof(s->why[0]),
				 "%llu reads, the largest mm_cid %d",
				 (unsigned long long)s->reads, s->max_cid);
		s->v[INV_COMPACTION] = S.failed[INV_COMPACTION] ? V_FAIL : V_PASS;
		if (!S.failed[INV_COMPACTION])
			snprintf(s->why[INV_COMPACTION], sizeof(s->why[0]),
				 "%u windows (%u with fewer users than CPUs, %u with a survivor "
				 "that did not run), the slowest %u ms (of %u)",
				 s->phases, S.tight_windows, S.stale_windows,
				 s->slowest_compaction_ms, r->compact_ms);
	}
	s->v[INV_PROGRESS] = S.failed[INV_PROGRESS] ? V_FAIL : V_PASS;
	if (fresh_rounds(r)) {
		for (int i = 0; i < INV_N; i++)
			if (i != INV_PROGRESS) {
				s->v[i] = V_NA;
				snprintf(s->why[i], sizeof(s->why[0]),
					 "%s: rounds in fresh processes watch progress only",
					 r->workload_name);
			}
		if (!S.failed[INV_PROGRESS])
			snprintf(s->why[INV_PROGRESS], sizeof(s->why[0]),
				 "%u rounds, each process ended within %u ms", s->phases,
				 r->watchdog_ms);
	} else if (!S.failed[INV_PROGRESS])
		snprintf(s->why[INV_PROGRESS], sizeof(s->why[0]),
			 "the longest gap %u ms (of %u)", s->max_gap_ms, r->watchdog_ms);
}

static int setup(struct stress_run *r)
{
	struct cidk_rseq_info info;
	unsigned int n = 0;

	memset(&S, 0, sizeof(S));
	S.r = r;
	pthread_mutex_init(&S.lock, NULL);
	memset(&r->res, 0, sizeof(r->res));
	r->res.max_cid = -1;
	for (int k = 0; k < AW_KINDS; k++)
		r->res.aw_max_cid[k] = -1;
	if (sched_getaffinity(0, sizeof(S.allowed), &S.allowed))
		return -errno;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &S.allowed))
			S.cpus[n++] = c;
	r->allowed = n ? n : 1;
	if (!r->max_threads)
		r->max_threads = 2 * r->allowed + 1;
	if (r->max_threads > STRESS_MAX_THREADS)
		r->max_threads = STRESS_MAX_THREADS;
	cidk_percpu_init();
	cidk_rseq_info(&info);
	S.has_cid = cidk_rseq_mm_cid() >= 0;
	S.uniq = CIDK_PERCPU_HAVE_RSEQ && S.has_cid &&
		 cidk_percpu_path(CIDK_PERCPU_MM_CID) == CIDK_PERCPU_RSEQ;
	S.pool = cidk_pool_create(cidk_percpu_nr_copies(), 64);
	if (!S.pool)
		return -ENOMEM;
	S.h = cidk_pool_alloc(S.pool, sizeof(intptr_t), sizeof(intptr_t), NULL);
	if (S.h < 0)
		return (int)S.h;
	(void)info;
	return 0;
}

int stress_run(struct stress_run *r)
{
	bool forks, aff, kids, repro;
	pthread_t wd, fk[2], af;
	unsigned int nfk = 0, base;
	struct cidk__prng g;
	uint64_t end;
	int rc = setup(r);

	if (rc)
		return rc;
	repro = fresh_rounds(r);
	forks = r->workload == STRESS_MIXED || r->workload == STRESS_FORKS;
	aff = r->workload == STRESS_MIXED || r->workload == STRESS_AFFINITY;
	kids = r->workload == STRESS_MIXED || r->workload == STRESS_VFORK;
	cidk__prng_seed(&g, r->seed);
	S.t0 = cidk__now_ns();
	end = S.t0 + (uint64_t)r->seconds * 1000000000u;
	/* main + watchdog (+ forkers, affinity) are users too */
	atomic_store(&S.users, 2u + (forks ? 2u : 0u) + (aff ? 1u : 0u));
	atomic_store(&S.users_hi, atomic_load(&S.users));
	if (!repro && pthread_create(&wd, NULL, watchdog_main, NULL))
		return -EAGAIN;
	for (; forks && nfk < 2; nfk++)
		if (pthread_create(&fk[nfk], NULL, forker_main, NULL))
			break;
	if (aff && pthread_create(&af, NULL, affinity_main, NULL))
		aff = false;
	base = repro ? 0 : between(&g, 2, r->allowed > 2 ? r->allowed - 1 : 2);
	if (base >= r->max_threads)
		base = r->max_threads - 1;
	for (unsigned int i = 0; i < base && !rc; i++)
		rc = start_worker(i, false, 0);
	while (!rc && cidk__now_ns() < end) {
		rc = r->workload == STRESS_AFFINITY_WIDEN ? aw_round()
		     : repro ? repro_round(r->workload == STRESS_VFORK_REPRO)
			     : phase(&g, base, kids);
		r->res.phases++;
	}
	for (unsigned int i = 0; i < r->max_threads; i++)
		if (atomic_load(&S.w[i].alive))
			stop_worker(i);
	tend_children(&g, true);
	atomic_store(&S.done, true);
	if (!repro)
		pthread_join(wd, NULL);
	for (unsigned int i = 0; i < nfk; i++)
		pthread_join(fk[i], NULL);
	if (aff)
		pthread_join(af, NULL);
	r->res.forks = atomic_load(&S.forks);
	r->res.affinity_changes = atomic_load(&S.affinity_changes);
	r->res.secs = now_s();
	verdicts(r, S.uniq ? cidk_percpu_sum(S.pool, S.h) : 0);
	cidk_pool_destroy(S.pool);
	return rc;
}

bool stress_ok(const struct stress_result *s)
{
	for (int i = 0; i < INV_N; i++)
		if (s->v[i] == V_FAIL)
			return false;
	return true;
}
