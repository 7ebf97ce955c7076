/* SPDX-License-Identifier: MIT */
/*
 * check/chk.h - the interleaving explorer: threads as coroutines under one
 * deterministic scheduler, switched at the scheduling points of
 * lib/cid/cid_atomic.h.
 *
 * A *model* is a set of threads (bodies run as coroutines), a reset that
 * rebuilds the shared state before each execution, and properties.  The
 * explorer runs the model again and again, each time under one schedule
 * (which thread executes its next step at each point), and reports the
 * first property that fails, with the schedule as a trace.
 *
 * A *step* is what one thread does from one scheduling point to the
 * next: the shared-memory operation it announced at the point (its
 * *pending op*), then thread-local work up to its next point.
 *
 * Exploration (chk_explore):
 *   - depth-first over schedules with preemption bounding (CHESS: all
 *     schedules with at most P preemptions; a preemption is a switch away
 *     from a thread that could have continued), bounds 0..P in turn, so
 *     that the first violation found has the fewest preemptions; within
 *     that bound the search goes on and keeps the shortest violation;
 *   - optional sleep sets (partial-order reduction): after a step of
 *     thread a has been explored at a point, schedules that run another
 *     thread b first and a next are skipped while a's pending op is
 *     independent of everything run since (different words, or two loads);
 *   - randomized (PCT, Burckhardt et al. 2010): random thread priorities
 *     and d-1 random priority change points per execution.
 *
 * Liveness.  A thread at a SPIN point (a pause in a retry loop) is not
 * scheduled again until some step changed shared memory since its
 * previous pause; a thread at a LOCK point is not scheduled while the
 * lock word is held.  When no thread can run and not all have finished,
 * that is a violation: a live lock (spinners) or a deadlock (lock
 * waiters) -- unless every thread left waits only for the model to let
 * its next event start (enabled(): a CPU nobody leaves, a fork that never
 * comes), which is a mistake of the scenario, not of the code: verdict
 * CHK_MISTAKE.  An execution longer than max_steps is a liveness
 * violation only when its last max_steps/2 steps go round one cycle of
 * global states (state_hash, with every thread's pending op): a retry
 * loop without progress; otherwise it is a long run, cut: the search goes
 * on and ends with CHK_LIMIT when nothing else was found.
 *
 * Single-threaded, not reentrant: one exploration at a time per process.
 */
#ifndef CIDKIT_CHECK_CHK_H
#define CIDKIT_CHECK_CHK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cid/cid_atomic.h"

struct chk_fp; /* statecache.h */

#define CHK_MAX_THREADS 8
#define CHK_WHY 512

/* Ops the models announce themselves (beyond enum cidk__chk_op). */
#define CHK_OP_START 100 /* a thread's first step */
#define CHK_OP_EVENT 101 /* the start of a model event (chk_event) */
#define CHK_OP_FENCE 102 /* a seq_cst fence (chk_fence: litmus tests) */

struct chk_model {
	unsigned int nthreads;
	void *ctx;
	/* Rebuild the shared state before an execution. */
	void (*reset)(void *ctx);
	/* The body of thread @tid (runs as a coroutine). */
	void (*thread)(void *ctx, unsigned int tid);
	/* May @tid run its pending step now (besides locks and spins)? */
	bool (*enabled)(void *ctx, unsigned int tid);
	/* Properties: 0, or -1 and a one-line description in @why. */
	int (*check_step)(void *ctx, char *why, size_t len);
	/* ... when every live thread is between two events */
	int (*check_quiet)(void *ctx, char *why, size_t len);
	/* ... when every thread has finished */
	int (*check_final)(void *ctx, char *why, size_t len);
	/* Names for the trace. */
	const char *(*thread_name)(void *ctx, unsigned int tid);
	/* What @tid is doing (its event), e.g. "in 2", for the trace. */
	const char *(*thread_event)(void *ctx, unsigned int tid);
	/* The CPU @tid occupies (runs on, or is switching in or out on),
	 * or -1: the trace's cpu column (may be NULL). */
	int (*thread_cpu)(void *ctx, unsigned int tid);
	/* Why @tid, between events, cannot start its next one (liveness). */
	const char *(*waiting)(void *ctx, unsigned int tid, char *buf,
			       size_t len);
	/*
	 * Is @addr inside the shared state (may be NULL: anything is)?  A step
	 * on any other address is a corruption of the code under test (an
	 * index out of range, a CID with flag bits left in it): reported as a
	 * violation before the step runs, never a crash.
	 */
	bool (*addr_valid)(void *ctx, const void *addr);
	/* A symbolic name for a shared address, or NULL. */
	const char *(*addr_name)(void *ctx, const void *addr, char *buf,
				 size_t len);
	/* A plain access's value (chk_opts.plain_points) as the trace shows
	 * it, e.g. a pointer as a stable number (may be NULL: as it is). */
	uint64_t (*plain_value)(void *ctx, uint64_t v);
	/* Print the shared state after a violation (may be NULL). */
	void (*dump)(void *ctx, FILE *f);
	/* A hash of the shared state, for counting distinct states (or NULL). */
	uint64_t (*state_hash)(void *ctx);
	/*
	 * The state cache (chk_opts.state_cache; may be NULL: no cache):
	 * mix into @f everything of the model that a thread or a check may
	 * read later -- all of the shared state, the model's own per-execution
	 * state, the properties' -- so that two states with the same bytes
	 * have the same futures.  Leaving a field out is unsound; adding one
	 * that does not matter only costs cache hits.
	 */
	void (*full_state)(void *ctx, struct chk_fp *f);
};

/*
 * One directive of a replay, for thread @tid: run it for @steps steps, or
 * until it has finished @events events, or until its next step is in
 * function @until for the @nth time (entries: the steps before were
 * elsewhere), or (none of these) for as long as it can run.  @stop: no
 * thread; the execution ends here, without the final checks.
 */
struct chk_replay {
	unsigned int tid;
	unsigned long steps, events, nth;
	const char *until;
	bool stop;
	/* > 0 (with steps 1): the step's memory way (check/memory.h) */
	unsigned int way;
};

#define CHK_MAX_BOUND 8 /* the largest preemption bound */

/*
 * Sharding (check/shard.c): at each preemption bound, the DFS tree is cut
 * into *units*, subtrees numbered from 0 in DFS order.  Each execution
 * that does not start inside a unit starts a new one, rooted at the first
 * of its fresh nodes (those past the point it backed up to) whose subtree
 * is estimated at most 1/@units of the bound's tree, or at its end (a
 * unit of one schedule).  The estimate comes from the execution itself
 * (explore_shard.c, estimates()).  Every part walks the same nodes above the
 * units as one unsharded search does (so sleep sets carry the same state
 * down) and explores a unit -- counting its first execution -- only when
 * mine() says so; @estimate is the unit's estimated size.
 */
struct chk_shard {
	bool (*mine)(void *arg, unsigned int bound, unsigned long unit,
		     double estimate);
	void *arg;
	unsigned long units;
	/* count the bound's cuts above every unit (the region each part
	 * walks alike): one part does, so that the parts' cuts add up */
	bool count_top;
};

struct chk_opts {
	unsigned int preemptions; /* P: the bound */
	unsigned long max_steps;  /* per execution */
	unsigned long max_schedules; /* 0: no limit */
	bool sleep_sets;
	unsigned long random;	  /* > 0: PCT executions instead of DFS */
	uint64_t seed;
	unsigned int pct_depth;	  /* d: priority change points + 1 */
	bool keep_searching;	  /* after a violation, look for a shorter one
				     within the same preemption bound */
	/* > 0: one execution that follows these directives, then goes on
	 * without preemption (instead of DFS or PCT); the trace and the
	 * state at its end are kept whatever the verdict */
	const struct chk_replay *replay;
	unsigned int nreplay;
	/* replay: keep the state (dump) after every step in the trace */
	bool state_every_step;
	/* progress callback, every ~2^14 executions (or NULL) */
	void (*progress)(void *arg, unsigned long schedules);
	void *progress_arg;
	/* explore only the units mine() takes (or NULL: the whole tree) */
	const struct chk_shard *shard;
	/* keep the distinct states' hashes in the result (chk_result) */
	bool export_states;
	/* the memory model (check/memory.h, enum chk_memory; 0: sc) and the
	 * most weak choices (older store read or placed) per schedule; the
	 * models but sc need sleep_sets false */
	unsigned int memory;
	unsigned int weak_bound;
	/* DFS: skip states explored before (check/statecache.h); false:
	 * the stateless search, as before the cache (--state-cache off) */
	bool state_cache;
	/* the task list's plain loads and stores are scheduling points too
	 * (cid_atomic.h, cidk__lld/cidk__lst) */
	bool plain_points;
};

enum chk_verdict {
	CHK_PASS,     /* the bounded space holds no violation */
	CHK_VIOLATION,
	CHK_LIMIT,    /* max_schedules reached before the space was done, or
		       * max_steps cut an execution that was not a loop */
	CHK_MISTAKE,  /* the scenario cannot finish by its own script */
};

/* One executed step, for the trace. */
struct chk_step {
	unsigned int tid;
	int cpu;		 /* the CPU the thread occupies before the step
				    (thread_cpu), or -1 */
	int op;			 /* enum cidk__chk_op or CHK_OP_* */
	const void *addr;
	struct cidk__site site;
	uint64_t found, left;
	bool has_values;
	bool preempt;		 /* this step is an explorer switch: the
				    previous thread could have gone on */
	char event[48];		 /* the thread's event at the time */
	uint8_t way;		 /* its memory way (0: the newest store) */
	char addr_name[32];	 /* filled when the trace is kept */
	char *state;		 /* the state after the step (malloc'd;
				    replay with state_every_step), or NULL */
};

struct chk_result {
	enum chk_verdict verdict;
	unsigned long schedules;  /* executions run */
	unsigned long steps;	  /* steps executed, over all executions */
	unsigned long states;	  /* distinct state hashes seen (0: no hash) */
	unsigned int bound;	  /* the preemption bound reached */
	/* what the bounds left out (DFS; 0 and 0 with nothing found: the
	 * search was exhaustive) */
	unsigned long cut;	  /* choices the preemption bound refused at the
				     last bound, each one or more schedules */
	unsigned long step_cuts;  /* executions cut by max_steps (no loop) */
	unsigned long starved;	  /* executions cut by max_steps in a cycle
				     that starved a thread able to run:
				     unfair, dropped (not a verdict) */
	bool schedule_limit;	  /* max_schedules stopped the search */
	double seconds;
	/* the violation (verdict CHK_VIOLATION) */
	char property[32];	  /* "safety", "quiescence", "final", "liveness",
				     "corruption"; "scenario" (CHK_MISTAKE) */
	char why[CHK_WHY];
	struct chk_step *trace;	  /* malloc'd; chk_result_free() */
	unsigned int trace_len;
	unsigned int trace_preemptions;
	char *dump;		  /* the state at the violation, or at the end
				     of a replay (malloc'd) */
	bool stopped;		  /* a replay ended at a stop directive */
	/* schedules and steps counted at each bound (DFS) */
	unsigned long bound_schedules[CHK_MAX_BOUND + 1];
	unsigned long bound_steps[CHK_MAX_BOUND + 1];
	unsigned long bound_step_cuts[CHK_MAX_BOUND + 1];
	unsigned long bound_starved[CHK_MAX_BOUND + 1];
	unsigned long unit;	  /* the shard unit of the kept violation */
	/* with export_states: the hashes and the bound at which each was
	 * first seen (malloc'd; chk_result_free()) */
	uint64_t *hashes;
	uint8_t *hash_bound;
	unsigned long nhashes;
	/* state_cache: states recorded, executions it ended (hits) */
	unsigned long cache_states, cache_hits;
};

/*
 * Run the exploration; returns 0, or -ENOMEM, or -EINVAL for a replay
 * that cannot be followed (why in r->why).
 */
int chk_explore(const struct chk_model *m, const struct chk_opts *o,
		struct chk_result *r);
void chk_result_free(struct chk_result *r);

/* Can this build cache states (chk_opts.state_cache)?  Not where the
 * coroutines' locals may live off their stacks (ASan's fake stacks) or
 * the switch is ucontext's. */
bool chk_state_cache_available(void);

/*
 * Inside a thread body: announce the start of a model event (a scheduling
 * point of kind CHK_OP_EVENT); the model's enabled() decides when it may
 * run.
 */
void chk_event(void);

/* Inside a thread body: a seq_cst fence (a scheduling point). */
void chk_fence(void);

/* Inside a thread body: the running thread's id. */
unsigned int chk_self(void);

/* Print a trace, human or JSON (one object, no trailing newline). */
void chk_print_trace(FILE *f, const struct chk_model *m,
		     const struct chk_result *r);
/* For other writers of the trace: a step's operation ("load", ...), its
 * source file from lib/cid/ on, and its "what" column. */
const char *chk_op_name(int op);
const char *chk_short_file(const char *f);
void chk_step_what(const struct chk_step *s, char *buf, size_t len);

#endif /* CIDKIT_CHECK_CHK_H */
