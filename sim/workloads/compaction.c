/* SPDX-License-Identifier: MIT */
/*
 * The compaction-test scenario: the kernel's mm_cid compaction selftest,
 * simulated.  One thread pinned per CPU bursts 10 us every 1 ms for 200 ms,
 * so that CIDs span 0..nproc-1.  Then a thread whose CID is >= nproc/2
 * becomes the leader and every other thread exits; the leader bursts 2 us
 * every 10 ms and must see CID 0 within the bound.  With the tick trigger a
 * tick rarely lands in a 2 us burst, which is why the return-to-user
 * trigger was proposed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cidkit_lab.h"
#include "prng.h"
#include "sim_workload.h"

#define MS 1000000ull

enum { WARM_PERIOD = 1 * MS, WARM_RUN = 10000, WARMUP = 200 * MS };
enum { LEAD_PERIOD = 10 * MS, LEAD_RUN = 2000 };

struct ctest {
	struct sim_machine m;
	struct sim_sched s;
	struct sim_mm *mm;
	struct sim_task **th;
	unsigned int n;
	unsigned int leader; /* n: not chosen yet */
	unsigned int leader_cid;
	bool exiting;
	uint64_t exit_time, seen_zero;
	bool done;
	bool sched_up;
};

static uint64_t ct_run(struct sim_sched *s, struct sim_task *t, uint64_t now)
{
	struct ctest *c = s->ctx;

	if (c->exiting && t->id == c->leader) {
		if (t->cid.cid == 0 && !c->done) {
			c->done = true;
			c->seen_zero = now;
		}
		return LEAD_RUN;
	}
	return WARM_RUN;
}

static bool ct_done(struct sim_sched *s, struct sim_task *t, uint64_t now)
{
	struct ctest *c = s->ctx;

	if (c->exiting && t->id != c->leader)
		sim_sched_exit(s, t, now);
	return true;
}

static void choose_leader(struct ctest *c, uint64_t now)
{
	unsigned int best = 0;

	c->leader = c->n;
	for (unsigned int i = 0; i < c->n; i++) {
		unsigned int cid = c->th[i]->cid.last_cid;

		if (cid != CIDK_CID_NONE && cid >= c->n / 2 && c->leader == c->n)
			c->leader = i;
		if (cid != CIDK_CID_NONE && cid > c->th[best]->cid.last_cid)
			best = i;
	}
	if (c->leader == c->n)
		c->leader = best; /* no CID that high: the highest there is */
	c->leader_cid = c->th[c->leader]->cid.last_cid;
	c->exiting = true;
	c->exit_time = now;
	for (unsigned int i = 0; i < c->n; i++)
		if (i != c->leader && c->th[i]->state == SIM_SLEEPING)
			sim_sched_exit(&c->s, c->th[i], now);
}

static void ct_timer(struct sim_sched *s, uint32_t arg, uint64_t now)
{
	struct ctest *c = s->ctx;

	if (arg == c->n) {
		choose_leader(c, now);
		return;
	}
	if (c->th[arg]->exited)
		return;
	sim_sched_wake(s, c->th[arg], now);
	sim_sched_timer(s, now + (c->exiting ? LEAD_PERIOD : WARM_PERIOD), arg);
}

static const struct sim_sched_ops ct_ops = {
	.run = ct_run,
	.done = ct_done,
	.timer = ct_timer,
};

static int ct_setup(struct ctest *c, const struct cidk_sim_sched_params *p,
		    struct cidk_topo_err *err)
{
	struct cidk_cid_params cp;
	struct cidk__prng rng;
	struct cidk_mask *pin;
	unsigned int cpu;
	int rc;

	rc = sim_machine_init(&c->m, p->machine, err);
	if (rc)
		return rc;
	rc = sim_sched_init(&c->s, &c->m, &ct_ops, c, p->seed);
	c->sched_up = true;
	if (rc)
		return rc;
	c->s.tick_ns = p->tick_ns;
	c->n = cidk_topo_nr_online(c->m.topo);
	c->th = calloc(c->n, sizeof(*c->th));
	pin = cidk_mask_alloc(c->m.nr_cpu_ids);
	if (!c->th || !pin) {
		cidk_mask_free(pin);
		return -ENOMEM;
	}
	cidk_cid_params_default(&cp, p->policy);
	cp.trigger = p->trigger;
	if (p->batch)
		cp.batch = p->batch;
	cidk__prng_seed(&rng, p->seed);
	cidk_mask_for_each(cpu, cidk_topo_online(c->m.topo)) {
		unsigned int i = c->s.nr_tasks;

		cidk_mask_zero(pin);
		cidk_mask_set(pin, cpu);
		if (!c->mm)
			c->mm = sim_sched_mm(&c->s, &cp, pin);
		if (!c->mm)
			break;
		c->th[i] = sim_sched_task(&c->s, c->mm, pin, cpu);
		if (!c->th[i])
			break;
		sim_sched_timer(&c->s, cidk__prng_below(&rng, WARM_PERIOD), i);
	}
	cidk_mask_free(pin);
	if (c->s.err)
		return c->s.err;
	sim_sched_timer(&c->s, WARMUP, c->n);
	return 0;
}

int cidk_sim_compaction(const struct cidk_sim_sched_params *p,
			uint64_t bound_ns, struct cidk_sim_compaction_result *r,
			struct cidk_topo_err *err)
{
	uint64_t t0 = cidk__now_ns(), step = 10 * MS;
	struct ctest c;
	int rc;

	memset(r, 0, sizeof(*r));
	memset(&c, 0, sizeof(c));
	memset(err, 0, sizeof(*err));
	if (!bound_ns || !p->tick_ns ||
	    (unsigned int)p->policy >= CIDK_CID_NR_POLICIES) {
		snprintf(err->msg, sizeof(err->msg), "bad scenario parameters");
		return -EINVAL;
	}
	rc = ct_setup(&c, p, err);
	/* run in steps so that the run stops soon after the leader saw 0 */
	for (uint64_t t = step; !rc && !c.done && t <= WARMUP + bound_ns; t += step)
		rc = sim_sched_run(&c.s, t);
	if (rc)
		goto out;
	r->nr_cpus = c.n;
	r->leader_cid = c.leader_cid;
	r->passed = c.done && c.seen_zero <= c.exit_time + bound_ns;
	r->converge_ms = c.done ? (double)(c.seen_zero - c.exit_time) / 1e6 : 0;
	r->events = c.s.e.processed;
out:
	if (c.sched_up)
		sim_sched_fini(&c.s);
	sim_machine_fini(&c.m);
	free(c.th);
	r->host_seconds = (double)(cidk__now_ns() - t0) / 1e9;
	return rc;
}
