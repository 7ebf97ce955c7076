/* SPDX-License-Identifier: MIT */
/*
 * check/explore.c - the scheduler and the schedule search (see
 * chk.h for what they promise).
 *
 * Threads are coroutines (coro.h) on stacks allocated once.  Control
 * passes to a thread only from the scheduler (run_step) and back only at
 * the thread's next scheduling point (cidk__chk_before) or when its body
 * returns, so exactly one thread runs at a time and every execution is a
 * pure function of its schedule.
 *
 * Workload: small models (<= 8 threads, a few hundred steps), executed
 * from scratch 10^3..10^6 times: an execution is a reset plus its steps;
 * the search keeps one node per step of the current schedule.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chk.h"
#include "coro.h"
#include "memory.h"
#include "statecache.h"
#include "util/prng.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define CHK_ASAN 1
#endif

#define STACK_SIZE (256u * 1024)
#define NO_THREAD 0xffu

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

/* The exploration in progress (one per process). */
static struct {
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
	/* lock holders, for liveness messages */
	const void *lock_addr[16];
	unsigned int lock_holder[16];
	unsigned int nlocks;
	/* the state cache (statecache.h), each thread's stack fingerprint */
	struct sc_table *sc;
	struct chk_fp stack_fp[CHK_MAX_THREADS];
	unsigned long sc_hits;
	size_t stack_zero;	/* the top of each stack zeroed per execution */
	uint8_t stack_dirty;	/* threads run since their stack_fp */
#ifdef CHK_ASAN
	void *fake_stack;
#endif
} X;

/* ---- coroutines --------------------------------------------------------------- */

static void to_thread(unsigned int tid)
{
	X.cur = tid;
	X.in_thread = true;
#ifdef CHK_ASAN
	__sanitizer_start_switch_fiber(&X.fake_stack, X.t[tid].co.stack,
				       STACK_SIZE);
#endif
	coro_switch(&X.main_co, &X.t[tid].co);
#ifdef CHK_ASAN
	__sanitizer_finish_switch_fiber(X.fake_stack, NULL, NULL);
#endif
	X.in_thread = false;
}

static void to_main(void)
{
	struct thr *t = &X.t[X.cur];

#ifdef CHK_ASAN
	void *fake = NULL;

	__sanitizer_start_switch_fiber(t->finished ? NULL : &fake, NULL, 0);
#endif
	coro_switch(&t->co, &X.main_co);
#ifdef CHK_ASAN
	__sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
}

static void trampoline(void)
{
	unsigned int tid = X.cur;

#ifdef CHK_ASAN
	__sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
	X.m->thread(X.m->ctx, tid);
	X.t[tid].finished = true;
	to_main();
	abort(); /* a finished thread is never resumed */
}

static int threads_init(void)
{
	for (unsigned int i = 0; i < X.m->nthreads; i++) {
		struct thr *t = &X.t[i];

		if (!t->co.stack && !(t->co.stack = malloc(STACK_SIZE)))
			return -ENOMEM;
		t->co.size = STACK_SIZE;
		if (X.sc)
			sc_stack_clear(t->co.stack, STACK_SIZE, &X.stack_zero);
#ifdef CHK_ASAN
		/* an abandoned coroutine leaves its frames' poison behind */
		__asan_unpoison_memory_region(t->co.stack, STACK_SIZE);
#endif
		coro_init(&t->co, trampoline);
		t->finished = false;
		t->op = CHK_OP_START;
		t->acc = 0;
		t->addr = NULL;
		memset(&t->site, 0, sizeof(t->site));
		t->spin_epoch = UINT64_MAX;
	}
	return 0;
}

/* ---- state cache hooks (statecache.h says what a state is) ---------------- */

bool chk_state_cache_available(void)
{
#if defined(CHK_ASAN) || !defined(__x86_64__)
	return false;
#else
	return true;
#endif
}

/*
 * The whole state before step @step, the last thread @last: the model's
 * (full_state), every thread's (finished, pending step, SPIN able to run,
 * stack) and the scheduler's (the depth, the last thread).
 */
static void state_fp(struct chk_fp *f, unsigned long step, unsigned int last)
{
	for (unsigned int i = 0; i < X.m->nthreads; i++)
		if (X.stack_dirty & (1u << i))
			sc_stack_fp(&X.t[i].co, X.t[i].finished,
				    &X.stack_fp[i]);
	X.stack_dirty = 0;
	chk_fp_init(f);
	chk_fp_u64(f, step);
	chk_fp_u64(f, last);
	for (unsigned int i = 0; i < X.m->nthreads; i++) {
		const struct thr *t = &X.t[i];

		chk_fp_u64(f, (uint64_t)(unsigned int)t->op << 2 |
				      (uint64_t)t->finished << 1 |
				      (t->spin_epoch == X.write_epoch));
		chk_fp_u64(f, (uint64_t)(uintptr_t)t->addr);
		chk_fp_u64(f, (uint64_t)(uintptr_t)t->site.file);
		chk_fp_u64(f, (uint64_t)(uintptr_t)t->site.func ^
				      (uint64_t)t->site.line << 48);
		chk_fp_u64(f, X.stack_fp[i].a);
		chk_fp_u64(f, X.stack_fp[i].b);
	}
	X.m->full_state(X.m->ctx, f);
}

/* An execution met max_steps: the states on its path are explored again. */
static void cache_taint(unsigned long step)
{
	for (unsigned long i = 0; i < step; i++)
		sc_taint(X.sc, &X.nodes[i].fp);
}

static void threads_free(void)
{
	for (unsigned int i = 0; i < CHK_MAX_THREADS; i++) {
		free(X.t[i].co.stack);
		X.t[i].co.stack = NULL;
	}
}

/* ---- the hooks lib/cid calls (cid_atomic.h) -------------------------------- */

unsigned int cidk__chk_mutant;

void cidk__chk_before(const struct cidk__site *s, enum cidk__chk_op op,
		      const void *addr)
{
	struct thr *t;

	if (!X.in_thread)
		return; /* setup and checks run outside the threads */
	t = &X.t[X.cur];
	t->op = (int)((unsigned int)op & 0xffu);
	t->acc = (unsigned int)op >> 8;
	t->addr = addr;
	if (s)
		t->site = *s;
	else
		memset(&t->site, 0, sizeof(t->site));
	if (t->op <= CIDK__OP_UNLOCK && X.m->addr_valid &&
	    !X.m->addr_valid(X.m->ctx, addr))
		X.corrupt = true; /* the thread never runs this step */
	to_main();
}

static bool is_write(int op)
{
	return op == CIDK__OP_STORE || op == CIDK__OP_RMW ||
	       op == CIDK__OP_CAS || op == CIDK__OP_LOCK ||
	       op == CIDK__OP_UNLOCK;
}

static void note_lock(const void *addr, unsigned int holder)
{
	unsigned int i;

	for (i = 0; i < X.nlocks; i++)
		if (X.lock_addr[i] == addr)
			break;
	if (i == X.nlocks) {
		if (X.nlocks == 16)
			return;
		X.nlocks++;
	}
	X.lock_addr[i] = addr;
	X.lock_holder[i] = holder;
}

void cidk__chk_after(uint64_t found, uint64_t left)
{
	struct chk_step *st;
	int op;

	if (!X.in_thread || !X.nlog)
		return;
	chk_mem_access(found, left);
	st = &X.log[X.nlog - 1];
	op = st->op;
	st->found = found;
	st->left = left;
	st->has_values = true;
	if (op == CIDK__OP_LOCK)
		note_lock(st->addr, X.cur);
	else if (op == CIDK__OP_UNLOCK)
		note_lock(st->addr, NO_THREAD);
	if (op == CIDK__OP_LOCK || op == CIDK__OP_UNLOCK ||
	    (is_write(op) && found != left))
		X.write_epoch++;
}

void chk_event(void)
{
	cidk__chk_before(NULL, (enum cidk__chk_op)CHK_OP_EVENT, NULL);
}

void chk_fence(void)
{
	cidk__chk_before(NULL, (enum cidk__chk_op)CHK_OP_FENCE, NULL);
}

unsigned int chk_self(void)
{
	return X.cur;
}

/* ---- one execution ----------------------------------------------------------- */

static bool enabled(unsigned int tid)
{
	const struct thr *t = &X.t[tid];

	if (t->finished)
		return false;
	if (t->op == CHK_OP_START || t->op == CHK_OP_EVENT)
		return !X.m->enabled || X.m->enabled(X.m->ctx, tid);
	if (t->op == CIDK__OP_LOCK)
		return atomic_load_explicit((const _Atomic unsigned int *)t->addr,
					    memory_order_relaxed) == 0;
	if (t->op == CIDK__OP_SPIN)
		return t->spin_epoch != X.write_epoch;
	return true;
}

static uint8_t enabled_set(void)
{
	uint8_t e = 0;

	for (unsigned int i = 0; i < X.m->nthreads; i++)
		if (enabled(i))
			e |= (uint8_t)(1u << i);
	return e;
}

static bool all_finished(void)
{
	for (unsigned int i = 0; i < X.m->nthreads; i++)
		if (!X.t[i].finished)
			return false;
	return true;
}

static bool quiet(void)
{
	for (unsigned int i = 0; i < X.m->nthreads; i++)
		if (!X.t[i].finished && X.t[i].op != CHK_OP_START &&
		    X.t[i].op != CHK_OP_EVENT)
			return false;
	return true;
}

/* Two pending ops that commute (sleep sets): different words, or loads. */
static bool independent(const struct pend *a, const struct pend *b)
{
	if (a->op >= CHK_OP_START || b->op >= CHK_OP_START ||
	    a->op == CIDK__OP_SPIN || b->op == CIDK__OP_SPIN)
		return false;
	if (a->addr != b->addr)
		return true;
	return !is_write(a->op) && !is_write(b->op);
}

static char *capture_dump(void);

/* Make room for element @i of the array *@v of *@cap elements of @size. */
static int grow(void **v, unsigned long *cap, unsigned long i, size_t size)
{
	unsigned long n = *cap ? *cap : 1024;
	void *nv;

	if (i < *cap)
		return 0;
	while (n <= i)
		n *= 2;
	nv = realloc(*v, n * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = n;
	return 0;
}

static int log_step(unsigned int tid, bool preempt)
{
	struct chk_step *st;
	const char *ev;

	if (grow((void **)&X.log, &X.cap, X.nlog, sizeof(*X.log)))
		return -ENOMEM;
	st = &X.log[X.nlog++];
	memset(st, 0, sizeof(*st));
	st->tid = tid;
	st->op = X.t[tid].op;
	st->addr = X.t[tid].addr;
	st->site = X.t[tid].site;
	st->preempt = preempt;
	st->cpu = X.m->thread_cpu ? X.m->thread_cpu(X.m->ctx, tid) : -1;
	ev = X.m->thread_event ? X.m->thread_event(X.m->ctx, tid) : NULL;
	if (ev) /* (not snprintf: a third of all the instructions, callgrind) */
		memcpy(st->event, ev, strnlen(ev, sizeof(st->event) - 1));
	return 0;
}

static int node_at(unsigned long i)
{
	return grow((void **)&X.nodes, &X.nodes_cap, i, sizeof(*X.nodes));
}

static void set_add(uint64_t h)
{
	unsigned long i;

	if (!h)
		h = 1;
	if (2 * (X.set_n + 1) > X.set_cap) {
		unsigned long cap = X.set_cap ? 2 * X.set_cap : 4096;
		uint64_t *v = calloc(cap, sizeof(*v));
		uint8_t *vb = calloc(cap, 1);

		if (!v || !vb) {
			free(v);
			free(vb);
			return; /* counting is best effort */
		}
		for (unsigned long j = 0; j < X.set_cap; j++) {
			uint64_t k = X.set[j];

			if (!k)
				continue;
			for (i = k & (cap - 1); v[i]; i = (i + 1) & (cap - 1))
				;
			v[i] = k;
			vb[i] = X.setb[j];
		}
		free(X.set);
		free(X.setb);
		X.set = v;
		X.setb = vb;
		X.set_cap = cap;
	}
	for (i = h & (X.set_cap - 1); X.set[i]; i = (i + 1) & (X.set_cap - 1))
		if (X.set[i] == h)
			return;
	X.set[i] = h;
	X.setb[i] = (uint8_t)X.bound;
	X.set_n++;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

/* Count the state after step @step; keep its hash for loop detection. */
static void count_state(unsigned long step)
{
	uint64_t h;

	if (!X.m->state_hash)
		return;
	h = X.m->state_hash(X.m->ctx);
	for (unsigned int i = 0; i < X.m->nthreads; i++) {
		/* the op and its line: addresses move with each reset */
		h = mix(h, (uint64_t)X.t[i].op << 1 | X.t[i].finished);
		h = mix(h, X.t[i].site.line);
	}
	set_add(h);
	if (!grow((void **)&X.hist, &X.hist_cap, step, sizeof(*X.hist)))
		X.hist[step] = h;
}

/*
 * An execution cut at @n steps: has it gone round one cycle of global
 * states for its last n/2 steps (the same state every @period steps, for
 * some period up to n/4)?  That is a retry loop that makes no progress
 * (as far as the shared state and the threads' pending steps tell: a
 * thread's local variables are not in the hash).  A long run that still
 * changes the state is not.  0: no loop, else the period.
 */
static unsigned long loop_period(unsigned long n)
{
	if (!X.m->state_hash || n < 8 || X.hist_cap < n)
		return 0;
	for (unsigned long period = 1; period <= n / 4; period++) {
		unsigned long k;

		for (k = n / 2 + period; k < n; k++)
			if (X.hist[k] != X.hist[k - period])
				break;
		if (k == n)
			return period;
	}
	return 0;
}

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

static const char *const op_names[] = {
	[CIDK__OP_LOAD] = "load", [CIDK__OP_STORE] = "store",
	[CIDK__OP_RMW] = "rmw", [CIDK__OP_CAS] = "cas",
	[CIDK__OP_LOCK] = "lock", [CIDK__OP_UNLOCK] = "unlock",
};

/* @tid's pending step would touch memory outside the shared state. */
static void corrupt_why(unsigned int tid, char *why, size_t len)
{
	const struct thr *t = &X.t[tid];

	snprintf(why, len,
		 "%s's next step, %s at %s:%u %s, is on an address outside "
		 "the shared state (an index out of range, or a CID with flag "
		 "bits left in it); it was not run",
		 X.m->thread_name(X.m->ctx, tid), op_names[t->op],
		 chk_short_file(t->site.file), t->site.line,
		 t->site.func ? t->site.func : "?");
}

/*
 * Nothing can run, and every thread left waits at the start of an event
 * (the model does not enable it: its CPU is taken, it is not forked):
 * the scenario's script cannot finish, whatever the code under test does.
 */
static bool only_events_wait(void)
{
	for (unsigned int i = 0; i < X.m->nthreads; i++)
		if (!X.t[i].finished && X.t[i].op != CHK_OP_START &&
		    X.t[i].op != CHK_OP_EVENT)
			return false;
	return true;
}

static void liveness_why(char *why, size_t len)
{
	size_t n = 0;

	for (unsigned int i = 0; i < X.m->nthreads && n < len; i++) {
		const struct thr *t = &X.t[i];
		const char *name = X.m->thread_name(X.m->ctx, i);

		if (t->finished)
			continue;
		if (t->op == CIDK__OP_SPIN) {
			n += (size_t)snprintf(why + n, len - n,
					      "%s%s spins in %s (%s:%u) and no other thread can change what it waits for",
					      n ? "; " : "", name, t->site.func,
					      chk_short_file(t->site.file), t->site.line);
		} else if (t->op == CIDK__OP_LOCK) {
			const char *holder = "?";
			char buf[64];
			const char *an = X.m->addr_name ?
				X.m->addr_name(X.m->ctx, t->addr, buf, sizeof(buf)) : NULL;

			for (unsigned int j = 0; j < X.nlocks; j++)
				if (X.lock_addr[j] == t->addr &&
				    X.lock_holder[j] != NO_THREAD)
					holder = X.m->thread_name(X.m->ctx,
								  X.lock_holder[j]);
			n += (size_t)snprintf(why + n, len - n,
					      "%s%s waits in %s (%s:%u) for lock %s, held by %s",
					      n ? "; " : "", name, t->site.func,
					      chk_short_file(t->site.file), t->site.line,
					      an ? an : "?", holder);
		} else {
			char buf[96];
			const char *w = X.m->waiting ?
				X.m->waiting(X.m->ctx, i, buf, sizeof(buf)) : NULL;

			n += (size_t)snprintf(why + n, len - n, "%s%s %s",
					      n ? "; " : "", name,
					      w ? w : "cannot start its next event");
		}
	}
}

enum mode { DFS, PCT, REPLAY };

/*
 * The memory way (check/memory.h) of step @step, offered @ways after
 * @weak weak choices: the node's (DFS; way 0 on a fresh node), the
 * directive's (REPLAY), or a random one while the bound allows (PCT).
 */
static int pick_way(enum mode mode, unsigned long step, unsigned int ways,
		    unsigned int weak, unsigned int *way)
{
	*way = 0;
	if (mode == DFS) {
		struct node *nd = &X.nodes[step];

		if (step >= X.target) {
			nd->way = 0;
			nd->weak = weak;
			nd->wcut = 0;
		}
		nd->ways = (uint8_t)(ways < 255 ? ways : 255);
		*way = nd->way;
	} else if (mode == REPLAY) {
		const struct chk_replay *d = X.ri < X.o->nreplay ?
			&X.o->replay[X.ri] : NULL;

		if (d && d->way) {
			*way = d->way;
			if (*way >= ways) {
				snprintf(X.replay_err, sizeof(X.replay_err),
					 "directive %u: %s's step has %u memory "
					 "way(s) under --memory %s, not %u",
					 X.ri + 1, X.m->thread_name(X.m->ctx, d->tid),
					 ways, chk_memory_name(X.o->memory),
					 *way + 1);
				return -EINVAL;
			}
		}
	} else if (ways > 1 && weak < X.o->weak_bound) {
		*way = (unsigned int)cidk__prng_below(&X.rng, ways);
	}
	return 0;
}

static void replay_next(void)
{
	X.ri++;
	X.rn = 0;
	X.rpicked = X.rinside = false;
}

/* Has the current directive done what it says? */
static bool replay_done(const struct chk_replay *d, const struct thr *t,
			bool can)
{
	if (d->until) {
		bool in = !t->finished && t->site.func &&
			  !strcmp(t->site.func, d->until);

		X.rn += in && !X.rinside;
		X.rinside = in;
		return X.rn == d->nth;
	}
	if (d->events) {
		X.rn += X.rpicked &&
			(t->finished || t->op == CHK_OP_EVENT);
		return X.rn == d->events;
	}
	if (d->steps)
		return X.rn == d->steps;
	return !can; /* as long as it can */
}

/*
 * A T@FUNC[*K] directive whose thread finished first: it never reached
 * FUNC (a misspelt name?), or reached it fewer than K times.
 */
static void replay_until_why(const struct chk_replay *d)
{
	const char *name = X.m->thread_name(X.m->ctx, d->tid);

	if (!X.rn)
		snprintf(X.replay_err, sizeof(X.replay_err),
			 "directive %u: %s finished without reaching function "
			 "'%s' (no step of %s is in a function of that name)",
			 X.ri + 1, name, d->until, name);
	else
		snprintf(X.replay_err, sizeof(X.replay_err),
			 "directive %u: %s entered function '%s' %lu time(s), "
			 "then finished (the directive asks for %lu)",
			 X.ri + 1, name, d->until, X.rn, d->nth);
}

/*
 * The replay's choice among the enabled threads @e: the current
 * directive's thread, or after the last one the thread that ran last
 * (no preemption) or the first enabled.  -EINVAL when a directive cannot
 * be followed; 1 at a stop directive.
 */
static int replay_pick(uint8_t e, unsigned int last, unsigned int *c)
{
	while (X.ri < X.o->nreplay) {
		const struct chk_replay *d = &X.o->replay[X.ri];
		const struct thr *t = &X.t[d->tid];
		bool can = e & (1u << d->tid);
		const char *name;

		if (d->stop) {
			X.ri++;
			return 1;
		}
		if (replay_done(d, t, can)) {
			replay_next();
			continue;
		}
		if (!can) {
			if (d->until && t->finished) {
				replay_until_why(d);
				return -EINVAL;
			}
			name = X.m->thread_name(X.m->ctx, d->tid);
			snprintf(X.replay_err, sizeof(X.replay_err),
				 "directive %u: %s %s before it was done",
				 X.ri + 1, name,
				 t->finished ? "finished" : "cannot run");
			return -EINVAL;
		}
		X.rn += !d->until && !d->events;
		X.rpicked = true;
		*c = d->tid;
		return 0;
	}
	*c = last != NO_THREAD && (e & (1u << last)) ? last
						     : (unsigned int)__builtin_ctz(e);
	return 0;
}

/*
 * Run one execution: follow the nodes up to X.target, then extend by the
 * default choice (DFS), by priority (PCT), or by the directives (REPLAY).
 */
static int run_one(struct exec_out *out, enum mode mode)
{
	bool dfs = mode == DFS; /* only the DFS keeps search nodes */
	unsigned int last = NO_THREAD;
	unsigned int preempts = 0, weak = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	X.nlog = 0;
	X.corrupt = false;
	X.write_epoch = 0;
	X.nlocks = 0;
	X.m->reset(X.m->ctx);
	chk_mem_reset(X.o->memory, X.m->nthreads);
	rc = threads_init();
	if (rc)
		return rc;
	X.stack_dirty = (uint8_t)((1u << X.m->nthreads) - 1);

	for (unsigned long step = 0;; step++) {
		uint8_t e = enabled_set(), avail;
		unsigned int c = NO_THREAD, way;
		bool preempt;
		struct node *nd;

		if (!e) {
			if (all_finished()) {
				if (X.m->check_final &&
				    X.m->check_final(X.m->ctx, out->why,
						     sizeof(out->why))) {
					out->violation = true;
					strcpy(out->property, "final");
				}
			} else {
				out->violation = true;
				out->mistake = only_events_wait();
				strcpy(out->property,
				       out->mistake ? "scenario" : "liveness");
				liveness_why(out->why, sizeof(out->why));
			}
			X.nnodes = dfs ? step : 0;
			return 0;
		}
		if (step >= X.o->max_steps) {
			unsigned long period = loop_period(step);
			uint8_t ran = 0;

			for (unsigned long k = step / 2; k < X.nlog; k++)
				ran |= (uint8_t)(1u << X.log[k].tid);
			if (period && (e & (uint8_t)~ran)) {
				/*
				 * A cycle that a thread able to run never
				 * entered: the schedule starves it (the bound
				 * kept the explorer from switching), which no
				 * scheduler does for ever.  Dropped: the fair
				 * ways on are other schedules.
				 */
				out->starved = true;
			} else if (period) {
				out->violation = true;
				strcpy(out->property, "liveness");
				snprintf(out->why, sizeof(out->why),
					 "no progress: after %lu steps the last %lu "
					 "go round one cycle of %lu step(s) that "
					 "repeats the same state (a retry loop that "
					 "never gives up)",
					 step, step - step / 2, period);
			} else {
				out->step_cut = true;
			}
			if (X.sc && dfs)
				cache_taint(step);
			X.nnodes = dfs ? step : 0;
			return 0;
		}

		if (mode == REPLAY) {
			rc = replay_pick(e, last, &c);
			if (rc == 1) {
				X.rstop = true;
				return 0;
			}
			if (rc)
				return rc;
		} else if (mode == PCT) {
			for (unsigned int j = 0; j < X.nchange; j++)
				if (X.change_at[j] == step && last != NO_THREAD)
					X.prio[last] = j; /* below every initial one */
			for (unsigned int i = 0; i < X.m->nthreads; i++)
				if ((e & (1u << i)) &&
				    (c == NO_THREAD || X.prio[i] > X.prio[c]))
					c = i;
		} else {
			rc = node_at(step);
			if (rc)
				return rc;
			nd = &X.nodes[step];
			if (step < X.target) {
				c = nd->chosen;
				if (!(e & (1u << c)) || nd->enabled != e)
					abort(); /* the model is not deterministic */
			} else {
				uint8_t sleep = 0;

				if (step > 0) {
					const struct node *pv = &X.nodes[step - 1];

					for (unsigned int i = 0; i < X.m->nthreads; i++)
						if (X.o->sleep_sets &&
						    (pv->sleep & (1u << i)) &&
						    independent(&pv->pend[i],
								&pv->pend[pv->chosen]))
							sleep |= (uint8_t)(1u << i);
				}
				nd->enabled = e;
				nd->sleep = sleep;
				nd->cut = 0;
				nd->prev = (uint8_t)last;
				nd->preempts = preempts;
				for (unsigned int i = 0; i < X.m->nthreads; i++) {
					nd->pend[i].op = X.t[i].op;
					nd->pend[i].addr = X.t[i].addr;
				}
				if (X.sc) { /* a state explored before: ends here */
					state_fp(&nd->fp, step, last);
					if (sc_visit(X.sc, &nd->fp,
						     X.bound - preempts, sleep)) {
						X.sc_hits++;
						out->cut = true;
						X.nnodes = step;
						return 0;
					}
				}
				avail = e & (uint8_t)~sleep;
				if (!avail) {
					out->cut = true;
					X.nnodes = step;
					return 0;
				}
				if (last != NO_THREAD && (avail & (1u << last)))
					c = last;
				else
					c = (unsigned int)__builtin_ctz(avail);
				nd->chosen = (uint8_t)c;
				nd->done = (uint8_t)(1u << c);
			}
		}

		rc = pick_way(mode, step, chk_mem_options(c, X.t[c].op,
							  X.t[c].addr,
							  X.t[c].acc),
			      weak, &way);
		if (rc)
			return rc;
		weak += way > 0;
		preempt = last != NO_THREAD && (e & (1u << last)) && c != last;
		preempts += preempt;
		rc = log_step(c, preempt);
		if (rc)
			return rc;
		X.log[X.nlog - 1].way = (uint8_t)way;
		if (X.t[c].op == CIDK__OP_SPIN)
			X.t[c].spin_epoch = X.write_epoch;
		chk_mem_begin(way);
		to_thread(c);
		chk_mem_end();
		X.stack_dirty |= (uint8_t)(1u << c);
		last = c;
		if (mode == REPLAY && X.o->state_every_step)
			X.log[X.nlog - 1].state = capture_dump();
		if (X.corrupt) {
			corrupt_why(c, out->why, sizeof(out->why));
			out->violation = true;
			strcpy(out->property, "corruption");
			X.nnodes = dfs ? step + 1 : 0;
			return 0;
		}
		count_state(step);
		if (X.m->check_step &&
		    X.m->check_step(X.m->ctx, out->why, sizeof(out->why))) {
			out->violation = true;
			strcpy(out->property, "safety");
		} else if (quiet() && X.m->check_quiet &&
			   X.m->check_quiet(X.m->ctx, out->why, sizeof(out->why))) {
			out->violation = true;
			strcpy(out->property, "quiescence");
		}
		if (out->violation) {
			X.nnodes = dfs ? step + 1 : 0;
			return 0;
		}
	}
}

/*
 * Does a choice the bound refused at node @i count here?  Unsharded,
 * always; in a part, when the node is inside the part's current unit, or
 * above every unit (walked alike by each part) in the one part that
 * counts those: the parts' cuts then add up to one search's.
 */
static bool cut_counts(unsigned long i)
{
	if (!X.o->shard)
		return true;
	if (X.admitted && i >= X.unit_root)
		return true;
	return X.o->shard->count_top;
}

/* The next schedule of the DFS at the current bound: false when done. */
static bool backtrack(void)
{
	for (unsigned long i = X.nnodes; i-- > 0;) {
		struct node *nd = &X.nodes[i];
		uint8_t cands = nd->enabled & (uint8_t)~nd->done &
				(uint8_t)~(X.o->sleep_sets ? nd->sleep : 0);

		/* the same thread's step, reading or placing an older store */
		if (nd->way + 1u < nd->ways) {
			if (nd->weak < X.o->weak_bound) {
				nd->way++;
				X.target = i + 1;
				X.nnodes = i + 1;
				return true;
			}
			if (X.bound == X.o->preemptions && !nd->wcut) {
				nd->wcut = 1;
				X.cut += cut_counts(i);
			}
		}

		for (unsigned int b = 0; b < X.m->nthreads; b++) {
			unsigned int pre;

			if (!(cands & (1u << b)))
				continue;
			pre = nd->preempts +
			      (nd->prev != NO_THREAD &&
			       (nd->enabled & (1u << nd->prev)) && b != nd->prev);
			if (pre > X.bound) {
				/* a schedule with one switch more: cut, unless
				 * a later bound takes it */
				if (X.bound == X.o->preemptions &&
				    !(nd->cut & (1u << b))) {
					nd->cut |= (uint8_t)(1u << b);
					X.cut += cut_counts(i);
				}
				continue;
			}
			if (X.o->sleep_sets)
				nd->sleep |= nd->done;
			nd->done |= (uint8_t)(1u << b);
			nd->chosen = (uint8_t)b;
			nd->way = 0;
			X.target = i + 1;
			X.nnodes = i + 1;
			return true;
		}
	}
	return false;
}

static char *capture_dump(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!X.m->dump)
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	X.m->dump(X.m->ctx, f);
	fclose(f);
	return buf;
}

/* The current execution's trace and state, into @r. */
static int save_trace(struct chk_result *r)
{
	struct chk_step *tr;
	unsigned int pre = 0;

	tr = malloc((X.nlog ? X.nlog : 1) * sizeof(*tr));
	if (!tr)
		return -ENOMEM;
	memcpy(tr, X.log, X.nlog * sizeof(*tr));
	for (unsigned long i = 0; i < X.nlog; i++) {
		const char *an = tr[i].addr && X.m->addr_name ?
			X.m->addr_name(X.m->ctx, tr[i].addr, tr[i].addr_name,
				       sizeof(tr[i].addr_name)) : NULL;

		if (!an)
			tr[i].addr_name[0] = '\0';
		pre += tr[i].preempt;
	}
	free(r->trace);
	free(r->dump);
	r->trace = tr;
	r->trace_len = (unsigned int)X.nlog;
	r->trace_preemptions = pre;
	r->dump = capture_dump();
	return 0;
}

/* A violation: kept when it is the first or shorter than the one kept. */
static int keep(struct chk_result *r, const struct exec_out *out)
{
	int rc;

	if ((r->verdict == CHK_VIOLATION || r->verdict == CHK_MISTAKE) &&
	    r->trace_len <= X.nlog && !out->mistake)
		return 0;
	rc = save_trace(r);
	if (rc)
		return rc;
	r->verdict = out->mistake ? CHK_MISTAKE : CHK_VIOLATION;
	r->unit = X.cur_unit;
	snprintf(r->property, sizeof(r->property), "%s", out->property);
	snprintf(r->why, sizeof(r->why), "%s", out->why);
	return 0;
}

/* One execution by the directives; its trace is kept, violation or not. */
static int explore_replay(struct chk_result *r)
{
	struct exec_out out;
	int rc = run_one(&out, REPLAY);

	if (rc == -EINVAL) {
		snprintf(r->why, sizeof(r->why), "%s", X.replay_err);
		return rc;
	}
	if (rc)
		return rc;
	r->schedules = 1;
	r->steps = X.nlog;
	if (out.violation) {
		X.states_kept = true;
		return keep(r, &out);
	}
	out.step_cut |= out.starved; /* one schedule: cut, whatever the cycle */
	if (X.ri < X.o->nreplay && !out.step_cut) {
		if (!X.o->replay[X.ri].until) {
			snprintf(r->why, sizeof(r->why),
				 "directive %u: every thread finished before it",
				 X.ri + 1);
			return -EINVAL;
		}
		/* the last thread finished inside an unfinished @FUNC */
		replay_until_why(&X.o->replay[X.ri]);
		snprintf(r->why, sizeof(r->why), "%s", X.replay_err);
		return -EINVAL;
	}
	r->stopped = X.rstop;
	if (out.step_cut) {
		r->step_cuts = 1;
		r->verdict = CHK_LIMIT;
	}
	X.states_kept = true;
	return save_trace(r);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int explore_pct(struct chk_result *r)
{
	unsigned long est = 64;
	struct exec_out out;
	int rc = 0;

	cidk__prng_seed(&X.rng, X.o->seed);
	for (unsigned long k = 0; k < X.o->random; k++) {
		unsigned int n = X.m->nthreads;
		unsigned int d = X.o->pct_depth ? X.o->pct_depth : 3;

		/* random distinct priorities above the change points' */
		for (unsigned int i = 0; i < n; i++)
			X.prio[i] = 8 + i;
		for (unsigned int i = n; i > 1; i--) {
			unsigned int j = (unsigned int)cidk__prng_below(&X.rng, i);
			unsigned int tmp = X.prio[i - 1];

			X.prio[i - 1] = X.prio[j];
			X.prio[j] = tmp;
		}
		X.nchange = d - 1 < 8 ? d - 1 : 7;
		for (unsigned int j = 0; j < X.nchange; j++)
			X.change_at[j] = cidk__prng_below(&X.rng, est);
		rc = run_one(&out, PCT);
		if (rc)
			return rc;
		r->schedules++;
		r->steps += X.nlog;
		r->step_cuts += out.step_cut;
		r->starved += out.starved;
		if (X.nlog > est)
			est = X.nlog;
		if (out.violation) {
			rc = keep(r, &out);
			if (rc || !X.o->keep_searching || out.mistake)
				return rc;
		}
		if (X.o->progress && !(r->schedules & 0x3fff))
			X.o->progress(X.o->progress_arg, r->schedules);
	}
	return 0;
}

/* ---- sharding (chk_opts.shard; see chk.h) ------------------------------------- */

/*
 * The estimated size of the subtree below node @d of the execution just
 * run, for each fresh node d (from X.target on), into @est: its free
 * branchings (switches where the last thread cannot go on: every
 * available thread) times the ways to place at most the preemptions left
 * at d among its preemption points (the elementary symmetric sums, up to
 * that degree, of the other threads available there).
 */
static void estimates(double *est)
{
	double e[CHK_MAX_BOUND + 1] = { 1 }, free_ = 1;

	est[X.nnodes] = 1;
	for (unsigned long d = X.nnodes; d-- > X.target;) {
		const struct node *nd = &X.nodes[d];
		unsigned int k = (unsigned int)__builtin_popcount(
			nd->enabled & (uint8_t)~(X.o->sleep_sets ? nd->sleep : 0));
		unsigned int left = nd->preempts < X.bound ? X.bound - nd->preempts : 0;
		double sum = 0;

		if (nd->prev != NO_THREAD && (nd->enabled & (1u << nd->prev))) {
			for (unsigned int j = X.bound; j > 0; j--)
				e[j] += e[j - 1] * (k ? k - 1 : 0);
		} else if (k) {
			free_ *= k;
		}
		for (unsigned int j = 0; j <= left; j++)
			sum += e[j];
		est[d] = free_ * sum;
	}
}

/*
 * The execution just run starts a new unit: its root is the first fresh
 * node whose subtree is estimated at most X.thresh (a 1/units of the
 * bound's whole tree, estimated at its first execution), or its end.
 * Ours: it counts, and the search goes on below its root; not ours: the
 * search backs up above it.
 */
static int shard_unit(bool *mine)
{
	double *est = malloc((X.nnodes + 1) * sizeof(*est));
	unsigned long c;

	if (!est)
		return -ENOMEM;
	estimates(est);
	if (!X.thresh) {
		X.thresh = est[0] / (double)X.o->shard->units;
		if (X.thresh < 1)
			X.thresh = 1;
	}
	for (c = X.target; c < X.nnodes && est[c] > X.thresh; c++)
		;
	X.unit_root = c;
	X.cur_unit = X.unit++;
	*mine = X.o->shard->mine(X.o->shard->arg, X.bound, X.cur_unit, est[c]);
	free(est);
	X.admitted = *mine;
	if (!*mine)
		X.nnodes = c; /* back up above the unit's root */
	return 0;
}

/* The next schedule; outside the current unit when it backs up above it. */
static bool next_schedule(void)
{
	bool more = backtrack();

	X.admitted = X.admitted && X.target > X.unit_root;
	return more;
}

static int explore_dfs(struct chk_result *r)
{
	struct exec_out out;
	bool more, mine;
	int rc;

	for (X.bound = 0; X.bound <= X.o->preemptions; X.bound++) {
		X.target = 0;
		X.nnodes = 0;
		r->bound = X.bound;
		X.unit = 0;
		X.thresh = 0;
		X.admitted = false;
		for (more = true; more;) {
			if (X.o->max_schedules &&
			    r->schedules >= X.o->max_schedules) {
				r->schedule_limit = true;
				if (r->verdict == CHK_PASS)
					r->verdict = CHK_LIMIT;
				return 0;
			}
			rc = run_one(&out, DFS);
			if (rc)
				return rc;
			if (X.o->shard && !X.admitted) {
				rc = shard_unit(&mine);
				if (rc)
					return rc;
				if (!mine) {
					more = next_schedule();
					continue;
				}
			}
			r->schedules++;
			r->steps += X.nlog;
			r->step_cuts += out.step_cut;
			r->starved += out.starved;
			r->bound_schedules[X.bound]++;
			r->bound_steps[X.bound] += X.nlog;
			r->bound_step_cuts[X.bound] += out.step_cut;
			r->bound_starved[X.bound] += out.starved;
			if (out.violation) {
				rc = keep(r, &out);
				if (rc)
					return rc;
				/* a scenario mistake: at once, nothing to weigh */
				if (!X.o->keep_searching || out.mistake)
					return 0;
			}
			if (X.o->progress && !(r->schedules & 0x3fff))
				X.o->progress(X.o->progress_arg, r->schedules);
			more = next_schedule();
		}
		if (r->verdict == CHK_VIOLATION)
			return 0; /* the fewest preemptions: stop at this bound */
	}
	r->cut = X.cut;
	return 0;
}

/* The distinct states' hashes and first bounds, into @r. */
static int export_states(struct chk_result *r)
{
	unsigned long n = 0;

	r->hashes = malloc((X.set_n ? X.set_n : 1) * sizeof(*r->hashes));
	r->hash_bound = malloc(X.set_n ? X.set_n : 1);
	if (!r->hashes || !r->hash_bound)
		return -ENOMEM;
	for (unsigned long i = 0; i < X.set_cap; i++)
		if (X.set[i]) {
			r->hashes[n] = X.set[i];
			r->hash_bound[n++] = X.setb[i];
		}
	r->nhashes = n;
	return 0;
}

int chk_explore(const struct chk_model *m, const struct chk_opts *o,
		struct chk_result *r)
{
	double t0 = now_s();
	int rc;

	memset(r, 0, sizeof(*r));
	if (!m->nthreads || m->nthreads > CHK_MAX_THREADS ||
	    o->memory >= CHK_MEM_NR ||
	    (o->memory && (o->sleep_sets || o->state_cache)))
		return -EINVAL; /* (sleep sets and the state cache assume sc) */
	memset(&X, 0, sizeof(X));
	X.m = m;
	X.o = o;
	X.cur = NO_THREAD;
	r->verdict = CHK_PASS;
	if (o->state_cache && !o->nreplay && !o->random && !o->shard &&
	    m->full_state && chk_state_cache_available() &&
	    !(X.sc = sc_new()))
		return -ENOMEM;
	X.stack_zero = 16384;
	rc = o->nreplay ? explore_replay(r) :
	     o->random	? explore_pct(r) : explore_dfs(r);
	if (r->verdict == CHK_PASS && r->step_cuts)
		r->verdict = CHK_LIMIT; /* nothing found, something not run */
	r->states = X.set_n;
	if (X.sc) {
		r->cache_states = sc_count(X.sc);
		r->cache_hits = X.sc_hits;
		sc_free(X.sc);
	}
	if (!rc && o->export_states)
		rc = export_states(r);
	r->seconds = now_s() - t0;
	threads_free();
	if (!X.states_kept)
		for (unsigned long i = 0; i < X.nlog; i++)
			free(X.log[i].state);
	free(X.hist);
	free(X.log);
	free(X.nodes);
	free(X.set);
	free(X.setb);
	memset(&X, 0, sizeof(X));
	return rc;
}

void chk_result_free(struct chk_result *r)
{
	for (unsigned int i = 0; r->trace && i < r->trace_len; i++)
		free(r->trace[i].state);
	free(r->trace);
	free(r->dump);
	free(r->hashes);
	free(r->hash_bound);
	r->trace = NULL;
	r->dump = NULL;
	r->hashes = NULL;
	r->hash_bound = NULL;
}
