/* SPDX-License-Identifier: MIT */
/*
 * cidkit/abi.h - does this kernel keep the rseq promise per-CPU data rests
 * on?  Asked by behaviour, inside the calling process, in about a hundred
 * microseconds -- never by version number.
 *
 *   struct cidk_abi_probe_result r;
 *   cidk_abi_probe_cached(&r);
 *   if (r.promise[CIDK_ABI_ABORT].verdict != CIDK_ABI_PASS)
 *           use_my_atomic_fallback();
 *
 * The promise: a restartable sequence that is running when the kernel
 * interrupts it -- membarrier(2)'s MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ
 * targets its CPU, or it is preempted -- is aborted (moved to its abort
 * handler) before it can commit.  Released kernels broke it: Debian's
 * arm64 6.19.x and 7.0.x up to 7.0.13 commit such sections, and per-CPU
 * data built on them silently corrupts (docs/abi.md).
 *
 * Two more promises on request (opts.promises), because asking costs a
 * fork: a section a signal handler ran inside is aborted (some broken
 * kernels keep this one -- Debian's arm64 7.0.10 to 7.0.13 abort on
 * signals and still corrupt data -- so it cannot be the gate), and
 * cpu_id_start is rewritten after a signal when the area was registered
 * in the legacy mode (32 bytes: "IDs rewritten after every switch and
 * signal"; a longer, "V2" registration may skip it, so there the answer
 * is UNKNOWN, and why says which mode).  Both run in a child process (fork of the
 * caller), whose signal handler, interval timer and writes to its own
 * copy of the rseq area the caller never sees.
 *
 * How (lib/abi/probe.c): two threads.  A (a thread the probe starts)
 * enters a critical section, publishes an attempt id inside it, and spins
 * there until B (the calling thread) says its event for that attempt is
 * over.  B, woken when A announces an attempt, waits until A is inside,
 * sends membarrier's RSEQ command (with one usable CPU, B simply runs,
 * which needs A preempted), then releases A.
 * A section that commits after seeing the release had a whole event run
 * inside it and was not aborted: FAIL.  A pass needs @rounds aborts that
 * happened during B's event (a stray abort is retried under a new id and
 * never counts).  Every wait has a deadline: what cannot be told within
 * the budget is UNKNOWN, with why, never a hang.
 *
 * What the probe touches: for the abort promise, it starts and joins one
 * thread, which blocks every signal (the process's signals still reach
 * only the caller's threads, and none can abort its sections), runs off
 * the caller's CPU where the process may, registers cidkit's own rseq
 * area for itself when glibc registered none, and exits; it registers the
 * process for membarrier's RSEQ command
 * (MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ: process-wide and
 * permanent, harmless, and what cidk_percpu_fence() registers anyway).
 * It installs no signal handler, changes no affinity or signal mask of
 * the caller, and leaves the caller's rseq registration alone.  For the
 * opt-in promises it forks one child and reaps it (waitpid on its pid: a
 * program that reaps every child with waitpid(-1) from another thread may
 * take it, and the answer is then UNKNOWN).
 */
#ifndef CIDKIT_ABI_H
#define CIDKIT_ABI_H

#include <stdint.h>

#include <cidkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The promises the probe can ask about (indices into result.promise). */
enum cidk_abi_promise {
	CIDK_ABI_ABORT = 0,        /* an interrupted section aborts (membarrier RSEQ / preemption) */
	CIDK_ABI_SIGNAL = 1,       /* a section a signal handler ran inside aborts (opt-in) */
	CIDK_ABI_CPU_ID_START = 2, /* cpu_id_start rewritten after a signal, as the registration's mode says (opt-in) */
	CIDK_ABI_NR_PROMISES = 3,
};

/* One answer. */
enum cidk_abi_answer {
	CIDK_ABI_UNKNOWN = 0, /* could not tell within the budget (why says why) */
	CIDK_ABI_PASS = 1,    /* the kernel kept the promise every time it was asked */
	CIDK_ABI_FAIL = 2,    /* the kernel broke it at least once */
};

#define CIDK_ABI_WHY_LEN 256

/* What the probe found about one promise. */
struct cidk_abi_promise_result {
	enum cidk_abi_answer verdict;
	unsigned int attempts;       /* sections entered */
	unsigned int aborts_in_event; /* aborted while B's event ran: the proof of a pass */
	unsigned int stray_aborts;   /* aborted before B's event began: retried, not counted */
	unsigned int broken;         /* committed after a whole event ran inside */
	unsigned int events;         /* events B made (membarrier calls) */
	uint64_t ns;                 /* wall time spent on this promise */
	char why[CIDK_ABI_WHY_LEN];  /* one line, no newline */
};

/* What the probe found. */
struct cidk_abi_probe_result {
	struct cidk_abi_promise_result promise[CIDK_ABI_NR_PROMISES];
	unsigned int asked;   /* the promises probed (CIDK_ABI_ASK bits); the others are UNKNOWN, "not asked" */
	uint64_t ns;          /* wall time of the whole probe */
	unsigned int cpus;    /* CPUs the probe's threads could use */
};

/* How to probe; all zero means the defaults. */
struct cidk_abi_probe_opts {
	uint64_t budget_ns;    /* give up (UNKNOWN) after this, per promise; 0: 1 s (a verdict usually comes in well under a millisecond: the budget is reached only when the probe's threads cannot run) */
	unsigned int rounds;   /* aborts during an event a pass needs; 0: 2 */
	unsigned int promises; /* bits 1u << enum cidk_abi_promise; 0: the abort promise only */
};

/* The opts.promises bit of one promise. */
#define CIDK_ABI_ASK(p) (1u << (p))

/*
 * cidk_abi_probe - probe the running kernel now, with @opts (NULL: the
 * defaults), and fill @out.  Does not touch the cached result (see
 * cidk_abi_probe_cached) unless @refresh is nonzero, in which case @out
 * becomes the process's cached answer (and the one later calls of
 * cidk_abi_probe_cached return; the per-CPU operations' path, once chosen,
 * does not change).
 * Returns 0 (the verdicts are in @out, UNKNOWN included), -EINVAL (@out
 * NULL, @opts->budget_ns above 10 s, or a promises bit past the last), -ENOSYS (no critical sections
 * for this architecture or build: @out says UNKNOWN and why), or the
 * negative errno of pthread_create.  MT-safe; probes may run at the same
 * time (each has its own threads and words).  Blocks for at most about
 * the budget.
 */
CIDK_EXPORT int cidk_abi_probe(const struct cidk_abi_probe_opts *opts,
			       struct cidk_abi_probe_result *out, int refresh);

/*
 * cidk_abi_probe_cached - the process's answer: the first call (from any
 * thread, or the first per-CPU operation) probes with the defaults, the
 * others wait for it and copy the same result.  Returns as
 * cidk_abi_probe().  MT-safe.
 */
CIDK_EXPORT int cidk_abi_probe_cached(struct cidk_abi_probe_result *out);

/* "abort", "signal", "cpu-id-start"; NULL past the end. */
CIDK_EXPORT const char *cidk_abi_promise_name(enum cidk_abi_promise p);

/* "pass", "FAIL" or "unknown". */
CIDK_EXPORT const char *cidk_abi_answer_name(enum cidk_abi_answer a);

#ifdef __cplusplus
}
#endif

#endif /* CIDKIT_ABI_H */
