/* SPDX-License-Identifier: MIT */
/*
 * lib/cid/cid_internal.h - the state of one mm, shared by the policy files.
 *
 * Ownership and invariants (every policy, checked by check.c):
 *   - a bit of cidmask set <=> the CID is owned: by a running task, or (lazy
 *     family) parked in one per-CPU slot; never by two owners, never leaked;
 *   - the bits of cidmask are only touched with atomic loads and RMWs (the
 *     word view of mask.h), so concurrent drivers never race;
 *   - slot.word (lazy family) is SLOT_UNSET or a CID with flags:
 *       SLOT_BUSY      a task runs with this CID on this CPU now;
 *       SLOT_LAZY_PUT  the scan wants it back: the BUSY owner releases it at
 *                      its next switch-out (only ever set together with BUSY);
 *   - nr_cpus_allowed == weight(allowed) once every fork/set_affinity call
 *     has returned; both only grow.
 *
 * Workload: switch-in/out run millions of times per second (simulator) or
 * on every lease; they touch the task, one slot, one stats shard and, only
 * when they must allocate, the bitmap.  The compaction scan is the only
 * O(nr_cpu_ids) path; fork, exit and affinity changes are rare.
 *
 * Cost counters live in per-CPU shards (cpu mod nr_shards), updated with a
 * relaxed load and store, exact single-threaded (mm.c: a shard of totals).
 */
#ifndef CIDKIT_LIB_CID_INTERNAL_H
#define CIDKIT_LIB_CID_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include <cidkit/cid.h>
#include "internal/cidkit_lab.h" /* the policies' interface: the lab's */
#include "cid/cid_atomic.h"

#define CIDK__CACHELINE 64

#define SLOT_BUSY 0x40000000u
#define SLOT_LAZY_PUT 0x80000000u
#define SLOT_CID_MASK 0x3fffffffu
#define SLOT_UNSET SLOT_CID_MASK

/* ownership: no CID in a task's `own` word or a slot's `cid` (MM_CID_UNSET) */
#define CIDK__OWN_UNSET 0x80000000u

/*
 * The cache-local policy's shrink of nr_cids_used (cache_local.c) gives up
 * after this many lost compare-and-swaps.  The checker build reads it from
 * a variable, 4 unless `cidkit check --cl-shrink-tries N` (1 to 4) lowers
 * it: with 1, one explorer switch reaches the give-up the library reaches
 * only after four lost races (docs/check.md, "Retry bounds").  Only a
 * bound: the code after the loop does not depend on its value.
 */
#ifdef CIDK_CHECKER
extern unsigned int cidk__chk_cl_shrink_tries;
#define CIDK__CL_SHRINK_TRIES cidk__chk_cl_shrink_tries
#else
#define CIDK__CL_SHRINK_TRIES 4
#endif

/*
 * Its claims of never-used CIDs: at most @max iterations that claim one,
 * and as many lost races: 2 * @max.  The checker build allows max plus
 * cidk__chk_cl_claim_races (`--cl-claim-races N`; by default @max, the
 * library's): alone, a call claims at most @max CIDs, so it never runs
 * out, whatever N (docs/check.md, "Retry bounds").
 */
#ifdef CIDK_CHECKER
extern unsigned int cidk__chk_cl_claim_races;
#define CIDK__CL_CLAIMS(max)                                       \
	((max) + (cidk__chk_cl_claim_races < (max) ?                    \
		  cidk__chk_cl_claim_races : (max)))
#else
#define CIDK__CL_CLAIMS(max) (2 * (max))
#endif

/* Indexes of the counters; the order of struct cidk_cid_stats. */
enum cidk__stat {
	ST_BITMAP_RMW,
	ST_BITMAP_SEARCH,
	ST_COMPACTION_CALLS,
	ST_COMPACTION_CPUS,
	ST_COMPACTION_MAX_CPUS, /* a maximum */
	ST_COMPACTION_RELEASES,
	ST_DEFERRED_RELEASES,
	ST_HANDOVERS,
	ST_CID_CHANGES,
	ST_ALLOCATIONS,
	ST_MAX_CID, /* a maximum, +1 (0: none) */
	ST_SLOT_RMW,
	ST_MIGRATE_MOVES,
	ST_MODE_SWITCHES,
	ST_FIXUP_WALKS,
	ST_FIXUP_VISITS,
	ST_TRANSIT_DROPS,
	ST_STALLS,
	ST_LEASE_FAST, /* a lease's one-CAS re-claim: allocation + handover + RMW */
	ST_NR,
};

struct cidk__cid_shard {
	_Alignas(CIDK__CACHELINE) _Atomic uint64_t v[ST_NR];
};

struct cidk__cid_slot {
	_Alignas(CIDK__CACHELINE) _Atomic unsigned int word; /* lazy family */
	_Atomic unsigned int recent; /* last CID used on this CPU (hint) */
	_Atomic uint64_t time;	     /* last use, ns (lazy family) */
	/* ownership: the runqueue lock stand-in and what it protects */
	_Atomic unsigned int rq_lock;
	unsigned int cid;	     /* the kernel's mm_cid.pcpu->cid (rq_lock) */
	struct cidk_cid_task *curr;  /* the mm's task running here (rq_lock) */
};

struct cidk__cid_ops;

struct cidk_cid_mm {
	struct cidk_cid_params p;
	const struct cidk__cid_ops *ops;
	unsigned int nr_cpu_ids;
	unsigned int shard_mask; /* nr_shards - 1, a power of two minus 1 */
	struct cidk_mask *cidmask;
	struct cidk_mask *allowed; /* union of the tasks' allowed CPUs */
	struct cidk__cid_slot *slots;   /* nr_cpu_ids */
	struct cidk__cid_shard *shards; /* shard_mask + 1, then totals (mm.c) */

	_Alignas(CIDK__CACHELINE) _Atomic unsigned int nr_cpus_allowed;
	_Atomic unsigned int nr_users;
	_Atomic unsigned int nr_cids_used; /* cache-local: CIDs handed out once */

	_Alignas(CIDK__CACHELINE) _Atomic uint64_t next_scan; /* 0: not armed */
	_Atomic unsigned int scan_pos; /* lazy-batched: where the pass resumes */

	/* ownership (ownership.c says which lock orders what) */
	_Alignas(CIDK__CACHELINE) _Atomic unsigned int mode; /* ONCPU|TRANSIT */
	_Atomic unsigned int percpu;   /* without W2: the mode as two words */
	_Atomic unsigned int transit;
	_Atomic unsigned int max_cids; /* min(opt + opt/4, nr_cpu_ids) */
	_Atomic unsigned int mutex;    /* mm_cid.mutex (+ .lock, folded in) */
	_Atomic unsigned int list_lock;/* the thread list's lock */
	unsigned int pcpu_thrs;	       /* mutex */
	bool own_percpu;	       /* mutex: the mode of record */
	struct cidk_cid_task *tasks;   /* list_lock: creation order */
	unsigned int bad_put;	       /* mutex: the first CID value given back
					  out of range (0: none), which the
					  kernel's clear_bit() would have written
					  far past the bitmap (without FEB) */
};

/*
 * A policy: what differs between them, as a table of operations (as the
 * kernel's sched_class).  NULL entries: the event does nothing for this
 * policy (fork/exit/set_affinity: only the common user accounting).
 */
struct cidk__cid_ops {
	const char *name;
	/* @t (of @mm) starts on @cpu: the CID, or CIDK_CID_NONE (nothing
	   changed) when none is free below the policy's bound */
	unsigned int (*switch_in)(struct cidk_cid_mm *mm,
				  struct cidk_cid_task *t, unsigned int cpu,
				  uint64_t now);
	/* @t stops; it holds t->cid (t->cpu's state) */
	void (*switch_out)(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			   uint64_t now);
	/* same-mm switch on @cpu: pass prev's CID to next; false: cannot */
	bool (*handover)(struct cidk_cid_mm *mm, struct cidk_cid_task *prev,
			 struct cidk_cid_task *next, unsigned int cpu);
	/* compaction work, when due: CPUs visited */
	unsigned int (*scan)(struct cidk_cid_mm *mm, unsigned int cpu,
			     uint64_t now);
	/* the not running @t moves from @from to @to */
	void (*migrate)(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			unsigned int from, unsigned int to);
	/*
	 * The rare events, when the policy does more than count: they do
	 * the whole accounting (cidk__cid_grow_union, nr_users).  A task
	 * joins on @allowed (t initialised); leaves (already switched out);
	 * a task's affinity becomes @allowed: returns the CPUs gained.
	 */
	void (*fork)(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
		     const struct cidk_mask *allowed);
	void (*exit)(struct cidk_cid_mm *mm, struct cidk_cid_task *t);
	unsigned int (*affinity)(struct cidk_cid_mm *mm,
				 const struct cidk_mask *allowed);
	/*
	 * Leases' fast path (NULL: none).  lease_claim: @t enters on @cpu
	 * and gets its last CID back cheaply, or false and nothing changed.
	 * lease_release: the running @t leaves cheaply, or false and nothing
	 * changed.  Each falls back to switch_in / switch_out.
	 */
	bool (*lease_claim)(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			    unsigned int cpu);
	bool (*lease_release)(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			      uint64_t now);
};

extern const struct cidk__cid_ops cidk__bitmap_ops, cidk__lazy_ops,
	cidk__lazy_batched_ops, cidk__cache_local_ops, cidk__inherit_ops,
	cidk__ownership_ops;

/* ---- counters ----------------------------------------------------------- */

static inline struct cidk__cid_shard *cidk__shard(struct cidk_cid_mm *mm,
						 unsigned int cpu)
{
	return &mm->shards[cpu & mm->shard_mask];
}

static inline void cidk__st_add(struct cidk__cid_shard *s, enum cidk__stat i,
				uint64_t d)
{
	atomic_store_explicit(&s->v[i],
			      atomic_load_explicit(&s->v[i],
						   memory_order_relaxed) + d,
			      memory_order_relaxed);
}

static inline void cidk__st_max(struct cidk__cid_shard *s, enum cidk__stat i,
				uint64_t v)
{
	if (atomic_load_explicit(&s->v[i], memory_order_relaxed) < v)
		atomic_store_explicit(&s->v[i], v, memory_order_relaxed);
}

/* ---- shared helpers (mm.c) ---------------------------------------------- */

/* A relaxed load outside the policies' steps (queries, statistics). */
static inline unsigned int cidk__load_u(const _Atomic unsigned int *p)
{
	return atomic_load_explicit(p, memory_order_relaxed);
}

/* min(nr_cpus_allowed, nr_users), read as two steps. */
#define cidk__mm_max_cids(mm) cidk__mm_max_cids_((mm), CIDK__SITE)
static inline unsigned int cidk__mm_max_cids_(struct cidk_cid_mm *mm,
					      const struct cidk__site *s)
{
	unsigned int a = cidk__ld_(&mm->nr_cpus_allowed, s);
	unsigned int u = cidk__ld_(&mm->nr_users, s);

	return a < u ? a : u;
}

/* The first zero bit of cidmask below @limit (atomic loads), or @limit. */
unsigned int cidk__cid_first_zero(const struct cidk_cid_mm *mm,
				  unsigned int limit);

/* Grow the allowed union by @allowed: the CPUs gained (nr_cpus_allowed). */
unsigned int cidk__cid_grow_union(struct cidk_cid_mm *mm,
				  const struct cidk_mask *allowed);

/* Number of set bits of cidmask (atomic loads). */
unsigned int cidk__cid_weight(const struct cidk_cid_mm *mm);

/*
 * Take @cid's bit: returns true when this call turned it on (it now owns
 * the CID).  Counts one bitmap RMW.
 */
static inline bool cidk__cid_try_take(struct cidk_cid_mm *mm,
				      struct cidk__cid_shard *sh,
				      unsigned int cid)
{
	cidk__st_add(sh, ST_BITMAP_RMW, 1);
	return cidk__bit_take(mm->cidmask, cid);
}

static inline void cidk__cid_put(struct cidk_cid_mm *mm,
				 struct cidk__cid_shard *sh, unsigned int cid)
{
	cidk__st_add(sh, ST_BITMAP_RMW, 1);
	cidk__bit_clear(mm->cidmask, cid);
}

/*
 * The lowest free CID below @limit, taken; CIDK_CID_NONE when every CID
 * below @limit is owned.  Counts searches and RMWs.
 */
unsigned int cidk__cid_take_lowest(struct cidk_cid_mm *mm,
				   struct cidk__cid_shard *sh,
				   unsigned int limit);

/* ---- per policy (beyond the ops tables) ---------------------------------- */

/* lazy family (lazy.c): the compaction scan, for leases' exit */
unsigned int cidk__lazy_scan(struct cidk_cid_mm *mm, unsigned int cpu,
			     uint64_t now);
/* lazy family shared by lazy.c and cache_local.c */
unsigned int cidk__lazy_switch_in(struct cidk_cid_mm *mm,
				  struct cidk_cid_task *t, unsigned int cpu,
				  uint64_t now);
void cidk__lazy_switch_out(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			   uint64_t now);
void cidk__lazy_migrate(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			unsigned int from, unsigned int to);
void cidk__lazy_exit(struct cidk_cid_mm *mm, struct cidk_cid_task *t);

/* cache-local allocation: recent CID, expansion, lowest free */
unsigned int cidk__cache_local_take(struct cidk_cid_mm *mm,
				    struct cidk__cid_shard *sh,
				    unsigned int cpu);

/* true for lazy, lazy-batched and cache-local */
static inline bool cidk__is_lazy_family(const struct cidk_cid_mm *mm)
{
	return mm->p.kind == CIDK_CID_LAZY ||
	       mm->p.kind == CIDK_CID_LAZY_BATCHED ||
	       mm->p.kind == CIDK_CID_CACHE_LOCAL;
}

/* check.c: format the invariant checker's reason; returns -EINVAL. */
__attribute__((format(printf, 3, 4))) int cidk__cid_why(char *why, size_t len,
							const char *fmt, ...);

/* ownership.c: the invariants of its ownership records, for check.c */
int cidk__ownership_check(const struct cidk_cid_mm *mm,
			  struct cidk_cid_task *const *tasks, unsigned int n,
			  char *why, size_t whylen);

/*
 * cidk__cid_exit_running - @t leaves @mm while it still runs on its CPU,
 * as the kernel's do_exit() -> sched_mm_cid_exit() does, then switches
 * out for the last time.  Ownership only (the other policies, and a @t
 * not running: cidk_cid_exit()).  Used by the checker.
 */
void cidk__cid_exit_running(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			    uint64_t now);

/*
 * cidk__cid_fork_vm - cidk_cid_fork() of a task that shares @mm without
 * being a thread of its process (vfork(), clone(CLONE_VM) without
 * CLONE_THREAD): the ownership walks find it by another route (VFORK).
 */
int cidk__cid_fork_vm(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
		      const struct cidk_mask *allowed);

/*
 * cidk__cid_try_switch_in - the switch-in of @t of @mm on @cpu at @now
 * without the public switch's fallbacks: returns the CID, or CIDK_CID_NONE
 * when every CID below the policy's bound is owned right now (nothing
 * changed).  Used by leases (try_enter).  Same MT-safety as
 * cidk_cid_switch().
 */
unsigned int cidk__cid_try_switch_in(struct cidk_cid_mm *mm,
				     struct cidk_cid_task *t, unsigned int cpu,
				     uint64_t now);

/*
 * A lease's switch-in and switch-out (lease.c, the checker's enter and
 * leave events): the policy's fast path when it has one and it applies,
 * else cidk__cid_try_switch_in() and the public switch-out.
 */
unsigned int cidk__cid_lease_in(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
				unsigned int cpu, uint64_t now);
void cidk__cid_lease_out(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			 uint64_t now);

/* Count @n fast lease enters (lease_fast.h) on @cpu's shard. */
static inline void cidk__cid_count_lease_fast(struct cidk_cid_mm *mm,
					      unsigned int cpu, unsigned int n)
{
	cidk__st_add(cidk__shard(mm, cpu), ST_LEASE_FAST, n);
}

/* Record a task's new CID in the counters and the task (and its CPU). */
void cidk__cid_note_in(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
		       struct cidk_cid_task *t, unsigned int cpu,
		       unsigned int cid);
/* The same without t->cpu (ownership writes it under its rq_lock). */
void cidk__cid_count_in(struct cidk__cid_shard *sh, struct cidk_cid_task *t,
			unsigned int cid);

/*
 * The shard after the per-CPU ones: the mm's totals (one RMW per scan call
 * that released anything; cidk_cid_releases() reads it in one load).
 */
static inline struct cidk__cid_shard *
cidk__cid_totals(const struct cidk_cid_mm *mm)
{
	return &mm->shards[mm->shard_mask + 1];
}

#endif /* CIDKIT_LIB_CID_INTERNAL_H */
