/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/check_cpu_id_start.c - "cpu-id-start": does the kernel rewrite
 * cpu_id_start on the way back to user space when the CPU did not change?
 *
 * tcmalloc writes its own value into cpu_id_start and relies on the kernel
 * overwriting it after every preemption and before every signal handler
 * (the April 2026 report: 6.19 stopped doing it).  The fix that followed
 * documents two modes by registration length: 32 bytes is "legacy" (the
 * ID fields are rewritten unconditionally after each context switch and
 * before signal delivery), a length of at least AT_RSEQ_FEATURE_SIZE above
 * 32 is "optimized V2" (rewritten only when they change; read-only fields
 * enforced).  So: a 32-byte registration that keeps our value after a
 * context switch or a signal is a FAIL; for the longer one the behaviour is
 * reported only.
 *
 * Each length runs in a process of its own (forked from the check's):
 * it drops the current registration, registers an area of that length,
 * pins itself, writes a value no CPU has into cpu_id_start, then makes an
 * event happen -- a signal to itself, or a helper thread on the same CPU
 * that runs only when we are switched out -- and reads the field back.  A
 * kernel that enforces read-only fields may kill it for the write; that is
 * reported, and is a FAIL for neither length.
 *
 * Break "no-event": read the field back without making anything happen
 * (a user side that looks too early): the 32-byte run must FAIL.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi/abi_impl.h"
#include "util/clock.h"

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#endif

#define SENTINEL 0xfffffff0u
#define SIG_TRIALS 20u
#define SWITCH_TRIALS 10u

struct probe {
	unsigned int len;
	int state;    /* 0 did not finish, 1 finished, -errno: registration refused */
	int killed;   /* signal that ended the process, 0 if none */
	unsigned int sig_trials, sig_rewritten;
	unsigned int sw_trials, sw_rewritten;
};

static struct {
	volatile uint32_t tick;
	int stop;
	int cpu;
} spin;

static void nothing(int sig)
{
	(void)sig;
}

static void *spinner(void *arg)
{
	(void)arg;
	cidk__abi_pin(0, spin.cpu);
	while (!__atomic_load_n(&spin.stop, __ATOMIC_RELAXED))
		__atomic_store_n(&spin.tick, spin.tick + 1, __ATOMIC_RELAXED);
	return NULL;
}

/* The child's work for one length. */
static void probe_len(struct probe *p, unsigned int breaks, uint64_t budget_ns)
{
	static unsigned char mem[1024] __attribute__((aligned(1024)));
	volatile struct cidk_rseq_abi *a = (volatile struct cidk_rseq_abi *)mem;
	unsigned int cpu = 0, node = 0;
	uint64_t deadline = cidk__now_ns() + budget_ns;
	struct sigaction sa;
	pthread_t th;
	int rc;

	rc = cidk__abi_area_drop();
	if (!rc)
		rc = cidk__abi_area_register(mem, p->len);
	if (rc) {
		p->state = rc;
		return;
	}
	cidk__abi_getcpu(&cpu, &node);
	cidk__abi_pin(0, (int)cpu);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nothing;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	for (unsigned int i = 0; i < SIG_TRIALS; i++) {
		a->cpu_id_start = SENTINEL;
		if (!(breaks & CIDK_ABI_BREAK_NO_EVENT))
			raise(SIGUSR2);
		p->sig_trials++;
		p->sig_rewritten += a->cpu_id_start == cpu;
	}
	spin.cpu = (int)cpu;
	if (!pthread_create(&th, NULL, spinner, NULL)) {
		for (unsigned int i = 0; i < SWITCH_TRIALS && cidk__now_ns() < deadline; i++) {
			uint32_t t;
			int ran = 1;

			a->cpu_id_start = SENTINEL;
			t = spin.tick;
			if (!(breaks & CIDK_ABI_BREAK_NO_EVENT))
				while ((ran = spin.tick == t ? 0 : 1) == 0 &&
				       cidk__now_ns() < deadline)
					;
			if (!ran)
				break;
			p->sw_trials++;
			p->sw_rewritten += a->cpu_id_start == cpu;
		}
		__atomic_store_n(&spin.stop, 1, __ATOMIC_RELAXED);
		pthread_join(th, NULL);
	}
	p->state = 1;
}

static void run_len(struct probe *p, unsigned int breaks, uint64_t budget_ns)
{
	int status = 0;
	pid_t pid = fork();

	if (pid < 0) {
		p->state = -errno;
		return;
	}
	if (pid == 0) {
		probe_len(p, breaks, budget_ns);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(status))
		p->killed = WTERMSIG(status);
}

static unsigned int long_len(void)
{
	unsigned int fs = (unsigned int)getauxval(AT_RSEQ_FEATURE_SIZE), len = 64;

	while (len < fs)
		len <<= 1;
	return len;
}

static void describe(char *buf, size_t size, const struct probe *p)
{
	if (p->killed)
		snprintf(buf, size, "%u bytes: killed by signal %d after writing cpu_id_start",
			 p->len, p->killed);
	else if (p->state < 0)
		snprintf(buf, size, "%u bytes: registration refused (%s)", p->len,
			 strerror(-p->state));
	else
		snprintf(buf, size, "%u bytes: rewritten after %u/%u signals, %u/%u switches",
			 p->len, p->sig_rewritten, p->sig_trials, p->sw_rewritten,
			 p->sw_trials);
}

void cidk__abi_check_cpu_id_start(const struct cidk__abi_opts *o,
				  struct cidk__abi_result *r)
{
	struct probe *p;
	uint64_t budget = (uint64_t)(o->seconds * 1e9) / 2;
	char d0[100], d1[100];

	p = mmap(NULL, 2 * sizeof(*p), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		cidk__abi_say(r, CIDK__ABI_NA, "no shared page: %s", strerror(errno));
		return;
	}
	memset(p, 0, 2 * sizeof(*p));
	p[0].len = 32;
	p[1].len = long_len();
	run_len(&p[0], o->breaks, budget);
	run_len(&p[1], o->breaks, budget);
	for (int i = 0; i < 2; i++) {
		const char *k[2][3] = { { "len32_signal_rewritten", "len32_switch_rewritten", "len32_trials" },
					{ "long_signal_rewritten", "long_switch_rewritten", "long_len" } };

		cidk__abi_ev(r, k[i][0], p[i].sig_rewritten);
		cidk__abi_ev(r, k[i][1], p[i].sw_rewritten);
		cidk__abi_ev(r, k[i][2], i ? p[i].len : p[i].sig_trials + p[i].sw_trials);
	}
	describe(d0, sizeof(d0), &p[0]);
	describe(d1, sizeof(d1), &p[1]);
	if (p[0].killed || p[0].state != 1) {
		cidk__abi_say(r, CIDK__ABI_NA, "could not probe the legacy length: %s; %s", d0, d1);
	} else if (!p[0].sw_trials) {
		cidk__abi_say(r, CIDK__ABI_NA, "the same-CPU helper never ran; %s; %s", d0, d1);
	} else if (p[0].sig_rewritten < p[0].sig_trials ||
		   p[0].sw_rewritten < p[0].sw_trials) {
		cidk__abi_say(r, CIDK__ABI_FAIL,
			      "legacy mode must rewrite cpu_id_start after every switch and signal: %s; %s",
			      d0, d1);
	} else {
		cidk__abi_say(r, CIDK__ABI_PASS, "%s (legacy: must); %s (V2: may skip)", d0, d1);
	}
	munmap(p, 2 * sizeof(*p));
}
