/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/abi.h - does the running kernel keep rseq's promises?  The checks
 * behind `cidkit abi` (internal to cidkit: the command and the tests call
 * them; not exported from libcidkit.so).
 *
 * Each check exercises one promise of the rseq ABI (rseq(2), uapi
 * linux/rseq.h, the kernel's rseq selftests, the 2026 "legacy / optimized
 * V2" documentation) with our own critical sections (lib/abi/cs.c, x86-64
 * and aarch64) and returns a verdict: pass, FAIL, or n/a with the reason,
 * and the evidence as named numbers.  The library prints nothing.
 *
 * Isolation: every check runs in a child process (fork), which reports
 * through a shared page: a check may pin, unregister glibc's rseq area,
 * register its own of a chosen length, install signal handlers, or be
 * killed by the kernel (a bad signature at an abort is SIGSEGV) without
 * touching the caller.  Call it from a process with no other threads
 * running (the command is one).
 *
 * Broken user sides: @breaks in struct cidk__abi_opts selects deliberately
 * wrong variants of the checks' own code (a descriptor that does not cover
 * the section, a wrong signature, a write before the commit, ...), so that
 * tests can see each check FAIL.  The variants are branches inside the one
 * implementation, never a second copy of a check.
 *
 * Not MT-safe (forks, pins, signals); cold.
 */
#ifndef CIDKIT_LIB_ABI_H
#define CIDKIT_LIB_ABI_H

#include <stdint.h>

enum cidk__abi_verdict {
	CIDK__ABI_PASS = 0,
	CIDK__ABI_FAIL = 1,
	CIDK__ABI_NA = 2,
};

/* The deliberately broken user sides (bits of cidk__abi_opts.breaks). */
enum cidk__abi_break {
	CIDK_ABI_BREAK_CS_SHORT = 1u << 0,     /* descriptor ends after the first load */
	CIDK_ABI_BREAK_NO_SIG = 1u << 1,       /* wrong signature before the abort handler */
	CIDK_ABI_BREAK_WRITE_EARLY = 1u << 2,  /* the section's store comes first, not last */
	CIDK_ABI_BREAK_UNREGISTERED = 1u << 3, /* read an area the kernel does not update */
	CIDK_ABI_BREAK_STALE = 1u << 4,        /* read the IDs once, before moving */
	CIDK_ABI_BREAK_NO_EVENT = 1u << 5,     /* look before the event happened */
	CIDK_ABI_BREAK_UNARMED = 1u << 6,      /* the section's descriptor is never given to the kernel */
	CIDK_ABI_BREAK_IDLE_HELPER = 1u << 7,  /* the helper goes through the motions, no event */
	CIDK_ABI_BREAK_UNMARKED = 1u << 8,     /* probe: B never says its event began: every abort is stray */
};

#define CIDK_ABI_REASON_LEN 240
#define CIDK_ABI_EVIDENCE_MAX 16
#define CIDK_ABI_KEY_LEN 32

struct cidk__abi_evidence {
	char key[CIDK_ABI_KEY_LEN];
	int64_t value;
};

struct cidk__abi_result {
	const char *name;               /* the check's name */
	enum cidk__abi_verdict verdict;
	char reason[CIDK_ABI_REASON_LEN]; /* one line, no newline */
	unsigned int n_evidence;
	struct cidk__abi_evidence evidence[CIDK_ABI_EVIDENCE_MAX];
	uint64_t elapsed_ns;            /* wall time of the check */
};

struct cidk__abi_opts {
	double seconds;      /* time budget of this one check (timed checks) */
	unsigned int breaks; /* enum cidk__abi_break bits; 0 for the real run */
};

/* The number of checks; their order is the report's. */
unsigned int cidk__abi_nr_checks(void);

/* The name ("register", "abort-preempt", ...) of check @i, NULL past the end. */
const char *cidk__abi_check_name(unsigned int i);

/* One phrase: what check @i checks. */
const char *cidk__abi_check_about(unsigned int i);

/* 1 if check @i loops for its time budget (it gets a share of --seconds). */
int cidk__abi_check_timed(unsigned int i);

/* The index of the check named @name, or -ENOENT. */
int cidk__abi_check_find(const char *name);

/*
 * The break named @name ("cs-short", "no-sig", ...): its bit, or 0 if
 * there is none.  cidk__abi_break_name(k) names the k-th (NULL past the
 * end), for listings.
 */
unsigned int cidk__abi_break_parse(const char *name);
const char *cidk__abi_break_name(unsigned int k);

/* "pass", "FAIL" or "n/a". */
const char *cidk__abi_verdict_name(enum cidk__abi_verdict v);

/*
 * cidk__abi_run - run check @i with @opts, in a child process, and fill
 * @out.  A child that dies (a signal, a time-out at 4 x the budget + 10 s)
 * is a FAIL with the cause as the reason.  Returns 0 (the verdict is in
 * @out), -EINVAL (@i out of range, NULL argument, budget not in
 * (0, 3600]) or the negative errno of mmap/fork.
 */
int cidk__abi_run(unsigned int i, const struct cidk__abi_opts *opts,
		  struct cidk__abi_result *out);

/*
 * cidk__abi_probe_run - the probe of include/cidkit/abi.h with @breaks
 * (unarmed, idle-helper, no-event; 0 for the real one), in the calling
 * process, not cached.  Returns as cidk_abi_probe().
 */
struct cidk_abi_probe_opts;
struct cidk_abi_probe_result;
int cidk__abi_probe_run(const struct cidk_abi_probe_opts *opts,
			unsigned int breaks, struct cidk_abi_probe_result *out);

/*
 * The breaks of the process's own probe (cidk_abi_probe_cached, and so
 * the per-CPU operations' choice): 0.  Tests set it before the first
 * operation to see the fallback taken on a kernel that keeps its promise.
 */
extern unsigned int cidk__abi_probe_cached_breaks;

/*
 * The cache's lock, for fork: lib/percpu's pthread_atfork handlers take
 * it (after their own, the order every path takes them in) so that a
 * child never starts with it held by a thread it does not have.
 */
void cidk__abi_probe_lock(void);
void cidk__abi_probe_unlock(void);

#endif /* CIDKIT_LIB_ABI_H */
