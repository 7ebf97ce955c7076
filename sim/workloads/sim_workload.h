/* SPDX-License-Identifier: MIT */
/*
 * sim/workloads/sim_workload.h - the task behaviours the scheduler scenarios
 * share (periodic, messaging, pipe, rr), on top of sim/sim_sched.h.
 *
 *   periodic   a thread per online CPU, pinned, woken every 100 us (at a
 *              per-thread phase), runs 5 us: cyclictest's shape.
 *   messaging  groups of group_size senders and as many receivers
 *              (hackbench): a sender runs 2 us per message and wakes the
 *              next receiver of its group; after 8 messages it blocks for
 *              20 us (a full socket buffer); a receiver runs 1 us per wake.
 *              One mm for all, or one per group (mm_per_group).
 *   pipe, rr   pairs of tasks on two CPUs each (pipe: one pair on CPUs 0
 *              and 1; rr: a pair per two CPUs), each runs 1 us and wakes
 *              the other, so every CPU alternates task and idle.  The two
 *              sides share an mm, or not (processes).
 */
#ifndef CIDKIT_SIM_WORKLOAD_H
#define CIDKIT_SIM_WORKLOAD_H

#include <cidkit/sim.h>

#include "sim_machine.h"
#include "sim_sched.h"
#include "prng.h"

struct wl_task {
	struct sim_task *t;
	unsigned int peer;  /* pipe/rr: the other side; messaging: group */
	unsigned int sent;  /* messaging: messages sent */
	bool sender;
};

struct wl {
	const struct cidk_sim_sched_params *p;
	struct sim_machine m;
	struct sim_sched s;
	struct wl_task *tasks;
	unsigned int ntasks;
	unsigned int *next_rx; /* messaging: per group, next receiver */
	struct sim_mm *main_mm; /* the mm whose compactness is sampled */
	struct cidk__prng rng;
	bool sched_up;
};

/*
 * wl_setup - machine, scheduler, mms, tasks, and the first wake-ups of
 * p->workload.  Returns 0 or a negative errno (@err says why).
 */
int wl_setup(struct wl *w, const struct cidk_sim_sched_params *p,
	     struct cidk_topo_err *err);
void wl_teardown(struct wl *w);

#endif /* CIDKIT_SIM_WORKLOAD_H */
