/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_workload.h"

#define US 1000ull

enum { PERIOD_NS = 100 * US, PERIODIC_RUN = 5 * US };
enum { TX_RUN = 2 * US, RX_RUN = 1 * US, TX_BATCH = 8, TX_BLOCK = 20 * US };
enum { PINGPONG_RUN = 1 * US };

static const char *const workload_names[] = {
	[CIDK_SIM_PERIODIC] = "periodic",
	[CIDK_SIM_MESSAGING] = "messaging",
	[CIDK_SIM_PIPE] = "pipe",
	[CIDK_SIM_RR] = "rr",
};

const char *cidk_sim_workload_name(enum cidk_sim_workload w)
{
	return (unsigned int)w < sizeof(workload_names) / sizeof(workload_names[0])
		       ? workload_names[w]
		       : NULL;
}

int cidk_sim_workload_parse(const char *name, enum cidk_sim_workload *w)
{
	for (unsigned int i = 0;
	     i < sizeof(workload_names) / sizeof(workload_names[0]); i++)
		if (!strcmp(name, workload_names[i])) {
			*w = (enum cidk_sim_workload)i;
			return 0;
		}
	return -EINVAL;
}

void cidk_sim_sched_defaults(struct cidk_sim_sched_params *p)
{
	memset(p, 0, sizeof(*p));
	p->machine = "2s32c2t";
	p->workload = CIDK_SIM_PERIODIC;
	p->policy = CIDK_CID_LAZY;
	p->trigger = CIDK_CID_SCAN_RETURN_TO_USER;
	p->batch = 16;
	p->duration_ns = 1000 * 1000 * 1000;
	p->seed = 1;
	p->tick_ns = 1000 * 1000;
	p->group_size = 4;
}

/* ---- behaviours ---------------------------------------------------------- */

static struct wl_task *wt(struct sim_sched *s, struct sim_task *t)
{
	struct wl *w = s->ctx;

	return &w->tasks[(size_t)((uintptr_t)t->user)];
}

static uint64_t wl_run(struct sim_sched *s, struct sim_task *t, uint64_t now)
{
	struct wl *w = s->ctx;

	(void)now;
	switch (w->p->workload) {
	case CIDK_SIM_PERIODIC:
		return PERIODIC_RUN;
	case CIDK_SIM_MESSAGING:
		return wt(s, t)->sender ? TX_RUN : RX_RUN;
	default:
		return PINGPONG_RUN;
	}
}

static bool wl_done(struct sim_sched *s, struct sim_task *t, uint64_t now)
{
	struct wl *w = s->ctx;
	struct wl_task *x = wt(s, t);

	switch (w->p->workload) {
	case CIDK_SIM_PERIODIC:
		return true; /* sleep until the next period */
	case CIDK_SIM_MESSAGING: {
		unsigned int g = x->peer, gs = w->p->group_size, rx;

		if (!x->sender)
			return true;
		/* tasks of group g: 2*gs*g .. senders first, then receivers */
		rx = 2 * gs * g + gs + w->next_rx[g];
		w->next_rx[g] = (w->next_rx[g] + 1) % gs;
		sim_sched_wake(s, w->tasks[rx].t, now);
		if (++x->sent % TX_BATCH)
			return false; /* next message at once */
		sim_sched_timer(s, now + TX_BLOCK, t->id);
		return true;
	}
	default:
		sim_sched_wake(s, w->tasks[x->peer].t, now);
		return true;
	}
}

static void wl_timer(struct sim_sched *s, uint32_t arg, uint64_t now)
{
	struct wl *w = s->ctx;

	sim_sched_wake(s, w->tasks[arg].t, now);
	if (w->p->workload == CIDK_SIM_PERIODIC)
		sim_sched_timer(s, now + PERIOD_NS, arg);
}

static const struct sim_sched_ops wl_ops = {
	.run = wl_run,
	.done = wl_done,
	.timer = wl_timer,
};

/* ---- set-up --------------------------------------------------------------- */

static int add_task(struct wl *w, struct sim_mm *mm, int pin_cpu,
		    unsigned int near_cpu)
{
	struct cidk_mask *pin = NULL;
	struct sim_task *t;

	if (pin_cpu >= 0) {
		pin = cidk_mask_alloc(w->m.nr_cpu_ids);
		if (!pin)
			return -ENOMEM;
		cidk_mask_set(pin, (unsigned int)pin_cpu);
	}
	t = sim_sched_task(&w->s, mm, pin, near_cpu);
	cidk_mask_free(pin);
	if (!t)
		return w->s.err ? w->s.err : -ENOMEM;
	t->user = (void *)(uintptr_t)w->ntasks;
	w->tasks[w->ntasks++].t = t;
	return 0;
}

static struct sim_mm *new_mm(struct wl *w, int pin_cpu)
{
	struct cidk_cid_params cp;
	struct cidk_mask *first = NULL;
	struct sim_mm *mm;

	cidk_cid_params_default(&cp, w->p->policy);
	cp.trigger = w->p->trigger;
	if (w->p->batch)
		cp.batch = w->p->batch;
	if (pin_cpu >= 0) {
		first = cidk_mask_alloc(w->m.nr_cpu_ids);
		if (!first)
			return NULL;
		cidk_mask_set(first, (unsigned int)pin_cpu);
	}
	mm = sim_sched_mm(&w->s, &cp, first);
	cidk_mask_free(first);
	return mm;
}

static int setup_tasks(struct wl *w)
{
	const struct cidk_sim_sched_params *p = w->p;
	unsigned int n = cidk_topo_nr_online(w->m.topo);
	const struct cidk_mask *online = cidk_topo_online(w->m.topo);
	unsigned int cpu;
	int rc = 0;

	switch (p->workload) {
	case CIDK_SIM_PERIODIC: {
		unsigned int i = 0;

		w->tasks = calloc(n, sizeof(*w->tasks));
		if (!w->tasks)
			return -ENOMEM;
		cidk_mask_for_each(cpu, online) {
			if (!w->main_mm)
				w->main_mm = new_mm(w, (int)cpu);
			if (!w->main_mm)
				return w->s.err ? w->s.err : -ENOMEM;
			rc = add_task(w, w->main_mm, (int)cpu, cpu);
			if (rc)
				return rc;
			sim_sched_timer(&w->s, cidk__prng_below(&w->rng, PERIOD_NS), i++);
		}
		return 0;
	}
	case CIDK_SIM_MESSAGING: {
		unsigned int groups = p->groups ? p->groups : (n / 8 ? n / 8 : 1);
		unsigned int gs = p->group_size;

		if (!gs || groups > 65536 || gs > 4096)
			return -EINVAL;
		w->tasks = calloc((size_t)2 * gs * groups, sizeof(*w->tasks));
		w->next_rx = calloc(groups, sizeof(*w->next_rx));
		if (!w->tasks || !w->next_rx)
			return -ENOMEM;
		for (unsigned int g = 0; g < groups; g++) {
			struct sim_mm *mm = w->main_mm;

			if (!mm || p->mm_per_group)
				mm = new_mm(w, -1);
			if (!mm)
				return w->s.err ? w->s.err : -ENOMEM;
			if (!w->main_mm)
				w->main_mm = mm;
			for (unsigned int k = 0; k < 2 * gs; k++) {
				unsigned int idx = w->ntasks;

				rc = add_task(w, mm, -1, cidk_mask_nth(online, idx % n));
				if (rc)
					return rc;
				w->tasks[idx].peer = g;
				w->tasks[idx].sender = k < gs;
				if (k < gs)
					sim_sched_timer(&w->s,
							cidk__prng_below(&w->rng, 10 * US),
							idx);
			}
		}
		return 0;
	}
	case CIDK_SIM_PIPE:
	case CIDK_SIM_RR: {
		unsigned int cpus = p->cpus ? p->cpus
					    : (p->workload == CIDK_SIM_PIPE ? 2 : n);
		unsigned int pairs = cpus / 2;

		if (cpus < 2 || cpus > n)
			return -EINVAL;
		w->tasks = calloc((size_t)2 * pairs, sizeof(*w->tasks));
		if (!w->tasks)
			return -ENOMEM;
		for (unsigned int i = 0; i < pairs; i++) {
			unsigned int c0 = cidk_mask_nth(online, 2 * i);
			unsigned int c1 = cidk_mask_nth(online, 2 * i + 1);
			struct sim_mm *a = w->main_mm, *b;

			if (!a || p->processes)
				a = new_mm(w, (int)c0);
			if (!a)
				return w->s.err ? w->s.err : -ENOMEM;
			if (!w->main_mm)
				w->main_mm = a;
			b = p->processes ? new_mm(w, (int)c1) : a;
			if (!b)
				return w->s.err ? w->s.err : -ENOMEM;
			rc = add_task(w, a, (int)c0, c0);
			if (!rc)
				rc = add_task(w, b, (int)c1, c1);
			if (rc)
				return rc;
			w->tasks[2 * i].peer = 2 * i + 1;
			w->tasks[2 * i + 1].peer = 2 * i;
			sim_sched_timer(&w->s, cidk__prng_below(&w->rng, US), 2 * i);
		}
		return 0;
	}
	}
	return -EINVAL;
}

int wl_setup(struct wl *w, const struct cidk_sim_sched_params *p,
	     struct cidk_topo_err *err)
{
	int rc;

	memset(w, 0, sizeof(*w));
	memset(err, 0, sizeof(*err));
	w->p = p;
	if (!p->duration_ns || !p->tick_ns ||
	    (unsigned int)p->policy >= CIDK_CID_NR_POLICIES ||
	    !cidk_sim_workload_name(p->workload)) {
		snprintf(err->msg, sizeof(err->msg), "bad scenario parameters");
		return -EINVAL;
	}
	rc = sim_machine_init(&w->m, p->machine, err);
	if (rc)
		return rc;
	rc = sim_sched_init(&w->s, &w->m, &wl_ops, w, p->seed);
	w->sched_up = true;
	if (rc)
		return rc;
	w->s.tick_ns = p->tick_ns;
	w->s.skip_idle_mm = p->skip_idle_mm;
	cidk__prng_seed(&w->rng, p->seed);
	rc = setup_tasks(w);
	if (rc == -EINVAL && !*err->msg)
		snprintf(err->msg, sizeof(err->msg),
			 "workload %s does not fit machine %s",
			 cidk_sim_workload_name(p->workload), p->machine);
	return rc ? rc : w->s.err;
}

void wl_teardown(struct wl *w)
{
	if (w->sched_up)
		sim_sched_fini(&w->s);
	sim_machine_fini(&w->m);
	free(w->tasks);
	free(w->next_rx);
}
