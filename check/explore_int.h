/* SPDX-License-Identifier: MIT */
/*
 * check/explore_int.h - INTERNAL to the explorer (explore*.c): its state
 * and the functions its files share.  Nothing outside check/explore*.c
 * includes this; the explorer's interface is chk.h.
 *
 * explore.c: the coroutines, the hooks lib/cid calls, one execution
 * (chk_xp_run_one), the DFS and chk_explore; explore_cache.c: the state
 * cache's fingerprint of the current state (statecache.h);
 * explore_why.c: the messages of a corruption or liveness violation;
 * explore_replay.c: --replay; explore_pct.c: --random (PCT);
 * explore_shard.c: the parts of a sharded search.
 */
#ifndef CIDKIT_CHECK_EXPLORE_INT_H
#define CIDKIT_CHECK_EXPLORE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chk.h"
#include "coro.h"
#include "statecache.h"
#include "prng.h"

#ifdef __SANITIZE_ADDRESS__
#define CHK_ASAN 1
#endif

#define STACK_SIZE (256u * 1024)
#define NO_THREAD 0xffu
#define CHK_MAX_LOCKS 80

struct thr {
	struct coro co;
	bool finished;
	int op;			/* the pending op */
	unsigned int acc;	/* its width and order (CIDK__ACC) */
	const void *addr;
	struct cidk__site site;
	uint64_t spin_epoch;	/* write epoch when its last SPIN ran */
};

struct pend {
	int op;
	const void *addr;
};

/* One point of the current schedule. */
struct node {
	uint8_t enabled, chosen, done, sleep, prev;
	uint8_t cut;	       /* choices the bound refused (counted once) */
	unsigned int preempts; /* preemptions before this point */
	/* memory ways (check/memory.h) of the chosen thread's step: taken,
	 * offered, weak choices before this point, refused by the bound */
	uint8_t way, ways, wcut;
	unsigned int weak;
	struct pend pend[CHK_MAX_THREADS];
	struct chk_fp fp;      /* the state here (state cache) */
};

/* The exploration in progress (one per process): chk_xp, below. */
struct chk_xp {
	const struct chk_model *m;
	const struct chk_opts *o;
	struct thr t[CHK_MAX_THREADS];
	struct coro main_co;
	unsigned int cur;	/* the running thread, or NO_THREAD */
	bool in_thread;
	bool corrupt;		/* X.cur's pending step is outside the state */
	uint64_t write_epoch;
	/* the current execution */
	struct chk_step *log;
	unsigned long nlog, cap;
	uint64_t *hist;		/* the state hash after each step */
	unsigned long hist_cap;
	bool states_kept;	/* the log's states moved to a result */
	/* the search */
	struct node *nodes;
	unsigned long nnodes, target, nodes_cap;
	unsigned int bound;
	unsigned long cut;	/* choices refused by the last bound */
	/* replay: the directive being followed, what it counted so far,
	 * whether it picked the last step, was its thread inside @until */
	unsigned int ri;
	unsigned long rn;
	bool rpicked, rinside, rstop;
	char replay_err[CHK_WHY];
	/* PCT */
	struct cidk__prng rng;
	unsigned int prio[CHK_MAX_THREADS];
	unsigned long change_at[8];
	unsigned int nchange;
	/* distinct states, and the bound at which each was first seen */
	uint64_t *set;
	uint8_t *setb;
	unsigned long set_cap, set_n;
	/* sharding (chk_opts.shard): the current unit's root depth, the
	 * next unit's number and the current one's, is the search inside a
	 * unit of ours, the largest estimate of a unit (0: not known yet) */
	unsigned long unit_root, unit, cur_unit;
	bool admitted;
	double thresh;
	/* lock holders, for liveness messages and lock-owner: a runqueue
	 * lock per CPU (up to SCN_MAX_CPUS), the mutexes, the kernel
	 * policy's pi_locks; an unlock by a thread that does not hold the
	 * lock (lock_why: its message), unless the table overflowed */
	const void *lock_addr[CHK_MAX_LOCKS];
	unsigned int lock_holder[CHK_MAX_LOCKS];
	unsigned int nlocks;
	bool locks_overflow;
	bool bad_unlock;
	char lock_why[CHK_WHY];
	/* the state cache (statecache.h), each thread's stack fingerprint */
	struct sc_table *sc;
	struct chk_fp stack_fp[CHK_MAX_THREADS];
	unsigned long sc_hits;
	size_t stack_zero;	/* the top of each stack zeroed per execution */
	uint8_t stack_dirty;	/* threads run since their stack_fp */
#ifdef CHK_ASAN
	void *fake_stack;
#endif
};

/* The one exploration (explore.c); X is its short name in explore*.c. */
extern struct chk_xp chk_xp;
#define X chk_xp

struct exec_out {
	bool violation;
	bool mistake;	 /* with violation: the scenario's, not the code's */
	bool step_cut;	 /* max_steps reached, no loop: inconclusive */
	bool starved;	 /* max_steps reached in a cycle that starves a
			    thread: an unfair schedule, dropped */
	char property[32];
	char why[CHK_WHY];
	bool cut; /* stopped by the sleep sets: covered elsewhere */
};

enum mode { DFS, PCT, REPLAY };

/* explore.c */
int chk_xp_run_one(struct exec_out *out, enum mode mode);
int chk_xp_save_trace(struct chk_result *r);
int chk_xp_keep(struct chk_result *r, const struct exec_out *out);

/* explore_cache.c: the fingerprint of the state before step @step, the
 * last thread @last, into @f; an execution that met max_steps at @step
 * taints the states on its path. */
void chk_xp_state_fp(struct chk_fp *f, unsigned long step, unsigned int last);
void chk_xp_cache_taint(unsigned long step);

/* explore_why.c */
void chk_xp_corrupt_why(unsigned int tid, char *why, size_t len);
bool chk_xp_only_events_wait(void);
void chk_xp_liveness_why(char *why, size_t len);
/* Why thread @i cannot take its next step (the length written). */
size_t chk_xp_wait_why(unsigned int i, char *why, size_t len);

/* explore_replay.c */
int chk_xp_replay_pick(uint8_t e, unsigned int last, unsigned int *c);
int chk_xp_replay(struct chk_result *r);

/* explore_pct.c */
int chk_xp_pct(struct chk_result *r);

/* explore_shard.c */
bool chk_xp_cut_counts(unsigned long i);
int chk_xp_shard_unit(bool *mine);

#endif /* CIDKIT_CHECK_EXPLORE_INT_H */
