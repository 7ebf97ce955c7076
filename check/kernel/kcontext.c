/* SPDX-License-Identifier: MIT */
/*
 * check/kernel/kcontext.c - the call context of the kernel's mm_cid code:
 * what the kernel does around the blocks at each scenario event, written
 * by hand (the port's weak point: each function says which kernel call
 * site it mirrors, as of 7.2.13), and the stand-ins' runtime.  Included at
 * the end of the translation unit scripts/kernel-source generates, after
 * the blocks, so that it calls their static functions.
 *
 * Call sites mirrored (kernel 7.2.13):
 *   in      kernel/sched/core.c: try_to_wake_up() -> set_task_cpu() under
 *           p->pi_lock when the task wakes on another CPU; __schedule():
 *           rq_lock(rq), RCU_INIT_POINTER(rq->curr, next), context_switch()
 *           -> mm_cid_switch_to(prev = the idle task, next), then
 *           finish_task_switch() -> finish_lock_switch() unlocks the rq;
 *   out     __schedule() on the task's CPU: rq->curr = idle,
 *           mm_cid_switch_to(prev = the task, next = idle), unlock;
 *   switch_to (a trace replay, check/kreplay.c: two tasks of the mm
 *           back to back on a CPU) __schedule(): rq lock, rq->curr =
 *           next, context_switch() -> mm_cid_switch_to(prev, next),
 *           finish_task_switch() unlocks;
 *   dup     (a trace replay: a task slot reused) kernel/fork.c:
 *           dup_task_struct(): the parent's cpus_mask, CID UNSET, inactive;
 *   exit    kernel/exit.c: do_exit() -> sched_mm_cid_exit(current) on the
 *           running task, then its last __schedule() (out); a task of the
 *           scenario that exits while not running is woken and switched in
 *           first (a task exits only by running), on its own CPU when that
 *           is idle, else on its first idle allowed CPU (select_task_rq());
 *   fork    kernel/fork.c: copy_process(): dup_task_struct() leaves the
 *           child's CID UNSET and inactive, sched_fork() puts it on the
 *           parent's CPU, then core.c's sched_post_fork() ->
 *           sched_mm_cid_fork(child) with current the parent (after the
 *           child joined the thread and task lists: the FORK fix);
 *           wake_up_new_task() is the child's first `in`;
 *   migrate try_to_wake_up() of a sleeping task: set_task_cpu() under
 *           p->pi_lock (kernel/sched/core.c);
 *   affinity __set_cpus_allowed_ptr(): task_rq_lock(p) (pi_lock, then the
 *           rq, re-checked), set_cpus_allowed_common(): cpus_mask,
 *           nr_cpus_allowed, mm_update_cpus_allowed(p->mm, mask), unlock;
 *           a running task's move off a CPU the new mask lacks is not
 *           modelled (the library's scenarios only widen);
 *   initial the first task exec()s on its CPU (fs/exec.c: begin_new_exec()
 *           -> sched_mm_cid_after_execve(current)), forks the other
 *           initial tasks (sched_mm_cid_fork), then sleeps (out);
 *   worker  irq_work_queue() marks the irq_work pending; the checker's
 *           worker thread runs mm_cid_irq_work() (-> schedule_work()) and
 *           then mm_cid_work_fn(), each at a point of its own.
 * The idle task of each CPU has no mm (rq->curr when nobody runs).
 * Driven (kops.h; check/kreplay.c), `current` is the task the running
 * event names instead of the explorer's thread, and a wait that cannot
 * end (cpu_relax() in mm_get_cid(), irq_work_sync()) stops the driver.
 * tick and rtu do nothing: since 6.19 the kernel runs no mm_cid code
 * there.  enter/leave (lease events) are in/out.
 */
#include <errno.h>
#include <stdio.h>

#include "kops.h"

unsigned int chk_self(void); /* the checker's (check/chk.h) */

unsigned int kchk_nr_cpus;
struct rq kchk_rqs[KOPS_MAX_CPUS];

static unsigned int kchk_ntasks;
static struct task_struct kchk_tasks[KOPS_MAX_TASKS];
static struct task_struct kchk_idle[KOPS_MAX_CPUS];
static struct task_struct kchk_kworker;
static unsigned int kchk_exec_cpu[KOPS_MAX_TASKS + 1];
static _Alignas(64) unsigned char kchk_mm_buf[sizeof(struct mm_struct) +
					       3 * sizeof(unsigned long)];
static _Alignas(64) unsigned char kchk_pcpu[KOPS_MAX_CPUS * KCHK_PCPU_STRIDE];
static char kchk_bugmsg[160];
static unsigned int kchk_visible[KOPS_MAX_TASKS];	/* on the task list */
static bool kchk_clone_vm[KOPS_MAX_TASKS];
static bool kchk_resetting;
static struct task_struct *kchk_reset_cur;
static unsigned int kchk_reset_cpu;
/* driven (kops.h): the task of the event that runs, the worker's index
 * kchk_ntasks; what to call when a wait cannot end */
static bool kchk_driven;
static unsigned int kchk_op;
static void (*kchk_stuck)(void);

#define KMM ((struct mm_struct *)kchk_mm_buf)

/* ---- the stand-ins' runtime ------------------------------------------------ */

struct task_struct *kchk_current(void)
{
	unsigned int tid;

	if (kchk_resetting)
		return kchk_reset_cur;
	tid = kchk_driven ? kchk_op : chk_self();
	return tid < kchk_ntasks ? &kchk_tasks[tid] : &kchk_kworker;
}

unsigned int kchk_this_cpu(void)
{
	return kchk_resetting ? kchk_reset_cpu :
	       kchk_exec_cpu[kchk_driven ? kchk_op : chk_self()];
}

void *kchk_alloc_percpu(size_t size)
{
	_Static_assert(sizeof(struct mm_cid_pcpu) <= KCHK_PCPU_STRIDE,
		       "per-CPU stride");
	(void)size;
	memset(kchk_pcpu, 0, sizeof(kchk_pcpu)); /* alloc_percpu() zeroes */
	return kchk_pcpu;
}

void kchk_bug(const struct cidk__site *s, const char *what)
{
	if (!kchk_bugmsg[0])
		snprintf(kchk_bugmsg, sizeof(kchk_bugmsg), "%s at %s:%u %s", what,
			 s->file, s->line, s->func);
}

void kchk_bad_bit(const struct cidk__site *s, const char *op, unsigned long nr)
{
	char w[96];

	snprintf(w, sizeof(w), "%s(%#lx) past the bitmap (CID %lu, flag bits %#lx)",
		 op, nr, nr & 0x1ffffffful, nr & ~0x1ffffffful);
	kchk_bug(s, w);
}

/* irq_work_queue(), schedule_work(): set pending (one RMW); true if it was
 * not pending */
bool kchk_queue(_Atomic unsigned int *pending, const struct cidk__site *s)
{
	unsigned int old;

	cidk__chk_before(s, CIDK__ACC(CIDK__OP_RMW, 4, CIDK__MO_SC), pending);
	old = atomic_exchange(pending, 1u);
	cidk__chk_after(old, 1);
	return !old;
}

/* cpu_relax(): the explorer's spin point; driven, nobody else runs, so
 * the wait never ends: reported, and the driver stops */
void kchk_relax(const struct cidk__site *s)
{
	if (kchk_driven) {
		kchk_bug(s, "a wait that cannot end (the replay runs one event "
			 "at a time)");
		kchk_stuck();
	}
	cidk__spin_wait_(s);
}

/* wait until @word is 0 (another thread clears it) */
void kchk_wait_clear(_Atomic unsigned int *word, const struct cidk__site *s)
{
	while (kchk_load(word, sizeof(*word), s))
		kchk_relax(s);
}

struct task_struct *kchk_next_thread(struct task_struct *p, struct task_struct *t)
{
	unsigned int i = t ? (unsigned int)(t - kchk_tasks) + 1 : 0;
	int me = p->kchk_id;

	for (; i < kchk_ntasks; i++)
		if ((int)i != me && me >= 0 && !kchk_clone_vm[i] &&
		    !kchk_clone_vm[me] && kchk_load(&kchk_visible[i], 4, KSITE))
			return &kchk_tasks[i];
	return NULL;
}

/* position @k of the process order (threads, then CLONE_VM tasks) */
static unsigned int kchk_nth(unsigned int k)
{
	for (unsigned int pass = 0; pass < 2; pass++)
		for (unsigned int i = 0; i < kchk_ntasks; i++)
			if (kchk_clone_vm[i] == (pass == 1) && !k--)
				return i;
	return 0;
}

static unsigned int kchk_order(unsigned int i)
{
	for (unsigned int k = 0; k < kchk_ntasks; k++)
		if (kchk_nth(k) == i)
			return k;
	return kchk_ntasks;
}

/* for_each_process_thread(): processes in creation order, each its
 * threads: the scenario's threads (one process) first, then each CLONE_VM
 * task (a process its parent created later) */
struct task_struct *kchk_next_task(struct task_struct *t)
{
	unsigned int k = t ? kchk_order((unsigned int)(t - kchk_tasks)) + 1 : 0;

	for (; k < kchk_ntasks; k++) {
		unsigned int i = kchk_nth(k);

		if (kchk_load(&kchk_visible[i], 4, KSITE))
			return &kchk_tasks[i];
	}
	return NULL;
}

/* ---- the call context ---------------------------------------------------------- */

static void kchk_rq_lock(struct rq *rq)
{
	cidk__lock_(&rq->__lock.word, KSITE);
}

static void kchk_rq_unlock(struct rq *rq)
{
	cidk__unlock_(&rq->__lock.word, KSITE);
}

/* try_to_wake_up() of a sleeping task onto @cpu: set_task_cpu() under
 * p->pi_lock (the task is on no runqueue) */
static void kchk_wake_to(struct task_struct *p, unsigned int cpu)
{
	cidk__lock_(&p->pi_lock.word, KSITE);
	WRITE_ONCE(p->cpu, cpu);
	cidk__unlock_(&p->pi_lock.word, KSITE);
}

static void k_in(unsigned int tid, unsigned int cpu)
{
	struct task_struct *p = &kchk_tasks[tid], *prev;
	struct rq *rq = cpu_rq(cpu);

	kchk_op = tid;
	if (p->cpu != cpu) /* (its own word: only it and the walks read it) */
		kchk_wake_to(p, cpu);
	kchk_exec_cpu[tid] = cpu;
	kchk_rq_lock(rq);
	prev = rq->curr;
	rq->curr = p;
	mm_cid_switch_to(prev, p);
	kchk_rq_unlock(rq);
}

static void k_out(unsigned int tid)
{
	struct task_struct *p = &kchk_tasks[tid];
	unsigned int cpu = kchk_exec_cpu[tid];
	struct rq *rq = cpu_rq(cpu);

	kchk_op = tid;
	kchk_rq_lock(rq);
	rq->curr = &kchk_idle[cpu];
	mm_cid_switch_to(p, &kchk_idle[cpu]);
	kchk_rq_unlock(rq);
}

static void k_exit(unsigned int tid, int cpu)
{
	struct task_struct *p = &kchk_tasks[tid];

	kchk_op = tid;
	if (cpu >= 0)
		k_in(tid, (unsigned int)cpu);
	sched_mm_cid_exit(p);	/* do_exit() */
	/* exit_notify() -> release_task(): off the task list */
	kchk_store(&kchk_visible[tid], 4, 0, KSITE);
	k_out(tid);		/* its last __schedule() */
}

static void k_fork(unsigned int tid, unsigned int child, bool clone_vm)
{
	struct task_struct *p = &kchk_tasks[tid], *c = &kchk_tasks[child];

	kchk_op = tid;
	kchk_clone_vm[child] = clone_vm;
	kchk_exec_cpu[tid] = p->cpu;
	c->cpu = p->cpu;	/* sched_fork(): the parent's CPU */
#ifdef KCHK_FORK_IN_COPY_MM
	sched_mm_cid_fork(c);	/* copy_mm() (6.19, before the FORK fix) */
	/* copy_process(): attached to the thread and task lists */
	kchk_store(&kchk_visible[child], 4, 1, KSITE);
#else
	kchk_store(&kchk_visible[child], 4, 1, KSITE);
	sched_mm_cid_fork(c);	/* sched_post_fork() */
#endif
}

static void k_migrate(unsigned int tid, unsigned int cpu)
{
	kchk_op = tid;
	kchk_wake_to(&kchk_tasks[tid], cpu);
}

/* __schedule() on @cpu from @prev to @next, both of the mm: rq lock,
 * rq->curr = next, context_switch() -> mm_cid_switch_to(prev, next),
 * finish_task_switch() unlocks (kernel/sched/core.c) */
static void k_switch_to(unsigned int prev, unsigned int next, unsigned int cpu)
{
	struct task_struct *p = &kchk_tasks[prev], *n = &kchk_tasks[next];
	struct rq *rq = cpu_rq(cpu);

	kchk_op = next;
	if (n->cpu != cpu)
		kchk_wake_to(n, cpu);
	kchk_exec_cpu[next] = cpu;
	kchk_rq_lock(rq);
	rq->curr = n;
	mm_cid_switch_to(p, n);
	kchk_rq_unlock(rq);
}

static void k_task_init(struct task_struct *t, int id);

/* kernel/fork.c: dup_task_struct() (the parent's allowed CPUs and CPU;
 * the child's CID UNSET, inactive, on no list) */
static void k_dup(unsigned int parent, unsigned int child)
{
	struct task_struct *p = &kchk_tasks[parent], *c = &kchk_tasks[child];

	k_task_init(c, (int)child);
	c->mm = KMM;
	c->cpus_mask = p->cpus_mask;
	c->nr_cpus_allowed = p->nr_cpus_allowed;
	c->cpu = p->cpu;
	kchk_visible[child] = 0;
	kchk_clone_vm[child] = false;
}

static void k_drive(void (*stuck)(void))
{
	kchk_driven = true;
	kchk_stuck = stuck;
}

static void k_affinity(unsigned int tid, uint64_t mask)
{
	struct task_struct *p = &kchk_tasks[tid];
	struct kchk_guard g;
	struct cpumask m = { { (unsigned long)mask } };

	kchk_op = tid;
	g = kchk_task_rq_lock(p, KSITE);
	cpumask_copy(&p->cpus_mask, &m);
	p->nr_cpus_allowed = cpumask_weight(&m);
	mm_update_cpus_allowed(p->mm, &m);
	kchk_guard_exit(&g);
}

/* the worker: the irq_work first (it queues the work), then the work */
static bool k_work(void)
{
	struct mm_mm_cid *mc = &KMM->mm_cid;
	unsigned int one = 1;

	kchk_op = kchk_ntasks;
	if (kchk_load(&mc->irq_work.pending, 4, KSITE)) {
		cidk__chk_before(KSITE, CIDK__ACC(CIDK__OP_RMW, 4, CIDK__MO_SC),
				 &mc->irq_work.pending);
		atomic_store(&mc->irq_work.pending, 0u);
		cidk__chk_after(1, 0);
		mc->irq_work.func(&mc->irq_work);
		return true;
	}
	if (kchk_load(&mc->work.pending, 4, KSITE)) {
		cidk__chk_before(KSITE, CIDK__ACC(CIDK__OP_RMW, 4, CIDK__MO_SC),
				 &mc->work.pending);
		atomic_store(&mc->work.pending, 0u);
		atomic_store(&mc->work.running, one);
		cidk__chk_after(1, 0);
		mc->work.func(&mc->work);
		kchk_store(&mc->work.running, 4, 0, KSITE);
		return true;
	}
	return false;
}

static int k_setup(unsigned int cpus, unsigned int ntasks)
{
	if (!cpus || cpus > KOPS_MAX_CPUS || cpus > 64 || ntasks > KOPS_MAX_TASKS)
		return -EINVAL;
	kchk_nr_cpus = cpus;
	kchk_ntasks = ntasks;
	return 0;
}

static void k_task_init(struct task_struct *t, int id)
{
	memset(t, 0, sizeof(*t));
	t->mm_cid.cid = MM_CID_UNSET;	/* kernel/fork.c: dup_task_struct() */
	t->mm_cid.active = 0;
#ifdef KCHK_USER_LIST
	INIT_HLIST_NODE(&t->mm_cid.node);
#endif
	t->kchk_id = id;
}

static void k_reset(uint64_t allowed, const uint64_t *aff, const bool *initial,
		    const bool *clone_vm, const unsigned int *cpu0)
{
	struct task_struct first = { 0 }, *t0 = NULL;
	unsigned int c;

	kchk_resetting = true;
	memset(kchk_mm_buf, 0, sizeof(kchk_mm_buf));
	memset(kchk_rqs, 0, sizeof(kchk_rqs));
	memset(kchk_exec_cpu, 0, sizeof(kchk_exec_cpu));
	kchk_bugmsg[0] = '\0';
	for (c = 0; c < kchk_nr_cpus; c++) {
		k_task_init(&kchk_idle[c], -1);
		kchk_idle[c].cpu = c;
		kchk_rqs[c].cpu = c;
		kchk_rqs[c].curr = &kchk_idle[c];
	}
	k_task_init(&kchk_kworker, -1);
	for (unsigned int i = 0; i < kchk_ntasks; i++) {
		struct task_struct *t = &kchk_tasks[i];

		k_task_init(t, (int)i);
		t->mm = KMM;
		t->cpus_mask.bits[0] = (unsigned long)aff[i];
		t->nr_cpus_allowed = cpumask_weight(&t->cpus_mask);
		t->cpu = cpu0[i];
		kchk_clone_vm[i] = clone_vm[i];
		kchk_visible[i] = initial[i];
		if (initial[i] && !t0)
			t0 = t;
	}
	/* kernel/fork.c: mm_init() -> mm_alloc_cid(mm, p), p with the
	 * initial tasks' CPUs */
	first.cpus_mask.bits[0] = (unsigned long)allowed;
	first.nr_cpus_allowed = cpumask_weight(&first.cpus_mask);
	mm_alloc_cid_noprof(KMM, &first);
	if (t0) {
		struct rq *rq = cpu_rq(t0->cpu);

		kchk_reset_cur = t0;
		kchk_reset_cpu = t0->cpu;
		rq->curr = t0;
		sched_mm_cid_after_execve(t0);
		for (unsigned int i = 0; i < kchk_ntasks; i++)
			if (initial[i] && &kchk_tasks[i] != t0) {
				kchk_tasks[i].cpu = cpu0[i];
				sched_mm_cid_fork(&kchk_tasks[i]);
			}
		rq->curr = &kchk_idle[t0->cpu];
		mm_cid_switch_to(t0, &kchk_idle[t0->cpu]);
	}
	kchk_resetting = false;
}

static void k_view(struct kview *v)
{
	struct mm_mm_cid *mc = &KMM->mm_cid;

	memset(v, 0, sizeof(*v));
	v->mode = mc->mode;
	v->max_cids = mc->max_cids;
	v->users = mc->users;
	v->nr_cpus_allowed = mc->nr_cpus_allowed;
	v->pcpu_thrs = mc->pcpu_thrs;
	v->update_deferred = mc->update_deferred;
	v->cidmask = mm_cidmask(KMM)[0];
	for (unsigned int c = 0; c < kchk_nr_cpus; c++) {
		v->pcp_cid[c] = per_cpu_ptr(mc->pcpu, c)->cid;
		v->curr[c] = kchk_rqs[c].curr->kchk_id;
	}
	for (unsigned int i = 0; i < kchk_ntasks; i++) {
		v->cid[i] = kchk_tasks[i].mm_cid.cid;
		v->active[i] = kchk_tasks[i].mm_cid.active;
		v->cpu[i] = kchk_tasks[i].cpu;
	}
	v->irq_pending = mc->irq_work.pending;
	v->work_pending = mc->work.pending;
	v->work_running = mc->work.running;
	snprintf(v->bug, sizeof(v->bug), "%s", kchk_bugmsg);
}

static const char *k_addr_name(const void *a, const char *const *names,
			       char *buf, size_t len)
{
	struct mm_mm_cid *mc = &KMM->mm_cid;
	const struct {
		const void *p;
		const char *name;
	} words[] = {
		{ &mc->mode, "mm.mode" },
		{ &mc->max_cids, "mm.max_cids" },
		{ &mc->users, "mm.users" },
		{ &mc->nr_cpus_allowed, "mm.nr_cpus_allowed" },
		{ &mc->pcpu_thrs, "mm.pcpu_thrs" },
		{ &mc->lock, "mm.lock" },
		{ &mc->mutex, "mm.mutex" },
		{ &mc->irq_work.pending, "mm.irq_work" },
		{ &mc->work.pending, "mm.work" },
		{ &mc->work.running, "mm.work.running" },
		{ &mc->update_deferred, "mm.update_deferred" },
		{ &mc->pcpu, "mm.pcpu" },
		{ mm_cidmask(KMM), "cidmask" },
		{ mm_cpus_allowed(KMM), "mm.allowed" },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (a == words[i].p) {
			snprintf(buf, len, "%s", words[i].name);
			return buf;
		}
	for (unsigned int c = 0; c < kchk_nr_cpus; c++) {
		if (a == &per_cpu_ptr(mc->pcpu, c)->cid)
			snprintf(buf, len, "cpu%u.pcp", c);
		else if (a == &kchk_rqs[c].__lock)
			snprintf(buf, len, "cpu%u.rq_lock", c);
		else if (a == &kchk_rqs[c].curr)
			snprintf(buf, len, "cpu%u.curr", c);
		else
			continue;
		return buf;
	}
	for (unsigned int i = 0; i < kchk_ntasks; i++) {
		if (a == &kchk_tasks[i].cpu)
			snprintf(buf, len, "%s.cpu", names[i]);
		else if (a == &kchk_tasks[i].pi_lock)
			snprintf(buf, len, "%s.pi_lock", names[i]);
		else if (a == &kchk_visible[i])
			snprintf(buf, len, "%s.listed", names[i]);
		else if (a == &kchk_tasks[i].mm_cid.cid)
			snprintf(buf, len, "%s.cid", names[i]);
		else if (a == &kchk_tasks[i].mm_cid.active)
			snprintf(buf, len, "%s.active", names[i]);
		else if (a == &kchk_tasks[i].mm)
			snprintf(buf, len, "%s.mm", names[i]);
		else
			continue;
		return buf;
	}
	return NULL;
}

static bool k_inside(const void *a, const void *base, size_t n)
{
	return (const char *)a >= (const char *)base &&
	       (const char *)a < (const char *)base + n;
}

static bool k_addr_valid(const void *a)
{
	return k_inside(a, kchk_mm_buf, sizeof(kchk_mm_buf)) ||
	       k_inside(a, kchk_pcpu, kchk_nr_cpus * KCHK_PCPU_STRIDE) ||
	       k_inside(a, kchk_tasks, sizeof(kchk_tasks)) ||
	       k_inside(a, kchk_rqs, sizeof(kchk_rqs)) ||
	       k_inside(a, kchk_visible, sizeof(kchk_visible));
}

/* ktsan.c (--kernel-plain): is a plain access's address shared state? */
bool kchk_plain_shared(const void *a)
{
	return k_addr_valid(a);
}

static size_t k_block(unsigned int i, const void **p)
{
	switch (i) {
	case 0:
		*p = kchk_mm_buf;
		return sizeof(kchk_mm_buf);
	case 1:
		*p = kchk_pcpu;
		return kchk_nr_cpus * KCHK_PCPU_STRIDE;
	case 2:
		*p = kchk_tasks;
		return kchk_ntasks * sizeof(kchk_tasks[0]);
	case 3:
		*p = kchk_rqs;
		return kchk_nr_cpus * sizeof(kchk_rqs[0]);
	case 4:
		*p = kchk_idle;
		return kchk_nr_cpus * sizeof(kchk_idle[0]);
	case 5:
		*p = kchk_exec_cpu;
		return (kchk_ntasks + 1) * sizeof(kchk_exec_cpu[0]);
	case 6:
		*p = kchk_bugmsg;
		return sizeof(kchk_bugmsg);
	case 7:
		*p = kchk_visible;
		return kchk_ntasks * sizeof(kchk_visible[0]);
	default:
		return 0;
	}
}

const struct kops kchk_ops = {
	.abi = KOPS_ABI,
	.version = KCHK_VERSION,
	.setup = k_setup,
	.reset = k_reset,
	.in = k_in,
	.out = k_out,
	.fork = k_fork,
	.exit = k_exit,
	.migrate = k_migrate,
	.affinity = k_affinity,
	.switch_to = k_switch_to,
	.dup = k_dup,
	.drive = k_drive,
	.work = k_work,
	.view = k_view,
	.addr_name = k_addr_name,
	.addr_valid = k_addr_valid,
	.block = k_block,
};
