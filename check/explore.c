/* SPDX-License-Identifier: MIT */
/*
 * check/explore.c - the scheduler and the schedule search (see
 * chk.h for what they promise).  Its state and the parts in other files
 * (--replay, --random, sharding, the state cache's fingerprint, the
 * messages of a violation) are in explore_int.h, internal to explore*.c.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explore_int.h"
#include "memory.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

struct chk_xp chk_xp;


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

static void threads_free(void)
{
	for (unsigned int i = 0; i < CHK_MAX_THREADS; i++) {
		free(X.t[i].co.stack);
		X.t[i].co.stack = NULL;
	}
}

/* ---- the hooks lib/cid calls (cid_atomic.h) -------------------------------- */

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

/*
 * A plain access of lib/cid (cid_atomic.h: cidk__lld/cidk__lst, the task
 * list's pointers): a scheduling point like a relaxed load or store when
 * the search asks for them (chk_opts.plain_points), else none.
 */
bool cidk__chk_plain(const struct cidk__site *s, enum cidk__chk_op op,
		     const void *addr)
{
	if (!X.in_thread || !X.o->plain_points)
		return false;
	cidk__chk_before(s, op, addr);
	return true;
}

/* ... after it: the values as the model names them (the same bytes for
 * the same input: a pointer becomes the model's number for it) */
void cidk__chk_plain_after(uint64_t found, uint64_t left)
{
	if (X.m->plain_value) {
		found = X.m->plain_value(X.m->ctx, found);
		left = X.m->plain_value(X.m->ctx, left);
	}
	cidk__chk_after(found, left);
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
		if (X.nlocks == CHK_MAX_LOCKS) {
			X.locks_overflow = true;
			return;
		}
		X.nlocks++;
	}
	X.lock_addr[i] = addr;
	X.lock_holder[i] = holder;
}

/*
 * lock-owner: a lock is released only by the thread that holds it -- the
 * kernel's spin_unlock()/mutex_unlock() contract (lockdep's "releasing a
 * pinned lock" / "bad unlock balance", kernel/locking/lockdep.c; a mutex
 * "must be released by the same task that acquired it",
 * kernel/locking/mutex.c's header).  An unlock by another thread, or of a
 * lock nobody holds, may end a critical section it does not own.  Called
 * at X.cur's UNLOCK, before the holder is cleared; the table's overflow
 * (more locks than CHK_MAX_LOCKS) leaves an unknown lock unjudged.
 */
static void check_unlock(const struct chk_step *st)
{
	unsigned int holder = NO_THREAD;
	bool known = false;
	char buf[64];
	const char *an;

	for (unsigned int i = 0; i < X.nlocks; i++)
		if (X.lock_addr[i] == st->addr) {
			holder = X.lock_holder[i];
			known = true;
		}
	if (holder == X.cur || (!known && X.locks_overflow) || X.bad_unlock)
		return;
	an = X.m->addr_name ?
		X.m->addr_name(X.m->ctx, st->addr, buf, sizeof(buf)) : NULL;
	snprintf(X.lock_why, sizeof(X.lock_why),
		 "lock-owner: %s released lock %s in %s (%s:%u), which %s%s",
		 X.m->thread_name(X.m->ctx, X.cur), an ? an : "?",
		 st->site.func ? st->site.func : "?",
		 chk_short_file(st->site.file), st->site.line,
		 holder == NO_THREAD ? "nobody held" : "is held by ",
		 holder == NO_THREAD ? "" : X.m->thread_name(X.m->ctx, holder));
	X.bad_unlock = true;
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
	if (op == CIDK__OP_LOCK) {
		note_lock(st->addr, X.cur);
	} else if (op == CIDK__OP_UNLOCK) {
		check_unlock(st);
		note_lock(st->addr, NO_THREAD);
	}
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

/* One more value into a state's hash: a multiply-xorshift round (a
 * weaker additive combine conflated distinct states: they are small
 * integers that differ in few bits) */
static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0xff51afd7ed558ccdull;
	return h ^ h >> 32;
}

/*
 * A file name's hash, by its address: __FILE__ of a header is one string
 * per object that includes it, and addresses move with ASLR while shards
 * merge these hashes, so the name, hashed once per address (a small
 * direct-mapped memo: a handful of files).
 */
static uint64_t file_hash(const char *f)
{
	static struct { const char *f; uint64_t h; } memo[64];
	unsigned int i = ((uintptr_t)f >> 3) & 63;

	if (!f)
		return 0;
	if (memo[i].f != f) {
		uint64_t h = 0xcbf29ce484222325ull;

		for (const char *c = f; *c; c++)
			h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
		memo[i].f = f;
		memo[i].h = h;
	}
	return memo[i].h;
}

/* Count the state after step @step; keep its hash for loop detection. */
static void count_state(unsigned long step)
{
	uint64_t h;

	if (!X.m->state_hash)
		return;
	h = X.m->state_hash(X.m->ctx);
	for (unsigned int i = 0; i < X.m->nthreads; i++) {
		const struct thr *t = &X.t[i];

		/* the op and its site (the same line of two files is two
		 * sites; addresses move with each reset) */
		h = mix(h, (uint64_t)t->op << 1 | t->finished);
		h = mix(h, file_hash(t->site.file) ^ t->site.line);
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

/*
 * Run one execution: follow the nodes up to X.target, then extend by the
 * default choice (DFS), by priority (PCT), or by the directives (REPLAY).
 */
int chk_xp_run_one(struct exec_out *out, enum mode mode)
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
	X.locks_overflow = false;
	X.bad_unlock = false;
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
				out->mistake = chk_xp_only_events_wait();
				strcpy(out->property,
				       out->mistake ? "scenario" : "liveness");
				chk_xp_liveness_why(out->why, sizeof(out->why));
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
				chk_xp_cache_taint(step);
			X.nnodes = dfs ? step : 0;
			return 0;
		}

		if (mode == REPLAY) {
			rc = chk_xp_replay_pick(e, last, &c);
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
					chk_xp_state_fp(&nd->fp, step, last);
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
			chk_xp_corrupt_why(c, out->why, sizeof(out->why));
			out->violation = true;
			strcpy(out->property, "corruption");
			X.nnodes = dfs ? step + 1 : 0;
			return 0;
		}
		/* a step of the replayed prefix before the changed choice
		 * (X.target - 1) reaches the state it reached last time: its
		 * hash is in the set and in X.hist[step] already */
		if (!dfs || step + 1 >= X.target)
			count_state(step);
		if (X.bad_unlock) {
			snprintf(out->why, sizeof(out->why), "%s", X.lock_why);
			out->violation = true;
			strcpy(out->property, "safety");
		} else if (X.m->check_step &&
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
				X.cut += chk_xp_cut_counts(i);
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
					X.cut += chk_xp_cut_counts(i);
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
int chk_xp_save_trace(struct chk_result *r)
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
int chk_xp_keep(struct chk_result *r, const struct exec_out *out)
{
	int rc;

	if ((r->verdict == CHK_VIOLATION || r->verdict == CHK_MISTAKE) &&
	    r->trace_len <= X.nlog && !out->mistake)
		return 0;
	rc = chk_xp_save_trace(r);
	if (rc)
		return rc;
	r->verdict = out->mistake ? CHK_MISTAKE : CHK_VIOLATION;
	r->unit = X.cur_unit;
	snprintf(r->property, sizeof(r->property), "%s", out->property);
	snprintf(r->why, sizeof(r->why), "%s", out->why);
	return 0;
}


static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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
			rc = chk_xp_run_one(&out, DFS);
			if (rc)
				return rc;
			if (X.o->shard && !X.admitted) {
				rc = chk_xp_shard_unit(&mine);
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
				rc = chk_xp_keep(r, &out);
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
	rc = o->nreplay ? chk_xp_replay(r) :
	     o->random	? chk_xp_pct(r) : explore_dfs(r);
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
