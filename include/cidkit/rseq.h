/* SPDX-License-Identifier: MIT */
/*
 * cidkit/rseq.h - the kernel's own IDs for the calling thread: cpu_id,
 * node_id and mm_cid, read from its rseq area.
 *
 * The kernel keeps, in a per-thread area registered with rseq(2), the CPU
 * the thread runs on (cpu_id), that CPU's NUMA node (node_id, kernels that
 * advertise a feature size >= 24) and the thread's concurrency ID within its
 * process (mm_cid, feature size >= 28).  It rewrites them on every return
 * to user space after a preemption or migration, so a plain load is current
 * until the next one.
 *
 * Who registers the area, in order of preference:
 *   1. glibc (>= 2.35) at thread creation; its place is the thread pointer
 *      plus __rseq_offset.  The readers below are then a few instructions:
 *      one test of a process-wide word, one load through the thread pointer.
 *   2. cidkit, when glibc did not (__rseq_size == 0, e.g. under
 *      GLIBC_TUNABLES=glibc.pthread.rseq=0): a 32-byte thread-local area,
 *      registered lazily by the first reader in each thread and unregistered
 *      by a thread-exit destructor.
 *   3. nobody (rseq(2) refused): cpu_id and node_id come from getcpu(2)
 *      (a vDSO call, not a plain load) and mm_cid is unavailable (-ENOSYS).
 *
 * Needs glibc >= 2.35 at build time (<sys/rseq.h> with __rseq_offset and
 * __rseq_size); any kernel (no rseq at all means the getcpu() fallback).
 *
 * Workload: the readers are hot (called on every per-CPU operation); the
 * info query and registration are cold (once per thread at most).
 *
 * MT-safety: every function here is MT-safe and reads or registers only the
 * calling thread's area.  An ID is a snapshot: the thread may migrate right
 * after the load (use it as a hint or inside a lease, never as a lock).
 */
#ifndef CIDKIT_RSEQ_H
#define CIDKIT_RSEQ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/rseq.h>

#include <cidkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * struct cidk_rseq_abi - the kernel's struct rseq (uapi linux/rseq.h), with
 * the fields added in Linux 6.3 (node_id, mm_cid).  Declared here because
 * the installed uapi header may predate them.  Offsets are ABI: 0, 4, 8,
 * 16, 20, 24; 32-byte aligned; the original registration size is 32.
 */
struct cidk_rseq_abi {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;
	uint32_t flags;
	uint32_t node_id;
	uint32_t mm_cid;
} __attribute__((aligned(32)));

#define CIDK_RSEQ_OFF_CPU_ID 4u
#define CIDK_RSEQ_OFF_CS 8u /* rseq_cs: the critical section's descriptor */
#define CIDK_RSEQ_OFF_NODE_ID 20u
#define CIDK_RSEQ_OFF_MM_CID 24u
/* Feature size (AT_RSEQ_FEATURE_SIZE) a kernel must advertise per field. */
#define CIDK_RSEQ_FEATURE_NODE_ID 24u /* offsetof(node_id) + 4 */
#define CIDK_RSEQ_FEATURE_MM_CID 28u  /* offsetof(mm_cid) + 4 */

/* Who registered the calling thread's rseq area. */
enum cidk_rseq_owner {
	CIDK_RSEQ_NONE = 0,  /* nobody: getcpu() fallback, no mm_cid */
	CIDK_RSEQ_GLIBC = 1, /* glibc, at thread creation */
	CIDK_RSEQ_OWN = 2,   /* cidkit, lazily, for this thread */
};

/* What the kernel and the C library provide, as seen by the caller. */
struct cidk_rseq_info {
	enum cidk_rseq_owner owner; /* for the calling thread */
	unsigned int feature_size;  /* getauxval(AT_RSEQ_FEATURE_SIZE); 20 if absent */
	unsigned int align;         /* getauxval(AT_RSEQ_ALIGN); 0 if absent */
	unsigned int glibc_size;    /* glibc's __rseq_size (0: glibc did not register) */
	unsigned int area_size;     /* bytes of the registered area (0 if none) */
	int has_node_id;            /* 1 if node_id is read from the area */
	int has_mm_cid;             /* 1 if mm_cid is read from the area */
	int register_error;         /* our rseq(2) errno when owner == NONE, else 0 */
};

/*
 * Process-wide fast-path word, set by a library constructor before main()
 * and never changed afterwards: the CIDK_RSEQ_FAST_* bits say that glibc
 * registered an area covering cpu_id / node_id / mm_cid, so the inline
 * readers may load through the thread pointer.  Not for direct use.
 */
CIDK_EXPORT extern unsigned int cidk_rseq_fast;
#define CIDK_RSEQ_FAST_CPU_ID 1u
#define CIDK_RSEQ_FAST_NODE_ID 2u
#define CIDK_RSEQ_FAST_MM_CID 4u

/* The slow paths of the readers (own registration or getcpu fallback). */
CIDK_EXPORT int cidk_rseq_cpu_id_slow(void);
CIDK_EXPORT int cidk_rseq_node_id_slow(void);
CIDK_EXPORT int cidk_rseq_mm_cid_slow(void);

/*
 * The thread pointer, which __rseq_offset and every rseq area offset are
 * relative to: __builtin_thread_pointer() (x86-64 %fs base, aarch64
 * tpidr_el0, riscv tp, s390x a0:a1), except on 64-bit powerpc, where GCC
 * before 13 lacks the builtin and the 64-bit ELF ABI keeps it in r13.
 */
static inline void *cidk__thread_pointer(void)
{
#if defined(__powerpc64__)
	register void *tp __asm__("r13");

	__asm__("" : "=r"(tp));
	return tp;
#else
	return __builtin_thread_pointer();
#endif
}

static inline uint32_t cidk__rseq_load(unsigned int off)
{
	const volatile uint32_t *p =
		(const volatile uint32_t *)((const char *)cidk__thread_pointer() +
					    __rseq_offset + off);
	return *p;
}

/*
 * cidk_rseq_cpu_id - the CPU the calling thread runs on.
 * Returns the CPU number (>= 0), or a negative errno only if even getcpu()
 * fails.  Fast path: one load from the glibc-registered area.
 */
static inline int cidk_rseq_cpu_id(void)
{
	if (__builtin_expect(cidk_rseq_fast & CIDK_RSEQ_FAST_CPU_ID, 1))
		return (int)cidk__rseq_load(CIDK_RSEQ_OFF_CPU_ID);
	return cidk_rseq_cpu_id_slow();
}

/*
 * cidk_rseq_node_id - the NUMA node of the CPU the caller runs on.
 * Returns the node (>= 0); from getcpu() when the area lacks node_id;
 * a negative errno only if getcpu() fails.
 */
static inline int cidk_rseq_node_id(void)
{
	if (__builtin_expect(cidk_rseq_fast & CIDK_RSEQ_FAST_NODE_ID, 1))
		return (int)cidk__rseq_load(CIDK_RSEQ_OFF_NODE_ID);
	return cidk_rseq_node_id_slow();
}

/*
 * cidk_rseq_mm_cid - the kernel's concurrency ID of the calling thread in
 * its process: unique among the process's running threads, below
 * min(allowed CPUs, threads).
 * Returns the mm_cid (>= 0), or -ENOSYS when the kernel does not provide
 * it (feature size < 28) or no area could be registered.
 */
static inline int cidk_rseq_mm_cid(void)
{
	if (__builtin_expect(cidk_rseq_fast & CIDK_RSEQ_FAST_MM_CID, 1))
		return (int)cidk__rseq_load(CIDK_RSEQ_OFF_MM_CID);
	return cidk_rseq_mm_cid_slow();
}

/*
 * cidk_rseq_register_current_thread - make sure the calling thread has an
 * rseq area: nothing to do if glibc registered one (returns 0); otherwise
 * register cidkit's thread-local area (idempotent) and arrange for it to be
 * unregistered when the thread exits.  The readers call this lazily.
 * Returns 0, or a negative errno from rseq(2) (-ENOSYS: no rseq in this
 * kernel; -EINVAL or -EBUSY: some other library already registered an
 * area for this thread that we cannot see;
 * -ENOMEM: no thread-exit hook).  On failure the thread uses the getcpu()
 * fallback; a later call retries.
 */
CIDK_EXPORT int cidk_rseq_register_current_thread(void);

/*
 * cidk_rseq_unregister_current_thread - undo cidkit's own registration of
 * the calling thread (a no-op returning 0 when glibc owns the area or
 * nothing is registered).  Returns 0 or a negative errno from rseq(2).
 */
CIDK_EXPORT int cidk_rseq_unregister_current_thread(void);

/*
 * cidk_rseq_info - fill @out with what rseq provides to the calling thread,
 * registering cidkit's area first if glibc did not (as the readers would).
 * Returns 0, or -EINVAL if @out is NULL.
 */
CIDK_EXPORT int cidk_rseq_info(struct cidk_rseq_info *out);

/* cidk_rseq_owner_name - "glibc", "cidkit" or "none". */
CIDK_EXPORT const char *cidk_rseq_owner_name(enum cidk_rseq_owner owner);

#ifdef __cplusplus
}
#endif

#endif /* CIDKIT_RSEQ_H */
