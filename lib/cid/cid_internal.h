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
 * relaxed load and a relaxed store: no shared RMW, exact single-threaded.
 */
#ifndef CIDKIT_LIB_CID_INTERNAL_H
#define CIDKIT_LIB_CID_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include <cidkit/cid.h>

#define CIDK__CACHELINE 64

#define SLOT_BUSY 0x40000000u
#define SLOT_LAZY_PUT 0x80000000u
#define SLOT_CID_MASK 0x3fffffffu
#define SLOT_UNSET SLOT_CID_MASK

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
	ST_NR,
};

struct cidk__cid_shard {
	_Alignas(CIDK__CACHELINE) _Atomic uint64_t v[ST_NR];
};

struct cidk__cid_slot {
	_Alignas(CIDK__CACHELINE) _Atomic unsigned int word; /* lazy family */
	_Atomic unsigned int recent; /* last CID used on this CPU (hint) */
	_Atomic uint64_t time;	     /* last use, ns (lazy family) */
};

struct cidk_cid_mm {
	struct cidk_cid_params p;
	unsigned int nr_cpu_ids;
	unsigned int shard_mask; /* nr_shards - 1, a power of two minus 1 */
	struct cidk_mask *cidmask;
	struct cidk_mask *allowed; /* union of the tasks' allowed CPUs */
	struct cidk__cid_slot *slots;   /* nr_cpu_ids */
	struct cidk__cid_shard *shards; /* shard_mask + 1 */

	_Alignas(CIDK__CACHELINE) _Atomic unsigned int nr_cpus_allowed;
	_Atomic unsigned int nr_users;
	_Atomic unsigned int nr_cids_used; /* cache-local: CIDs handed out once */

	_Alignas(CIDK__CACHELINE) _Atomic uint64_t next_scan; /* 0: not armed */
	_Atomic unsigned int scan_pos; /* lazy-batched: where the pass resumes */
};

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

static inline unsigned int cidk__load_u(const _Atomic unsigned int *p)
{
	return atomic_load_explicit(p, memory_order_relaxed);
}

static inline unsigned int cidk__mm_max_cids(const struct cidk_cid_mm *mm)
{
	unsigned int a = cidk__load_u(&mm->nr_cpus_allowed);
	unsigned int u = cidk__load_u(&mm->nr_users);

	return a < u ? a : u;
}

/* The first zero bit of cidmask below @limit (atomic loads), or @limit. */
unsigned int cidk__cid_first_zero(const struct cidk_cid_mm *mm,
				  unsigned int limit);

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
	return !cidk_mask_test_and_set_atomic(mm->cidmask, cid);
}

static inline void cidk__cid_put(struct cidk_cid_mm *mm,
				 struct cidk__cid_shard *sh, unsigned int cid)
{
	cidk__st_add(sh, ST_BITMAP_RMW, 1);
	cidk_mask_clear_atomic(mm->cidmask, cid);
}

/*
 * The lowest free CID below @limit, taken; CIDK_CID_NONE when every CID
 * below @limit is owned.  Counts searches and RMWs.
 */
unsigned int cidk__cid_take_lowest(struct cidk_cid_mm *mm,
				   struct cidk__cid_shard *sh,
				   unsigned int limit);

/* ---- per policy ---------------------------------------------------------- */

/*
 * switch_in: @t (of @mm) starts on @cpu; returns the CID it now holds, or
 * CIDK_CID_NONE when none is free below the policy's bound (then nothing
 * changed).  switch_out: @t stops; it held t->cid (t->cpu's state).
 */
unsigned int cidk__bitmap_switch_in(struct cidk_cid_mm *mm,
				    struct cidk_cid_task *t, unsigned int cpu);
void cidk__bitmap_switch_out(struct cidk_cid_mm *mm, struct cidk_cid_task *t);

unsigned int cidk__inherit_switch_in(struct cidk_cid_mm *mm,
				     struct cidk_cid_task *t, unsigned int cpu);
void cidk__inherit_switch_out(struct cidk_cid_mm *mm, struct cidk_cid_task *t);
/* same-mm switch: pass prev's CID to next; false when it cannot */
bool cidk__inherit_handover(struct cidk_cid_mm *mm, struct cidk_cid_task *prev,
			    struct cidk_cid_task *next, unsigned int cpu);

unsigned int cidk__lazy_switch_in(struct cidk_cid_mm *mm,
				  struct cidk_cid_task *t, unsigned int cpu,
				  uint64_t now);
void cidk__lazy_switch_out(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			   uint64_t now);
unsigned int cidk__lazy_scan(struct cidk_cid_mm *mm, unsigned int cpu,
			     uint64_t now);
void cidk__lazy_migrate(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			unsigned int from, unsigned int to);
/* lease slow path: take a CID parked in a slot of a CPU not running it */
unsigned int cidk__lazy_steal(struct cidk_cid_mm *mm,
			      struct cidk__cid_shard *sh);

/* cache-local allocation: recent CID, expansion, lowest free */
unsigned int cidk__cache_local_take(struct cidk_cid_mm *mm,
				    struct cidk__cid_shard *sh,
				    unsigned int cpu);

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

/* Record a task's new CID in the counters and the task. */
void cidk__cid_note_in(struct cidk_cid_mm *mm, struct cidk__cid_shard *sh,
		       struct cidk_cid_task *t, unsigned int cpu,
		       unsigned int cid);

#endif /* CIDKIT_LIB_CID_INTERNAL_H */
