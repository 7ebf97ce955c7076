/* SPDX-License-Identifier: MIT */
/*
 * check/kernel/kstub2.h - our stand-ins, part 2 (after the block of
 * include/linux/rseq_types.h, which defines struct mm_mm_cid and struct
 * sched_mm_cid): the mm, the task, the run-queue, guard()/scoped_guard(),
 * the bit operations, current.  kstub.h says which are scheduling points.
 */
#ifndef CIDKIT_CHECK_KERNEL_KSTUB2_H
#define CIDKIT_CHECK_KERNEL_KSTUB2_H

/* the parts of struct mm_struct the blocks use; flexible_array holds
 * cpu_bitmap, mm_cpus_allowed and the CID bitmap, one cpumask each
 * (include/linux/mm_types.h's layout) */
struct mm_struct {
	struct mm_mm_cid mm_cid;
	unsigned long flexible_array[] __attribute__((aligned(8)));
};

struct rq;

struct task_struct {
	struct sched_mm_cid mm_cid;
	struct mm_struct *mm;
	struct cpumask cpus_mask;
	unsigned int nr_cpus_allowed;
	unsigned int cpu;		/* task_cpu(): READ_ONCE */
	raw_spinlock_t pi_lock;
	struct rq *kchk_rq;		/* the rq a task_rq_lock guard holds */
	int kchk_id;			/* the scenario's task, -1 idle/kworker */
};

struct rq {
	raw_spinlock_t __lock;
	struct task_struct *curr;
	unsigned int cpu;
};

extern struct rq kchk_rqs[];
struct task_struct *kchk_current(void);

#define current kchk_current()
#define cpu_rq(c) (&kchk_rqs[(c)])
#define task_cpu(p) READ_ONCE((p)->cpu)
#define task_rq(p) cpu_rq(task_cpu(p))
/* the rseq notification: the model reads the CID a task returns to user
 * space with at the end of its switch-in */
#define rseq_sched_set_ids_changed(t) ((void)(t))

/* ---- guard() / scoped_guard() (include/linux/cleanup.h's interface) ------ */

struct kchk_guard {
	_Atomic unsigned int *a, *b;	/* the lock words held (b: or NULL) */
	struct cidk__site site;
};

static inline void kchk_guard_exit(struct kchk_guard *g)
{
	if (g->b)
		cidk__unlock_(g->b, &g->site);
	if (g->a)
		cidk__unlock_(g->a, &g->site);
}

static inline struct kchk_guard kchk_guard_lock(_Atomic unsigned int *w,
						const struct cidk__site *s)
{
	struct kchk_guard g = { w, NULL, *s };

	cidk__lock_(w, s);
	return g;
}

/* task_rq_lock(): p->pi_lock, then the rq of p's CPU, re-checked (the
 * task may move between the read of its CPU and the lock) */
static inline struct kchk_guard kchk_task_rq_lock(struct task_struct *p,
						  const struct cidk__site *s)
{
	struct kchk_guard g = { &p->pi_lock.word, NULL, *s };
	struct rq *rq;

	cidk__lock_(&p->pi_lock.word, s);
	for (;;) {
		rq = task_rq(p);
		cidk__lock_(&rq->__lock.word, s);
		if (rq == task_rq(p))
			break;
		cidk__unlock_(&rq->__lock.word, s);
	}
	p->kchk_rq = rq;
	g.b = &rq->__lock.word;
	return g;
}

typedef struct kchk_guard class_raw_spinlock_t, class_raw_spinlock_irq_t,
	class_raw_spinlock_irqsave_t, class_spinlock_t, class_mutex_t,
	class_rq_lock_t, class_rq_lock_irq_t, class_rq_lock_irqsave_t,
	class_task_rq_lock_t;

#define class_raw_spinlock_constructor(l) kchk_guard_lock(&(l)->word, KSITE)
#define class_raw_spinlock_irq_constructor(l) kchk_guard_lock(&(l)->word, KSITE)
#define class_raw_spinlock_irqsave_constructor(l) kchk_guard_lock(&(l)->word, KSITE)
#define class_mutex_constructor(l) kchk_guard_lock(&(l)->word, KSITE)
#define class_rq_lock_constructor(r) kchk_guard_lock(&(r)->__lock.word, KSITE)
#define class_rq_lock_irq_constructor(r) kchk_guard_lock(&(r)->__lock.word, KSITE)
#define class_rq_lock_irqsave_constructor(r) kchk_guard_lock(&(r)->__lock.word, KSITE)
#define class_task_rq_lock_constructor(p) kchk_task_rq_lock((p), KSITE)

/* guard(rcu)(), scoped_guard(preempt): nothing to hold (one thread runs
 * at a time; what they protect against is the interleaving itself) */
typedef struct kchk_guard class_rcu_t, class_preempt_t, class_irq_t;
#define class_rcu_constructor() ((struct kchk_guard){ 0 })
#define class_preempt_constructor() ((struct kchk_guard){ 0 })
#define class_irq_constructor() ((struct kchk_guard){ 0 })

/* The task list (6.19's walk, before the per-mm user list): the scenario's
 * tasks once attached (copy_process()) and until released (exit), in
 * creation order; a CLONE_VM task is a process of its own.  Whether a
 * task is on the list is a word the walk reads at a point. */
struct task_struct *kchk_next_thread(struct task_struct *p, struct task_struct *t);
struct task_struct *kchk_next_task(struct task_struct *t);
#define for_other_threads(p, t) \
	for (t = kchk_next_thread((p), NULL); t; t = kchk_next_thread((p), t))
#define for_each_process_thread(p, t) \
	for ((p) = NULL, t = kchk_next_task(NULL); t; t = kchk_next_task(t))

#define guard(name)                                                     \
	class_##name##_t __UNIQUE_ID(guard)                             \
		__attribute__((cleanup(kchk_guard_exit))) =             \
		class_##name##_constructor
#define scoped_guard(name, ...)                                         \
	for (class_##name##_t scope                                     \
		     __attribute__((cleanup(kchk_guard_exit))) =        \
		     class_##name##_constructor(__VA_ARGS__),           \
		     *done = NULL;                                      \
	     !done; done = (void *)1)

/* ---- bit operations on the CID bitmap: points; a bit past nr_cpu_ids is
 * reported (the kernel would write past the bitmap) ------------------------ */

void kchk_bad_bit(const struct cidk__site *s, const char *op, unsigned long nr);

static inline unsigned long kchk_find_first_zero_bit(const unsigned long *b,
						     unsigned long size,
						     const struct cidk__site *s)
{
	for (unsigned long w = 0; w < BITS_TO_LONGS(size); w++) {
		unsigned long v = (unsigned long)kchk_load(&b[w], sizeof(b[w]), s);

		if (~v) {
			unsigned long bit = w * BITS_PER_LONG +
					    (unsigned long)__builtin_ctzl(~v);

			return bit < size ? bit : size;
		}
	}
	return size;
}

static inline bool kchk_test_and_set_bit(unsigned long nr, unsigned long *b,
					 const struct cidk__site *s)
{
	_Atomic unsigned long *p;
	unsigned long old, m = 1UL << (nr % BITS_PER_LONG);

	if (nr >= kchk_nr_cpus) {
		kchk_bad_bit(s, "test_and_set_bit", nr);
		return true;
	}
	p = (_Atomic unsigned long *)&b[nr / BITS_PER_LONG];
	cidk__chk_before(s, CIDK__ACC(CIDK__OP_RMW, sizeof(*p), CIDK__MO_SC), p);
	old = atomic_fetch_or(p, m);
	cidk__chk_after(old, old | m);
	return old & m;
}

static inline void kchk_clear_bit(unsigned long nr, unsigned long *b,
				  const struct cidk__site *s)
{
	_Atomic unsigned long *p;
	unsigned long old, m = 1UL << (nr % BITS_PER_LONG);

	if (nr >= kchk_nr_cpus) {
		kchk_bad_bit(s, "clear_bit", nr);
		return;
	}
	p = (_Atomic unsigned long *)&b[nr / BITS_PER_LONG];
	cidk__chk_before(s, CIDK__ACC(CIDK__OP_RMW, sizeof(*p), CIDK__MO_SC), p);
	old = atomic_fetch_and(p, ~m);
	cidk__chk_after(old, old & ~m);
}

#define find_first_zero_bit(b, size) \
	kchk_find_first_zero_bit((b), (size), KSITE)
#define test_and_set_bit(nr, b) \
	kchk_test_and_set_bit((unsigned long)(nr), (b), KSITE)
#define clear_bit(nr, b) kchk_clear_bit((unsigned long)(nr), (b), KSITE)

#endif /* CIDKIT_CHECK_KERNEL_KSTUB2_H */
