/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/run.c - the table of checks, and running one in a child process
 * (abi.h: cidk__abi_run).
 *
 * The child writes its verdict into a shared anonymous page; the parent
 * waits with a deadline, and turns a child that died or hung into a FAIL
 * that names the cause (the kernel kills a thread whose abort handler is
 * not preceded by the registered signature: SIGSEGV).
 *
 * rseq is unusable under ThreadSanitizer (it cannot see the stores inside
 * the assembly) and under valgrind (which refuses rseq(2)): every check
 * is then n/a with that reason, without forking.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi/abi_impl.h"
#include "rseq/rseq_own.h"
#include "util/clock.h"

#if defined(__SANITIZE_THREAD__)
#define ABI_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ABI_TSAN 1
#endif
#endif
#ifndef ABI_TSAN
#define ABI_TSAN 0
#endif

static const struct check {
	const char *name;
	const char *about;
	int timed;
	cidk__abi_check_fn *fn;
} checks[] = {
	{ "register", "who registered rseq, its length, the kernel's answers to it",
	  0, cidk__abi_check_register },
	{ "ids", "cpu_id, cpu_id_start, node_id on every allowed CPU", 0,
	  cidk__abi_check_ids },
	{ "abort-preempt", "a preemption on the same CPU aborts the section", 1,
	  cidk__abi_check_abort_preempt },
	{ "abort-migrate", "a migration aborts the section", 1,
	  cidk__abi_check_abort_migrate },
	{ "abort-signal", "a signal delivered inside aborts the section", 1,
	  cidk__abi_check_abort_signal },
	{ "cpu-id-start", "cpu_id_start rewritten after a switch or signal, per length",
	  1, cidk__abi_check_cpu_id_start },
	{ "mm-cid", "mm_cid below min(allowed CPUs, threads); convergence", 1,
	  cidk__abi_check_mm_cid },
	{ "membarrier-rseq", "membarrier's RSEQ command aborts running sections",
	  1, cidk__abi_check_membarrier },
	{ "slice-ext", "the time-slice extension (Linux 7.0+) when offered", 0,
	  cidk__abi_check_slice_ext },
	{ "probe", "libcidkit's in-process probe: a section a membarrier RSEQ command interrupts aborts",
	  0, cidk__abi_check_probe },
};

#define NR_CHECKS (sizeof(checks) / sizeof(checks[0]))

static const char *const break_names[] = {
	"cs-short", "no-sig", "write-early", "unregistered", "stale", "no-event",
	"unarmed", "idle-helper", "unmarked",
};

unsigned int cidk__abi_nr_checks(void)
{
	return NR_CHECKS;
}

const char *cidk__abi_check_name(unsigned int i)
{
	return i < NR_CHECKS ? checks[i].name : NULL;
}

const char *cidk__abi_check_about(unsigned int i)
{
	return i < NR_CHECKS ? checks[i].about : NULL;
}

int cidk__abi_check_timed(unsigned int i)
{
	return i < NR_CHECKS && checks[i].timed;
}

int cidk__abi_check_find(const char *name)
{
	for (unsigned int i = 0; name && i < NR_CHECKS; i++)
		if (!strcmp(name, checks[i].name))
			return (int)i;
	return -ENOENT;
}

unsigned int cidk__abi_break_parse(const char *name)
{
	for (unsigned int k = 0; name && k < sizeof(break_names) / sizeof(break_names[0]); k++)
		if (!strcmp(name, break_names[k]))
			return 1u << k;
	return 0;
}

const char *cidk__abi_break_name(unsigned int k)
{
	return k < sizeof(break_names) / sizeof(break_names[0]) ? break_names[k] : NULL;
}

const char *cidk__abi_verdict_name(enum cidk__abi_verdict v)
{
	switch (v) {
	case CIDK__ABI_PASS:
		return "pass";
	case CIDK__ABI_FAIL:
		return "FAIL";
	case CIDK__ABI_NA:
		break;
	}
	return "n/a";
}

void cidk__abi_say(struct cidk__abi_result *r, enum cidk__abi_verdict v,
		   const char *fmt, ...)
{
	va_list ap;

	r->verdict = v;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

void cidk__abi_ev(struct cidk__abi_result *r, const char *key, int64_t v)
{
	struct cidk__abi_evidence *e;

	if (r->n_evidence >= CIDK_ABI_EVIDENCE_MAX)
		return;
	e = &r->evidence[r->n_evidence++];
	snprintf(e->key, sizeof(e->key), "%s", key);
	e->value = v;
}

/* Why rseq cannot be checked in this process, or NULL. */
static const char *unusable(char *buf, size_t size)
{
	int rc;

	if (ABI_TSAN)
		return "ThreadSanitizer build: TSan cannot see the stores inside rseq critical sections";
	if (!cidk__abi_cs_supported())
		return "no critical sections written for this architecture "
		       "(x86-64, aarch64, riscv64, ppc64le and s390x only)";
	rc = cidk__rseq_probe();
	if (rc) {
		snprintf(buf, size, "no rseq(2) here: %s (a kernel without rseq, or valgrind, which refuses it)",
			 strerror(-rc));
		return buf;
	}
	return NULL;
}

static const char *signame(int sig)
{
	switch (sig) {
	case SIGSEGV:
		return "SIGSEGV";
	case SIGKILL:
		return "SIGKILL";
	case SIGBUS:
		return "SIGBUS";
	case SIGILL:
		return "SIGILL";
	case SIGTRAP:
		return "SIGTRAP";
	case SIGABRT:
		return "SIGABRT";
	}
	return "a signal";
}

/* The parent's side: wait for @pid until @deadline_ns, then judge. */
static void reap(pid_t pid, uint64_t deadline_ns, struct cidk__abi_result *shared)
{
	int status = 0, timed_out = 0;
	pid_t w;

	for (;;) {
		struct timespec ts = { 0, 2000000 };

		w = waitpid(pid, &status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (cidk__now_ns() > deadline_ns) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			timed_out = 1;
			break;
		}
		nanosleep(&ts, NULL);
	}
	if (timed_out) {
		cidk__abi_say(shared, CIDK__ABI_FAIL,
			      "the check did not finish in time (killed): %s",
			      shared->reason[0] ? shared->reason : "no progress reported");
	} else if (w == pid && WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		cidk__abi_ev(shared, "killed_by_signal", sig);
		cidk__abi_say(shared, CIDK__ABI_FAIL,
			      "the check's process was killed by %s (%d)%s", signame(sig), sig,
			      sig == SIGSEGV ? ": the kernel's answer to an abort handler "
					       "not preceded by the registered signature, "
					       "or an invalid descriptor" : "");
	} else if (w != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		cidk__abi_say(shared, CIDK__ABI_FAIL,
			      "the check's process ended abnormally (status %d)", status);
	}
}

int cidk__abi_run(unsigned int i, const struct cidk__abi_opts *opts,
		  struct cidk__abi_result *out)
{
	struct cidk__abi_result *shared;
	uint64_t t0, budget_ns;
	char buf[CIDK_ABI_REASON_LEN];
	const char *why;
	pid_t pid;

	if (i >= NR_CHECKS || !opts || !out || !(opts->seconds > 0) ||
	    opts->seconds > 3600)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->name = checks[i].name;
	why = unusable(buf, sizeof(buf));
	if (why) {
		cidk__abi_say(out, CIDK__ABI_NA, "%s", why);
		return 0;
	}
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -errno;
	memset(shared, 0, sizeof(*shared));
	shared->name = checks[i].name;
	shared->verdict = CIDK__ABI_FAIL;
	t0 = cidk__now_ns();
	budget_ns = (uint64_t)(opts->seconds * 1e9);
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		munmap(shared, sizeof(*shared));
		return err;
	}
	if (pid == 0) {
		checks[i].fn(opts, shared);
		_exit(0);
	}
	reap(pid, t0 + 4 * budget_ns + 10000000000ull, shared);
	*out = *shared;
	out->name = checks[i].name;
	out->elapsed_ns = cidk__now_ns() - t0;
	munmap(shared, sizeof(*shared));
	return 0;
}
