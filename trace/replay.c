/* SPDX-License-Identifier: MIT */
/*
 * trace/replay.c - a recorded schedule driven through every
 * policy (lib/cid/, the one implementation), in trace order, and each
 * return to user space's mm_cid compared with what each policy gave the
 * task (trace.h says what the replay models).
 *
 * State: the group's threads (a hash by pid, only the group's: memory is
 * bounded by its threads and the CPUs, never by the trace's length), per
 * policy one mm and one cidk_cid_task per thread; per CPU the group's
 * thread running there.  Workload: every event is a few hash look-ups and,
 * for the group's events only, one policy call per policy.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/trace.h>

#include "cidkit_lab.h" /* the library's lab-only interface, incl.
			       cidk__cid_cpu_has_cid() for 6.4-6.14's
			       per-task migration rule (lazy_migrate_skips()) */

struct rtask {
	int pid;
	bool joined;	/* a user of the mms */
	bool alive;	/* joined and not exited */
	bool running;	/* on cpu, as the trace says */
	unsigned int cpu;
	int last_kcid;	/* the last mm_cid the kernel gave it, -1: none */
	int lowest;	/* naive: lowest free at its last switch-in, -1: none */
	int switch_prev;
	uint64_t switch_ts;
	/* a migration the lazy family has not seen yet (see ev_migrate) */
	bool mig_pending;
	bool queued;	/* switched out runnable (preempted) or woken since */
	unsigned int nr_allowed; /* its own allowed CPUs (AFFINITY events) */
	unsigned int mig_from, mig_to;
	struct cidk_cid_task *ct; /* one per policy */
};

struct cidk_replay {
	struct cidk_replay_params p;
	struct cidk_cid_mm *mm[CIDK_REPLAY_MAX_POLICIES];
	bool mm_up;
	bool wait_exec;
	struct rtask **tasks;	/* hash: open addressing by pid */
	unsigned int cap, nr;
	struct rtask **on_cpu;	/* the group's thread running on each CPU */
	unsigned char *scratch; /* nr_cpus + 1 marks, lowest-free */
	unsigned char *pol_seen[CIDK_REPLAY_MAX_POLICIES]; /* CIDs handed out */
	unsigned char *k_seen;	/* mm_cids the kernel gave */
	struct cidk_mask *all;
	struct cidk_replay_result res;
	unsigned int nr_users;
};

static unsigned int hash_pid(int pid, unsigned int cap)
{
	return ((uint32_t)pid * 2654435761u) & (cap - 1);
}

static struct rtask *find(const struct cidk_replay *r, int pid)
{
	unsigned int i = hash_pid(pid, r->cap);

	while (r->tasks[i]) {
		if (r->tasks[i]->pid == pid)
			return r->tasks[i];
		i = (i + 1) & (r->cap - 1);
	}
	return NULL;
}

static int grow(struct cidk_replay *r)
{
	unsigned int cap = r->cap * 2;
	struct rtask **t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (unsigned int i = 0; i < r->cap; i++)
		if (r->tasks[i]) {
			unsigned int j = hash_pid(r->tasks[i]->pid, cap);

			while (t[j])
				j = (j + 1) & (cap - 1);
			t[j] = r->tasks[i];
		}
	free(r->tasks);
	r->tasks = t;
	r->cap = cap;
	return 0;
}

/* A new thread of the group (not yet a user); NULL: -ENOMEM. */
static struct rtask *add(struct cidk_replay *r, int pid)
{
	struct rtask *t;
	unsigned int i;

	if ((r->nr + 1) * 2 > r->cap && grow(r))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (t)
		t->ct = calloc(r->p.nr_policies, sizeof(*t->ct));
	if (!t || !t->ct) {
		free(t);
		return NULL;
	}
	t->pid = pid;
	t->nr_allowed = r->p.nr_cpus;
	t->last_kcid = -1;
	t->lowest = -1;
	t->switch_prev = -1;
	i = hash_pid(pid, r->cap);
	while (r->tasks[i])
		i = (i + 1) & (r->cap - 1);
	r->tasks[i] = t;
	r->nr++;
	return t;
}

static bool in_list(const struct cidk_replay *r, int pid)
{
	for (unsigned int i = 0; i < r->p.nr_threads; i++)
		if (r->p.threads[i] == pid)
			return true;
	return false;
}

/* Is @pid of the group?  With a thread list: in it; else known by lineage. */
static struct rtask *member(struct cidk_replay *r, int pid)
{
	struct rtask *t = find(r, pid);

	if (t || pid != r->p.tgid)
		return t;
	return add(r, pid);
}

static int mm_create(struct cidk_replay *r)
{
	for (unsigned int p = 0; p < r->p.nr_policies; p++) {
		int rc = cidk_cid_mm_create(&r->p.policy[p], r->p.nr_cpus,
					    r->all, &r->mm[p]);

		if (rc)
			return rc;
	}
	r->mm_up = true;
	return 0;
}

static int join(struct cidk_replay *r, struct rtask *t)
{
	if (t->joined)
		return 0;
	for (unsigned int p = 0; p < r->p.nr_policies; p++) {
		int rc = cidk_cid_fork(r->mm[p], &t->ct[p], r->all);

		if (rc)
			return rc;
	}
	t->joined = t->alive = true;
	r->nr_users++;
	r->res.threads++;
	return 0;
}

/* Is @t a user we can drive?  Joins it at first sight without an exec. */
static int live(struct cidk_replay *r, struct rtask *t, bool *ok)
{
	int rc;

	*ok = false;
	if (!t || (t->joined && !t->alive))
		return 0;
	if (!t->joined) {
		if (r->wait_exec)
			return 0;
		if (!r->mm_up && (rc = mm_create(r)))
			return rc;
		if ((rc = join(r, t)))
			return rc;
	}
	*ok = true;
	return 0;
}

static void mark(unsigned char *seen, unsigned int cid, unsigned int n,
		 unsigned int *distinct, unsigned int *largest)
{
	if (cid >= n)
		return;
	if (!seen[cid]) {
		seen[cid] = 1;
		(*distinct)++;
	}
	if (*largest == CIDK_CID_NONE || cid > *largest)
		*largest = cid;
}

static int lowest_free(struct cidk_replay *r, const struct rtask *self)
{
	unsigned int n = r->p.nr_cpus, k;
	int low;

	for (unsigned int c = 0; c < n; c++) {
		const struct rtask *o = r->on_cpu[c];

		if (o && o != self && o->last_kcid >= 0 &&
		    (unsigned int)o->last_kcid <= n)
			r->scratch[o->last_kcid] = 1;
	}
	for (k = 0; k <= n && r->scratch[k]; k++)
		;
	low = (int)k;
	memset(r->scratch, 0, n + 1);
	return low;
}

/*
 * The lazy family's kernels (6.4 to 6.18) move a CID with a migration in
 * sched_mm_cid_migrate_to(), called from activate_task() when the task is
 * enqueued on the destination with ENQUEUE_MIGRATED.  A preempted (queued)
 * task's move, and a load-balancing pull (its line written on the
 * destination), enqueue under the same locks as set_task_cpu() writes the
 * sched_migrate_task line: the policies get those at the line.  A wake-up
 * through the wake list enqueues later, in the destination's IPI, which
 * the sched_wakeup line marks (ttwu_do_activate()): the lazy family gets
 * that migration there, or, in a trace without sched_wakeup, at the task's
 * next switch-in (or next migration, or exit), whichever comes first.
 * Ownership (6.19 on) has no migration step of its own (a task-owned CID
 * goes with the task at its switch-in), bitmap and inherit none either:
 * they get every migration at the line.
 */
static bool migrate_deferred(const struct cidk_replay *r, unsigned int p)
{
	enum cidk_cid_policy_kind k = r->p.policy[p].kind;

	return k == CIDK_CID_LAZY || k == CIDK_CID_LAZY_BATCHED ||
	       k == CIDK_CID_CACHE_LOCAL;
}

/*
 * 6.4-6.14's sched_mm_cid_migrate_to() leaves everything in place when
 * the destination has a CID and mm_users >= t->nr_cpus_allowed -- the
 * migrating task's own allowed CPUs, where lazy (lib/cid/lazy.c) compares
 * with the mm's union, as cache-local's kernels (6.15 on) do.  With the
 * trace's affinity changes (AFFINITY events) the replay knows the task's
 * own count, and makes that call for lazy and lazy-batched itself: true
 * when the kernel would have left the CPUs' CIDs alone and the policy
 * would not (its own test, users >= the union, is then false).
 */
static bool lazy_migrate_skips(const struct cidk_replay *r, unsigned int p,
			       const struct rtask *t, unsigned int to)
{
	enum cidk_cid_policy_kind k = r->p.policy[p].kind;

	if ((k != CIDK_CID_LAZY && k != CIDK_CID_LAZY_BATCHED) ||
	    t->nr_allowed >= r->p.nr_cpus || r->nr_users < t->nr_allowed)
		return false;
	return cidk__cid_cpu_has_cid(r->mm[p], to);
}

static void migrate_one(struct cidk_replay *r, unsigned int p,
			struct rtask *t, unsigned int from, unsigned int to,
			uint64_t ts)
{
	if (lazy_migrate_skips(r, p, t, to)) {
		t->ct[p].cpu = to; /* what the policy's migrate sets */
		return;
	}
	cidk_cid_migrate(r->mm[p], &t->ct[p], from, to, ts);
}

static void migrate_pending(struct cidk_replay *r, struct rtask *t,
			    uint64_t ts)
{
	if (!t->mig_pending)
		return;
	t->mig_pending = false;
	for (unsigned int p = 0; p < r->p.nr_policies; p++)
		if (migrate_deferred(r, p))
			migrate_one(r, p, t, t->mig_from, t->mig_to, ts);
}

static void out(struct cidk_replay *r, struct rtask *t, uint64_t ts)
{
	for (unsigned int p = 0; p < r->p.nr_policies; p++)
		cidk_cid_switch(t->cpu, r->mm[p], &t->ct[p], NULL, NULL, ts);
	if (r->on_cpu[t->cpu] == t)
		r->on_cpu[t->cpu] = NULL;
	t->running = false;
}

/* One switch on @c for every policy, counted. */
static void drive(struct cidk_replay *r, unsigned int c, struct rtask *pt,
		  struct rtask *nt, uint64_t ts)
{
	for (unsigned int p = 0; p < r->p.nr_policies; p++) {
		struct cidk_replay_policy_result *pr = &r->res.pol[p];
		unsigned int cid;

		cid = cidk_cid_switch(c, pt ? r->mm[p] : NULL,
				      pt ? &pt->ct[p] : NULL,
				      nt ? r->mm[p] : NULL,
				      nt ? &nt->ct[p] : NULL, ts);
		pr->switches++;
		if (!nt)
			continue;
		pr->switches_in++;
		if (cid != CIDK_CID_NONE) {
			pr->handed++;
			mark(r->pol_seen[p], cid, r->p.nr_cpus, &pr->distinct,
			     &pr->largest);
		}
	}
}

static int ev_switch(struct cidk_replay *r, const struct cidk_trace_event *ev)
{
	struct rtask *pt = find(r, ev->prev_pid), *nt;
	unsigned int c = ev->cpu;
	bool ok;
	int rc;

	if (!pt || !pt->alive || !pt->running || pt->cpu != c)
		pt = NULL;
	nt = member(r, ev->next_pid);
	if (!nt && ev->next_pid == r->p.tgid)
		return -ENOMEM;
	rc = live(r, nt, &ok);
	if (rc)
		return rc;
	if (!ok)
		nt = NULL;
	/* a thread the trace left running elsewhere (lost events) */
	if (r->on_cpu[c] && r->on_cpu[c] != pt) {
		r->res.inconsistent++;
		out(r, r->on_cpu[c], ev->ts_ns);
	}
	if (nt && nt->running) {
		r->res.inconsistent++;
		out(r, nt, ev->ts_ns);
	}
	if (!pt && !nt)
		return 0;
	r->res.group_events++;
	if (nt)
		migrate_pending(r, nt, ev->ts_ns);
	if (nt) {
		/* as if prev had given its CID back: the switch-in's view */
		r->on_cpu[c] = NULL;
		nt->lowest = lowest_free(r, nt);
		r->on_cpu[c] = pt;
	}
	drive(r, c, pt, nt, ev->ts_ns);
	if (pt) {
		pt->running = false;
		pt->queued = ev->prev_runnable;
		r->on_cpu[c] = NULL;
	}
	if (nt) {
		nt->running = true;
		nt->cpu = c;
		nt->switch_prev = ev->prev_pid;
		nt->switch_ts = ev->ts_ns;
		r->on_cpu[c] = nt;
	}
	return 0;
}

static int ev_rseq(struct cidk_replay *r, const struct cidk_trace_event *ev)
{
	struct rtask *t = member(r, ev->pid);
	struct cidk_replay_result *res = &r->res;
	bool ok;
	int rc;

	if (!t)
		return ev->pid == r->p.tgid ? -ENOMEM : 0;
	rc = live(r, t, &ok);
	if (rc || !ok)
		return rc;
	res->group_events++;
	if (!t->running || t->cpu != ev->cpu) {
		/* the trace began with it running: it runs here now */
		if (t->running)
			out(r, t, ev->ts_ns);
		if (r->on_cpu[ev->cpu])
			out(r, r->on_cpu[ev->cpu], ev->ts_ns);
		migrate_pending(r, t, ev->ts_ns);
		t->lowest = lowest_free(r, t);
		drive(r, ev->cpu, NULL, t, ev->ts_ns);
		t->running = true;
		t->cpu = ev->cpu;
		t->switch_prev = -1;
		t->switch_ts = ev->ts_ns;
		r->on_cpu[ev->cpu] = t;
		res->inconsistent++;
	}
	res->rseq_updates++;
	for (unsigned int p = 0; p < r->p.nr_policies; p++) {
		cidk_cid_return_to_user(r->mm[p], &t->ct[p], t->cpu, ev->ts_ns);
		if (t->ct[p].cid == (unsigned int)ev->mm_cid)
			res->pol[p].agree++;
		else if ((int)p == r->p.model &&
			 res->nr_disagree < r->p.keep_disagree) {
			struct cidk_replay_disagree *d =
				&res->disagree[res->nr_disagree++];
			unsigned int run = 0;

			for (unsigned int c = 0; c < r->p.nr_cpus; c++)
				run += r->on_cpu[c] != NULL;
			d->ts_ns = ev->ts_ns;
			d->event = (unsigned long)res->events;
			d->pid = t->pid;
			d->cpu = t->cpu;
			d->kernel_cid = ev->mm_cid;
			d->model_cid = t->ct[p].cid;
			d->lowest_free = t->lowest;
			d->prev_cid = t->last_kcid;
			d->nr_users = r->nr_users;
			d->nr_running = run;
			d->last_switch_prev = t->switch_prev;
			d->since_switch_ns = ev->ts_ns - t->switch_ts;
		}
	}
	if (t->lowest == ev->mm_cid)
		res->naive_lowest++;
	if (t->last_kcid >= 0 && t->last_kcid == ev->mm_cid)
		res->naive_prev++;
	t->last_kcid = ev->mm_cid;
	if (ev->mm_cid >= 0)
		mark(r->k_seen, (unsigned int)ev->mm_cid, r->p.nr_cpus,
		     &res->kernel_distinct, &res->kernel_largest);
	return 0;
}

static int ev_fork(struct cidk_replay *r, const struct cidk_trace_event *ev)
{
	struct rtask *pt = member(r, ev->task_pid), *c;

	if (!pt && ev->task_pid == r->p.tgid)
		return -ENOMEM;
	if (!pt || find(r, ev->child_pid))
		return 0;
	if (r->p.nr_threads ? !in_list(r, ev->child_pid)
			    : pt->joined && !pt->alive)
		return 0;
	c = add(r, ev->child_pid);
	if (!c)
		return -ENOMEM;
	if (!r->mm_up)
		return 0; /* a thread before the exec: joins at first sight */
	r->res.group_events++;
	return join(r, c);
}

static int ev_exec(struct cidk_replay *r, const struct cidk_trace_event *ev)
{
	struct rtask *t;
	int rc;

	if (ev->task_pid != r->p.tgid || r->mm_up)
		return 0;
	t = member(r, ev->task_pid);
	if (!t)
		return -ENOMEM;
	r->wait_exec = false;
	rc = mm_create(r);
	if (!rc)
		rc = join(r, t);
	if (rc)
		return rc;
	r->res.group_events++;
	if (r->on_cpu[ev->cpu] && r->on_cpu[ev->cpu] != t)
		out(r, r->on_cpu[ev->cpu], ev->ts_ns);
	t->lowest = lowest_free(r, t);
	drive(r, ev->cpu, NULL, t, ev->ts_ns);
	t->running = true;
	t->cpu = ev->cpu;
	t->switch_prev = -1;
	t->switch_ts = ev->ts_ns;
	r->on_cpu[ev->cpu] = t;
	return 0;
}

/*
 * sched_process_exit, or (CID_EXIT, the line's own task) the earlier
 * point where the kernel's exiting task gives its CID back
 * (sched_mm_cid_exit_signals(), from 6.19 sched_mm_cid_exit()): the first
 * of the two is the exit, the second is a no-op.
 */
static int ev_exit(struct cidk_replay *r, const struct cidk_trace_event *ev)
{
	struct rtask *t = find(r, ev->kind == CIDK_TRACE_CID_EXIT ? ev->pid
							     : ev->task_pid);

	if (!t || !t->alive)
		return 0;
	r->res.group_events++;
	migrate_pending(r, t, ev->ts_ns);
	for (unsigned int p = 0; p < r->p.nr_policies; p++)
		cidk_cid_exit(r->mm[p], &t->ct[p], ev->ts_ns);
	if (t->running && r->on_cpu[t->cpu] == t)
		r->on_cpu[t->cpu] = NULL;
	t->running = false;
	t->alive = false;
	r->nr_users--;
	return 0;
}

static int ev_migrate(struct cidk_replay *r, const struct cidk_trace_event *ev)
{
	struct rtask *t = find(r, ev->task_pid);
	bool now;

	if (!t || !t->alive)
		return 0;
	r->res.group_events++;
	if (t->running)
		return 0; /* the kernel moves a task off its CPU first */
	/* moved again: it was enqueued where the last move took it */
	migrate_pending(r, t, ev->ts_ns);
	now = t->queued || ev->cpu == (unsigned int)ev->dest_cpu;
	for (unsigned int p = 0; p < r->p.nr_policies; p++)
		if (now || !migrate_deferred(r, p))
			migrate_one(r, p, t, (unsigned int)ev->orig_cpu,
				    (unsigned int)ev->dest_cpu, ev->ts_ns);
	t->mig_pending = !now;
	t->mig_from = (unsigned int)ev->orig_cpu;
	t->mig_to = (unsigned int)ev->dest_cpu;
	t->cpu = (unsigned int)ev->dest_cpu;
	return 0;
}

/* sched_wakeup: the task is enqueued now (ttwu_do_activate()). */
static int ev_wakeup(struct cidk_replay *r, const struct cidk_trace_event *ev)
{
	struct rtask *t = find(r, ev->task_pid);

	if (!t || !t->alive)
		return 0;
	r->res.group_events++;
	migrate_pending(r, t, ev->ts_ns);
	t->queued = true;
	return 0;
}

/* task_mm_cid_work() ran in this task (the kernel's compaction work). */
static int ev_cid_work(struct cidk_replay *r, const struct cidk_trace_event *ev)
{
	struct rtask *t = find(r, ev->pid);

	if (!t || !t->alive || !r->p.kernel_scan)
		return 0;
	r->res.group_events++;
	for (unsigned int p = 0; p < r->p.nr_policies; p++)
		cidk_cid_tick(r->mm[p], &t->ct[p], ev->cpu, ev->ts_ns);
	return 0;
}

/* set_cpus_allowed_common(): the task's new mask (its first 64 CPUs). */
static int ev_affinity(struct cidk_replay *r, const struct cidk_trace_event *ev)
{
	struct rtask *t = find(r, ev->task_pid);
	unsigned int n = r->p.nr_cpus, cnt = 0;
	struct cidk_mask *m;

	if (!t || !t->alive)
		return 0;
	m = cidk_mask_alloc(n);
	if (!m)
		return -ENOMEM;
	for (unsigned int c = 0; c < n; c++)
		if (c >= 64 || (ev->cpus_word >> c & 1)) {
			cidk_mask_set(m, c);
			cnt++;
		}
	r->res.group_events++;
	if (cnt) { /* an empty mask within our CPUs: not one we can follow */
		t->nr_allowed = cnt;
		for (unsigned int p = 0; p < r->p.nr_policies; p++)
			cidk_cid_set_affinity(r->mm[p], &t->ct[p], m);
	}
	cidk_mask_free(m);
	return 0;
}

int cidk_replay_event(struct cidk_replay *r, const struct cidk_trace_event *ev)
{
	unsigned int n = r->p.nr_cpus;

	if (ev->cpu >= n)
		return -EINVAL;
	switch (ev->kind) {
	case CIDK_TRACE_MIGRATE:
		if (ev->orig_cpu < 0 || (unsigned int)ev->orig_cpu >= n ||
		    ev->dest_cpu < 0 || (unsigned int)ev->dest_cpu >= n)
			return -EINVAL;
		break;
	case CIDK_TRACE_WAKEUP_NEW:
	case CIDK_TRACE_WAKEUP:
		if (ev->dest_cpu < 0 || (unsigned int)ev->dest_cpu >= n)
			return -EINVAL;
		break;
	case CIDK_TRACE_RSEQ_UPDATE:
		if (ev->cpu_id >= 0 && (unsigned int)ev->cpu_id != ev->cpu)
			return -EINVAL;
		break;
	default:
		break;
	}
	r->res.events++;
	switch (ev->kind) {
	case CIDK_TRACE_SWITCH:
		return ev_switch(r, ev);
	case CIDK_TRACE_RSEQ_UPDATE:
		return ev_rseq(r, ev);
	case CIDK_TRACE_FORK:
		return ev_fork(r, ev);
	case CIDK_TRACE_EXEC:
		return ev_exec(r, ev);
	case CIDK_TRACE_EXIT:
		return ev_exit(r, ev);
	case CIDK_TRACE_MIGRATE:
		return ev_migrate(r, ev);
	case CIDK_TRACE_WAKEUP:
		return ev_wakeup(r, ev);
	case CIDK_TRACE_CID_WORK:
		return ev_cid_work(r, ev);
	case CIDK_TRACE_AFFINITY:
		return ev_affinity(r, ev);
	case CIDK_TRACE_CID_EXIT:
		return ev_exit(r, ev);
	case CIDK_TRACE_CID_FORK:
		/*
		 * The kernel counts the new user here, 34 us to 11 ms before
		 * sched_process_fork (6.19.6, 16 CPUs); joining it here made
		 * ownership agree less (docs/validation.md): the fork joins at
		 * sched_process_fork.
		 */
		return 0;
	default:
		return 0;
	}
}

int cidk_replay_create(const struct cidk_replay_params *p,
		       struct cidk_replay **out)
{
	struct cidk_replay *r;
	int rc = -ENOMEM;

	if (!p->nr_cpus || p->nr_cpus > CIDK_TRACE_MAX_CPUS ||
	    !p->nr_policies || p->nr_policies > CIDK_REPLAY_MAX_POLICIES ||
	    p->model >= (int)p->nr_policies || p->model < -1 ||
	    p->keep_disagree > CIDK_REPLAY_MAX_DISAGREE || p->tgid < 0)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->p = *p;
	r->p.threads = NULL;
	/* the kernel's compaction calls drive the lazy family's scan */
	for (unsigned int i = 0; p->kernel_scan && i < p->nr_policies; i++) {
		struct cidk_cid_params *pp = &r->p.policy[i];

		if (pp->kind == CIDK_CID_LAZY || pp->kind == CIDK_CID_LAZY_BATCHED ||
		    pp->kind == CIDK_CID_CACHE_LOCAL) {
			pp->trigger = CIDK_CID_SCAN_TICK;
			pp->scan_period_ns = CIDK_REPLAY_SCAN_PERIOD_NS;
		}
	}
	if (p->nr_threads) {
		int *th = malloc(p->nr_threads * sizeof(*th));

		if (!th)
			goto fail;
		memcpy(th, p->threads, p->nr_threads * sizeof(*th));
		r->p.threads = th;
	}
	/* a recorded trace (a thread list) starts the mm at the exec */
	r->wait_exec = p->nr_threads > 0;
	r->cap = 64;
	r->tasks = calloc(r->cap, sizeof(*r->tasks));
	r->on_cpu = calloc(p->nr_cpus, sizeof(*r->on_cpu));
	r->scratch = calloc(p->nr_cpus + 1, 1);
	r->k_seen = calloc(p->nr_cpus, 1);
	r->all = cidk_mask_alloc(p->nr_cpus);
	if (!r->tasks || !r->on_cpu || !r->scratch || !r->k_seen || !r->all)
		goto fail;
	cidk_mask_fill(r->all);
	r->res.kernel_largest = CIDK_CID_NONE;
	r->res.nr_policies = p->nr_policies;
	for (unsigned int i = 0; i < p->nr_policies; i++) {
		r->pol_seen[i] = calloc(p->nr_cpus, 1);
		if (!r->pol_seen[i])
			goto fail;
		r->res.pol[i].largest = CIDK_CID_NONE;
		/* the parameters are checked now, not at the group's exec */
		{
			struct cidk_cid_mm *mm;

			rc = cidk_cid_mm_create(&r->p.policy[i], p->nr_cpus,
						r->all, &mm);
			if (rc)
				goto fail;
			cidk_cid_mm_destroy(mm);
			rc = -ENOMEM;
		}
	}
	*out = r;
	return 0;
fail:
	cidk_replay_destroy(r);
	return rc;
}

void cidk_replay_result(const struct cidk_replay *r,
			struct cidk_replay_result *res)
{
	*res = r->res;
	for (unsigned int p = 0; p < r->p.nr_policies; p++)
		if (r->mm_up)
			cidk_cid_stats(r->mm[p], &res->pol[p].stats);
}

void cidk_replay_destroy(struct cidk_replay *r)
{
	if (!r)
		return;
	for (unsigned int i = 0; i < r->cap && r->tasks; i++) {
		struct rtask *t = r->tasks[i];

		if (!t)
			continue;
		for (unsigned int p = 0; p < r->p.nr_policies && r->mm_up; p++)
			if (t->alive && t->ct[p].running)
				cidk_cid_switch(t->ct[p].cpu, r->mm[p], &t->ct[p],
						NULL, NULL, 0);
		free(t->ct);
		free(t);
	}
	for (unsigned int p = 0; p < r->p.nr_policies; p++) {
		cidk_cid_mm_destroy(r->mm[p]);
		free(r->pol_seen[p]);
	}
	free((void *)r->p.threads);
	free(r->tasks);
	free(r->on_cpu);
	free(r->scratch);
	free(r->k_seen);
	cidk_mask_free(r->all);
	free(r);
}
