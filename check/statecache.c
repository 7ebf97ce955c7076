/* SPDX-License-Identifier: MIT */
/*
 * check/statecache.c - the visited-state table (statecache.h).
 *
 * Open addressing, linear probing on the first lane of the fingerprint,
 * at most half full; a key is never removed.  A key is 112 bits of the
 * fingerprint (the first lane and 48 bits of the second, each through a
 * final avalanche).  Two different states are taken for one only when
 * those agree (about 2^-112 per pair for well-mixed lanes; with 10^8
 * states, below 10^-17 for the whole search): that is the cache's one
 * approximation, as SPIN's hash compaction.
 */
#include <stdlib.h>
#include <string.h>

#include "coro.h"
#include "statecache.h"


static uint64_t rotl(uint64_t x, unsigned int r)
{
	return x << r | x >> (64 - r);
}

void chk_fp_init(struct chk_fp *f)
{
	f->a = 0x243f6a8885a308d3ull;
	f->b = 0x13198a2e03707344ull;
}

void chk_fp_bytes(struct chk_fp *f, const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t w;

	for (; n >= 8; n -= 8, c += 8) {
		memcpy(&w, c, 8);
		chk_fp_u64(f, w);
	}
	if (n) {
		w = 0;
		memcpy(&w, c, n);
		chk_fp_u64(f, w ^ (uint64_t)n << 56);
	}
}

/* The final avalanche of each lane (murmur3's fmix64). */
static uint64_t fmix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/*
 * 16 bytes: the first lane, then 48 bits of the second, the sleep set (8
 * bits), the budget (4: at most CHK_MAX_BOUND) and the taint (1).  A free
 * slot is all zero; a key is never 0:0 in its 112 bits.
 */
struct sc_entry {
	uint64_t a, b;
};

#define B_KEY 0x0000ffffffffffffull
#define B_SLEEP(b) ((uint8_t)((b) >> 48))
#define B_BUDGET(b) ((unsigned int)((b) >> 56) & 15u)
#define B_TAINT (1ull << 60)

struct sc_table {
	struct sc_entry *e;
	unsigned long cap, n;
};

struct sc_table *sc_new(void)
{
	return calloc(1, sizeof(struct sc_table));
}

void sc_free(struct sc_table *t)
{
	if (!t)
		return;
	free(t->e);
	free(t);
}

unsigned long sc_count(const struct sc_table *t)
{
	return t->n;
}

static bool used(const struct sc_entry *e)
{
	return e->a || (e->b & B_KEY);
}

static int grow(struct sc_table *t)
{
	unsigned long cap = t->cap ? 2 * t->cap : 1ul << 16;
	struct sc_entry *e = calloc(cap, sizeof(*e));

	if (!e)
		return -1;
	for (unsigned long j = 0; j < t->cap; j++) {
		const struct sc_entry *o = &t->e[j];
		unsigned long i;

		if (!used(o))
			continue;
		for (i = o->a & (cap - 1); used(&e[i]); i = (i + 1) & (cap - 1))
			;
		e[i] = *o;
	}
	free(t->e);
	t->e = e;
	t->cap = cap;
	return 0;
}

/* The slot of @key, or the free slot where it goes; NULL: no room. */
static struct sc_entry *slot(struct sc_table *t, const struct chk_fp *key,
			     uint64_t *a, uint64_t *b)
{
	unsigned long i;

	*a = fmix(key->a);
	*b = fmix(key->b ^ rotl(key->a, 17)) & B_KEY;
	if (!*a && !*b)
		*b = 1;
	if (2 * (t->n + 1) > t->cap && grow(t))
		return NULL;
	for (i = *a & (t->cap - 1); used(&t->e[i]); i = (i + 1) & (t->cap - 1))
		if (t->e[i].a == *a && (t->e[i].b & B_KEY) == *b)
			return &t->e[i];
	return &t->e[i];
}

bool sc_visit(struct sc_table *t, const struct chk_fp *key,
	      unsigned int budget, uint8_t sleep)
{
	uint64_t a, b;
	struct sc_entry *s = slot(t, key, &a, &b);

	if (!s)
		return false;
	if (used(s)) {
		if (!(s->b & B_TAINT) && B_BUDGET(s->b) >= budget &&
		    !(B_SLEEP(s->b) & (uint8_t)~sleep))
			return true;
		/* not covered: this visit explores it again; keep the record
		 * with more budget (either covers what it covers) */
		if (budget < B_BUDGET(s->b))
			return false;
	} else {
		s->a = a;
		t->n++;
	}
	s->b = b | (s->b & B_TAINT) | (uint64_t)sleep << 48 |
	       (uint64_t)(budget & 15u) << 56;
	return false;
}

void sc_taint(struct sc_table *t, const struct chk_fp *key)
{
	uint64_t a, b;
	struct sc_entry *s = slot(t, key, &a, &b);

	if (s && used(s))
		s->b |= B_TAINT;
}

/* ---- the coroutines' stacks --------------------------------------------------- */

void sc_stack_clear(void *stack, size_t size, size_t *zero)
{
	char *top = (char *)stack + size;
	const uint64_t *w = (const uint64_t *)(void *)(top - *zero);

	while ((const char *)w < top && !*w)
		w++;
	if ((const char *)w - (top - *zero) < 4096 && *zero < size) {
		*zero = 2 * *zero < size ? 2 * *zero : size;
		memset(top - *zero, 0, *zero);
		return;
	}
	memset((void *)w, 0, (size_t)(top - (const char *)w));
}

void sc_stack_fp(const struct coro *c, bool finished, struct chk_fp *f)
{
	const void *base;
	size_t n = finished ? 0 : coro_live(c, &base);

	chk_fp_init(f);
	if (n)
		chk_fp_bytes(f, base, n);
}
