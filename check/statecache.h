/* SPDX-License-Identifier: MIT */
/*
 * check/statecache.h - visited states for the DFS (chk_opts.state_cache):
 * a 128-bit fingerprint of the whole checker state and a table of the
 * states explored, with the preemption budget and sleep set each was
 * explored with.
 *
 * The rule is the one of a stateful search with sleep sets (Godefroid,
 * "Partial-order methods for the verification of concurrent systems",
 * LNCS 1032, 1996: the search whose hash table keeps each visited
 * state's sleep set; Yang, Chen, Gopalakrishnan and Kirby, "Efficient
 * stateful dynamic partial order reduction", SPIN 2008, start from it):
 * a state reached again with sleep set Z' is not explored again when it
 * was explored before with a sleep set Z <= Z' (every thread the new
 * visit would run there, the old one ran).
 * With a preemption bound (CHESS), a state explored with b preemptions
 * left covers one reached with b' <= b left (every choice the bound
 * allows with b' it allows with b), provided the thread that ran last is
 * the same: it is part of the fingerprint, as is the depth (so that an
 * execution's length, and with it max_steps and the shortest violation,
 * is the same below both visits, and the state graph has no cycle).
 * A state below which an execution ran into max_steps is *tainted*: what
 * max_steps decides (a live lock, a starved or a cut execution) looks
 * at the steps before the state too, so it is explored again each time.
 *
 * Workload: one lookup per fresh node of the DFS (10^6..10^8), one
 * insertion for most; a taint per node of an execution cut by max_steps
 * (rare).  Not thread-safe; one table per exploration.
 */
#ifndef CIDKIT_CHECK_STATECACHE_H
#define CIDKIT_CHECK_STATECACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A fingerprint being built: two independent 64-bit lanes. */
struct chk_fp {
	uint64_t a, b;
};

void chk_fp_init(struct chk_fp *f);
/* Mix @n bytes at @p into @f. */
void chk_fp_bytes(struct chk_fp *f, const void *p, size_t n);

/* Mix one word into @f: two multiply-rotate lanes with their own
 * constants (sc_visit gives each a final avalanche). */
static inline void chk_fp_u64(struct chk_fp *f, uint64_t v)
{
	uint64_t a = (f->a ^ v) * 0x9e3779b97f4a7c15ull;
	uint64_t b = (f->b + v) * 0xc2b2ae3d27d4eb4full;

	f->a = a << 29 | a >> 35;
	f->b = (b << 37 | b >> 27) ^ v;
}

struct sc_table;

/* NULL when out of memory. */
struct sc_table *sc_new(void);
void sc_free(struct sc_table *t);

/*
 * Visit state @key with @budget preemptions left and sleep set @sleep:
 * true when an earlier visit covers this one (skip it); else it is
 * recorded as explored from here (replacing the earlier record, whose
 * subtree the DFS has finished) and false.  Out of memory: false, not
 * recorded (the search goes on without the cache there).
 */
bool sc_visit(struct sc_table *t, const struct chk_fp *key,
	      unsigned int budget, uint8_t sleep);

/* Never skip @key again (an execution below it met max_steps). */
void sc_taint(struct sc_table *t, const struct chk_fp *key);

/* States recorded. */
unsigned long sc_count(const struct sc_table *t);

/*
 * A thread's own state is its coroutine's live stack: its frames and the
 * registers its switch saved there (coro_live).  sc_stack_clear() zeroes
 * what the last execution wrote on a stack of @size at @stack before the
 * next one starts, so that the dead slots of live frames (read by no one,
 * but hashed) hold the same bytes whenever a thread gets to the same
 * point the same way: from the lowest word written, found by a scan of
 * the top *@zero bytes (zeroed last time), up; a stack used near that
 * bottom doubles *@zero.  sc_stack_fp(): the fingerprint of suspended
 * @c's live stack (a finished thread has none).
 */
struct coro;
void sc_stack_clear(void *stack, size_t size, size_t *zero);
void sc_stack_fp(const struct coro *c, bool finished, struct chk_fp *f);

#endif /* CIDKIT_CHECK_STATECACHE_H */
