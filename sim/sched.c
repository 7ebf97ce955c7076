/* SPDX-License-Identifier: MIT */
/*
 * The simulated scheduler (see sim_sched.h for the model).  Single-threaded and
 * deterministic: every choice is a function of the event order and of the
 * seed (tick phases).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_sched.h"
#include "prng.h"

#include "cidkit_lab.h" /* the library's lab-only interface */

enum { EV_WAKE, EV_END, EV_TICK, EV_TIMER, EV_SAMPLE };

/* ---- set-up ------------------------------------------------------------- */

static int mm_lines(struct sim_sched *s, struct sim_mm *mm)
{
	unsigned int n = (s->nr_cpus + SIM_MASK_CPUS_PER_LINE - 1) /
			 SIM_MASK_CPUS_PER_LINE;

	mm->line_owner = malloc(n * sizeof(*mm->line_owner));
	if (!mm->line_owner)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		mm->line_owner[i] = SIM_NOBODY;
	return 0;
}

int sim_sched_init(struct sim_sched *s, struct sim_machine *m,
		   const struct sim_sched_ops *ops, void *ctx, uint64_t seed)
{
	struct cidk__prng rng;
	int rc;

	memset(s, 0, sizeof(*s));
	s->m = m;
	s->ops = ops;
	s->ctx = ctx;
	s->nr_cpus = m->nr_cpu_ids;
	s->tick_ns = 1000 * 1000;
	/* a locked RMW on an owned line: ~20 cycles at 3.7 GHz */
	s->atomic_ns = 20 / 3.7;
	s->cpus = calloc(s->nr_cpus, sizeof(*s->cpus));
	s->idle = cidk_mask_alloc(s->nr_cpus);
	if (!s->cpus || !s->idle)
		return -ENOMEM;
	cidk_mask_copy(s->idle, cidk_topo_online(m->topo));
	cidk__prng_seed(&rng, seed ^ 0x7469636bu);
	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		s->cpus[c].tick_phase = cidk__prng_below(&rng, s->tick_ns);
		s->cpus[c].mm = &s->idle_mm;
	}
	s->idle_mm.id = UINT32_MAX;
	rc = mm_lines(s, &s->idle_mm);
	if (rc)
		return rc;
	return sim_engine_init(&s->e, 1024);
}

void sim_sched_fini(struct sim_sched *s)
{
	for (unsigned int i = 0; i < s->nr_tasks; i++) {
		struct sim_task *t = s->tasks[i];

		if (!t->exited && t->mm->cid) {
			if (t->state == SIM_RUNNING)
				cidk_cid_switch(t->cpu, t->mm->cid, &t->cid, NULL,
						NULL, s->e.now);
		}
		cidk_mask_free(t->allowed);
		free(t);
	}
	for (unsigned int i = 0; i < s->nr_mms; i++) {
		cidk_cid_mm_destroy(s->mms[i]->cid);
		free(s->mms[i]->line_owner);
		free(s->mms[i]);
	}
	free(s->idle_mm.line_owner);
	free(s->tasks);
	free(s->mms);
	free(s->cpus);
	free(s->st.scan_ns);
	free(s->st.pass_ns);
	cidk_mask_free(s->idle);
	sim_engine_fini(&s->e);
}

static void fail(struct sim_sched *s, int err)
{
	if (!s->err)
		s->err = err;
}

struct sim_mm *sim_sched_mm(struct sim_sched *s, const struct cidk_cid_params *p,
			    const struct cidk_mask *first_allowed)
{
	struct sim_mm *mm = calloc(1, sizeof(*mm));
	struct sim_mm **mms = realloc(s->mms, (s->nr_mms + 1) * sizeof(*mms));
	int rc;

	if (mms)
		s->mms = mms;
	if (!mm || !mms || mm_lines(s, mm)) {
		free(mm);
		fail(s, -ENOMEM);
		return NULL;
	}
	rc = cidk_cid_mm_create(p, s->nr_cpus,
				first_allowed ? first_allowed
					      : cidk_topo_online(s->m->topo),
				&mm->cid);
	if (rc) {
		free(mm->line_owner);
		free(mm);
		fail(s, rc);
		return NULL;
	}
	mm->id = s->nr_mms;
	s->mms[s->nr_mms++] = mm;
	return mm;
}

struct sim_task *sim_sched_task(struct sim_sched *s, struct sim_mm *mm,
				const struct cidk_mask *allowed,
				unsigned int cpu)
{
	const struct cidk_mask *a = allowed ? allowed : cidk_topo_online(s->m->topo);
	struct sim_task *t = calloc(1, sizeof(*t));

	if (t)
		t->allowed = cidk_mask_dup(a);
	if (s->nr_tasks == s->cap_tasks) {
		unsigned int cap = s->cap_tasks ? 2 * s->cap_tasks : 64;
		struct sim_task **v = realloc(s->tasks, cap * sizeof(*v));

		if (v) {
			s->tasks = v;
			s->cap_tasks = cap;
		}
	}
	if (!t || !t->allowed || s->nr_tasks == s->cap_tasks) {
		if (t)
			cidk_mask_free(t->allowed);
		free(t);
		fail(s, -ENOMEM);
		return NULL;
	}
	t->id = s->nr_tasks;
	t->mm = mm;
	t->cpu = cpu < s->nr_cpus && cidk_mask_test(a, cpu) ? cpu
							    : cidk_mask_first(a);
	t->state = SIM_SLEEPING;
	/* every task joins with a fork, the first one too (cid.h) */
	if (cidk_cid_fork(mm->cid, &t->cid, a))
		fail(s, -EINVAL);
	s->tasks[s->nr_tasks++] = t;
	mm->nr_tasks++;
	return t;
}

/* ---- mm masks ----------------------------------------------------------- */

static inline void mask_update(struct sim_sched *s, struct sim_mm *mm,
			       unsigned int cpu)
{
	uint32_t *owner = &mm->line_owner[cpu / SIM_MASK_CPUS_PER_LINE];
	bool idle = mm == &s->idle_mm;
	double ns = s->atomic_ns;

	s->st.mask_atomics++;
	s->st.idle_mask_atomics += idle;
	if (*owner != SIM_NOBODY && *owner != cpu) {
		s->st.mask_transfers++;
		s->st.idle_mask_transfers += idle;
		ns += sim_line_cost(s->m, cpu, *owner);
	}
	*owner = cpu;
	s->st.mask_ns += ns;
}

/* switch_mm: leave @cpu's current mm, enter @next (idle mm for idle). */
static void switch_mm(struct sim_sched *s, unsigned int cpu, struct sim_mm *next)
{
	struct sim_mm *prev = s->cpus[cpu].mm;

	if (prev == next)
		return;
	if (!(s->skip_idle_mm && prev == &s->idle_mm))
		mask_update(s, prev, cpu); /* cpumask_clear_cpu(prev) */
	if (!(s->skip_idle_mm && next == &s->idle_mm))
		mask_update(s, next, cpu); /* cpumask_set_cpu(next) */
	s->cpus[cpu].mm = next;
}

/* ---- compaction accounting ---------------------------------------------- */

static int push(struct sim_sched *s, double **v, uint64_t *n, uint64_t *cap,
		double x)
{
	if (*n == *cap) {
		uint64_t c = *cap ? 2 * *cap : 1024;
		double *nv = realloc(*v, c * sizeof(*nv));

		if (!nv) {
			fail(s, -ENOMEM);
			return -ENOMEM;
		}
		*v = nv;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

/*
 * A compaction call on @cpu visited @visited CPUs at @now: record its
 * latency, and the passes it completed.  A pass visits every possible CPU
 * in order and the batched policy resumes where it stopped, so the CPUs
 * this call visited are the next @visited after the mm's running total:
 * each is priced by its own distance from @cpu.
 */
static double record_scan(struct sim_sched *s, struct sim_mm *mm,
			  unsigned int cpu, unsigned int visited, uint64_t now)
{
	struct sim_sched_stats *st = &s->st;
	unsigned int first = (unsigned int)(mm->visited_total % s->nr_cpus);
	uint64_t released;
	double ns;

	if (!visited)
		return 0;
	released = cidk_cid_releases(mm->cid) - mm->releases_seen;
	mm->releases_seen += released;
	/* a release: two RMWs on remote lines, priced as a mean visit */
	ns = sim_scan_range_cost(s->m, cpu, first, visited) +
	     sim_scan_cost(s->m, cpu, (unsigned int)released);
	if (push(s, &st->scan_ns, &st->scan_calls, &st->scan_cap, ns))
		return ns;
	if (first == 0)
		mm->pass_start = now;
	mm->visited_total += visited;
	if (mm->visited_total % s->nr_cpus == 0)
		push(s, &st->pass_ns, &st->passes, &st->pass_cap,
		     (double)(now - mm->pass_start) + ns);
	return ns;
}

/* ---- running ------------------------------------------------------------ */

static uint64_t next_tick(const struct sim_sched *s, unsigned int cpu,
			  uint64_t t)
{
	uint64_t phase = s->cpus[cpu].tick_phase;

	if (t < phase)
		return phase;
	return phase + ((t - phase) / s->tick_ns + 1) * s->tick_ns;
}

/* (Re)arm the end of @cpu's current run and its next tick. */
static void arm(struct sim_sched *s, unsigned int cpu, uint64_t now)
{
	struct sim_cpu *c = &s->cpus[cpu];
	uint64_t tick = next_tick(s, cpu, now);
	int rc;

	c->gen++;
	if (tick < c->run_end)
		rc = sim_engine_at(&s->e, tick, EV_TICK, cpu, c->gen);
	else
		rc = sim_engine_at(&s->e, c->run_end, EV_END, cpu, c->gen);
	if (rc)
		fail(s, rc);
}

/* @t is now current on @cpu: return to user space, then run. */
static void start_run(struct sim_sched *s, unsigned int cpu, uint64_t now)
{
	struct sim_task *t = s->cpus[cpu].curr;
	unsigned int visited = 0;
	uint64_t delay = 0;

	if (t->mm->cid) {
		visited = cidk_cid_return_to_user(t->mm->cid, &t->cid, cpu, now);
		delay = (uint64_t)(record_scan(s, t->mm, cpu, visited, now) + 0.5);
		if (t->cid.cid != CIDK_CID_NONE && t->cid.cid > s->st.max_cid_seen)
			s->st.max_cid_seen = t->cid.cid;
	}
	s->cpus[cpu].run_end = now + delay + s->ops->run(s, t, now + delay);
	arm(s, cpu, now);
}

/* Context switch on @cpu to @next (NULL: idle). */
static void context_switch(struct sim_sched *s, unsigned int cpu,
			   struct sim_task *next, uint64_t now)
{
	struct sim_cpu *c = &s->cpus[cpu];
	struct sim_task *prev = c->curr;
	struct sim_mm *pmm = prev && !prev->exited ? prev->mm : NULL;
	struct sim_mm *nmm = next ? next->mm : NULL;

	s->st.switches++;
	if (prev && next && prev->mm == next->mm)
		s->st.switches_same_mm++;
	switch_mm(s, cpu, next ? next->mm : &s->idle_mm);
	if ((pmm && pmm->cid) || (nmm && nmm->cid))
		cidk_cid_switch(cpu, pmm ? pmm->cid : NULL, pmm ? &prev->cid : NULL,
				nmm ? nmm->cid : NULL, nmm ? &next->cid : NULL,
				now);
	if (prev && prev->mm)
		prev->mm->nr_running--;
	c->curr = next;
	c->gen++;
	if (next) {
		next->state = SIM_RUNNING;
		next->cpu = cpu;
		next->mm->nr_running++;
		cidk_mask_clear(s->idle, cpu);
		start_run(s, cpu, now);
	} else {
		cidk_mask_set(s->idle, cpu);
	}
}

static unsigned int place(struct sim_sched *s, struct sim_task *t)
{
	const struct cidk_topo *topo = s->m->topo;
	unsigned int prev = t->cpu, cpu;

	if (cidk_mask_test(t->allowed, prev) && cidk_mask_test(s->idle, prev))
		return prev;
	if (cidk_topo_has_level(topo, CIDK_TOPO_LLC)) {
		const struct cidk_mask *llc = cidk_topo_mask(topo, CIDK_TOPO_LLC, prev);

		if (llc)
			cidk_mask_for_each_and(cpu, llc, s->idle)
				if (cidk_mask_test(t->allowed, cpu))
					return cpu;
	}
	cpu = cidk_mask_next_and(t->allowed, s->idle, 0);
	if (cpu < s->nr_cpus)
		return cpu;
	return cidk_mask_test(t->allowed, prev) ? prev : cidk_mask_first(t->allowed);
}

static void do_wake(struct sim_sched *s, struct sim_task *t, uint64_t now)
{
	unsigned int cpu;
	struct sim_cpu *c;

	if (t->state != SIM_SLEEPING || t->exited)
		return;
	s->st.wakeups++;
	cpu = place(s, t);
	if (cpu != t->cpu) {
		s->st.migrations++;
		cidk_cid_migrate(t->mm->cid, &t->cid, t->cpu, cpu, now);
		t->cpu = cpu;
	}
	c = &s->cpus[cpu];
	if (!c->curr) {
		context_switch(s, cpu, t, now);
		return;
	}
	t->state = SIM_QUEUED;
	t->rq_next = NULL;
	if (c->rq_tail)
		c->rq_tail->rq_next = t;
	else
		c->rq_head = t;
	c->rq_tail = t;
}

void sim_sched_wake(struct sim_sched *s, struct sim_task *t, uint64_t now)
{
	int rc = sim_engine_at(&s->e, now, EV_WAKE, t->id, 0);

	if (rc)
		fail(s, rc);
}

void sim_sched_exit(struct sim_sched *s, struct sim_task *t, uint64_t now)
{
	if (t->exited)
		return;
	cidk_cid_exit(t->mm->cid, &t->cid, now);
	t->exited = true;
	(void)s;
}

void sim_sched_timer(struct sim_sched *s, uint64_t time, uint32_t arg)
{
	int rc = sim_engine_at(&s->e, time, EV_TIMER, arg, 0);

	if (rc)
		fail(s, rc);
}

static void on_end(struct sim_sched *s, unsigned int cpu, uint64_t now)
{
	struct sim_cpu *c = &s->cpus[cpu];
	struct sim_task *t = c->curr, *next;

	if (!s->ops->done(s, t, now) && !t->exited) {
		c->run_end = now + s->ops->run(s, t, now);
		arm(s, cpu, now);
		return;
	}
	if (!t->exited)
		t->state = SIM_SLEEPING;
	next = c->rq_head;
	if (next) {
		c->rq_head = next->rq_next;
		if (!c->rq_head)
			c->rq_tail = NULL;
	}
	context_switch(s, cpu, next, now);
}

static void on_tick(struct sim_sched *s, unsigned int cpu, uint64_t now)
{
	struct sim_cpu *c = &s->cpus[cpu];
	struct sim_task *t = c->curr;
	unsigned int visited;

	s->st.ticks++;
	visited = cidk_cid_tick(t->mm->cid, &t->cid, cpu, now);
	c->run_end += (uint64_t)(record_scan(s, t->mm, cpu, visited, now) + 0.5);
	visited = cidk_cid_return_to_user(t->mm->cid, &t->cid, cpu, now);
	c->run_end += (uint64_t)(record_scan(s, t->mm, cpu, visited, now) + 0.5);
	arm(s, cpu, now);
}

unsigned int sim_sched_max_running_cid(const struct sim_sched *s,
				       const struct sim_mm *mm)
{
	unsigned int max = CIDK_CID_NONE;

	for (unsigned int c = 0; c < s->nr_cpus; c++) {
		const struct sim_task *t = s->cpus[c].curr;

		if (t && t->mm == mm && t->cid.cid != CIDK_CID_NONE &&
		    (max == CIDK_CID_NONE || t->cid.cid > max))
			max = t->cid.cid;
	}
	return max;
}

static void on_sample(struct sim_sched *s, uint64_t now)
{
	unsigned int max = sim_sched_max_running_cid(s, s->sample_mm);

	s->st.cid_time_sum += (double)(max == CIDK_CID_NONE ? 0 : max + 1) *
			      (double)s->sample_ns;
	s->st.cid_time += s->sample_ns;
	if (sim_engine_at(&s->e, now + s->sample_ns, EV_SAMPLE, 0, 0))
		fail(s, -ENOMEM);
}

int sim_sched_run(struct sim_sched *s, uint64_t until)
{
	struct sim_event ev;

	s->until = until;
	if (s->sample_ns && s->sample_mm &&
	    sim_engine_at(&s->e, s->e.now + s->sample_ns, EV_SAMPLE, 0, 0))
		fail(s, -ENOMEM);
	while (!s->err && s->e.size && s->e.heap[0].time <= until &&
	       sim_engine_next(&s->e, &ev)) {
		switch (ev.kind) {
		case EV_WAKE:
			do_wake(s, s->tasks[ev.arg], ev.time);
			break;
		case EV_END:
			if (ev.gen == s->cpus[ev.arg].gen)
				on_end(s, ev.arg, ev.time);
			break;
		case EV_TICK:
			if (ev.gen == s->cpus[ev.arg].gen)
				on_tick(s, ev.arg, ev.time);
			break;
		case EV_TIMER:
			s->ops->timer(s, ev.arg, ev.time);
			break;
		case EV_SAMPLE:
			on_sample(s, ev.time);
			break;
		}
	}
	return s->err;
}
