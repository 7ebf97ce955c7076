/* SPDX-License-Identifier: MIT */
/*
 * check/kernel/kstub.h - our stand-ins for what the kernel's mm_cid blocks
 * use, part 1: what include/linux/rseq_types.h's block needs (types,
 * locks, irq_work, work_struct, lists).  Part 2 (kstub2.h) follows that
 * block: the mm, the task, the run-queue, and the operations.
 *
 * Written from the kernel's documented interfaces (include/linux/
 * cleanup.h's guard()/scoped_guard(), compiler.h's READ_ONCE/WRITE_ONCE,
 * bitops, cpumask, percpu, irq_work, workqueue), not copied.  Each stand-in
 * that touches state another thread may touch is a scheduling point of
 * the checker (lib/cid/cid_atomic.h's hooks, cidk__chk_before/after):
 *   READ_ONCE/WRITE_ONCE, __this_cpu_read/write   load / store (relaxed)
 *   find_first_zero_bit                           a load per word
 *   test_and_set_bit, clear_bit                    RMW (seq_cst)
 *   raw_spinlock, mutex, rq lock, pi_lock          LOCK / UNLOCK
 *   smp_mb                                         fence
 *   cpu_relax                                      SPIN (liveness)
 *   irq_work_queue, schedule_work                  RMW on the pending word
 * Plain C accesses of the kernel code (t->mm_cid.cid, pcp->cid under the
 * rq lock, ...) are not points: the locks around them are.
 */
#ifndef CIDKIT_CHECK_KERNEL_KSTUB_H
#define CIDKIT_CHECK_KERNEL_KSTUB_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cid/cid_atomic.h"

/* ---- compiler.h, bits.h, minmax.h -------------------------------------- */

#undef __always_inline
#define __always_inline inline __attribute__((always_inline))
#define noinline __attribute__((noinline))
#define __maybe_unused __attribute__((unused))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define ____cacheline_aligned __attribute__((aligned(64)))
#define ____cacheline_aligned_in_smp __attribute__((aligned(64)))
#define __percpu
#define __rcu
#define __must_hold(x)
#define __acquires(x)
#define __releases(x)
#define BIT(n) (1UL << (n))
#define BITS_PER_LONG 64
#define BITS_TO_LONGS(n) (((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define min_t(t, a, b) min((t)(a), (t)(b))
#define max_t(t, a, b) max((t)(a), (t)(b))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define KCHK_CAT_(a, b) a##b
#define KCHK_CAT(a, b) KCHK_CAT_(a, b)
#define __UNIQUE_ID(p) KCHK_CAT(__kchk_##p, __COUNTER__)

/* where a step is: the kernel's file and line, through the #line the
 * extractor writes */
#define KSITE (&(const struct cidk__site){ __FILE__, __func__, __LINE__ })

/* a report of the stand-ins (WARN, lockdep, a bit out of range): the
 * model turns it into a violation (kcontext.c) */
void kchk_bug(const struct cidk__site *s, const char *what);

#define WARN_ON_ONCE(c) ({                                              \
	bool __w = !!(c);                                               \
	if (__w)                                                        \
		kchk_bug(KSITE, "WARN_ON_ONCE(" #c ")");                \
	__w;                                                            \
})
#define WARN_ON(c) WARN_ON_ONCE(c)

/* ---- READ_ONCE / WRITE_ONCE: relaxed loads and stores, points ---------- */

static inline uint64_t kchk_load(const volatile void *p, size_t n,
				 const struct cidk__site *s)
{
	uint64_t v;

	cidk__chk_before(s, CIDK__ACC(CIDK__OP_LOAD, n, CIDK__MO_RLX),
			 (const void *)p);
	if (n == 8)
		v = __atomic_load_n((const volatile uint64_t *)p, __ATOMIC_RELAXED);
	else if (n == 4)
		v = __atomic_load_n((const volatile uint32_t *)p, __ATOMIC_RELAXED);
	else if (n == 2)
		v = __atomic_load_n((const volatile uint16_t *)p, __ATOMIC_RELAXED);
	else
		v = __atomic_load_n((const volatile uint8_t *)p, __ATOMIC_RELAXED);
	cidk__chk_after(v, v);
	return v;
}

static inline void kchk_store(volatile void *p, size_t n, uint64_t v,
			      const struct cidk__site *s)
{
	uint64_t old = n == 8 ? *(volatile uint64_t *)p :
		       n == 4 ? *(volatile uint32_t *)p :
		       n == 2 ? *(volatile uint16_t *)p : *(volatile uint8_t *)p;

	cidk__chk_before(s, CIDK__ACC(CIDK__OP_STORE, n, CIDK__MO_RLX),
			 (const void *)p);
	cidk__chk_after(old, v);
	if (n == 8)
		__atomic_store_n((volatile uint64_t *)p, v, __ATOMIC_RELAXED);
	else if (n == 4)
		__atomic_store_n((volatile uint32_t *)p, (uint32_t)v, __ATOMIC_RELAXED);
	else if (n == 2)
		__atomic_store_n((volatile uint16_t *)p, (uint16_t)v, __ATOMIC_RELAXED);
	else
		__atomic_store_n((volatile uint8_t *)p, (uint8_t)v, __ATOMIC_RELAXED);
}

#define READ_ONCE(x) ((__typeof__(x))kchk_load(&(x), sizeof(x), KSITE))
#define WRITE_ONCE(x, v) kchk_store(&(x), sizeof(x), (uint64_t)(v), KSITE)

/* smp_mb(): a seq_cst fence (the checker's fence step) */
static inline void kchk_fence(const struct cidk__site *s)
{
	cidk__chk_before(s, (enum cidk__chk_op)102 /* CHK_OP_FENCE */, NULL);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
#define smp_mb() kchk_fence(KSITE)
#define barrier() __asm__ volatile("" ::: "memory")

/* cpu_relax() in a retry loop: a liveness point (no progress, no rerun);
 * driven (kops.h), a wait that cannot end: stops the replay (kcontext.c) */
void kchk_relax(const struct cidk__site *s);
#define cpu_relax() kchk_relax(KSITE)

/* ---- locks: raw_spinlock, mutex (0 free, 1 held) ------------------------ */

typedef struct raw_spinlock {
	_Atomic unsigned int word;
} raw_spinlock_t;

struct mutex {
	_Atomic unsigned int word;
};

#define raw_spin_lock_init(l) atomic_store(&(l)->word, 0u)
#define mutex_init(m) atomic_store(&(m)->word, 0u)

/* lockdep_assert_held(): checked -- held by someone (the checker has no
 * owner per word; the explorer's lock table names it in a trace) */
#define lockdep_assert_held(l) ({                                        \
	if (!atomic_load(&(l)->word))                                   \
		kchk_bug(KSITE, "lockdep_assert_held(" #l ") not held"); \
})

/* ---- lists --------------------------------------------------------------- */

struct hlist_node {
	struct hlist_node *next, **pprev;
};
struct hlist_head {
	struct hlist_node *first;
};

#define INIT_HLIST_HEAD(h) ((h)->first = NULL)
static inline void INIT_HLIST_NODE(struct hlist_node *n)
{
	n->next = NULL;
	n->pprev = NULL;
}

static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	n->next = h->first;
	if (h->first)
		h->first->pprev = &n->next;
	h->first = n;
	n->pprev = &h->first;
}

static inline void hlist_del_init(struct hlist_node *n)
{
	if (!n->pprev)
		return;
	*n->pprev = n->next;
	if (n->next)
		n->next->pprev = n->pprev;
	INIT_HLIST_NODE(n);
}

#define hlist_entry_safe(ptr, type, member) ({                          \
	struct hlist_node *__p = (ptr);                                 \
	__p ? container_of(__p, type, member) : NULL;                   \
})
#define hlist_for_each_entry(pos, head, member)                         \
	for (pos = hlist_entry_safe((head)->first, __typeof__(*(pos)), member); \
	     pos;                                                       \
	     pos = hlist_entry_safe((pos)->member.next, __typeof__(*(pos)), member))

/* ---- irq_work and work_struct: run by the checker's worker thread -------- */

struct irq_work {
	_Atomic unsigned int pending;
	void (*func)(struct irq_work *);
};

struct work_struct {
	_Atomic unsigned int pending;
	_Atomic unsigned int running;
	void (*func)(struct work_struct *);
};

#define IRQ_WORK_INIT_HARD(f) ((struct irq_work){ .func = (f) })
#define INIT_WORK(w, f) \
	do { (w)->pending = 0; (w)->running = 0; (w)->func = (f); } while (0)

bool kchk_queue(_Atomic unsigned int *pending, const struct cidk__site *s);
void kchk_wait_clear(_Atomic unsigned int *word, const struct cidk__site *s);

#define irq_work_queue(w) kchk_queue(&(w)->pending, KSITE)
#define schedule_work(w) kchk_queue(&(w)->pending, KSITE)
/* irq_work_sync: until the queued irq_work ran (the worker runs it) */
#define irq_work_sync(w) kchk_wait_clear(&(w)->pending, KSITE)
/* cancel_work_sync: take it off the queue, wait for a running one */
#define cancel_work_sync(w) ({                                          \
	atomic_store(&(w)->pending, 0u);                                \
	kchk_wait_clear(&(w)->running, KSITE);                          \
	false;                                                          \
})

/* ---- cpumask (at most 64 CPUs: one word) ---------------------------------- */

struct cpumask {
	unsigned long bits[1];
};
typedef struct cpumask cpumask_t;

extern unsigned int kchk_nr_cpus; /* nr_cpu_ids = num_possible_cpus() */

#define num_possible_cpus() kchk_nr_cpus
#define nr_cpu_ids kchk_nr_cpus
#define cpumask_size() (sizeof(unsigned long))
#define bitmap_size(n) (BITS_TO_LONGS(n) * sizeof(unsigned long))
#define for_each_possible_cpu(c) for ((c) = 0; (c) < kchk_nr_cpus; (c)++)

static inline void cpumask_copy(struct cpumask *d, const struct cpumask *s)
{
	d->bits[0] = s->bits[0];
}

static inline unsigned int cpumask_weight(const struct cpumask *m)
{
	return (unsigned int)__builtin_popcountl(m->bits[0]);
}

/* d = a | b, its weight */
static inline unsigned int cpumask_weighted_or(struct cpumask *d,
					       const struct cpumask *a,
					       const struct cpumask *b)
{
	d->bits[0] = a->bits[0] | b->bits[0];
	return cpumask_weight(d);
}

static inline void bitmap_zero(unsigned long *b, unsigned int n)
{
	memset(b, 0, bitmap_size(n));
}

/* ---- per-CPU data: one block, a fixed stride per CPU ---------------------- */

#define KCHK_PCPU_STRIDE 256
unsigned int kchk_this_cpu(void);
void *kchk_alloc_percpu(size_t size);

#define per_cpu_ptr(p, cpu) \
	((__typeof__(p))((char *)(p) + (size_t)(cpu) * KCHK_PCPU_STRIDE))
#define this_cpu_ptr(p) per_cpu_ptr((p), kchk_this_cpu())
#define __this_cpu_read(v) READ_ONCE(*this_cpu_ptr(&(v)))
#define __this_cpu_write(v, x) WRITE_ONCE(*this_cpu_ptr(&(v)), (x))
#define alloc_percpu_noprof(type) ((type *)kchk_alloc_percpu(sizeof(type)))
#define alloc_percpu(type) alloc_percpu_noprof(type)
#define free_percpu(p) ((void)(p))
#define alloc_hooks(x) (x)

#endif /* CIDKIT_CHECK_KERNEL_KSTUB_H */
