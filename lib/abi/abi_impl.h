/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/abi_impl.h - what the checks of lib/abi share: the verdict and
 * evidence helpers, the registration a check uses, CPU pinning, and the
 * checks' own critical section (cs.c).
 */
#ifndef CIDKIT_LIB_ABI_IMPL_H
#define CIDKIT_LIB_ABI_IMPL_H

#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

#include <cidkit/rseq.h>

#include "abi/abi.h"

/* One check: fills @r (its name is set); runs in a child process. */
typedef void cidk__abi_check_fn(const struct cidk__abi_opts *o,
				struct cidk__abi_result *r);

cidk__abi_check_fn cidk__abi_check_register;
cidk__abi_check_fn cidk__abi_check_ids;
cidk__abi_check_fn cidk__abi_check_abort_preempt;
cidk__abi_check_fn cidk__abi_check_abort_migrate;
cidk__abi_check_fn cidk__abi_check_abort_signal;
cidk__abi_check_fn cidk__abi_check_cpu_id_start;
cidk__abi_check_fn cidk__abi_check_mm_cid;
cidk__abi_check_fn cidk__abi_check_membarrier;
cidk__abi_check_fn cidk__abi_check_slice_ext;
cidk__abi_check_fn cidk__abi_check_probe;

/* The verdict and its reason (printf format), replacing any earlier one. */
void cidk__abi_say(struct cidk__abi_result *r, enum cidk__abi_verdict v,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* One named number of evidence (dropped past CIDK_ABI_EVIDENCE_MAX). */
void cidk__abi_ev(struct cidk__abi_result *r, const char *key, int64_t v);

/* The rseq area a check reads, for the calling thread. */
struct cidk__abi_area {
	volatile struct cidk_rseq_abi *a;
	enum cidk_rseq_owner owner; /* glibc, cidkit, or NONE for the break */
};

/*
 * The calling thread's area: glibc's when it registered one, else
 * cidkit's own (registered now).  With CIDK_ABI_BREAK_UNREGISTERED in
 * @breaks: a thread-local look-alike the kernel never writes (its IDs
 * read all ones).  Returns 0 or the negative errno of the registration.
 */
int cidk__abi_area_get(struct cidk__abi_area *out, unsigned int breaks);

/* The signature the areas are registered with on this architecture. */
uint32_t cidk__abi_sig(void);

/*
 * The rseq_len the calling thread's area was registered with, found by
 * asking the kernel to register it again with each plausible length: the
 * right one answers EBUSY, the others EINVAL.  Returns the length, or the
 * negative errno of the last answer when none said EBUSY.
 */
int cidk__abi_area_len(volatile struct cidk_rseq_abi *a);

/* Undo the calling thread's registration (glibc's or cidkit's). 0 or -errno. */
int cidk__abi_area_drop(void);

/* rseq(2) registration of @mem with @len bytes and our signature: 0 or -errno. */
int cidk__abi_area_register(void *mem, unsigned int len);

/* The CPUs this process may run on, ascending, at most @max: their count. */
unsigned int cidk__abi_allowed(int *cpus, unsigned int max);

/* Pin thread @tid (0: the caller) to @cpu alone.  0 or -errno. */
int cidk__abi_pin(pid_t tid, int cpu);

/* Pin the caller back to every CPU of @cpus[0..n). */
int cidk__abi_unpin(const int *cpus, unsigned int n);

/* getcpu(2) as a system call (not through rseq or the vDSO). 0 or -errno. */
int cidk__abi_getcpu(unsigned int *cpu, unsigned int *node);

pid_t cidk__abi_gettid(void);

/*
 * The checks' critical section: load *first, spin @spins times, load
 * *last, then the commit: ++*count.  @rseq_cs is the area's rseq_cs field.
 * @breaks selects a broken variant (cs-short, no-sig, write-early).
 * Returns 0 (committed; *delta = last - first) or -1 (the kernel aborted it).
 */
struct cidk__abi_cs {
	volatile uint64_t *rseq_cs;
	const volatile uint32_t *first, *last;
	uint64_t *count;
	unsigned long spins; /* >= 1 */
	unsigned int breaks;
};
int cidk__abi_cs_run(const struct cidk__abi_cs *c, int32_t *delta);

/*
 * The probe's critical section: store @id to *pub, spin until *rel ==
 * @id (at most @spins turns), then the commit: *commit = @id.  Returns 0
 * (committed: it saw *rel == @id inside), -1 (the kernel aborted it) or
 * 1 (the spin ran out; nothing committed).
 */
struct cidk__abi_wait {
	volatile uint64_t *rseq_cs;
	volatile uint32_t *pub;
	const volatile uint32_t *rel;
	volatile uint32_t *commit;
	uint32_t id;
	unsigned long spins; /* >= 1 */
};
int cidk__abi_cs_wait(const struct cidk__abi_wait *w);

/* 1 where this architecture has the section written (x86-64, aarch64, riscv64, ppc64le, s390x). */
int cidk__abi_cs_supported(void);

#define CIDK_ABI_MAX_CPUS 1024

/* membarrier(2)'s RSEQ commands (uapi linux/membarrier.h, Linux 5.10). */
#define CIDK_ABI_MB_QUERY 0
#define CIDK_ABI_MB_PRIVATE_EXPEDITED_RSEQ (1 << 7)
#define CIDK_ABI_MB_REGISTER_PRIVATE_EXPEDITED_RSEQ (1 << 8)

/*
 * Whether membarrier's RSEQ command is there, registering the process for
 * it (process-wide, permanent).  0, -ENOSYS (no such command: Linux <
 * 5.10, or membarrier off), or the negative errno of the query or of the
 * registration.
 */
int cidk__abi_membarrier_rseq(void);

#endif /* CIDKIT_LIB_ABI_IMPL_H */
