/* SPDX-License-Identifier: MIT */
/*
 * The locality scenario: the experiment behind the cache-local CID policy.
 *
 * T threads of one mm, each pinned to its own CPU, burst one after another
 * (never two at once) in a random order reshuffled every round, with a
 * fixed delay between one burst's end and the next one's start.  A burst
 * increments every byte of a 16 kB area, chosen by CPU number (per-cpu) or
 * by the CID the policy gave the thread.  What a burst costs comes from the
 * machine's cost model: where the area's lines were last written, and how
 * long ago.
 *
 * The scheduler events each burst produces, in the kernel's order:
 *   wake:  switch idle -> thread on its CPU, return to user space
 *          (return-to-user trigger: compaction work when due);
 *   tick:  while the CPU is busy, every tick_ns at a per-CPU phase:
 *          the policy's tick, then return to user (either trigger);
 *   end:   the area is written; switch thread -> idle.
 * Compaction work done on the way to user space delays the burst's start
 * but is not part of the measured burst (the reference measured only the
 * increment loop).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/sim.h>

#include "sim_machine.h"
#include "sim_sched.h"
#include "cidkit_lab.h"
#include "prng.h"

const char *const cidk_sim_locality_configs[] = {
	"8c1l3", "24c24l3", "192c24l3", "384t24l3", NULL,
};

struct thread {
	struct sim_task *task;
	unsigned int last_area; /* area index of the previous burst */
};

struct run {
	const struct cidk_sim_locality_params *p;
	struct cidk_sim_locality_result *r;
	struct sim_machine *m; /* sim_machine_get()'s */
	struct sim_sched s;
	struct sim_mm *mm; /* NULL for per-cpu */
	struct thread *th;
	unsigned int nth;
	unsigned int *order; /* the round's order of thread indexes */
	unsigned int pos;    /* position of the running thread in order */
	unsigned int round;
	struct sim_region *areas;
	unsigned int cur_area;
	struct cidk__prng rng;
	double cost_sum;
	int err;
};

void cidk_sim_locality_defaults(struct cidk_sim_locality_params *p)
{
	memset(p, 0, sizeof(*p));
	p->machine = "epyc-9654-2s";
	p->config = "8c1l3";
	p->delay_ns = 200ull * 1000 * 1000;
	p->policy = CIDK_CID_CACHE_LOCAL;
	p->trigger = CIDK_CID_SCAN_RETURN_TO_USER;
	p->batch = 16;
	p->rounds = 20;
	p->seed = 1;
	p->area_bytes = 16384;
	p->tick_ns = 1000 * 1000;
}

static bool is_core_leader(const struct cidk_topo *t, unsigned int cpu)
{
	return !cidk_topo_has_level(t, CIDK_TOPO_SMT) ||
	       cidk_topo_group_id(t, CIDK_TOPO_SMT, cpu) == cpu;
}

/* The CPUs of a config, in CPU order.  Returns the count, or 0. */
static unsigned int pick_cpus(const struct cidk_topo *t, const char *config,
			      unsigned int *cpus)
{
	const struct cidk_mask *online = cidk_topo_online(t);
	bool has_llc = cidk_topo_has_level(t, CIDK_TOPO_LLC);
	unsigned int n = 0, cpu;

	if (!strcmp(config, "8c1l3")) {
		unsigned int llc0 = has_llc ? cidk_topo_group_id(t, CIDK_TOPO_LLC,
								 cidk_mask_first(online))
					    : 0;

		cidk_mask_for_each(cpu, online)
			if (n < 8 && is_core_leader(t, cpu) &&
			    (!has_llc || cidk_topo_group_id(t, CIDK_TOPO_LLC, cpu) == llc0))
				cpus[n++] = cpu;
		return n == 8 ? n : 0;
	}
	if (!strcmp(config, "24c24l3")) {
		/* the first core of every LLC */
		if (!has_llc)
			return 0;
		cidk_mask_for_each(cpu, online)
			if (cidk_topo_group_id(t, CIDK_TOPO_LLC, cpu) == cpu)
				cpus[n++] = cpu;
		return n;
	}
	if (!strcmp(config, "192c24l3")) {
		cidk_mask_for_each(cpu, online)
			if (is_core_leader(t, cpu))
				cpus[n++] = cpu;
		return n;
	}
	if (!strcmp(config, "384t24l3")) {
		cidk_mask_for_each(cpu, online)
			cpus[n++] = cpu;
		return n;
	}
	return 0;
}

/* The burst starts (after the return to user space): what it costs. */
static uint64_t burst_run(struct sim_sched *ss, struct sim_task *t, uint64_t now)
{
	struct run *s = ss->ctx;
	struct thread *th = &s->th[s->order[s->pos]];
	unsigned int area = s->p->policy == CIDK_SIM_PER_CPU ? t->cpu : t->cid.cid;
	double cost;

	if (area >= s->m->nr_cpu_ids) {
		s->err = -ERANGE; /* a policy handed out an impossible CID */
		ss->err = -ERANGE;
		return 0;
	}
	cost = sim_region_cost(s->m, &s->areas[area], t->cpu, now,
			       s->p->area_bytes / SIM_LINE_BYTES);
	s->cur_area = area;
	if (s->round > 0) {
		s->cost_sum += cost;
		s->r->bursts++;
		if (area > s->r->max_cid)
			s->r->max_cid = area;
		if (th->last_area != UINT32_MAX && th->last_area != area)
			s->r->cid_changes++;
		if (s->p->policy != CIDK_SIM_PER_CPU && area >= cidk_cid_max_cids(s->mm->cid))
			s->r->bound_violations++;
	}
	th->last_area = area;
	return (uint64_t)(cost + 0.5);
}

/* The burst is over: the area is written; the next thread wakes later. */
static bool burst_done(struct sim_sched *ss, struct sim_task *t, uint64_t now)
{
	struct run *s = ss->ctx;

	sim_region_write(&s->areas[s->cur_area], t->cpu, now);
	if (++s->pos == s->nth) {
		s->pos = 0;
		if (++s->round == s->p->rounds)
			return true;
		cidk__prng_shuffle(&s->rng, s->order, s->nth);
	}
	sim_sched_timer(ss, now + s->p->delay_ns, s->order[s->pos]);
	return true; /* sleep */
}

static void wake_thread(struct sim_sched *ss, uint32_t i, uint64_t now)
{
	struct run *s = ss->ctx;

	sim_sched_wake(ss, s->th[i].task, now);
}

static const struct sim_sched_ops locality_ops = {
	.run = burst_run,
	.done = burst_done,
	.timer = wake_thread,
};

static int setup(struct run *s, struct cidk_topo_err *err)
{
	const struct cidk_sim_locality_params *p = s->p;
	unsigned int *cpus, ncpu;
	struct cidk_mask *allowed;
	int rc;

	rc = sim_machine_get(&s->m, p->machine, err);
	if (rc)
		return rc;
	rc = sim_sched_init(&s->s, s->m, &locality_ops, s, p->seed);
	if (rc)
		return rc;
	s->s.tick_ns = p->tick_ns;
	ncpu = s->m->nr_cpu_ids;
	cpus = calloc(ncpu, sizeof(*cpus));
	s->areas = calloc(ncpu, sizeof(*s->areas));
	allowed = cidk_mask_alloc(ncpu);
	if (!cpus || !s->areas || !allowed) {
		rc = -ENOMEM;
		goto out;
	}
	for (unsigned int a = 0; a < ncpu; a++)
		s->areas[a].last_cpu = SIM_NOBODY;
	s->nth = pick_cpus(s->m->topo, p->config, cpus);
	if (!s->nth) {
		snprintf(err->path, sizeof(err->path), "%s", p->config);
		snprintf(err->msg, sizeof(err->msg),
			 "unknown config or not possible on machine %s",
			 p->machine);
		rc = -EINVAL;
		goto out;
	}
	s->th = calloc(s->nth, sizeof(*s->th));
	s->order = calloc(s->nth, sizeof(*s->order));
	if (!s->th || !s->order) {
		rc = -ENOMEM;
		goto out;
	}
	cidk__prng_seed(&s->rng, p->seed);

	{
		struct cidk_cid_params cp;

		/* per-cpu still has an mm: its threads just ignore the CIDs */
		cidk_cid_params_default(&cp, p->policy == CIDK_SIM_PER_CPU
						     ? CIDK_CID_BITMAP
						     : (enum cidk_cid_policy_kind)p->policy);
		cp.trigger = p->trigger;
		if (p->batch)
			cp.batch = p->batch;
		cidk_mask_zero(allowed);
		cidk_mask_set(allowed, cpus[0]);
		s->mm = sim_sched_mm(&s->s, &cp, allowed);
		if (!s->mm) {
			rc = s->s.err;
			goto out;
		}
	}
	for (unsigned int i = 0; i < s->nth; i++) {
		cidk_mask_zero(allowed);
		cidk_mask_set(allowed, cpus[i]);
		s->th[i].task = sim_sched_task(&s->s, s->mm, allowed, cpus[i]);
		s->th[i].last_area = UINT32_MAX;
		s->order[i] = i;
		if (!s->th[i].task) {
			rc = s->s.err;
			goto out;
		}
	}
	cidk__prng_shuffle(&s->rng, s->order, s->nth);
out:
	free(cpus);
	cidk_mask_free(allowed);
	return rc;
}

static void teardown(struct run *s)
{
	sim_sched_fini(&s->s);
	sim_machine_put(s->m);
	free(s->th);
	free(s->order);
	free(s->areas);
}

int cidk_sim_locality(const struct cidk_sim_locality_params *p,
		      struct cidk_sim_locality_result *r,
		      struct cidk_topo_err *err)
{
	struct run s;
	uint64_t t0;
	int rc;

	memset(r, 0, sizeof(*r));
	memset(&s, 0, sizeof(s));
	memset(err, 0, sizeof(*err));
	if (!p->rounds || p->rounds > 1000000 || !p->tick_ns ||
	    p->area_bytes < SIM_LINE_BYTES || p->policy < CIDK_SIM_PER_CPU ||
	    p->policy >= CIDK_CID_NR_POLICIES) {
		snprintf(err->msg, sizeof(err->msg), "bad scenario parameters");
		return -EINVAL;
	}
	s.p = p;
	s.r = r;
	t0 = cidk__now_ns();
	rc = setup(&s, err);
	if (rc)
		goto out;
	r->nr_threads = s.nth;
	sim_sched_wake(&s.s, s.th[s.order[0]].task, 0);
	rc = sim_sched_run(&s.s, UINT64_MAX);
	if (!rc)
		rc = s.err;
	if (rc)
		goto out;
	r->ns_per_burst = r->bursts ? s.cost_sum / (double)r->bursts : 0;
	r->events = s.s.e.processed;
	if (p->policy != CIDK_SIM_PER_CPU)
		cidk_cid_stats(s.mm->cid, &r->stats);
out:
	teardown(&s);
	r->host_seconds = (double)(cidk__now_ns() - t0) / 1e9;
	return rc;
}
