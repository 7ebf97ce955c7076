/* SPDX-License-Identifier: MIT */
/*
 * lib/cid/cid_atomic.h - every shared-memory step of lib/cid, in one place.
 *
 * The policies touch state other threads may touch at the same time only
 * through the functions below: loads, stores, read-modify-writes and
 * compare-and-swaps on the mm's words, the CID bitmap's bits and words,
 * the stand-ins for the kernel's locks, and the pause inside a retry
 * loop.  Each takes a *site* (file, function, line) as its last argument,
 * filled in by the wrapping macro.
 *
 * Two builds:
 *   - normal (libcidkit): exactly C11 atomics; the site is a null pointer
 *     that the always-inline functions never read, so the compiler drops
 *     it (no cost: docs/check-results.md measures it);
 *   - checker (CIDK_CHECKER defined, the `cidkit-check` program): before
 *     each step, cidk__chk_before() hands control to the checker's
 *     scheduler, which may run other threads first; after it,
 *     cidk__chk_after() records the values read and written for the trace.
 *     One thread runs at a time, so the step itself is atomic.
 *
 * Memory order: relaxed for data, seq_cst for RMW and CAS, acquire and
 * release for the locks -- what the code used before this layer.  The
 * checker explores sequentially consistent interleavings of these steps,
 * or (`--memory tso|rc11`, check/memory.h) lets a load read an older
 * store as the order of each step allows: CIDK__ACC() below tells it the
 * order and the width (docs/check.md, "Memory models").
 *
 * Per-shard cost counters (cid_internal.h) are not steps: they are
 * statistics, never read by the policies.
 */
#ifndef CIDKIT_LIB_CID_ATOMIC_H
#define CIDKIT_LIB_CID_ATOMIC_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <cidkit/arch/select.h> /* cidk__cpu_relax() */
#include <cidkit/mask.h>

/* Where a step is in the source. */
struct cidk__site {
	const char *file;
	const char *func;
	unsigned int line;
};

enum cidk__chk_op {
	CIDK__OP_LOAD,
	CIDK__OP_STORE,
	CIDK__OP_RMW,	 /* fetch-add/sub/or/and, exchange, test-and-set bit */
	CIDK__OP_CAS,
	CIDK__OP_LOCK,	 /* acquire a lock word (0 free, 1 held) */
	CIDK__OP_UNLOCK,
	CIDK__OP_SPIN,	 /* one pause of a retry loop: a liveness point */
};

/*
 * The memory order of a step, and the width of the word it touches, for
 * the checker's memory models (check/memory.h): the checker build passes
 * them to cidk__chk_before() in the op's bits 8-11 (width in bytes) and
 * 12-13 (order); CIDK__ACC() packs them.  The normal build drops them
 * with the rest of the hook.
 */
enum cidk__chk_mo {
	CIDK__MO_RLX,	/* relaxed (the kernel's READ_ONCE/WRITE_ONCE) */
	CIDK__MO_ACQ,
	CIDK__MO_REL,
	CIDK__MO_SC,	/* seq_cst: RMW, CAS, and a store with smp_mb after */
};
#define CIDK__ACC(op, width, mo)                                        \
	((enum cidk__chk_op)((unsigned int)(op) |                       \
			     (unsigned int)(width) << 8 |               \
			     (unsigned int)(mo) << 12))

#ifdef CIDK_CHECKER
#define CIDK__SITE (&(const struct cidk__site){ __FILE__, __func__, __LINE__ })
/*
 * The checker's hooks (check/): before a step on @addr, after it with the
 * value found and the value left (equal for a load or a failed CAS).
 */
void cidk__chk_before(const struct cidk__site *s, enum cidk__chk_op op,
		      const void *addr);
void cidk__chk_after(uint64_t found, uint64_t left);
/* the value a store overwrites, for the trace */
#define CIDK__PEEK(p) atomic_load_explicit((p), memory_order_relaxed)
#define CIDK__PEEK_PLAIN(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#else
#define CIDK__SITE ((const struct cidk__site *)0)
static inline __attribute__((always_inline)) void
cidk__chk_before(const struct cidk__site *s, enum cidk__chk_op op,
		 const void *addr)
{
	(void)s;
	(void)op;
	(void)addr;
}
static inline __attribute__((always_inline)) void
cidk__chk_after(uint64_t found, uint64_t left)
{
	(void)found;
	(void)left;
}
/*
 * Not evaluated: an atomic load is never dropped by the compiler, even
 * when its value is unused, and a store must cost one instruction.
 */
#define CIDK__PEEK(p) ((void)sizeof(p), (uint64_t)0)
#define CIDK__PEEK_PLAIN(p) ((void)sizeof(p), (uint64_t)0)
#endif

#define CIDK__INLINE static inline __attribute__((always_inline))

/* ---- words of the mm: _Atomic unsigned int --------------------------------- */

CIDK__INLINE unsigned int cidk__ld_(const _Atomic unsigned int *p,
				    const struct cidk__site *s)
{
	unsigned int v;

	cidk__chk_before(s, CIDK__ACC(CIDK__OP_LOAD, sizeof(*p), CIDK__MO_RLX),
			 p);
	v = atomic_load_explicit(p, memory_order_relaxed);
	cidk__chk_after(v, v);
	return v;
}

CIDK__INLINE void cidk__st_(_Atomic unsigned int *p, unsigned int v,
			    const struct cidk__site *s)
{
	cidk__chk_before(s, CIDK__ACC(CIDK__OP_STORE, sizeof(*p), CIDK__MO_RLX),
			 p);
	cidk__chk_after(CIDK__PEEK(p), v);
	atomic_store_explicit(p, v, memory_order_relaxed);
}

/* seq_cst store: a mode word other CPUs must see in order (smp_mb after) */
CIDK__INLINE void cidk__st_mb_(_Atomic unsigned int *p, unsigned int v,
			       const struct cidk__site *s)
{
	cidk__chk_before(s, CIDK__ACC(CIDK__OP_STORE, sizeof(*p), CIDK__MO_SC),
			 p);
	cidk__chk_after(CIDK__PEEK(p), v);
	atomic_store(p, v);
}

CIDK__INLINE bool cidk__cas_(_Atomic unsigned int *p, unsigned int *expected,
			     unsigned int desired, const struct cidk__site *s)
{
	unsigned int want = *expected;
	bool ok;

	cidk__chk_before(s, CIDK__ACC(CIDK__OP_CAS, sizeof(*p), CIDK__MO_SC),
			 p);
	ok = atomic_compare_exchange_strong(p, expected, desired);
	cidk__chk_after(ok ? want : *expected, ok ? desired : *expected);
	return ok;
}

CIDK__INLINE unsigned int cidk__add_(_Atomic unsigned int *p, unsigned int d,
				     const struct cidk__site *s)
{
	unsigned int old;

	cidk__chk_before(s, CIDK__ACC(CIDK__OP_RMW, sizeof(*p), CIDK__MO_SC),
			 p);
	old = atomic_fetch_add(p, d);
	cidk__chk_after(old, old + d);
	return old;
}

CIDK__INLINE unsigned int cidk__sub_(_Atomic unsigned int *p, unsigned int d,
				     const struct cidk__site *s)
{
	unsigned int old;

	cidk__chk_before(s, CIDK__ACC(CIDK__OP_RMW, sizeof(*p), CIDK__MO_SC),
			 p);
	old = atomic_fetch_sub(p, d);
	cidk__chk_after(old, old - d);
	return old;
}

/*
 * release store: gives up what the caller owned, publishing its earlier
 * stores (a lease's fast exit; the other stores are relaxed).
 */
CIDK__INLINE void cidk__st_rel_(_Atomic unsigned int *p, unsigned int v,
				const struct cidk__site *s)
{
	cidk__chk_before(s, CIDK__ACC(CIDK__OP_STORE, sizeof(*p), CIDK__MO_REL),
			 p);
	cidk__chk_after(CIDK__PEEK(p), v);
	atomic_store_explicit(p, v, memory_order_release);
}

#define cidk__ld(p) cidk__ld_((p), CIDK__SITE)
#define cidk__st(p, v) cidk__st_((p), (v), CIDK__SITE)
#define cidk__st_rel(p, v) cidk__st_rel_((p), (v), CIDK__SITE)
#define cidk__st_mb(p, v) cidk__st_mb_((p), (v), CIDK__SITE)
#define cidk__cas(p, e, d) cidk__cas_((p), (e), (d), CIDK__SITE)
#define cidk__add(p, d) cidk__add_((p), (d), CIDK__SITE)
#define cidk__sub(p, d) cidk__sub_((p), (d), CIDK__SITE)

/* ---- 64-bit words: _Atomic uint64_t (times) --------------------------------- */

CIDK__INLINE uint64_t cidk__ld64_(const _Atomic uint64_t *p,
				  const struct cidk__site *s)
{
	uint64_t v;

	cidk__chk_before(s, CIDK__ACC(CIDK__OP_LOAD, sizeof(*p), CIDK__MO_RLX),
			 p);
	v = atomic_load_explicit(p, memory_order_relaxed);
	cidk__chk_after(v, v);
	return v;
}

CIDK__INLINE void cidk__st64_(_Atomic uint64_t *p, uint64_t v,
			      const struct cidk__site *s)
{
	cidk__chk_before(s, CIDK__ACC(CIDK__OP_STORE, sizeof(*p), CIDK__MO_RLX),
			 p);
	cidk__chk_after(CIDK__PEEK(p), v);
	atomic_store_explicit(p, v, memory_order_relaxed);
}

CIDK__INLINE bool cidk__cas64_(_Atomic uint64_t *p, uint64_t *expected,
			       uint64_t desired, const struct cidk__site *s)
{
	uint64_t want = *expected;
	bool ok;

	cidk__chk_before(s, CIDK__ACC(CIDK__OP_CAS, sizeof(*p), CIDK__MO_SC),
			 p);
	ok = atomic_compare_exchange_strong(p, expected, desired);
	cidk__chk_after(ok ? want : *expected, ok ? desired : *expected);
	return ok;
}

#define cidk__ld64(p) cidk__ld64_((p), CIDK__SITE)
#define cidk__st64(p, v) cidk__st64_((p), (v), CIDK__SITE)
#define cidk__cas64(p, e, d) cidk__cas64_((p), (e), (d), CIDK__SITE)

/*
 * ---- plain unsigned int fields read by other threads ----------------------
 * Fields of struct cidk_cid_task (lib/internal/cidkit_lab.h; plain, not
 * _Atomic) that another thread reads without the lock that orders their
 * writes, as the kernel's READ_ONCE/WRITE_ONCE do.
 */
CIDK__INLINE unsigned int cidk__ldp_(const unsigned int *p,
				     const struct cidk__site *s)
{
	unsigned int v;

	cidk__chk_before(s, CIDK__ACC(CIDK__OP_LOAD, sizeof(*p), CIDK__MO_ACQ),
			 p);
	v = __atomic_load_n(p, __ATOMIC_ACQUIRE);
	cidk__chk_after(v, v);
	return v;
}

/*
 * Release, paired with cidk__ldp()'s acquire: a task's CPU word (ownership
 * moves it under the old CPU's lock only; whoever then pins the task under
 * the new CPU's lock must see what the task wrote before the move).  Plain
 * moves on x86.
 */
CIDK__INLINE void cidk__stp_(unsigned int *p, unsigned int v,
			     const struct cidk__site *s)
{
	cidk__chk_before(s, CIDK__ACC(CIDK__OP_STORE, sizeof(*p), CIDK__MO_REL),
			 p);
	cidk__chk_after(CIDK__PEEK_PLAIN(p), v);
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

#define cidk__ldp(p) cidk__ldp_((p), CIDK__SITE)
#define cidk__stp(p, v) cidk__stp_((p), (v), CIDK__SITE)

/* ---- the CID bitmap ------------------------------------------------------- */

/* One word of @m, for a search (find first zero). */
CIDK__INLINE unsigned long cidk__bitmap_word_(const struct cidk_mask *m,
					      unsigned int w,
					      const struct cidk__site *s)
{
	_Atomic unsigned long *p = cidk__mask_aword((struct cidk_mask *)m, w);
	unsigned long v;

	cidk__chk_before(s, CIDK__ACC(CIDK__OP_LOAD, sizeof(*p), CIDK__MO_RLX),
			 p);
	v = atomic_load_explicit(p, memory_order_relaxed);
	cidk__chk_after(v, v);
	return v;
}

/* Set @bit; true when it was clear (this call took it). */
CIDK__INLINE bool cidk__bit_take_(struct cidk_mask *m, unsigned int bit,
				  const struct cidk__site *s)
{
	_Atomic unsigned long *p = cidk__mask_aword(m, cidk__bit_word(bit));
	unsigned long old;

	cidk__chk_before(s, CIDK__ACC(CIDK__OP_RMW, sizeof(*p), CIDK__MO_SC),
			 p);
	old = atomic_fetch_or(p, cidk__bit_mask(bit));
	cidk__chk_after(old, old | cidk__bit_mask(bit));
	return !(old & cidk__bit_mask(bit));
}

CIDK__INLINE void cidk__bit_clear_(struct cidk_mask *m, unsigned int bit,
				   const struct cidk__site *s)
{
	_Atomic unsigned long *p = cidk__mask_aword(m, cidk__bit_word(bit));
	unsigned long old;

	cidk__chk_before(s, CIDK__ACC(CIDK__OP_RMW, sizeof(*p), CIDK__MO_SC),
			 p);
	old = atomic_fetch_and(p, ~cidk__bit_mask(bit));
	cidk__chk_after(old, old & ~cidk__bit_mask(bit));
}

#define cidk__bitmap_word(m, w) cidk__bitmap_word_((m), (w), CIDK__SITE)
#define cidk__bit_take(m, b) cidk__bit_take_((m), (b), CIDK__SITE)
#define cidk__bit_clear(m, b) cidk__bit_clear_((m), (b), CIDK__SITE)

/* ---- the mm's allowed-CPU union ------------------------------------------- */

/* A bit of the union, read while affinity changes may grow it. */
CIDK__INLINE bool cidk__mask_test_(const struct cidk_mask *m, unsigned int bit,
				   const struct cidk__site *s)
{
	bool v;

	cidk__chk_before(s, CIDK__ACC(CIDK__OP_LOAD, sizeof(unsigned long),
				      CIDK__MO_RLX),
			 cidk__mask_aword((struct cidk_mask *)m,
					  cidk__bit_word(bit)));
	v = cidk_mask_test_atomic(m, bit);
	cidk__chk_after(v, v);
	return v;
}

/*
 * Fold @src into the union @dst: cidk_mask_union_count(), one RMW per
 * word that gains bits.  The checker takes it as one step on word 0 (its
 * scenarios have at most 4 CPUs: one word) and traces that word.
 */
CIDK__INLINE unsigned int cidk__mask_union_(struct cidk_mask *dst,
					    const struct cidk_mask *src,
					    const struct cidk__site *s)
{
	_Atomic unsigned long *p = cidk__mask_aword(dst, 0);
	uint64_t before;
	unsigned int gained;

	cidk__chk_before(s, CIDK__ACC(CIDK__OP_RMW, sizeof(*p), CIDK__MO_SC),
			 p);
	before = CIDK__PEEK(p);
	gained = cidk_mask_union_count(dst, src);
	cidk__chk_after(before, CIDK__PEEK(p));
	return gained;
}

#define cidk__mask_test(m, b) cidk__mask_test_((m), (b), CIDK__SITE)
#define cidk__mask_union(d, sr) cidk__mask_union_((d), (sr), CIDK__SITE)

/* ---- locks: stand-ins for the kernel's runqueue lock and mm_cid mutex ------ */

/*
 * A test-and-test-and-set lock word (0 free, 1 held); after 64 pauses the
 * waiter yields the CPU, since a user-space holder can be preempted (the
 * kernel's holders cannot).  In the checker build a thread whose next
 * step is LOCK on a held word is simply not scheduled.
 */
CIDK__INLINE void cidk__lock_(_Atomic unsigned int *l,
			      const struct cidk__site *s)
{
	cidk__chk_before(s, CIDK__ACC(CIDK__OP_LOCK, sizeof(*l), CIDK__MO_ACQ),
			 l);
	for (unsigned int spins = 0;; spins++) {
		unsigned int free_ = 0;

		if (atomic_load_explicit(l, memory_order_relaxed) == 0 &&
		    atomic_compare_exchange_weak_explicit(
			    l, &free_, 1, memory_order_acquire,
			    memory_order_relaxed))
			break;
		if (spins < 64)
			cidk__cpu_relax();
		else
			sched_yield();
	}
	cidk__chk_after(0, 1);
}

CIDK__INLINE void cidk__unlock_(_Atomic unsigned int *l,
				const struct cidk__site *s)
{
	cidk__chk_before(s, CIDK__ACC(CIDK__OP_UNLOCK, sizeof(*l), CIDK__MO_REL),
			 l);
	atomic_store_explicit(l, 0, memory_order_release);
	cidk__chk_after(1, 0);
}

/* One pause of a retry loop that waits for another thread's progress. */
CIDK__INLINE void cidk__spin_wait_(const struct cidk__site *s)
{
	cidk__chk_before(s, CIDK__OP_SPIN, (const void *)0);
	cidk__cpu_relax();
	cidk__chk_after(0, 0);
}

#define cidk__lock(l) cidk__lock_((l), CIDK__SITE)
#define cidk__unlock(l) cidk__unlock_((l), CIDK__SITE)
#define cidk__spin_wait() cidk__spin_wait_(CIDK__SITE)

/*
 * ---- plain pointers of the ownership policy's task list -------------------
 * mm->tasks and each task's next (lib/cid/ownership.c, list_lock held) are
 * plain pointers: nothing in the normal build.  In the checker build a
 * load or store of one is a scheduling point when the search asks for
 * them (`cidkit check --plain-points`, chk_opts.plain_points): a list
 * update whose lock is missing or misplaced then races as it would on
 * hardware (two appends at one tail, an unlink under an append).
 * Off, the list's accesses run inside the step around them, as before.
 */
#ifdef CIDK_CHECKER
/* true: the search took a point before this access (cidk__chk_plain_after
 * due, with the value found and left, which the checker may rename) */
bool cidk__chk_plain(const struct cidk__site *s, enum cidk__chk_op op,
		     const void *addr);
void cidk__chk_plain_after(uint64_t found, uint64_t left);
#define cidk__lld(p)                                                    \
	__extension__({                                                 \
		__typeof__(*(p)) v_;                                    \
		bool pt_ = cidk__chk_plain(                             \
			CIDK__SITE,                                     \
			CIDK__ACC(CIDK__OP_LOAD, sizeof(*(p)), CIDK__MO_RLX), \
			(p));                                           \
		v_ = *(p);                                              \
		if (pt_)                                                \
			cidk__chk_plain_after((uintptr_t)v_,            \
					      (uintptr_t)v_);           \
		v_;                                                     \
	})
#define cidk__lst(p, v)                                                 \
	__extension__({                                                 \
		__typeof__(*(p)) n_ = (v);                              \
		bool pt_ = cidk__chk_plain(                             \
			CIDK__SITE,                                     \
			CIDK__ACC(CIDK__OP_STORE, sizeof(*(p)), CIDK__MO_RLX), \
			(p));                                           \
		if (pt_)                                                \
			cidk__chk_plain_after((uintptr_t)*(p),          \
					      (uintptr_t)n_);           \
		*(p) = n_;                                              \
	})
#else
#define cidk__lld(p) (*(p))
#define cidk__lst(p, v) ((void)(*(p) = (v)))
#endif

#endif /* CIDKIT_LIB_CID_ATOMIC_H */
