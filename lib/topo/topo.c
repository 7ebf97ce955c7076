/* SPDX-License-Identifier: MIT */
/*
 * The topology itself: life cycle, setting masks, taking a CPU offline,
 * and the O(1) queries.  Storage and invariants: topo_internal.h.
 *
 * Workload: building is rare (once per machine, or once per CPU hotplug in
 * the benchmark); distance() and group_id() are hot (the simulator asks
 * per burst), so they read one index per level and nothing else.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_internal.h"

static const char *const level_names[CIDK_TOPO_NR_LEVELS] = {
	[CIDK_TOPO_SMT] = "smt",   [CIDK_TOPO_CLUSTER] = "cluster",
	[CIDK_TOPO_LLC] = "llc",   [CIDK_TOPO_DIE] = "die",
	[CIDK_TOPO_PKG] = "pkg",   [CIDK_TOPO_NUMA] = "numa",
};

static const char *const dist_names[CIDK_DIST_NR] = {
	[CIDK_DIST_SAME_CPU] = "same-cpu", [CIDK_DIST_SMT] = "smt",
	[CIDK_DIST_CLUSTER] = "cluster",   [CIDK_DIST_LLC] = "llc",
	[CIDK_DIST_PKG] = "pkg",	   [CIDK_DIST_REMOTE] = "remote",
};

const char *cidk_topo_level_name(enum cidk_topo_level l)
{
	return (unsigned int)l < CIDK_TOPO_NR_LEVELS ? level_names[l] : "?";
}

const char *cidk_topo_dist_name(enum cidk_topo_dist d)
{
	return (unsigned int)d < CIDK_DIST_NR ? dist_names[d] : "?";
}

void cidk__topo_err(struct cidk_topo_err *err, const char *path,
		    const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* ---- life cycle ---------------------------------------------------------- */

struct cidk_topo *cidk_topo_alloc(unsigned int nr_cpu_ids)
{
	struct cidk_topo *t;

	if (!nr_cpu_ids || nr_cpu_ids > CIDK_TOPO_MAX_CPUS) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		goto fail;
	t->nr_cpu_ids = nr_cpu_ids;
	t->online = cidk_mask_alloc(nr_cpu_ids);
	if (!t->online)
		goto fail;
	for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++) {
		struct cidk__topo_level *lv = &t->lv[l];

		lv->grp = malloc(nr_cpu_ids * sizeof(*lv->grp));
		lv->by_first = malloc(nr_cpu_ids * sizeof(*lv->by_first));
		if (!lv->grp || !lv->by_first)
			goto fail;
		memset(lv->grp, 0xff, nr_cpu_ids * sizeof(*lv->grp));
		memset(lv->by_first, 0xff, nr_cpu_ids * sizeof(*lv->by_first));
	}
	return t;
fail:
	cidk_topo_free(t);
	errno = ENOMEM;
	return NULL;
}

static void group_release(struct cidk__topo_group *g)
{
	cidk_mask_free(atomic_load_explicit(&g->full, memory_order_relaxed));
	atomic_store_explicit(&g->full, NULL, memory_order_relaxed);
	free(g->w);
	free(g->nz);
	g->w = NULL;
	g->nz = NULL;
	g->nr_nz = 0;
}

void cidk_topo_free(struct cidk_topo *t)
{
	if (!t)
		return;
	for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++) {
		struct cidk__topo_level *lv = &t->lv[l];

		for (uint32_t i = 0; i < lv->nr; i++)
			group_release(&lv->groups[i]);
		free(lv->groups);
		free(lv->grp);
		free(lv->by_first);
	}
	for (unsigned int i = 0; i < t->nr_notes; i++)
		free(t->notes[i]);
	cidk_mask_free(t->online);
	free(t);
}

/* ---- groups ---------------------------------------------------------------- */

/* Allocate room for @n non-zero words in @g (at least one: w != NULL). */
static int group_words(struct cidk__topo_group *g, unsigned int n)
{
	g->nz = malloc((n ? n : 1) * sizeof(*g->nz));
	g->w = malloc((n ? n : 1) * sizeof(*g->w));
	if (!g->nz || !g->w) {
		free(g->nz);
		free(g->w);
		g->nz = NULL;
		g->w = NULL;
		return -ENOMEM;
	}
	g->nr_nz = 0;
	return 0;
}

/* Describe @m in a fresh group @g: its non-zero words and first CPU. */
static int group_describe(struct cidk__topo_group *g, const struct cidk_mask *m)
{
	unsigned int n = 0;

	for (unsigned int w = 0; w < m->nwords; w++)
		n += m->bits[w] != 0;
	if (group_words(g, n))
		return -ENOMEM;
	for (unsigned int w = 0; w < m->nwords; w++)
		if (m->bits[w]) {
			g->nz[g->nr_nz] = w;
			g->w[g->nr_nz++] = m->bits[w];
		}
	g->first = cidk_mask_first(m);
	return 0;
}

/* Does live group @g hold exactly the bits of @m?  O(m->nwords). */
static bool group_equal_mask(const struct cidk__topo_group *g,
			     const struct cidk_mask *m)
{
	unsigned int k = 0;

	for (unsigned int w = 0; w < m->nwords; w++) {
		if (!m->bits[w])
			continue;
		if (k == g->nr_nz || g->nz[k] != w || g->w[k] != m->bits[w])
			return false;
		k++;
	}
	return k == g->nr_nz;
}

/* Index in nz[] of word @w of @g, or -1. */
static long group_find(const struct cidk__topo_group *g, uint32_t w)
{
	unsigned int lo = 0, hi = g->nr_nz;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (g->nz[mid] == w)
			return mid;
		if (g->nz[mid] < w)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

bool cidk__topo_group_test(const struct cidk__topo_group *g, unsigned int cpu)
{
	long k = group_find(g, cidk__bit_word(cpu));

	return k >= 0 && (g->w[k] & cidk__bit_mask(cpu));
}

bool cidk__topo_group_equal(const struct cidk__topo_group *a,
			    const struct cidk__topo_group *b)
{
	if (a == b)
		return true;
	if (a->nr_nz != b->nr_nz || a->first != b->first)
		return false;
	for (unsigned int i = 0; i < a->nr_nz; i++)
		if (a->nz[i] != b->nz[i] || a->w[i] != b->w[i])
			return false;
	return true;
}

bool cidk__topo_group_intersects(const struct cidk__topo_group *a,
				 const struct cidk__topo_group *b)
{
	unsigned int i = 0, j = 0;

	while (i < a->nr_nz && j < b->nr_nz) {
		if (a->nz[i] < b->nz[j])
			i++;
		else if (a->nz[i] > b->nz[j])
			j++;
		else if (a->w[i++] & b->w[j++])
			return true;
	}
	return false;
}

static void ref_drop(struct cidk_topo *t, struct cidk__topo_level *lv,
		     unsigned int cpu)
{
	uint32_t gi = lv->grp[cpu];
	struct cidk__topo_group *g;

	if (gi == CIDK__TOPO_NONE)
		return;
	g = &lv->groups[gi];
	lv->grp[cpu] = CIDK__TOPO_NONE;
	if (cidk_mask_test(t->online, cpu) && --g->online_refs == 0)
		lv->nr_groups--;
	if (--g->refs == 0)
		group_release(g);
}

static void ref_take(struct cidk_topo *t, struct cidk__topo_level *lv,
		     unsigned int cpu, uint32_t gi)
{
	struct cidk__topo_group *g = &lv->groups[gi];

	lv->grp[cpu] = gi;
	g->refs++;
	if (cidk_mask_test(t->online, cpu) && g->online_refs++ == 0)
		lv->nr_groups++;
}

/* A slot for a new group: a dead one, or a fresh one at the end. */
static int group_slot(struct cidk__topo_level *lv, uint32_t *out)
{
	if (lv->nr == lv->cap) {
		uint32_t cap = lv->cap ? lv->cap * 2 : 16;
		struct cidk__topo_group *g;

		g = realloc(lv->groups, cap * sizeof(*g));
		if (!g)
			return -ENOMEM;
		lv->groups = g;
		lv->cap = cap;
	}
	memset(&lv->groups[lv->nr], 0, sizeof(lv->groups[0]));
	*out = lv->nr++;
	return 0;
}

int cidk_topo_set_mask(struct cidk_topo *t, enum cidk_topo_level level,
		       unsigned int cpu, const struct cidk_mask *m)
{
	struct cidk__topo_level *lv;
	struct cidk__topo_group *g;
	unsigned int first;
	uint32_t gi, old;

	if (!t || !m || (unsigned int)level >= CIDK_TOPO_NR_LEVELS ||
	    cpu >= t->nr_cpu_ids || m->nbits != t->nr_cpu_ids)
		return -EINVAL;
	lv = &t->lv[level];
	old = lv->grp[cpu];
	first = cidk_mask_first(m);

	/* Share the group of an equal mask (the CPU's own, or by first CPU). */
	if (old != CIDK__TOPO_NONE && group_equal_mask(&lv->groups[old], m)) {
		lv->present = true;
		return 0;
	}
	gi = first < t->nr_cpu_ids ? lv->by_first[first] : CIDK__TOPO_NONE;
	if (gi != CIDK__TOPO_NONE && lv->groups[gi].w &&
	    lv->groups[gi].first == first &&
	    group_equal_mask(&lv->groups[gi], m)) {
		ref_drop(t, lv, cpu);
		ref_take(t, lv, cpu, gi);
		lv->present = true;
		return 0;
	}

	/* A new group.  Build it completely before touching anything. */
	{
		struct cidk__topo_group fresh = { 0 };

		if (group_describe(&fresh, m))
			return -ENOMEM;
		if (group_slot(lv, &gi)) {
			group_release(&fresh);
			return -ENOMEM;
		}
		g = &lv->groups[gi];
		*g = fresh;
	}
	ref_drop(t, lv, cpu);
	ref_take(t, lv, cpu, gi);
	if (first < t->nr_cpu_ids)
		lv->by_first[first] = gi;
	lv->present = true;
	return 0;
}

int cidk__topo_add_group(struct cidk_topo *t, enum cidk_topo_level level,
			 const uint32_t *cpus, unsigned int n)
{
	struct cidk__topo_level *lv = &t->lv[level];
	struct cidk__topo_group fresh = { 0 };
	unsigned int words = 0;
	uint32_t gi;

	for (unsigned int i = 0; i < n; i++) {
		if (cpus[i] >= t->nr_cpu_ids || (i && cpus[i] <= cpus[i - 1]) ||
		    lv->grp[cpus[i]] != CIDK__TOPO_NONE)
			return -EINVAL;
		words += !i || cidk__bit_word(cpus[i]) != cidk__bit_word(cpus[i - 1]);
	}
	if (group_words(&fresh, words))
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++) {
		uint32_t w = cidk__bit_word(cpus[i]);

		if (!fresh.nr_nz || fresh.nz[fresh.nr_nz - 1] != w) {
			fresh.nz[fresh.nr_nz] = w;
			fresh.w[fresh.nr_nz++] = 0;
		}
		fresh.w[fresh.nr_nz - 1] |= cidk__bit_mask(cpus[i]);
	}
	fresh.first = n ? cpus[0] : t->nr_cpu_ids;
	if (group_slot(lv, &gi)) {
		group_release(&fresh);
		return -ENOMEM;
	}
	lv->groups[gi] = fresh;
	for (unsigned int i = 0; i < n; i++)
		ref_take(t, lv, cpus[i], gi);
	if (n)
		lv->by_first[cpus[0]] = gi;
	lv->present = true;
	return 0;
}

static void recount(struct cidk_topo *t)
{
	t->nr_online = cidk_mask_weight(t->online);
	for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++) {
		struct cidk__topo_level *lv = &t->lv[l];
		unsigned int cpu;

		lv->nr_groups = 0;
		for (uint32_t i = 0; i < lv->nr; i++)
			lv->groups[i].online_refs = 0;
		cidk_mask_for_each(cpu, t->online) {
			uint32_t gi = lv->grp[cpu];

			if (gi != CIDK__TOPO_NONE &&
			    lv->groups[gi].online_refs++ == 0)
				lv->nr_groups++;
		}
	}
}

int cidk_topo_set_online(struct cidk_topo *t, const struct cidk_mask *online)
{
	if (!t || !online || online->nbits != t->nr_cpu_ids)
		return -EINVAL;
	cidk_mask_copy(t->online, online);
	recount(t);
	return 0;
}

int cidk_topo_remove_cpu(struct cidk_topo *t, unsigned int cpu)
{
	if (!t || cpu >= t->nr_cpu_ids)
		return -EINVAL;
	for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++) {
		struct cidk__topo_level *lv = &t->lv[l];

		ref_drop(t, lv, cpu);
		for (uint32_t i = 0; i < lv->nr; i++) {
			struct cidk__topo_group *g = &lv->groups[i];
			struct cidk_mask *full;
			long k;

			if (!g->w || (k = group_find(g, cidk__bit_word(cpu))) < 0 ||
			    !(g->w[k] & cidk__bit_mask(cpu)))
				continue;
			g->w[k] &= ~cidk__bit_mask(cpu);
			full = atomic_load_explicit(&g->full, memory_order_relaxed);
			if (full)
				cidk_mask_clear(full, cpu);
			if (g->w[k] == 0) {
				/* drop word k (in place: no alloc) */
				for (unsigned int j = (unsigned int)k; j + 1 < g->nr_nz; j++) {
					g->nz[j] = g->nz[j + 1];
					g->w[j] = g->w[j + 1];
				}
				g->nr_nz--;
			}
			if (g->first == cpu) {
				g->first = g->nr_nz ? g->nz[0] * CIDK_BITS_PER_LONG +
					(unsigned int)__builtin_ctzl(g->w[0])
						    : t->nr_cpu_ids;
				if (g->first < t->nr_cpu_ids &&
				    lv->by_first[g->first] == CIDK__TOPO_NONE)
					lv->by_first[g->first] = i;
			}
		}
	}
	if (cidk_mask_test(t->online, cpu)) {
		cidk_mask_clear(t->online, cpu);
		t->nr_online--;
	}
	return 0;
}

/* ---- queries --------------------------------------------------------------- */

unsigned int cidk_topo_nr_cpu_ids(const struct cidk_topo *t)
{
	return t->nr_cpu_ids;
}

const struct cidk_mask *cidk_topo_online(const struct cidk_topo *t)
{
	return t->online;
}

unsigned int cidk_topo_nr_online(const struct cidk_topo *t)
{
	return t->nr_online;
}

bool cidk_topo_has_level(const struct cidk_topo *t, enum cidk_topo_level level)
{
	return (unsigned int)level < CIDK_TOPO_NR_LEVELS && t->lv[level].present;
}

static const struct cidk__topo_group *
online_group(const struct cidk_topo *t, enum cidk_topo_level level,
	     unsigned int cpu)
{
	if ((unsigned int)level >= CIDK_TOPO_NR_LEVELS ||
	    cpu >= t->nr_cpu_ids || !cidk_mask_test(t->online, cpu))
		return NULL;
	return cidk__topo_group_of(t, level, cpu);
}

const struct cidk_mask *cidk_topo_mask(const struct cidk_topo *t,
				       enum cidk_topo_level level,
				       unsigned int cpu)
{
	struct cidk__topo_group *g =
		(struct cidk__topo_group *)online_group(t, level, cpu);
	struct cidk_mask *full, *fresh;

	if (!g)
		return NULL;
	full = atomic_load_explicit(&g->full, memory_order_acquire);
	if (full)
		return full;
	/* first request for this group: materialize it, publish once */
	fresh = cidk_mask_alloc(t->nr_cpu_ids);
	if (!fresh)
		return NULL;
	for (unsigned int k = 0; k < g->nr_nz; k++)
		fresh->bits[g->nz[k]] = g->w[k];
	if (atomic_compare_exchange_strong_explicit(&g->full, &full, fresh,
						    memory_order_acq_rel,
						    memory_order_acquire))
		return fresh;
	cidk_mask_free(fresh); /* another thread won: use its copy */
	return full;
}

unsigned int cidk_topo_group_weight(const struct cidk_topo *t,
				    enum cidk_topo_level level,
				    unsigned int cpu)
{
	const struct cidk__topo_group *g = online_group(t, level, cpu);
	unsigned int n = 0;

	if (!g)
		return 0;
	for (unsigned int k = 0; k < g->nr_nz; k++)
		n += (unsigned int)__builtin_popcountl(g->w[k] &
						       t->online->bits[g->nz[k]]);
	return n;
}

unsigned int cidk_topo_group_id(const struct cidk_topo *t,
				enum cidk_topo_level level, unsigned int cpu)
{
	const struct cidk__topo_group *g = online_group(t, level, cpu);

	return g && g->first < t->nr_cpu_ids ? g->first : t->nr_cpu_ids;
}

unsigned int cidk_topo_nr_groups(const struct cidk_topo *t,
				 enum cidk_topo_level level)
{
	if ((unsigned int)level >= CIDK_TOPO_NR_LEVELS)
		return 0;
	return t->lv[level].nr_groups;
}

int cidk_topo_span_range(const struct cidk_topo *t, enum cidk_topo_level level,
			 unsigned int *min, unsigned int *max)
{
	const struct cidk__topo_level *lv;
	unsigned int lo = UINT32_MAX, hi = 0;

	*min = *max = 0;
	if ((unsigned int)level >= CIDK_TOPO_NR_LEVELS)
		return -ENOENT;
	lv = &t->lv[level];
	for (uint32_t i = 0; i < lv->nr; i++) {
		const struct cidk__topo_group *g = &lv->groups[i];
		unsigned int w;

		if (!g->w || !g->online_refs)
			continue;
		w = 0;
		for (unsigned int k = 0; k < g->nr_nz; k++)
			w += (unsigned int)__builtin_popcountl(
				g->w[k] & t->online->bits[g->nz[k]]);
		lo = w < lo ? w : lo;
		hi = w > hi ? w : hi;
	}
	if (hi == 0 && lo == UINT32_MAX)
		return -ENOENT;
	*min = lo;
	*max = hi;
	return 0;
}

enum cidk_topo_dist cidk_topo_distance(const struct cidk_topo *t,
				       unsigned int a, unsigned int b)
{
	static const struct {
		enum cidk_topo_level level;
		enum cidk_topo_dist dist;
	} by[] = {
		{ CIDK_TOPO_SMT, CIDK_DIST_SMT },
		{ CIDK_TOPO_CLUSTER, CIDK_DIST_CLUSTER },
		{ CIDK_TOPO_LLC, CIDK_DIST_LLC },
		{ CIDK_TOPO_DIE, CIDK_DIST_PKG },
		{ CIDK_TOPO_PKG, CIDK_DIST_PKG },
	};

	if (a >= t->nr_cpu_ids || b >= t->nr_cpu_ids ||
	    !cidk_mask_test(t->online, a) || !cidk_mask_test(t->online, b))
		return CIDK_DIST_REMOTE;
	if (a == b)
		return CIDK_DIST_SAME_CPU;
	for (unsigned int i = 0; i < sizeof(by) / sizeof(by[0]); i++) {
		const struct cidk__topo_level *lv = &t->lv[by[i].level];
		uint32_t ga = lv->grp[a];

		if (lv->present && ga != CIDK__TOPO_NONE && ga == lv->grp[b])
			return by[i].dist;
	}
	return CIDK_DIST_REMOTE;
}

void cidk__topo_drop_level(struct cidk_topo *t, enum cidk_topo_level level)
{
	struct cidk__topo_level *lv = &t->lv[level];

	for (uint32_t i = 0; i < lv->nr; i++)
		group_release(&lv->groups[i]);
	lv->nr = 0;
	lv->nr_groups = 0;
	lv->present = false;
	memset(lv->grp, 0xff, t->nr_cpu_ids * sizeof(*lv->grp));
	memset(lv->by_first, 0xff, t->nr_cpu_ids * sizeof(*lv->by_first));
}

/* ---- notes ------------------------------------------------------------------ */

int cidk__topo_note(struct cidk_topo *t, const char *fmt, ...)
{
	va_list ap;
	char *n;

	if (t->nr_notes == CIDK__TOPO_MAX_NOTES)
		return 0;
	n = malloc(201);
	if (!n)
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(n, 201, fmt, ap);
	va_end(ap);
	t->notes[t->nr_notes++] = n;
	return 0;
}

unsigned int cidk_topo_nr_notes(const struct cidk_topo *t)
{
	return t->nr_notes;
}

const char *cidk_topo_note(const struct cidk_topo *t, unsigned int i)
{
	return i < t->nr_notes ? t->notes[i] : NULL;
}

/* ---- groups one by one -------------------------------------------------------- */

void cidk__topo_group_to_mask(const struct cidk__topo_group *g,
			      struct cidk_mask *m)
{
	cidk_mask_zero(m);
	for (unsigned int k = 0; k < g->nr_nz; k++)
		m->bits[g->nz[k]] = g->w[k];
}

unsigned int cidk_topo_group_cpus(const struct cidk_topo *t,
				  enum cidk_topo_level level, unsigned int *cpus,
				  unsigned int n)
{
	const struct cidk__topo_level *lv;
	unsigned long *seen;
	unsigned int k = 0, c;

	if ((unsigned int)level >= CIDK_TOPO_NR_LEVELS || !t->lv[level].present)
		return 0;
	lv = &t->lv[level];
	seen = calloc(lv->nr / CIDK_BITS_PER_LONG + 1, sizeof(*seen));
	if (!seen)
		return UINT_MAX;
	cidk_mask_for_each(c, t->online) {
		uint32_t gi = lv->grp[c];

		if (gi == CIDK__TOPO_NONE ||
		    (seen[gi / CIDK_BITS_PER_LONG] & (1UL << gi % CIDK_BITS_PER_LONG)))
			continue;
		seen[gi / CIDK_BITS_PER_LONG] |= 1UL << gi % CIDK_BITS_PER_LONG;
		if (k < n)
			cpus[k] = c;
		k++;
	}
	free(seen);
	return k;
}

/* Append @s to @buf at *@len (counting what does not fit). */
static void put_str(char *buf, size_t size, size_t *len, const char *s)
{
	for (; *s; s++, (*len)++)
		if (*len + 1 < size)
			buf[*len] = *s;
}

static void put_range(char *buf, size_t size, size_t *len, unsigned int a,
		      unsigned int b)
{
	char tmp[32];

	if (a == b)
		snprintf(tmp, sizeof(tmp), "%s%u", *len ? "," : "", a);
	else
		snprintf(tmp, sizeof(tmp), "%s%u-%u", *len ? "," : "", a, b);
	put_str(buf, size, len, tmp);
}

size_t cidk_topo_group_list(const struct cidk_topo *t,
			    enum cidk_topo_level level, unsigned int cpu,
			    char *buf, size_t size)
{
	const struct cidk__topo_group *g = online_group(t, level, cpu);
	unsigned int start = 0, prev = 0;
	bool run = false;
	size_t len = 0;

	if (g) {
		for (unsigned int k = 0; k < g->nr_nz; k++) {
			unsigned long w = g->w[k] & t->online->bits[g->nz[k]];

			while (w) {
				unsigned int c = g->nz[k] * CIDK_BITS_PER_LONG +
						 (unsigned int)__builtin_ctzl(w);

				w &= w - 1;
				if (run && c == prev + 1) {
					prev = c;
					continue;
				}
				if (run)
					put_range(buf, size, &len, start, prev);
				start = prev = c;
				run = true;
			}
		}
		if (run)
			put_range(buf, size, &len, start, prev);
	}
	if (size)
		buf[len < size ? len : size - 1] = '\0';
	return len;
}
