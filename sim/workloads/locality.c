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

#include "engine.h"
#include "machine.h"
#include "util/clock.h"
#include "util/prng.h"

const char *const cidk_sim_locality_configs[] = {
	"8c1l3", "24c24l3", "192c24l3", "384t24l3", NULL,
};

enum { EV_WAKE, EV_TICK, EV_END };

struct thread {
	unsigned int cpu;
	unsigned int last_area; /* area index of the previous burst */
	struct cidk_cid_task cid;
};

struct run {
	const struct cidk_sim_locality_params *p;
	struct sim_machine m;
	struct sim_engine e;
	struct cidk_cid_mm *mm;
	struct thread *th;
	unsigned int nth;
	unsigned int *order; /* the round's order of thread indexes */
	unsigned int pos;    /* next position in order */
	unsigned int round;
	struct sim_region *areas;
	unsigned int nareas;
	uint64_t *tick_phase; /* per CPU */
	/* the burst in flight (only one at a time) */
	unsigned int cur, cur_area;
	uint64_t cur_gen, cur_end;
	double cur_cost;
	struct cidk__prng rng;
	struct cidk_sim_locality_result *r;
	double cost_sum;
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

static int schedule(struct run *s, uint64_t t, uint32_t kind, uint32_t arg,
		    uint64_t gen)
{
	return sim_engine_at(&s->e, t, kind, arg, gen);
}

/* The first tick on @cpu strictly after @t. */
static uint64_t next_tick(const struct run *s, unsigned int cpu, uint64_t t)
{
	uint64_t period = s->p->tick_ns, phase = s->tick_phase[cpu];

	if (t < phase)
		return phase;
	return phase + ((t - phase) / period + 1) * period;
}

/* Compaction work visible as latency before the burst (not measured). */
static uint64_t scan_delay(struct run *s, unsigned int cpu,
			   unsigned int visited)
{
	return visited ? (uint64_t)(sim_scan_cost(&s->m, cpu, visited) + 0.5)
		       : 0;
}

static int start_burst(struct run *s, unsigned int i, uint64_t now)
{
	struct thread *t = &s->th[i];
	unsigned int area, visited = 0;
	uint64_t start, tick;

	if (s->mm) {
		area = cidk_cid_switch(t->cpu, NULL, NULL, s->mm, &t->cid, now);
		visited = cidk_cid_return_to_user(s->mm, &t->cid, t->cpu, now);
		if (area >= cidk_cid_max_cids(s->mm) && s->round > 0)
			s->r->bound_violations++;
	} else {
		area = t->cpu;
	}
	if (area >= s->nareas)
		return -ERANGE; /* a policy handed out an impossible CID */
	start = now + scan_delay(s, t->cpu, visited);
	s->cur = i;
	s->cur_area = area;
	s->cur_cost = sim_region_cost(&s->m, &s->areas[area], t->cpu, start,
				      s->p->area_bytes / SIM_LINE_BYTES);
	s->cur_end = start + (uint64_t)(s->cur_cost + 0.5);
	s->cur_gen++;
	if (s->round > 0) {
		s->cost_sum += s->cur_cost;
		s->r->bursts++;
		if (area > s->r->max_cid)
			s->r->max_cid = area;
		if (t->last_area != UINT32_MAX && t->last_area != area)
			s->r->cid_changes++;
	}
	t->last_area = area;
	tick = next_tick(s, t->cpu, now);
	if (tick < s->cur_end)
		return schedule(s, tick, EV_TICK, t->cpu, s->cur_gen);
	return schedule(s, s->cur_end, EV_END, i, s->cur_gen);
}

static int on_tick(struct run *s, const struct sim_event *ev)
{
	struct thread *t = &s->th[s->cur];
	unsigned int visited = 0;
	uint64_t tick;

	if (ev->gen != s->cur_gen)
		return 0; /* the burst it belonged to is over */
	if (s->mm) {
		visited = cidk_cid_tick(s->mm, &t->cid, t->cpu, ev->time);
		visited += cidk_cid_return_to_user(s->mm, &t->cid, t->cpu,
						   ev->time);
	}
	s->cur_end += scan_delay(s, t->cpu, visited);
	tick = next_tick(s, t->cpu, ev->time);
	if (tick < s->cur_end)
		return schedule(s, tick, EV_TICK, t->cpu, s->cur_gen);
	return schedule(s, s->cur_end, EV_END, s->cur, s->cur_gen);
}

static int on_end(struct run *s, const struct sim_event *ev)
{
	struct thread *t = &s->th[ev->arg];

	sim_region_write(&s->areas[s->cur_area], t->cpu, ev->time);
	if (s->mm)
		cidk_cid_switch(t->cpu, s->mm, &t->cid, NULL, NULL, ev->time);
	s->cur_gen++;
	if (++s->pos == s->nth) {
		s->pos = 0;
		if (++s->round == s->p->rounds)
			return 0;
		cidk__prng_shuffle(&s->rng, s->order, s->nth);
	}
	return schedule(s, ev->time + s->p->delay_ns, EV_WAKE, s->order[s->pos],
			0);
}

static int setup(struct run *s, struct cidk_topo_err *err)
{
	const struct cidk_sim_locality_params *p = s->p;
	unsigned int *cpus, ncpu;
	struct cidk_mask *allowed;
	int rc;

	rc = sim_machine_init(&s->m, p->machine, err);
	if (rc)
		return rc;
	ncpu = s->m.nr_cpu_ids;
	cpus = calloc(ncpu, sizeof(*cpus));
	s->tick_phase = calloc(ncpu, sizeof(*s->tick_phase));
	s->areas = calloc(ncpu, sizeof(*s->areas));
	allowed = cidk_mask_alloc(ncpu);
	if (!cpus || !s->tick_phase || !s->areas || !allowed) {
		rc = -ENOMEM;
		goto out;
	}
	s->nareas = ncpu;
	for (unsigned int a = 0; a < ncpu; a++)
		s->areas[a].last_cpu = SIM_NOBODY;
	s->nth = pick_cpus(s->m.topo, p->config, cpus);
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
	for (unsigned int c = 0; c < ncpu; c++)
		s->tick_phase[c] = cidk__prng_below(&s->rng, p->tick_ns);
	for (unsigned int i = 0; i < s->nth; i++) {
		s->th[i].cpu = cpus[i];
		s->th[i].last_area = UINT32_MAX;
		s->order[i] = i;
	}
	cidk__prng_shuffle(&s->rng, s->order, s->nth);

	if (p->policy != CIDK_SIM_PER_CPU) {
		struct cidk_cid_params cp;

		cidk_cid_params_default(&cp, (enum cidk_cid_policy_kind)p->policy);
		cp.trigger = p->trigger;
		if (p->batch)
			cp.batch = p->batch;
		cidk_mask_zero(allowed);
		cidk_mask_set(allowed, cpus[0]);
		rc = cidk_cid_mm_create(&cp, ncpu, allowed, &s->mm);
		if (rc)
			goto out;
		cidk_cid_task_init(&s->th[0].cid);
		for (unsigned int i = 1; i < s->nth; i++) {
			cidk_mask_zero(allowed);
			cidk_mask_set(allowed, cpus[i]);
			rc = cidk_cid_fork(s->mm, &s->th[i].cid, allowed);
			if (rc)
				goto out;
		}
	}
	rc = sim_engine_init(&s->e, 64);
out:
	free(cpus);
	cidk_mask_free(allowed);
	return rc;
}

static void teardown(struct run *s)
{
	if (s->mm)
		for (unsigned int i = 0; i < s->nth; i++)
			if (s->th[i].cid.running)
				cidk_cid_switch(s->th[i].cpu, s->mm, &s->th[i].cid,
						NULL, NULL, s->e.now);
	cidk_cid_mm_destroy(s->mm);
	sim_engine_fini(&s->e);
	sim_machine_fini(&s->m);
	free(s->th);
	free(s->order);
	free(s->areas);
	free(s->tick_phase);
}

int cidk_sim_locality(const struct cidk_sim_locality_params *p,
		      struct cidk_sim_locality_result *r,
		      struct cidk_topo_err *err)
{
	struct run s;
	struct sim_event ev;
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
	rc = schedule(&s, 0, EV_WAKE, s.order[0], 0);
	while (!rc && sim_engine_next(&s.e, &ev)) {
		switch (ev.kind) {
		case EV_WAKE:
			rc = start_burst(&s, ev.arg, ev.time);
			break;
		case EV_TICK:
			rc = on_tick(&s, &ev);
			break;
		case EV_END:
			rc = ev.gen == s.cur_gen ? on_end(&s, &ev) : 0;
			break;
		}
	}
	if (rc)
		goto out;
	r->ns_per_burst = r->bursts ? s.cost_sum / (double)r->bursts : 0;
	r->events = s.e.processed;
	if (s.mm)
		cidk_cid_stats(s.mm, &r->stats);
out:
	teardown(&s);
	r->host_seconds = (double)(cidk__now_ns() - t0) / 1e9;
	return rc;
}
