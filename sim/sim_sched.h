/* SPDX-License-Identifier: MIT */
/*
 * sim/sim_sched.h - the simulated scheduler: CPUs, tasks, mms, the idle task
 * of each CPU, sleep and wake-up, affinity, the tick on busy CPUs only,
 * return to user space, and every context switch calling the CID policy
 * (the library's own code, lib/cid/, never a copy).
 *
 * A workload (sim/workloads/) says what tasks do through struct
 * sim_sched_ops: how long a task runs once it is on a CPU, and what
 * happens when the run ends (sleep, wake others, run again).
 *
 * Model, in the kernel's order:
 *   wake-up:  placed on its previous CPU if idle and allowed, else on an
 *             idle allowed CPU (its LLC first), else queued (FIFO) on its
 *             previous (or first allowed) CPU; a move is a migrate event;
 *   switch:   mm-mask updates (clear on prev mm, set on next; the idle mm
 *             is skipped with skip_idle_mm), then cidk_cid_switch();
 *   run:      return to user space first (compaction when due with the
 *             return-to-user trigger; its latency delays the run), then
 *             the workload's run length;
 *   tick:     every tick_ns at a per-CPU phase while a task runs (idle
 *             CPUs are tickless): cidk_cid_tick(), then return to user;
 *             the compaction latency extends the run;
 *   end:      the workload decides; a sleeping task's CPU switches to the
 *             next queued task (possibly of the same mm: a hand-over) or
 *             to idle.
 * Costs: a compaction call costs the slot visits of the CPUs it visited,
 * each by its distance (sim_scan_range_cost), plus, per CID it released (or marked for a
 * deferred release), two atomic RMWs on lines owned elsewhere (the slot and
 * the CID bitmap word), priced at the same mean visit cost; mm-mask
 * updates cost an atomic each plus a line transfer when another CPU wrote
 * that line last.
 */
#ifndef CIDKIT_SIM_SCHED_H
#define CIDKIT_SIM_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include <cidkit/cid.h>
#include <cidkit/mask.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "sim_engine.h"
#include "sim_machine.h"

/* CPUs per line of an mm's CPU mask (64 bytes). */
#define SIM_MASK_CPUS_PER_LINE 512u

struct sim_sched;

struct sim_mm {
	unsigned int id;
	struct cidk_cid_mm *cid; /* NULL for the idle mm */
	uint32_t *line_owner;	 /* per mask line: last CPU to write it */
	unsigned int nr_running;
	unsigned int nr_tasks;	 /* tasks created in it */
	uint64_t releases_seen;	 /* compaction releases already costed */
	uint64_t visited_total;	 /* CPUs its compaction visited, in all */
	uint64_t pass_start;	 /* time of the current pass's first call */
};

enum sim_task_state { SIM_SLEEPING, SIM_QUEUED, SIM_RUNNING };

struct sim_task {
	unsigned int id;
	struct sim_mm *mm;
	struct cidk_cid_task cid;
	struct cidk_mask *allowed; /* owned by the sched */
	unsigned int cpu;	   /* current or last CPU */
	enum sim_task_state state;
	struct sim_task *rq_next;
	bool exited;
	void *user;		   /* the workload's */
};

struct sim_sched_ops {
	/* @t starts running now on t->cpu: how long (ns) it runs. */
	uint64_t (*run)(struct sim_sched *s, struct sim_task *t, uint64_t now);
	/* @t's run ended: true to sleep, false to run again at once. */
	bool (*done)(struct sim_sched *s, struct sim_task *t, uint64_t now);
	/* a workload timer (sim_sched_timer) fired */
	void (*timer)(struct sim_sched *s, uint32_t arg, uint64_t now);
};

struct sim_cpu {
	struct sim_task *curr; /* NULL: idle */
	struct sim_task *rq_head, *rq_tail;
	uint64_t gen;	       /* bumped whenever curr's run end moves */
	uint64_t run_end;
	uint64_t tick_phase;
	struct sim_mm *mm;     /* the mm whose mask holds this CPU */
};

struct sim_sched_stats {
	uint64_t switches;	      /* context switches (idle counts as a task) */
	uint64_t switches_same_mm;    /* prev and next tasks of one mm */
	uint64_t mask_atomics;	      /* atomic RMWs on mm CPU masks */
	uint64_t mask_transfers;      /* of those, line moved from another CPU */
	uint64_t idle_mask_atomics;   /* ... on the idle mm's mask */
	uint64_t idle_mask_transfers;
	double mask_ns;		      /* estimated ns of mask updates */
	uint64_t wakeups, migrations, ticks;
	uint64_t scan_calls;	      /* compaction calls that visited CPUs */
	double *scan_ns;	      /* latency of each call (scan_calls of them) */
	uint64_t scan_cap;
	double *pass_ns;	      /* each full pass: first call to last call's end */
	uint64_t passes, pass_cap;
	double cid_time_sum;	      /* time-integral of the largest CID + 1 */
	uint64_t cid_time;
	unsigned int max_cid_seen;    /* largest CID held by a running task */
};

struct sim_sched {
	struct sim_machine *m;
	struct sim_engine e;
	const struct sim_sched_ops *ops;
	void *ctx; /* the workload's */
	struct sim_cpu *cpus;
	unsigned int nr_cpus;
	struct cidk_mask *idle; /* idle CPUs */
	struct sim_task **tasks;
	unsigned int nr_tasks, cap_tasks;
	struct sim_mm **mms;
	unsigned int nr_mms;
	struct sim_mm idle_mm;
	bool skip_idle_mm;
	uint64_t tick_ns;
	double atomic_ns;
	uint64_t sample_ns;	/* period of the largest-CID sampler; 0: off */
	struct sim_mm *sample_mm;
	uint64_t until;		/* stop time */
	struct sim_sched_stats st;
	int err;		/* first error from a policy or allocation */
};

int sim_sched_init(struct sim_sched *s, struct sim_machine *m,
		   const struct sim_sched_ops *ops, void *ctx, uint64_t seed);
void sim_sched_fini(struct sim_sched *s);

/* A new mm running @p; NULL on error (s->err set). */
struct sim_mm *sim_sched_mm(struct sim_sched *s, const struct cidk_cid_params *p,
			    const struct cidk_mask *first_allowed);

/*
 * A new task of @mm allowed on @allowed (NULL: every online CPU), sleeping,
 * last on CPU @cpu.  The first task of an mm is its creating task; later
 * ones are forks.  NULL on error.
 */
struct sim_task *sim_sched_task(struct sim_sched *s, struct sim_mm *mm,
				const struct cidk_mask *allowed,
				unsigned int cpu);

/* Wake @t at @now (no-op unless sleeping). */
void sim_sched_wake(struct sim_sched *s, struct sim_task *t, uint64_t now);

/* @t exits at @now (it must not be running: call from done() is fine). */
void sim_sched_exit(struct sim_sched *s, struct sim_task *t, uint64_t now);

/* A workload timer at @time with @arg. */
void sim_sched_timer(struct sim_sched *s, uint64_t time, uint32_t arg);

/* Run events until none is left or @until; returns s->err. */
int sim_sched_run(struct sim_sched *s, uint64_t until);

/* Largest CID held by a running task of @mm right now (CIDK_CID_NONE: none). */
unsigned int sim_sched_max_running_cid(const struct sim_sched *s,
				       const struct sim_mm *mm);

#endif /* CIDKIT_SIM_SCHED_H */
