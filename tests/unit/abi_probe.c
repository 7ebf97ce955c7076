/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/abi_probe.c - the in-process probe (cidkit/abi.h) and the
 * per-CPU operations' choice of path that rests on it (cidkit/percpu.h).
 *
 *   test_abi_probe api        the probe's verdicts, both ways, its
 *                             evidence, its bounds, its cache, and that
 *                             it leaves the caller as it found it
 *   test_abi_probe broken     the process's probe sees a kernel that does
 *                             not abort (the unarmed break): every
 *                             operation takes the atomic path, says why,
 *                             and per-CPU counters and freelists stay exact
 *   test_abi_probe unknown    the probe cannot tell in its budget: the
 *                             atomic path, said so
 *   test_abi_probe good       the probe passes: the rseq path, said so
 *   test_abi_probe fork       fork while another thread probes: the
 *                             child's first operation runs
 * with CIDK_PERCPU=rseq / atomic / a typo in the environment (meson runs
 * those) the override wins and why() says so.
 *
 * The oracle for "pass" is this host (x86-64 or arm64 outside a broken
 * kernel: docs/abi.md's matrix has the host's line keeping every promise);
 * for FAIL and UNKNOWN the breaks, which make a kernel that never aborts,
 * and one that never answers, out of the user side.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cidkit/abi.h>
#include <cidkit/percpu.h>
#include <cidkit/pool.h>

#include "abi/abi_impl.h"
#include "tap.h"
#include "tsan.h"
#include "cidkit_lab.h"

#define MS 1000000ull

static unsigned int nthreads_now(void)
{
	char line[256];
	unsigned int n = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %u", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

static struct cidk_abi_probe_result shared[4];

static void *cached_caller(void *arg)
{
	cidk_abi_probe_cached(&shared[(uintptr_t)arg]);
	return NULL;
}

static void test_api(void)
{
	struct cidk_abi_probe_result r, r2;
	struct cidk_abi_probe_opts o = { 0, 0, 0 };
	const struct cidk_abi_promise_result *a = &r.promise[CIDK_ABI_ABORT];
	cpu_set_t before, after, one;
	sigset_t m0, m1;
	pthread_t th[4];
	int cpu, rc;

	/* Bad arguments: nothing probed. */
	ok(cidk_abi_probe(NULL, NULL, 0) == -EINVAL, "NULL result: -EINVAL");
	o.budget_ns = 11000 * MS;
	ok(cidk_abi_probe(&o, &r, 0) == -EINVAL, "an 11 s budget: -EINVAL");
	ok(cidk_abi_probe_cached(NULL) == -EINVAL, "cached, NULL result: -EINVAL");
	ok(!strcmp(cidk_abi_promise_name(CIDK_ABI_ABORT), "abort") &&
		   !cidk_abi_promise_name(CIDK_ABI_NR_PROMISES),
	   "promise names");
	ok(!strcmp(cidk_abi_answer_name(CIDK_ABI_PASS), "pass") &&
		   !strcmp(cidk_abi_answer_name(CIDK_ABI_FAIL), "FAIL") &&
		   !strcmp(cidk_abi_answer_name(CIDK_ABI_UNKNOWN), "unknown"),
	   "answer names");

	/* The real probe, from a caller pinned to one CPU: pass, with its
	 * proof, and the caller left as it was. */
	sched_getaffinity(0, sizeof(before), &before);
	cpu = sched_getcpu();
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
	/* the kernel fills 8 of sigset_t's 128 bytes: clear the rest */
	memset(&m0, 0, sizeof(m0));
	memset(&m1, 0, sizeof(m1));
	pthread_sigmask(SIG_SETMASK, NULL, &m0);
	rc = cidk_abi_probe(NULL, &r, 0);
	pthread_sigmask(SIG_SETMASK, NULL, &m1);
	sched_getaffinity(0, sizeof(after), &after);
	ok(rc == 0 && a->verdict == CIDK_ABI_PASS && a->aborts_in_event == 2 &&
		   a->broken == 0 && a->events >= 2 && a->attempts >= 2 &&
		   a->ns > 0 && a->ns <= 1100 * MS && r.ns >= a->ns,
	   "this host keeps the promise: pass, 2 aborts during an event, no commit after one (%s: %s; %u sections, %u events, %u stray, %llu us)",
	   cidk_abi_answer_name(a->verdict), a->why, a->attempts, a->events,
	   a->stray_aborts, (unsigned long long)(a->ns / 1000));
	/* an exited thread leaves the count a moment after the join */
	for (int i = 0; i < 1000 && nthreads_now() != 1; i++)
		usleep(1000);
	ok(CPU_EQUAL(&after, &one) && !memcmp(&m0, &m1, sizeof(m0)) &&
		   nthreads_now() == 1 && sched_getcpu() == cpu &&
		   (!__rseq_size || ((volatile struct rseq *)((char *)__builtin_thread_pointer() +
							      __rseq_offset))->cpu_id == (uint32_t)cpu),
	   "the caller is left alone: affinity %d, signal mask %d, threads %u, on CPU %d of %d, rseq area's cpu_id",
	   CPU_EQUAL(&after, &one), !memcmp(&m0, &m1, sizeof(m0)), nthreads_now(), sched_getcpu(), cpu);
	sched_setaffinity(0, sizeof(before), &before);

	o.budget_ns = 0;
	o.rounds = 5;
	rc = cidk_abi_probe(&o, &r, 0);
	ok(rc == 0 && a->verdict == CIDK_ABI_PASS && a->aborts_in_event == 5,
	   "rounds 5: 5 aborts during an event (%u)", a->aborts_in_event);

	/* A kernel that never aborts (unarmed): FAIL at the first section. */
	rc = cidk__abi_probe_run(NULL, CIDK_ABI_BREAK_UNARMED, &r);
	ok(rc == 0 && a->verdict == CIDK_ABI_FAIL && a->broken == 1 &&
		   a->aborts_in_event == 0 && strstr(a->why, "does not abort"),
	   "unarmed: FAIL, one commit after the event (%s)", a->why);
	/* The control: B makes no event, A must commit. */
	rc = cidk__abi_probe_run(NULL, CIDK_ABI_BREAK_IDLE_HELPER, &r);
	ok(rc == 0 && a->verdict == CIDK_ABI_FAIL && a->broken == 1 && a->events == 1,
	   "idle-helper (the control, no membarrier): FAIL");
	/* Never released and never aborted: unknown at the deadline, not a hang. */
	o.rounds = 0;
	o.budget_ns = 20 * MS;
	rc = cidk__abi_probe_run(&o, CIDK_ABI_BREAK_UNARMED | CIDK_ABI_BREAK_NO_EVENT, &r);
	ok(rc == 0 && a->verdict == CIDK_ABI_UNKNOWN && a->broken == 0 &&
		   a->ns >= 20 * MS && a->ns < 2000 * MS && strstr(a->why, "no answer"),
	   "never answered: unknown after the 20 ms budget (%llu us: %s)",
	   (unsigned long long)(a->ns / 1000), a->why);

	/* The opt-in promises, in a child: pass here, and each able to fail. */
	o.budget_ns = 0;
	o.promises = 1u << CIDK_ABI_NR_PROMISES;
	ok(cidk_abi_probe(&o, &r, 0) == -EINVAL, "a promises bit past the last: -EINVAL");
	o.promises = CIDK_ABI_ASK(CIDK_ABI_SIGNAL) | CIDK_ABI_ASK(CIDK_ABI_CPU_ID_START);
	rc = cidk_abi_probe(&o, &r, 0);
	{
		const struct cidk_abi_promise_result *sg = &r.promise[CIDK_ABI_SIGNAL];
		const struct cidk_abi_promise_result *cs = &r.promise[CIDK_ABI_CPU_ID_START];
		int legacy = strstr(cs->why, "legacy (32-byte)") != NULL;

		ok(rc == 0 && r.asked == o.promises && a->verdict == CIDK_ABI_UNKNOWN &&
			   !strcmp(a->why, "not asked"),
		   "only what was asked: abort not probed (%s)", a->why);
		ok(sg->verdict == CIDK_ABI_PASS && sg->aborts_in_event == 2 && sg->broken == 0,
		   "signal: pass, 2 sections a handler ran inside aborted (%s)", sg->why);
		ok(cs->verdict == (legacy ? CIDK_ABI_PASS : CIDK_ABI_UNKNOWN) &&
			   (!legacy || (cs->attempts == 4 && cs->broken == 0)),
		   "cpu-id-start: rewritten after every signal on a legacy registration (%s)", cs->why);
		rc = cidk__abi_probe_run(&o, CIDK_ABI_BREAK_UNARMED, &r);
		ok(rc == 0 && sg->verdict == CIDK_ABI_FAIL && sg->broken == 1,
		   "signal, unarmed: FAIL (%s)", sg->why);
		rc = cidk__abi_probe_run(&o, CIDK_ABI_BREAK_NO_EVENT, &r);
		ok(rc == 0 && (!legacy || (cs->verdict == CIDK_ABI_FAIL && cs->broken == 4)),
		   "cpu-id-start, no signal raised: FAIL on a legacy registration (%s)", cs->why);
		o.budget_ns = 20 * MS;
		rc = cidk__abi_probe_run(&o, CIDK_ABI_BREAK_IDLE_HELPER, &r);
		ok(rc == 0 && sg->verdict == CIDK_ABI_UNKNOWN && sg->events == 0 &&
			   sg->ns >= 20 * MS && sg->ns < 2000 * MS,
		   "signal, no timer armed: unknown at the 20 ms deadline (%s)", sg->why);
	}
	o.promises = 0;
	o.budget_ns = 0;

	/* Aborts that B's event did not cause prove nothing: with B never
	 * marking its event, every abort is stray and the answer unknown. */
	o.budget_ns = 20 * MS;
	rc = cidk__abi_probe_run(&o, CIDK_ABI_BREAK_UNMARKED, &r);
	ok(rc == 0 && a->verdict == CIDK_ABI_UNKNOWN && a->aborts_in_event == 0 &&
		   a->stray_aborts >= 1 && a->broken == 0,
	   "unmarked: %u aborts, all stray, unknown (%s)", a->stray_aborts, a->why);
	o.budget_ns = 0;

	/* The cache: one probe for the process, whoever asks first. */
	for (uintptr_t i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, cached_caller, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	cidk_abi_probe_cached(&r2);
	ok(!memcmp(&shared[0], &shared[1], sizeof(r2)) &&
		   !memcmp(&shared[0], &shared[2], sizeof(r2)) &&
		   !memcmp(&shared[0], &shared[3], sizeof(r2)) &&
		   !memcmp(&shared[0], &r2, sizeof(r2)) &&
		   r2.promise[CIDK_ABI_ABORT].verdict == CIDK_ABI_PASS,
	   "cached: four threads at once and one later get the same one probe (%s: %s)",
	   cidk_abi_answer_name(r2.promise[CIDK_ABI_ABORT].verdict), r2.promise[CIDK_ABI_ABORT].why);
	/* refresh replaces it */
	rc = cidk_abi_probe(NULL, &r, 1);
	cidk_abi_probe_cached(&r2);
	ok(rc == 0 && !memcmp(&r, &r2, sizeof(r)) && r.ns != shared[0].ns,
	   "refresh: the new probe becomes the cached answer");
}

/* ---- the per-CPU operations on the path the probe chose ----------------- */

#define THREADS 4
#define ADDS 100000
#define NODES 64
#define LOOPS 20000

struct item {
	struct cidk_percpu_node node;
	unsigned int seen;
};

static struct cidk_pool *pool;
static cidk_pool_handle hc, hl;
static struct item items[THREADS * NODES];

static void *worker(void *arg)
{
	struct item *mine = &items[(uintptr_t)arg * NODES];
	struct cidk_percpu_node *held[NODES];
	unsigned int n = 0;

	for (unsigned int i = 0; i < ADDS; i++)
		cidk_percpu_add(pool, hc, 1);
	for (unsigned int i = 0; i < NODES; i++)
		cidk_percpu_list_push(pool, hl, CIDK_PERCPU_CPU_ID, &mine[i].node);
	/* churn: pop what is there, push it back */
	for (unsigned int i = 0; i < LOOPS; i++) {
		struct cidk_percpu_node *x = cidk_percpu_list_pop(pool, hl, CIDK_PERCPU_CPU_ID);

		if (x)
			held[n++] = x;
		if (n == NODES || (!x && n) || (i & 7) == 7)
			while (n)
				cidk_percpu_list_push(pool, hl, CIDK_PERCPU_CPU_ID, held[--n]);
	}
	while (n)
		cidk_percpu_list_push(pool, hl, CIDK_PERCPU_CPU_ID, held[--n]);
	return NULL;
}

static void exact_on_path(const char *path)
{
	pthread_t th[THREADS];
	unsigned int total = 0, once = 0;
	unsigned long aborts = 0;

	pool = cidk_pool_create(cidk_percpu_nr_copies(), 128);
	hc = cidk_pool_alloc(pool, sizeof(intptr_t), sizeof(intptr_t), NULL);
	hl = cidk_pool_alloc(pool, sizeof(intptr_t), sizeof(intptr_t), NULL);
	if (!ok(pool && hc >= 0 && hl >= 0, "a pool with a counter and a list head"))
		return;
	for (uintptr_t i = 0; i < THREADS; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	aborts = cidk_percpu_aborts();
	for (unsigned int c = 0; c < pool->max_cids; c++) {
		intptr_t *head = cidk_pool_ptr(pool, hl, c);

		for (struct cidk_percpu_node *n = (struct cidk_percpu_node *)*head;
		     n && total <= THREADS * NODES; n = n->next, total++)
			((struct item *)n)->seen++;
	}
	for (unsigned int i = 0; i < THREADS * NODES; i++)
		once += items[i].seen == 1;
	ok(cidk_percpu_sum(pool, hc) == (intptr_t)THREADS * ADDS,
	   "%s path: the counter is exact (%ld of %ld)", path,
	   (long)cidk_percpu_sum(pool, hc), (long)THREADS * ADDS);
	ok(total == THREADS * NODES && once == total,
	   "%s path: every node on one list exactly once (%u listed, %u once, of %u)",
	   path, total, once, THREADS * NODES);
	ok(strcmp(path, "atomic") || aborts == 0, "%s path: no section aborted in the main thread (%lu)",
	   path, aborts);
}

static void *init_thread(void *arg)
{
	(void)arg;
	cidk_percpu_init();
	return NULL;
}

/*
 * fork while another thread probes (a probe that runs its whole 1 s:
 * never released, never aborted): the child's first operation must not
 * wait for ever on a lock held by a thread it does not have.
 */
static void test_fork_during_probe(void)
{
	struct cidk_pool *p = cidk_pool_create(cidk_percpu_nr_copies(), 64);
	cidk_pool_handle h = p ? cidk_pool_alloc(p, sizeof(intptr_t), sizeof(intptr_t), NULL) : -1;
	uint64_t t0;
	pthread_t th;
	int status = -1;
	pid_t pid;

	cidk__abi_probe_cached_breaks = CIDK_ABI_BREAK_UNARMED | CIDK_ABI_BREAK_NO_EVENT;
	pthread_create(&th, NULL, init_thread, NULL);
	usleep(10000); /* well inside the 1 s probe */
	t0 = cidk__now_ns();
	pid = fork();
	if (pid == 0) {
		alarm(5);
		_exit(cidk_percpu_add(p, h, 1) == 0 && cidk_percpu_sum(p, h) == 1 &&
			      cidk_percpu_path(CIDK_PERCPU_CPU_ID) == CIDK_PERCPU_ATOMIC ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	pthread_join(th, NULL);
	ok(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "fork during the probe: the child's first operation runs (status %#x; fork waited %llu us for the probe)",
	   status, (unsigned long long)((cidk__now_ns() - t0) / 1000));
	cidk_pool_destroy(p);
}

/*
 * An operation in a constructor that runs before the library's (priority
 * 101 runs before the default): the path and the copies must be what they
 * are after main() starts, not the values of a library not set up yet.
 */
static enum cidk_percpu_path early_path = (enum cidk_percpu_path)-1;
static unsigned int early_copies;

__attribute__((constructor(101))) static void early(void)
{
	const char *m = getenv("ABI_PROBE_EARLY");

	if (m && *m == '1') {
		early_copies = cidk_percpu_nr_copies();
		early_path = cidk_percpu_path(CIDK_PERCPU_CPU_ID);
	}
}

static int path_is(enum cidk_percpu_path want)
{
	return cidk_percpu_path(CIDK_PERCPU_CPU_ID) == want &&
	       cidk_percpu_path(CIDK_PERCPU_MM_CID) == want;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "api";
	const char *env = getenv("CIDK_PERCPU");
	struct cidk_abi_probe_result r;

	if (TEST_TSAN)
		skip_all("ThreadSanitizer build: the probe and the rseq path are off by design");
	if (!cidk__abi_cs_supported())
		skip_all("no critical sections for this architecture");
	if (!strcmp(mode, "api")) {
		test_api();
		return done_testing();
	}
	if (!strcmp(mode, "early")) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);

		ok(early_path == CIDK_PERCPU_RSEQ && early_path == cidk_percpu_path(CIDK_PERCPU_CPU_ID) &&
			   early_copies == cidk_percpu_nr_copies() && early_copies >= (unsigned int)online,
		   "asked in a constructor before the library's: the rseq path and %u copies, as after main() (%s)",
		   early_copies, cidk_percpu_why(CIDK_PERCPU_CPU_ID));
		return done_testing();
	}
	if (!strcmp(mode, "fork")) {
		test_fork_during_probe();
		return done_testing();
	}
	if (!strcmp(mode, "broken"))
		cidk__abi_probe_cached_breaks = CIDK_ABI_BREAK_UNARMED;
	else if (!strcmp(mode, "unknown"))
		cidk__abi_probe_cached_breaks = CIDK_ABI_BREAK_UNARMED | CIDK_ABI_BREAK_NO_EVENT;
	else if (strcmp(mode, "good")) {
		fprintf(stderr, "usage: test_abi_probe api|broken|unknown|good|fork\n");
		return 2;
	}
	diag("%s, CIDK_PERCPU=%s: cpu_id %s (%s); mm_cid %s (%s)", mode, env ? env : "(unset)",
	     cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_CPU_ID)),
	     cidk_percpu_why(CIDK_PERCPU_CPU_ID),
	     cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_MM_CID)),
	     cidk_percpu_why(CIDK_PERCPU_MM_CID));
	if (env && !strcmp(env, "rseq")) {
		/* the override: no probe, the rseq path even on a "broken" kernel */
		ok(path_is(CIDK_PERCPU_RSEQ) &&
			   strstr(cidk_percpu_why(CIDK_PERCPU_CPU_ID), "CIDK_PERCPU=rseq"),
		   "CIDK_PERCPU=rseq: the rseq path, not probed, said so");
		return done_testing();
	}
	if (env && !strcmp(env, "atomic")) {
		ok(path_is(CIDK_PERCPU_ATOMIC) &&
			   strstr(cidk_percpu_why(CIDK_PERCPU_CPU_ID), "CIDK_PERCPU=atomic"),
		   "CIDK_PERCPU=atomic: the atomic path, said so");
		exact_on_path("atomic");
		return done_testing();
	}
	if (env && *env && strcmp(env, "probe"))
		ok(strstr(cidk_percpu_why(CIDK_PERCPU_CPU_ID), "not understood") != NULL,
		   "CIDK_PERCPU=%s: probed, and why() says the value was not understood", env);
	cidk_abi_probe_cached(&r);
	if (!strcmp(mode, "good")) {
		ok(path_is(CIDK_PERCPU_RSEQ) &&
			   strstr(cidk_percpu_why(CIDK_PERCPU_CPU_ID), "the probe: interrupted sections abort"),
		   "the probe passed: the rseq path for both indexings, said so");
		exact_on_path("rseq");
	} else if (!strcmp(mode, "broken")) {
		ok(r.promise[CIDK_ABI_ABORT].verdict == CIDK_ABI_FAIL && path_is(CIDK_PERCPU_ATOMIC) &&
			   strstr(cidk_percpu_why(CIDK_PERCPU_CPU_ID), "broken abort promise") &&
			   strstr(cidk_percpu_why(CIDK_PERCPU_MM_CID), "does not abort"),
		   "the probe says FAIL: the atomic path for both indexings, why() names the promise and the kernel");
		exact_on_path("atomic");
	} else {
		ok(r.promise[CIDK_ABI_ABORT].verdict == CIDK_ABI_UNKNOWN && path_is(CIDK_PERCPU_ATOMIC) &&
			   strstr(cidk_percpu_why(CIDK_PERCPU_CPU_ID), "could not tell"),
		   "the probe could not tell: the atomic path (the safe default), said so");
	}
	return done_testing();
}
