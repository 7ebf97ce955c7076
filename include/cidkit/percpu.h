/* SPDX-License-Identifier: MIT */
/*
 * cidkit/percpu.h - per-CPU operations without atomic instructions: rseq
 * critical sections on the copies of a cidk_pool object, indexed by the
 * kernel's cpu_id or by its mm_cid.
 *
 *   pool = cidk_pool_create(cidk_percpu_nr_copies(), 64);
 *   h    = cidk_pool_alloc(pool, sizeof(intptr_t), sizeof(intptr_t), NULL);
 *   cidk_percpu_add(pool, h, 1);              // any thread, any time
 *   total = cidk_percpu_sum(pool, h);
 *
 * How it works (x86-64, aarch64, riscv64, ppc64le, s390x): an operation
 * reads the thread's index (cpu_id or mm_cid) from its rseq area,
 * computes the address of that index's copy, then enters a restartable
 * sequence: it stores the address of a
 * descriptor (struct rseq_cs: version, flags, start_ip, post_commit_offset,
 * abort_ip) into the area's rseq_cs field, checks that the index is still
 * the one it read, and commits with one store (on x86-64 the add is one
 * non-locked read-modify-write instruction).  If the kernel preempts,
 * migrates or signals the thread between start_ip and the commit, it
 * moves the thread to abort_ip, which is preceded by the 4-byte signature
 * glibc registers with (CIDK_PERCPU_RSEQ_SIG: 0x53053053 on x86-64,
 * 0xd428bc00 on aarch64); the operation then counts an abort and starts
 * again.  The sections are in cidkit/arch/<arch>.h, behind the generic
 * layer below.  No other thread can touch the same copy in between: with
 * cpu_id, only a thread on the same CPU could, and it runs only after a
 * preemption; with mm_cid, the kernel gives an mm_cid to one running thread
 * of the process at a time.
 *
 * Paths, chosen once for the whole process (cidk_percpu_path()), by
 * behaviour: before the first operation runs, the library asks the kernel
 * whether it keeps the promise the sections rest on -- a running section
 * that is interrupted (membarrier's RSEQ command, a preemption) is aborted
 * -- with the in-process probe of <cidkit/abi.h> (about 0.1-0.3 ms on an
 * idle machine; it starts and joins one thread).  It runs lazily, once,
 * at the first operation, cidk_percpu_counter_init(), path or why query,
 * or fence of the process, or at cidk_percpu_init(), which a program may
 * call at startup to pay for it there.  Operations that arrive meanwhile
 * wait for it; none has touched a copy before the path is chosen.
 *   - rseq: an architecture with sections (cidkit/arch/select.h: x86-64,
 *     little-endian aarch64, riscv64, little-endian ppc64, s390x), rseq(2)
 *     present (not under valgrind), the library not built with
 *     ThreadSanitizer (TSan cannot
 *     see the stores inside the assembly), and the probe's verdict pass
 *     (or CIDK_PERCPU=rseq in the environment, which skips the probe).
 *     The area is glibc's when glibc registered one (glibc >= 2.35, not
 *     disabled by GLIBC_TUNABLES=glibc.pthread.rseq=0), else cidkit's own
 *     (lib/rseq): each thread registers it at its first operation, which
 *     finds its index all ones (out of every pool) until then.  A thread
 *     whose registration fails -- another library registered an area of
 *     its own for it -- gets that error (-EBUSY, -EINVAL) from every
 *     operation: it cannot take the atomic path while others take rseq
 *     (such a program should set CIDK_PERCPU=atomic).
 *     mm_cid indexing also needs a kernel that provides mm_cid (Linux
 *     >= 6.3).
 *   - atomic: everything else (other architectures included), and every
 *     kernel on which the probe says FAIL (Debian's arm64 6.19.x and
 *     7.0.x up to 7.0.13 commit interrupted sections) or cannot tell
 *     within its budget (unknown: atomic is the safe default), and
 *     CIDK_PERCPU=atomic.  cidk_percpu_why() names the reason (the broken
 *     promise and the kernel).  The same layout and the same indices,
 *     with atomic read-modify-writes (and, for list pop, a lock bit in the
 *     head) instead of critical sections; mm_cid indexing uses cpu_id when
 *     the kernel has no mm_cid.
 * CIDK_PERCPU=probe (or unset) is the default; another value is treated
 * as probe, and cidk_percpu_why() says so.
 * The two paths never run at the same time in one process.
 *
 * Sizes: cpu_id is below the number of possible CPUs, and so is mm_cid;
 * a pool of cidk_percpu_nr_copies() copies serves both.  An index at or
 * above the pool's max_cids makes an operation return -ERANGE (nothing
 * changed): the pool is too small for this machine.
 *
 * Values: a counter or list head is an intptr_t in every copy (allocate it
 * with size and alignment sizeof(intptr_t)).  Counters wrap as intptr_t
 * arithmetic modulo 2^64 (done in uintptr_t, no undefined behaviour).
 *
 * Synchronization table (one object of one pool):
 *
 *   | op \ concurrent with        | add/cmpeqv/push/pop | sum           | pool destroy |
 *   |-----------------------------|---------------------|---------------|--------------|
 *   | add, cmpeqv_storev          | yes (any thread)    | yes           | no           |
 *   | list push, list pop         | yes (any thread)    | n/a           | no           |
 *   | sum                         | yes: a snapshot per copy, not of the total | yes | no |
 *   | fence, fence_all            | yes (any thread, any object) | yes  | yes          |
 *   | the issue-37 ops below      | yes (any thread; the words each may share: its contract) | yes | no |
 *
 * Workload: add/cmpeqv/push/pop are the hot paths (inline, no call on the
 * rseq path); sum, the queries and abort counting are cold.
 *
 * Public header: ISO C11 except the critical sections (cidkit/arch/), which
 * are GNU inline assembly (__asm__) compiled only with GCC or Clang.
 *
 * Fences: cidk_percpu_fence(cpu) / cidk_percpu_fence_all() wait until
 * every critical section running on a CPU (or any) has committed or
 * aborted, so that another thread can take over a copy (see below).
 */
#ifndef CIDKIT_PERCPU_H
#define CIDKIT_PERCPU_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <cidkit/common.h>
#include <cidkit/pool.h>
#include <cidkit/rseq.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which of the kernel's IDs picks the copy. */
enum cidk_percpu_index {
	CIDK_PERCPU_CPU_ID = 1, /* the CPU: copies for every possible CPU */
	CIDK_PERCPU_MM_CID = 2, /* the concurrency ID: dense, low copies */
};

/* How the operations run in this process. */
enum cidk_percpu_path {
	CIDK_PERCPU_ATOMIC = 0, /* atomic RMW on the copies (fallback) */
	CIDK_PERCPU_RSEQ = 1,   /* rseq critical sections, no atomics */
};

/*
 * Process-wide word, written once (by a constructor when nothing needs
 * the probe, else by the decision after it) and read-only afterwards: bit
 * CIDK_PERCPU_CPU_ID / CIDK_PERCPU_MM_CID set means that indexing does not
 * run rseq critical sections -- it takes the atomic path, or, while
 * CIDK_PERCPU_UNDECIDED is set too (its value before the decision), waits
 * for the path to be chosen.  Inverted so that the rseq path's test is one
 * bit of one load.  Not for direct use: ask cidk_percpu_path().
 */
CIDK_EXPORT extern unsigned int cidk_percpu_off;
#define CIDK_PERCPU_UNDECIDED 0x100u

/*
 * Process-wide, written by the same constructor: the offset of the rseq
 * area from the thread pointer -- glibc's __rseq_offset, or cidkit's own
 * area's when glibc registered none (the same in every thread).  Not for
 * direct use.
 */
CIDK_EXPORT extern ptrdiff_t cidk_percpu_rseq_off;

/*
 * A list node for cidk_percpu_list_push/pop: embed it in your object.
 * Nodes must be at least 2-byte aligned (the atomic path locks a list with
 * the low bit of its head).
 */
struct cidk_percpu_node {
	struct cidk_percpu_node *next;
};

/*
 * cidk_percpu_init - choose the path now (run the probe unless the
 * environment or the build decides it; see "Paths").  Optional: every
 * operation, query and fence does it at its first call.  Idempotent;
 * returns 0.  MT-safe (concurrent callers wait for the one probe).
 */
CIDK_EXPORT int cidk_percpu_init(void);

/*
 * cidk_percpu_path - the path operations indexed by @idx take in this
 * process (the same for every thread, for the process's whole life).
 * Chooses it first if no operation has (cidk_percpu_init).  MT-safe.
 */
CIDK_EXPORT enum cidk_percpu_path cidk_percpu_path(enum cidk_percpu_index idx);

/* cidk_percpu_path_name - "rseq" or "atomic". */
CIDK_EXPORT const char *cidk_percpu_path_name(enum cidk_percpu_path path);

/*
 * cidk_percpu_why - one line saying why the path of @idx was chosen:
 * "rseq critical sections; the probe: interrupted sections abort ...",
 * "broken abort promise: ... Linux 6.19.14 aarch64 does not abort ...",
 * "forced by CIDK_PERCPU=atomic", "no rseq(2): ...".  Chooses the path
 * first if no operation has.  MT-safe; the string is the library's and
 * does not change afterwards.
 */
CIDK_EXPORT const char *cidk_percpu_why(enum cidk_percpu_index idx);

/*
 * cidk_percpu_nr_copies - copies a pool needs for either indexing: the
 * number of possible CPUs (cpu_id and mm_cid are both below it).  At
 * least 1.  MT-safe.
 */
CIDK_EXPORT unsigned int cidk_percpu_nr_copies(void);

/*
 * cidk_percpu_aborts - how many critical sections of the calling thread
 * the kernel aborted (preemption, migration or signal inside) since the
 * thread started; 0 on the atomic path.  For tests and benchmarks.
 */
CIDK_EXPORT unsigned long cidk_percpu_aborts(void);

/* Called on the abort path only: counts one abort of this thread. */
CIDK_EXPORT void cidk_percpu_count_abort(void);

/*
 * Called when an rseq-path operation found its index out of the pool:
 * on cidkit's own area, a thread's first operation finds the area not yet
 * registered (its index reads all ones) -- register it and return 0 (the
 * caller retries), or the negative errno of rseq(2); else -ERANGE.
 */
CIDK_EXPORT int cidk_percpu_range_slow(void);

/*
 * The atomic path of each operation (what the inline functions below call
 * when the rseq path is off).  Callable directly, e.g. to compare costs;
 * never mix them with the rseq path on the same object.
 */
CIDK_EXPORT int cidk_percpu_add_atomic(struct cidk_pool *pool,
				       cidk_pool_handle h,
				       enum cidk_percpu_index idx,
				       intptr_t delta);
CIDK_EXPORT int cidk_percpu_cmpeqv_storev_atomic(struct cidk_pool *pool,
						 cidk_pool_handle h,
						 enum cidk_percpu_index idx,
						 unsigned int expect_index,
						 intptr_t expect, intptr_t newv);
CIDK_EXPORT int cidk_percpu_list_push_atomic(struct cidk_pool *pool,
					     cidk_pool_handle h,
					     enum cidk_percpu_index idx,
					     struct cidk_percpu_node *node);
CIDK_EXPORT struct cidk_percpu_node *
cidk_percpu_list_pop_atomic(struct cidk_pool *pool, cidk_pool_handle h,
			    enum cidk_percpu_index idx);

/*
 * The atomic path of the operations of issue 37 (librseq's set; see the
 * inline functions below for each contract).  @cpu is the index the
 * caller names, or CIDK_PERCPU_CURRENT for the calling thread's current
 * one.  The operations that store more than the word @v (trystorev,
 * trymemcpy), compare a second word (cmpeqv_cmpeqv), or follow a
 * pointer read from @v (cmpnev_storeoffp_load, offset_deref_addv) hold a
 * lock of the library's for @v's address (a table of spin locks hashed by
 * address) and commit with a compare-and-swap of @v, so that they are
 * atomic against each other and against cidk_percpu_cmpeqv_storev on the
 * same @v, as the critical sections are; cidk_percpu_fence() waits for
 * every holder on this path.
 */
#define CIDK_PERCPU_CURRENT (~0u)
CIDK_EXPORT int cidk_percpu_add_on_atomic(struct cidk_pool *pool,
					  cidk_pool_handle h,
					  enum cidk_percpu_index idx,
					  unsigned int cpu, intptr_t delta);
CIDK_EXPORT int cidk_percpu_cmpeqv_cmpeqv_storev_atomic(
	struct cidk_pool *pool, cidk_pool_handle h, enum cidk_percpu_index idx,
	unsigned int cpu, intptr_t expect, intptr_t *v2, intptr_t expect2,
	intptr_t newv);
CIDK_EXPORT int cidk_percpu_cmpeqv_trystorev_storev_atomic(
	struct cidk_pool *pool, cidk_pool_handle h, enum cidk_percpu_index idx,
	unsigned int cpu, intptr_t expect, intptr_t *v2, intptr_t newv2,
	intptr_t newv);
CIDK_EXPORT int cidk_percpu_cmpeqv_trymemcpy_storev_atomic(
	struct cidk_pool *pool, cidk_pool_handle h, enum cidk_percpu_index idx,
	unsigned int cpu, intptr_t expect, void *dst, const void *src,
	size_t len, intptr_t newv);
CIDK_EXPORT int cidk_percpu_cmpnev_storeoffp_load_atomic(
	struct cidk_pool *pool, cidk_pool_handle h, enum cidk_percpu_index idx,
	unsigned int cpu, intptr_t expectnot, ptrdiff_t off, intptr_t *load);
CIDK_EXPORT int cidk_percpu_offset_deref_addv_atomic(
	struct cidk_pool *pool, cidk_pool_handle h, enum cidk_percpu_index idx,
	unsigned int cpu, ptrdiff_t off, intptr_t inc);

/*
 * cidk_percpu_index_now - the calling thread's current index of kind @idx
 * as the operations see it (mm_cid falls back to cpu_id on the atomic path
 * when the kernel has none).  A snapshot: the thread may migrate at once.
 * Returns the index (>= 0) or a negative errno from the rseq readers.
 */
CIDK_EXPORT int cidk_percpu_index_now(enum cidk_percpu_index idx);

/*
 * cidk_percpu_sum - the sum of every copy of the intptr_t @h (as uintptr_t
 * arithmetic).  Each copy is read once, atomically; concurrent adds may or
 * may not be counted.  MT-safe.
 */
CIDK_EXPORT intptr_t cidk_percpu_sum(const struct cidk_pool *pool,
				     cidk_pool_handle h);

/*
 * cidk_percpu_fence - return once every critical section of this process
 * that was running on CPU @cpu when the call began has committed or
 * aborted (an aborted one stored nothing, and retries from the start: it
 * re-reads the copy, so it sees what the caller wrote before the fence).
 * With it one thread can take over another CPU's copy, as tcmalloc's
 * FenceCpu and librseq's rseq membarrier do -- "close, fence, own":
 *   1. close the copy so that no section can commit to it any more,
 *      e.g. set a bit in the value that every writer's
 *      cidk_percpu_cmpeqv_storev() expects to be clear
 *      (__atomic_fetch_or(copy, 1, ...));
 *   2. cidk_percpu_fence(cpu): a section that compared the old value
 *      before step 1 and had not stored yet is now finished (check that
 *      the bit is still set; if its commit cleared it, close again);
 *   3. the copy is the caller's until it opens it again with one store.
 * Only cpu_id copies belong to a CPU: for mm_cid copies, whose holder may
 * run on any CPU, use cidk_percpu_fence_all().
 * Rseq path: membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
 * MEMBARRIER_CMD_FLAG_CPU, @cpu), the process registered for it
 * (MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ) at its first fence;
 * it also orders memory on @cpu as a full barrier would.  A system call
 * and an interrupt of @cpu when it runs one of our threads: cold.
 * Atomic path (neither indexing on rseq): the operations there are atomic
 * read-modify-writes, or hold one of the locks of the multi-word
 * operations (cidk_percpu_cmpeqv_trystorev_storev_on and the others
 * below): the fence takes and drops every such lock (so a holder has
 * finished), then is a sequentially consistent thread fence; returns 0.
 * Returns 0, -EINVAL (@cpu >= cidk_percpu_nr_copies()), -ENOSYS (the
 * kernel has no membarrier(2) or no RSEQ command: Linux < 5.10; every
 * later fence returns it too), or another negative errno of membarrier(2)
 * (-EPERM under a seccomp filter).  Nothing changes on failure.  MT-safe.
 */
CIDK_EXPORT int cidk_percpu_fence(unsigned int cpu);

/*
 * cidk_percpu_fence_all - cidk_percpu_fence() for every CPU at once (one
 * membarrier(2) without MEMBARRIER_CMD_FLAG_CPU: every CPU running a
 * thread of this process is interrupted).  The fence for mm_cid copies.
 * Returns 0, -ENOSYS or membarrier(2)'s negative errno, as
 * cidk_percpu_fence().  MT-safe.
 */
CIDK_EXPORT int cidk_percpu_fence_all(void);

/*
 * The compilers count each line of an asm statement as an instruction when
 * they decide what to inline, so the critical sections (a dozen directives
 * for three instructions) would become calls: force them inline.
 */
#if defined(__GNUC__)
#define CIDK__PERCPU_INLINE static inline __attribute__((always_inline))
#else
#define CIDK__PERCPU_INLINE static inline
#endif

/*
 * The critical sections themselves, one header per architecture (what
 * each provides is listed at the top of cidkit/arch/x86_64.h), chosen by
 * cidkit/arch/select.h; the functions below are the generic layer around
 * them: the path test, the index read before a section, the retry loops.
 */
#include <cidkit/arch/select.h>

#if CIDK_PERCPU_HAVE_RSEQ
/*
 * The path test of every operation: one bit of one load.  Until the path
 * is chosen (CIDK_PERCPU_UNDECIDED set) the call chooses it, waiting for
 * the probe.
 */
CIDK__PERCPU_INLINE int cidk__percpu_on_rseq(enum cidk_percpu_index idx)
{
	unsigned int m = __atomic_load_n(&cidk_percpu_off, __ATOMIC_RELAXED);

	if (__builtin_expect(!(m & (unsigned int)idx), 1))
		return 1;
	if (__builtin_expect(!(m & CIDK_PERCPU_UNDECIDED), 1))
		return 0;
	return cidk_percpu_path(idx) == CIDK_PERCPU_RSEQ;
}

/* The thread's index, read before a section that re-checks it. */
CIDK__PERCPU_INLINE unsigned int cidk__percpu_read(enum cidk_percpu_index idx)
{
	const volatile uint32_t *p = (const volatile uint32_t *)(
		(const char *)cidk__thread_pointer() + cidk_percpu_rseq_off +
		(idx == CIDK_PERCPU_MM_CID ? CIDK_RSEQ_OFF_MM_CID
					   : CIDK_RSEQ_OFF_CPU_ID));

	return *p;
}
#endif

/*
 * cidk_percpu_add_index - add @delta to the calling thread's copy of the
 * intptr_t @h of @pool, the copy chosen by @idx.  On the rseq path the
 * add is one non-locked instruction inside a critical section, restarted
 * on abort; on the atomic path a relaxed atomic fetch-add.
 * Returns 0, or -ERANGE (the index is >= pool->max_cids; nothing added),
 * or on cidkit's own rseq area rseq(2)'s error for a thread that cannot
 * register it (see "Paths" above; nothing added).
 * MT-safe; no ordering with other memory operations (a counter).
 */
CIDK__PERCPU_INLINE int cidk_percpu_add_index(struct cidk_pool *pool,
					cidk_pool_handle h,
					enum cidk_percpu_index idx,
					intptr_t delta)
{
#if CIDK_PERCPU_HAVE_RSEQ
	if (cidk__percpu_on_rseq(idx)) {
		int rc;

		for (;;) {
			rc = cidk__percpu_cs_add((char *)pool->base + h,
						 pool->stride, pool->max_cids,
						 delta, cidk_percpu_rseq_off,
						 idx == CIDK_PERCPU_MM_CID);
			if (rc == -1)
				cidk_percpu_count_abort();
			else if (rc != -ERANGE || (rc = cidk_percpu_range_slow()))
				return rc;
		}
	}
#endif
	return cidk_percpu_add_atomic(pool, h, idx, delta);
}

/*
 * cidk_percpu_add - the one-line per-CPU counter: cidk_percpu_add_index
 * with the kernel's mm_cid (dense copies; cpu_id on the atomic path of a
 * kernel without mm_cid).  Returns as cidk_percpu_add_index().
 */
CIDK__PERCPU_INLINE int cidk_percpu_add(struct cidk_pool *pool, cidk_pool_handle h,
				  intptr_t delta)
{
	return cidk_percpu_add_index(pool, h, CIDK_PERCPU_MM_CID, delta);
}

/*
 * A per-CPU counter made ready for a hot loop.  cidk_percpu_add_index()
 * loads the pool's base, stride and size and the process's path word at
 * every call (the critical section's "memory" clobber obliges the compiler
 * to); a counter holds all of it, with the fields' offsets from the thread
 * pointer, so a counter in a local variable lives in registers across a
 * loop and an add is the critical section alone.  Filled by
 * cidk_percpu_counter_init(); plain data, owns nothing: copy it freely
 * (one copy per thread is best: see cidk_percpu_counter_add); valid in
 * every thread while the pool lives.  The fields are internal.
 */
struct cidk_percpu_counter {
	unsigned char *base;    /* the object's copy for index 0 */
	size_t stride;          /* the pool's */
	unsigned int n;         /* copies: the pool's max_cids */
	int rseq;               /* the rseq path runs for idx */
	ptrdiff_t cs, ix;       /* rseq: rseq_cs's and the index's %fs offsets */
	struct cidk_pool *pool; /* the atomic path: its arguments */
	cidk_pool_handle h;
	enum cidk_percpu_index idx;
};

/*
 * cidk_percpu_counter_init - make @c the counter @h (an intptr_t of
 * @pool) indexed by @idx.  Returns 0, or -EINVAL (@pool NULL, @idx not one
 * of the two, or @h not an aligned intptr_t inside a region; @c
 * unchanged).  Inline, so that a counter made in the function that loops
 * on it stays a local the compiler sees whole.  MT-safe.
 */
static inline int cidk_percpu_counter_init(struct cidk_percpu_counter *c,
					   struct cidk_pool *pool,
					   cidk_pool_handle h,
					   enum cidk_percpu_index idx)
{
	ptrdiff_t cs = 0, ix = 0;
	int rseq = 0;

	if (!pool || (idx != CIDK_PERCPU_CPU_ID && idx != CIDK_PERCPU_MM_CID) ||
	    h < 0 || (size_t)h > pool->stride - sizeof(intptr_t) ||
	    h % (ptrdiff_t)sizeof(intptr_t))
		return -EINVAL;
#if CIDK_PERCPU_HAVE_RSEQ
	/* the same in every thread: offsets from its thread pointer */
	rseq = cidk__percpu_on_rseq(idx);
	cs = cidk_percpu_rseq_off + CIDK_RSEQ_OFF_CS;
	ix = cidk_percpu_rseq_off + (idx == CIDK_PERCPU_MM_CID ? CIDK_RSEQ_OFF_MM_CID :
							  CIDK_RSEQ_OFF_CPU_ID);
#endif
	c->base = pool->base + h;
	c->stride = pool->stride;
	c->n = pool->max_cids;
	c->rseq = rseq;
	c->cs = cs;
	c->ix = ix;
	c->pool = pool;
	c->h = h;
	c->idx = idx;
	return 0;
}

/*
 * cidk_percpu_counter_add - cidk_percpu_add_index() on the counter @c.
 * Returns as cidk_percpu_add_index().  MT-safe.  For the fast loop, pass a counter the
 * compiler can see whole: a local, made by cidk_percpu_counter_init() or
 * copied (`struct cidk_percpu_counter c = *shared;`), whose address goes
 * to no function that is not inline.  It then stays in registers; else
 * each add re-reads its fields (six loads) after the previous one.
 */
CIDK__PERCPU_INLINE int
cidk_percpu_counter_add(const struct cidk_percpu_counter *c, intptr_t delta)
{
#if CIDK_PERCPU_HAVE_RSEQ
	if (__builtin_expect(c->rseq, 1)) {
		int rc;

		for (;;) {
			rc = cidk__percpu_cs_add_at(c->base, c->stride, c->n,
						    delta, c->cs, c->ix);
			if (rc == -1)
				cidk_percpu_count_abort();
			else if (rc != -ERANGE || (rc = cidk_percpu_range_slow()))
				return rc;
		}
	}
#endif
	return cidk_percpu_add_atomic(c->pool, c->h, c->idx, delta);
}

/*
 * cidk_percpu_cmpeqv_storev - if the calling thread's current index of
 * kind @idx is still @expect_index and that copy of @h equals @expect,
 * store @newv there.  Read @expect from copy @expect_index (index from
 * cidk_percpu_index_now()) beforehand; the check that the index did not
 * change makes the pair a per-CPU compare-and-store.
 * Returns 0 (stored), 1 (the value differed: nothing stored), -EAGAIN
 * (the thread now runs with another index: re-read and retry), -ERANGE
 * (@expect_index >= pool->max_cids).  Aborts are retried inside.
 * MT-safe.  On the rseq path the commit is a plain store on x86-64 (x86
 * keeps stores in order) and a store-release on aarch64: either way data
 * written before is visible to whoever next sees @newv.
 */
static inline int cidk_percpu_cmpeqv_storev(struct cidk_pool *pool,
					    cidk_pool_handle h,
					    enum cidk_percpu_index idx,
					    unsigned int expect_index,
					    intptr_t expect, intptr_t newv)
{
#if CIDK_PERCPU_HAVE_RSEQ
	if (cidk__percpu_on_rseq(idx)) {
		if (expect_index >= pool->max_cids)
			return -ERANGE;
		for (;;) {
			int rc = cidk__percpu_cs_cmpeqv_storev(
				(intptr_t *)cidk_pool_ptr(pool, h, expect_index),
				expect, newv, expect_index,
				cidk_percpu_rseq_off,
				idx == CIDK_PERCPU_MM_CID);

			if (rc >= 0)
				return rc;
			if (rc == -2)
				return -EAGAIN;
			cidk_percpu_count_abort();
		}
	}
#endif
	return cidk_percpu_cmpeqv_storev_atomic(pool, h, idx, expect_index,
						expect, newv);
}

/*
 * cidk_percpu_list_push - push @node (at least 2-byte aligned) on the
 * calling thread's copy of the list head @h (an intptr_t, NULL = empty).
 * Returns 0 or -ERANGE (index out of the pool; nothing pushed), or as
 * cidk_percpu_add_index() for a thread that cannot register.  MT-safe.
 */
static inline int cidk_percpu_list_push(struct cidk_pool *pool,
					cidk_pool_handle h,
					enum cidk_percpu_index idx,
					struct cidk_percpu_node *node)
{
#if CIDK_PERCPU_HAVE_RSEQ
	if (cidk__percpu_on_rseq(idx)) {
		for (;;) {
			unsigned int i = cidk__percpu_read(idx);
			intptr_t *v, head;
			int rc;

			if (i >= pool->max_cids) {
				if ((rc = cidk_percpu_range_slow()))
					return rc;
				continue;
			}
			v = (intptr_t *)cidk_pool_ptr(pool, h, i);
			head = *(volatile intptr_t *)v;
			node->next = (struct cidk_percpu_node *)head;
			rc = cidk__percpu_cs_cmpeqv_storev(
				v, head, (intptr_t)node, i,
				cidk_percpu_rseq_off,
				idx == CIDK_PERCPU_MM_CID);
			if (!rc)
				return 0;
			if (rc == -1)
				cidk_percpu_count_abort();
		}
	}
#endif
	return cidk_percpu_list_push_atomic(pool, h, idx, node);
}

/*
 * cidk_percpu_list_pop - pop the first node of the calling thread's copy
 * of the list head @h.  Returns the node, or NULL with errno: ENOENT (that
 * copy is empty; other copies may not be), ERANGE (index out of the
 * pool), or rseq(2)'s error for a thread that cannot register cidkit's own
 * area (see "Paths").  MT-safe; a node may be pushed on one copy and popped from
 * another (after a migration), so lists are per-CPU caches, not queues.
 */
static inline struct cidk_percpu_node *
cidk_percpu_list_pop(struct cidk_pool *pool, cidk_pool_handle h,
		     enum cidk_percpu_index idx)
{
#if CIDK_PERCPU_HAVE_RSEQ
	if (cidk__percpu_on_rseq(idx)) {
		for (;;) {
			unsigned int i = cidk__percpu_read(idx);
			intptr_t head;
			int rc;

			if (i >= pool->max_cids) {
				if ((rc = cidk_percpu_range_slow())) {
					errno = -rc;
					return NULL;
				}
				continue;
			}
			rc = cidk__percpu_cs_pop(
				(intptr_t *)cidk_pool_ptr(pool, h, i), &head, i,
				cidk_percpu_rseq_off,
				idx == CIDK_PERCPU_MM_CID);
			if (!rc)
				return (struct cidk_percpu_node *)head;
			if (rc == 1) {
				errno = ENOENT;
				return NULL;
			}
			if (rc == -1)
				cidk_percpu_count_abort();
		}
	}
#endif
	return cidk_percpu_list_pop_atomic(pool, h, idx);
}

/*
 * The operations of issue 37: librseq's set (its include/rseq/pseudocode.h
 * names them by their pseudo-code; the names here are those of the
 * kernel's rseq selftests, the series "Restartable sequences system call"
 * and "rseq/selftests", as cidk_percpu_cmpeqv_storev's is).  Each works on
 * the copy @v of the intptr_t @h at one index of kind @idx.
 *   - The _on forms name the index (@cpu: read with
 *     cidk_percpu_index_read(), the values compared read from that copy):
 *     the section first checks that the thread still runs with @cpu and
 *     otherwise returns -EAGAIN, nothing stored (re-read and retry).
 *   - The implicit forms (no _on; for the operations whose arguments do
 *     not depend on the index) take the index the thread runs with and
 *     retry by themselves when it changes.
 * Results: 0 committed; 1 a comparison failed (nothing stored but the
 * "attempts" named); -EAGAIN (_on: the index is no longer @cpu);
 * -ERANGE (@cpu, or the current index, >= pool->max_cids; nothing
 * stored); rseq(2)'s error for a thread that cannot register cidkit's own
 * area.  Aborts are retried inside.  MT-safe.
 * "Attempt": a store before the commit (to @v2, @dst, @load) that an
 * aborted try may already have made, so it may be there even when the
 * result is not 0: aim it only at memory the caller owns through @v (a
 * slot past a slab's end, its own output).
 * Ordering: _release forms make every store before the commit (the
 * attempts, and the caller's earlier stores) visible to whoever sees
 * @newv in @v (x86-64: every form; aarch64: stlr); relaxed forms order
 * nothing beyond the section's own atomicity.  The atomic path is
 * release in every form.
 */

/* The outcome of one try of an _on section: 1 means try again. */
CIDK__PERCPU_INLINE int cidk__percpu_again(int *rc)
{
	if (*rc == -1) {
		cidk_percpu_count_abort();
		return 1;
	}
	if (*rc == -2)
		*rc = -EAGAIN;
	return 0;
}

#if CIDK_PERCPU_HAVE_RSEQ
/* The copy of @h at @cpu, or NULL when @cpu is out of the pool. */
CIDK__PERCPU_INLINE intptr_t *cidk__percpu_at(struct cidk_pool *pool,
					      cidk_pool_handle h,
					      unsigned int cpu)
{
	if (cpu >= pool->max_cids)
		return NULL;
	return (intptr_t *)cidk_pool_ptr(pool, h, cpu);
}

/*
 * The current index for an implicit form: 0 with *@i set, or the error of
 * cidk_percpu_range_slow() (-ERANGE, or rseq(2)'s).
 */
CIDK__PERCPU_INLINE int cidk__percpu_current(struct cidk_pool *pool,
					     enum cidk_percpu_index idx,
					     unsigned int *i)
{
	int rc;

	for (;;) {
		*i = cidk__percpu_read(idx);
		if (*i < pool->max_cids)
			return 0;
		if ((rc = cidk_percpu_range_slow()))
			return rc;
	}
}
#endif

/*
 * cidk_percpu_index_read - the index to name to an _on form: the calling
 * thread's current index of kind @idx, inline.  On the rseq path one load
 * from the rseq area (at a thread's first call on cidkit's own area, its
 * registration, as an operation's); else cidk_percpu_index_now().
 * Returns the index (>= 0; at or above a pool's max_cids the _on form
 * says -ERANGE) or a negative errno (rseq(2)'s, for a thread that cannot
 * register; -ERANGE).  A snapshot: the _on form checks it.  MT-safe.
 */
static inline int cidk_percpu_index_read(enum cidk_percpu_index idx)
{
#if CIDK_PERCPU_HAVE_RSEQ
	if (cidk__percpu_on_rseq(idx)) {
		unsigned int i = cidk__percpu_read(idx);
		int rc;

		if (__builtin_expect(i != ~0u, 1))
			return (int)i;
		if ((rc = cidk_percpu_range_slow()))
			return rc;
		return (int)cidk__percpu_read(idx);
	}
#endif
	return cidk_percpu_index_now(idx);
}

/*
 * The one body of the operations below.  Each public function names its
 * operation and arguments in a struct cidk__percpu_op and calls
 * cidk__percpu_on (an _on form) or cidk__percpu_here (an implicit form):
 * the path test, the copy at the index, the retry loop and the atomic
 * path are written once.  Every piece is inlined into the public function
 * with a constant op, so from -O1 on the compiler keeps one case of each
 * switch and the struct's fields live in registers: the instructions are
 * those of the bodies each function had before (gcc, clang).  At -O0 and
 * -Og nothing folds: each call carries every case (larger code, more
 * descriptors, the same results).
 */
enum cidk__percpu_opk {
	CIDK__PERCPU_OP_ADD,               /* *v += inc */
	CIDK__PERCPU_OP_CBNE_STORE,        /* *v == expect: *v = newv */
	CIDK__PERCPU_OP_CBNE_CBNE_STORE,   /* and *v2 == x2: *v = newv */
	CIDK__PERCPU_OP_CBNE_STORE_STORE,  /* *v2 = x2; *v = newv */
	CIDK__PERCPU_OP_CBNE_MEMCPY_STORE, /* dst <- src (len); *v = newv */
	CIDK__PERCPU_OP_CBEQ_POP,          /* *v != expect: *load = *v, pop */
	CIDK__PERCPU_OP_DEREF_ADD          /* **(*v + off) += inc */
};

struct cidk__percpu_op {
	enum cidk__percpu_opk op;
	int rel;         /* the commit is a store-release */
	intptr_t expect; /* *v's expected value (CBEQ_POP: expectnot) */
	intptr_t newv;   /* the commit's value */
	intptr_t *v2;    /* the second word */
	intptr_t x2;     /* CBNE_CBNE_STORE: expect2; CBNE_STORE_STORE: newv2 */
	void *dst;       /* CBNE_MEMCPY_STORE */
	const void *src;
	size_t len;
	ptrdiff_t off;   /* CBEQ_POP, DEREF_ADD */
	intptr_t *load;  /* CBEQ_POP */
	intptr_t inc;    /* ADD, DEREF_ADD */
};

/* Operation @k with every argument zero (the caller sets its own). */
CIDK__PERCPU_INLINE struct cidk__percpu_op
cidk__percpu_op(enum cidk__percpu_opk k)
{
	struct cidk__percpu_op o = { k, 0, 0, 0, NULL, 0, NULL, NULL, 0, 0,
				     NULL, 0 };

	return o;
}

#if CIDK_PERCPU_HAVE_RSEQ
/* One try of @o's critical section on the copy @v at index @i. */
CIDK__PERCPU_INLINE int cidk__percpu_cs_op(const struct cidk__percpu_op *o,
					   intptr_t *v, unsigned int i,
					   enum cidk_percpu_index idx)
{
	ptrdiff_t rs = cidk_percpu_rseq_off;
	int mm_cid = idx == CIDK_PERCPU_MM_CID;

	switch (o->op) {
	case CIDK__PERCPU_OP_ADD:
		return cidk__percpu_cs_add_on(v, o->inc, i, rs, mm_cid);
	case CIDK__PERCPU_OP_CBNE_STORE:
		return cidk__percpu_cs_cbne_store(v, o->expect, o->newv, o->rel,
						  i, rs, mm_cid);
	case CIDK__PERCPU_OP_CBNE_CBNE_STORE:
		return cidk__percpu_cs_cbne_cbne_store(v, o->expect, o->v2,
						       o->x2, o->newv, i, rs,
						       mm_cid);
	case CIDK__PERCPU_OP_CBNE_STORE_STORE:
		return cidk__percpu_cs_cbne_store_store(v, o->expect, o->v2,
							o->x2, o->newv, o->rel,
							i, rs, mm_cid);
	case CIDK__PERCPU_OP_CBNE_MEMCPY_STORE:
		return cidk__percpu_cs_cbne_memcpy_store(v, o->expect, o->dst,
							 o->src, o->len,
							 o->newv, o->rel, i,
							 rs, mm_cid);
	case CIDK__PERCPU_OP_CBEQ_POP:
		return cidk__percpu_cs_cbeq_pop(v, o->expect, o->off, o->load,
						i, rs, mm_cid);
	case CIDK__PERCPU_OP_DEREF_ADD:
		return cidk__percpu_cs_deref_add(v, o->off, o->inc, i, rs,
						 mm_cid);
	}
	return -EINVAL;
}
#endif

/* @o on the atomic path, at @cpu (CIDK_PERCPU_CURRENT: the current index). */
CIDK__PERCPU_INLINE int cidk__percpu_atomic_op(struct cidk_pool *pool,
					       cidk_pool_handle h,
					       enum cidk_percpu_index idx,
					       unsigned int cpu,
					       const struct cidk__percpu_op *o)
{
	switch (o->op) {
	case CIDK__PERCPU_OP_ADD:
		return cidk_percpu_add_on_atomic(pool, h, idx, cpu, o->inc);
	case CIDK__PERCPU_OP_CBNE_STORE:
		return cidk_percpu_cmpeqv_storev_atomic(pool, h, idx, cpu,
							o->expect, o->newv);
	case CIDK__PERCPU_OP_CBNE_CBNE_STORE:
		return cidk_percpu_cmpeqv_cmpeqv_storev_atomic(
			pool, h, idx, cpu, o->expect, o->v2, o->x2, o->newv);
	case CIDK__PERCPU_OP_CBNE_STORE_STORE:
		return cidk_percpu_cmpeqv_trystorev_storev_atomic(
			pool, h, idx, cpu, o->expect, o->v2, o->x2, o->newv);
	case CIDK__PERCPU_OP_CBNE_MEMCPY_STORE:
		return cidk_percpu_cmpeqv_trymemcpy_storev_atomic(
			pool, h, idx, cpu, o->expect, o->dst, o->src, o->len,
			o->newv);
	case CIDK__PERCPU_OP_CBEQ_POP:
		return cidk_percpu_cmpnev_storeoffp_load_atomic(
			pool, h, idx, cpu, o->expect, o->off, o->load);
	case CIDK__PERCPU_OP_DEREF_ADD:
		return cidk_percpu_offset_deref_addv_atomic(pool, h, idx, cpu,
							    o->off, o->inc);
	}
	return -EINVAL;
}

/* The _on forms: @o on the copy at index @cpu, if the thread runs with it. */
CIDK__PERCPU_INLINE int cidk__percpu_on(struct cidk_pool *pool,
					cidk_pool_handle h,
					enum cidk_percpu_index idx,
					unsigned int cpu,
					const struct cidk__percpu_op *o)
{
#if CIDK_PERCPU_HAVE_RSEQ
	if (cidk__percpu_on_rseq(idx)) {
		intptr_t *v = cidk__percpu_at(pool, h, cpu);
		int rc;

		if (!v)
			return -ERANGE;
		do
			rc = cidk__percpu_cs_op(o, v, cpu, idx);
		while (cidk__percpu_again(&rc));
		return rc;
	}
#endif
	return cidk__percpu_atomic_op(pool, h, idx, cpu, o);
}

/*
 * The implicit forms: @o on the copy of the index the thread runs with
 * (read before the section, checked inside, retried when it changed).
 */
CIDK__PERCPU_INLINE int cidk__percpu_here(struct cidk_pool *pool,
					  cidk_pool_handle h,
					  enum cidk_percpu_index idx,
					  const struct cidk__percpu_op *o)
{
#if CIDK_PERCPU_HAVE_RSEQ
	if (cidk__percpu_on_rseq(idx)) {
		unsigned int i;
		int rc;

		do {
			if ((rc = cidk__percpu_current(pool, idx, &i)))
				return rc;
			rc = cidk__percpu_cs_op(
				o, (intptr_t *)cidk_pool_ptr(pool, h, i), i, idx);
		} while (rc < 0 && (rc == -2 || cidk__percpu_again(&rc)));
		return rc;
	}
#endif
	return cidk__percpu_atomic_op(pool, h, idx, CIDK_PERCPU_CURRENT, o);
}

/*
 * cidk_percpu_add_on - rseq_load_add_store: *v += @delta on the copy at
 * index @cpu, if the thread still runs with it.  Returns 0, -EAGAIN or
 * -ERANGE.  Atomic path: a relaxed fetch-add on that copy (after the same
 * index check).  Relaxed.  cidk_percpu_add_index() is the implicit form.
 */
CIDK__PERCPU_INLINE int cidk_percpu_add_on(struct cidk_pool *pool,
					   cidk_pool_handle h,
					   enum cidk_percpu_index idx,
					   unsigned int cpu, intptr_t delta)
{
	struct cidk__percpu_op o = cidk__percpu_op(CIDK__PERCPU_OP_ADD);

	o.inc = delta;
	return cidk__percpu_on(pool, h, idx, cpu, &o);
}

/*
 * cidk_percpu_cmpeqv_storev_relaxed_on - rseq_load_cbne_store, relaxed:
 * cidk_percpu_cmpeqv_storev() with a plain store as the commit on every
 * architecture (no ordering for the data written before; the release
 * form is cidk_percpu_cmpeqv_storev()).  Returns 0, 1, -EAGAIN, -ERANGE.
 * Atomic path: cidk_percpu_cmpeqv_storev_atomic().
 */
CIDK__PERCPU_INLINE int
cidk_percpu_cmpeqv_storev_relaxed_on(struct cidk_pool *pool,
				     cidk_pool_handle h,
				     enum cidk_percpu_index idx,
				     unsigned int cpu, intptr_t expect,
				     intptr_t newv)
{
	struct cidk__percpu_op o = cidk__percpu_op(CIDK__PERCPU_OP_CBNE_STORE);

	o.expect = expect;
	o.newv = newv;
	return cidk__percpu_on(pool, h, idx, cpu, &o);
}

/*
 * cidk_percpu_cmpeqv_cmpeqv_storev_on - rseq_load_cbne_load_cbne_store:
 * if the copy @v at @cpu equals @expect and *@v2 equals @expect2, store
 * @newv into @v.  @v2 is any intptr_t (typically in the same copy: a
 * slab's top slot).  Returns 0, 1 (either differed), -EAGAIN, -ERANGE.
 * Relaxed.  Atomic path: under @v's lock, *@v2 compared, then a
 * compare-and-swap of @v; *@v2 is stable there only if its writers hold
 * @v's lock too (write it with the trystorev/trymemcpy forms on @v).
 */
CIDK__PERCPU_INLINE int
cidk_percpu_cmpeqv_cmpeqv_storev_on(struct cidk_pool *pool,
				    cidk_pool_handle h,
				    enum cidk_percpu_index idx,
				    unsigned int cpu, intptr_t expect,
				    intptr_t *v2, intptr_t expect2,
				    intptr_t newv)
{
	struct cidk__percpu_op o =
		cidk__percpu_op(CIDK__PERCPU_OP_CBNE_CBNE_STORE);

	o.expect = expect;
	o.v2 = v2;
	o.x2 = expect2;
	o.newv = newv;
	return cidk__percpu_on(pool, h, idx, cpu, &o);
}

/*
 * cidk_percpu_cmpeqv_trystorev_storev_on - rseq_load_cbne_store_store:
 * if the copy @v at @cpu equals @expect, store @newv2 into *@v2 (an
 * attempt), then @newv into @v (the commit).  A slab's push: @v its
 * top, @v2 the free slot above it.  Returns 0, 1, -EAGAIN, -ERANGE.
 * Relaxed (on aarch64 *@v2 may become visible after @v).  Atomic path:
 * under @v's lock, compare, store (relaxed atomic), compare-and-swap.
 */
CIDK__PERCPU_INLINE int
cidk_percpu_cmpeqv_trystorev_storev_on(struct cidk_pool *pool,
				       cidk_pool_handle h,
				       enum cidk_percpu_index idx,
				       unsigned int cpu, intptr_t expect,
				       intptr_t *v2, intptr_t newv2,
				       intptr_t newv)
{
	struct cidk__percpu_op o =
		cidk__percpu_op(CIDK__PERCPU_OP_CBNE_STORE_STORE);

	o.rel = 0;
	o.expect = expect;
	o.v2 = v2;
	o.x2 = newv2;
	o.newv = newv;
	return cidk__percpu_on(pool, h, idx, cpu, &o);
}

/*
 * cidk_percpu_cmpeqv_trystorev_storev_release_on - the same with a
 * store-release as the commit: whoever sees @newv in @v sees @newv2 in
 * *@v2 (rseq_load_cbne_store_store with RSEQ_MO_RELEASE).
 */
CIDK__PERCPU_INLINE int
cidk_percpu_cmpeqv_trystorev_storev_release_on(struct cidk_pool *pool,
					       cidk_pool_handle h,
					       enum cidk_percpu_index idx,
					       unsigned int cpu,
					       intptr_t expect, intptr_t *v2,
					       intptr_t newv2, intptr_t newv)
{
	struct cidk__percpu_op o =
		cidk__percpu_op(CIDK__PERCPU_OP_CBNE_STORE_STORE);

	o.rel = 1;
	o.expect = expect;
	o.v2 = v2;
	o.x2 = newv2;
	o.newv = newv;
	return cidk__percpu_on(pool, h, idx, cpu, &o);
}

/*
 * cidk_percpu_cmpeqv_trymemcpy_storev_on - rseq_load_cbne_memcpy_store:
 * if the copy @v at @cpu equals @expect, copy @len bytes from @src to
 * @dst (an attempt: 8 bytes at a time, then byte by byte, inside the
 * section, so an abort may leave a prefix copied; no alignment needed; keep @len short -- a long copy is aborted more
 * often, and a copy longer than a time slice never commits), then store
 * @newv into @v.  A slab's batch push (@dst the free slots above the top)
 * or batch pop (@src the top slots, @dst the caller's array).  Returns
 * 0, 1, -EAGAIN, -ERANGE.  Relaxed.  Atomic path: under @v's lock,
 * compare, copy (relaxed atomic words when @dst, @src and @len are
 * word-aligned, else bytes), compare-and-swap.
 */
CIDK__PERCPU_INLINE int
cidk_percpu_cmpeqv_trymemcpy_storev_on(struct cidk_pool *pool,
				       cidk_pool_handle h,
				       enum cidk_percpu_index idx,
				       unsigned int cpu, intptr_t expect,
				       void *dst, const void *src, size_t len,
				       intptr_t newv)
{
	struct cidk__percpu_op o =
		cidk__percpu_op(CIDK__PERCPU_OP_CBNE_MEMCPY_STORE);

	o.rel = 0;
	o.expect = expect;
	o.dst = dst;
	o.src = src;
	o.len = len;
	o.newv = newv;
	return cidk__percpu_on(pool, h, idx, cpu, &o);
}

/*
 * cidk_percpu_cmpeqv_trymemcpy_storev_release_on - the same with a
 * store-release as the commit: whoever sees @newv sees the copy.
 */
CIDK__PERCPU_INLINE int
cidk_percpu_cmpeqv_trymemcpy_storev_release_on(struct cidk_pool *pool,
					       cidk_pool_handle h,
					       enum cidk_percpu_index idx,
					       unsigned int cpu,
					       intptr_t expect, void *dst,
					       const void *src, size_t len,
					       intptr_t newv)
{
	struct cidk__percpu_op o =
		cidk__percpu_op(CIDK__PERCPU_OP_CBNE_MEMCPY_STORE);

	o.rel = 1;
	o.expect = expect;
	o.dst = dst;
	o.src = src;
	o.len = len;
	o.newv = newv;
	return cidk__percpu_on(pool, h, idx, cpu, &o);
}

/*
 * cidk_percpu_cmpnev_storeoffp_load_on -
 * rseq_load_cbeq_store_add_load_store, a list pop with the link at any
 * offset: head = the copy @v at @cpu; if head == @expectnot fail (1);
 * *@load = head (an attempt); @v = *(intptr_t *)((char *)head + @off).
 * Returns 0 (popped: *@load is the head), 1 (head was @expectnot),
 * -EAGAIN, -ERANGE.  Relaxed.  Pushes on the same @v: the
 * cidk_percpu_cmpeqv_storev forms.  Atomic path: under @v's lock (pops
 * exclude each other, so no ABA), a compare-and-swap of @v from head to
 * its link, retried while pushes move the head.
 */
CIDK__PERCPU_INLINE int
cidk_percpu_cmpnev_storeoffp_load_on(struct cidk_pool *pool,
				     cidk_pool_handle h,
				     enum cidk_percpu_index idx,
				     unsigned int cpu, intptr_t expectnot,
				     ptrdiff_t off, intptr_t *load)
{
	struct cidk__percpu_op o = cidk__percpu_op(CIDK__PERCPU_OP_CBEQ_POP);

	o.expect = expectnot;
	o.off = off;
	o.load = load;
	return cidk__percpu_on(pool, h, idx, cpu, &o);
}

/*
 * cidk_percpu_cmpnev_storeoffp_load - the same on the copy of the index
 * the thread runs with (read before the section, checked inside, retried
 * when it changed).  Returns 0, 1 or -ERANGE (or rseq(2)'s error).
 */
CIDK__PERCPU_INLINE int
cidk_percpu_cmpnev_storeoffp_load(struct cidk_pool *pool, cidk_pool_handle h,
				  enum cidk_percpu_index idx,
				  intptr_t expectnot, ptrdiff_t off,
				  intptr_t *load)
{
	struct cidk__percpu_op o = cidk__percpu_op(CIDK__PERCPU_OP_CBEQ_POP);

	o.expect = expectnot;
	o.off = off;
	o.load = load;
	return cidk__percpu_here(pool, h, idx, &o);
}

/*
 * cidk_percpu_offset_deref_addv_on - rseq_load_add_load_load_add_store:
 * with p the pointer in the copy @v at @cpu, add @inc to the intptr_t
 * that the pointer at p + @off designates:
 *   **(intptr_t **)((char *)*v + @off) += @inc
 * (a per-CPU pointer to a structure holding a pointer to a counter).
 * Returns 0, -EAGAIN or -ERANGE.  Relaxed.  Atomic path: under @v's
 * lock, a relaxed fetch-add on the counter: atomic against the other
 * locked operations on @v and against adds from other CPUs to the same
 * counter; a cidk_percpu_cmpeqv_storev() that swaps the pointer in @v
 * meanwhile (it takes no lock) may see the add land on the previous
 * structure's counter, which the critical section would not allow on the
 * same CPU.
 */
CIDK__PERCPU_INLINE int cidk_percpu_offset_deref_addv_on(
	struct cidk_pool *pool, cidk_pool_handle h, enum cidk_percpu_index idx,
	unsigned int cpu, ptrdiff_t off, intptr_t inc)
{
	struct cidk__percpu_op o = cidk__percpu_op(CIDK__PERCPU_OP_DEREF_ADD);

	o.off = off;
	o.inc = inc;
	return cidk__percpu_on(pool, h, idx, cpu, &o);
}

/*
 * cidk_percpu_offset_deref_addv - the same on the copy of the index the
 * thread runs with.  Returns 0 or -ERANGE (or rseq(2)'s error).
 */
CIDK__PERCPU_INLINE int cidk_percpu_offset_deref_addv(
	struct cidk_pool *pool, cidk_pool_handle h, enum cidk_percpu_index idx,
	ptrdiff_t off, intptr_t inc)
{
	struct cidk__percpu_op o = cidk__percpu_op(CIDK__PERCPU_OP_DEREF_ADD);

	o.off = off;
	o.inc = inc;
	return cidk__percpu_here(pool, h, idx, &o);
}

#ifdef __cplusplus
}
#endif

#endif /* CIDKIT_PERCPU_H */
