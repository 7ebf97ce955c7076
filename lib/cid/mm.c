/* SPDX-License-Identifier: MIT */
/*
 * lib/cid/mm.c - one mm's shared CID state: creation, users (fork/exit),
 * the allowed-CPUs union, queries, counters, and the bitmap primitives
 * every policy allocates with.
 *
 * Workload: fork, exit and set_affinity are rare; the bitmap search runs
 * only when a policy has no cheaper CID at hand.  The CID bitmap is read
 * and written only through atomic loads and RMWs (mask.h's word view), so
 * that a search may run while other drivers take and release bits.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cid/cid_internal.h"
#include "internal/cidkit_lab.h"

/* lazy-batched's default: CPUs per scan call */
#define LAZY_BATCH 16

void cidk_cid_params_default(struct cidk_cid_params *p,
			     enum cidk_cid_policy_kind kind)
{
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->trigger = CIDK_CID_SCAN_RETURN_TO_USER;
	p->batch = LAZY_BATCH;
	p->expiry_ns = CIDK_CID_EXPIRY_NS;
	p->scan_period_ns = CIDK_CID_SCAN_PERIOD_NS;
}

void cidk_cid_task_init(struct cidk_cid_task *t)
{
	t->cid = CIDK_CID_NONE;
	t->last_cid = CIDK_CID_NONE;
	t->cpu = 0;
	t->running = false;
	t->active = false;
	t->own = CIDK__OWN_UNSET;
	t->next = NULL;
}

static const struct cidk__cid_ops *const policy_ops[CIDK_CID_NR_POLICIES] = {
	[CIDK_CID_BITMAP] = &cidk__bitmap_ops,
	[CIDK_CID_LAZY] = &cidk__lazy_ops,
	[CIDK_CID_LAZY_BATCHED] = &cidk__lazy_batched_ops,
	[CIDK_CID_CACHE_LOCAL] = &cidk__cache_local_ops,
	[CIDK_CID_INHERIT] = &cidk__inherit_ops,
	[CIDK_CID_OWNERSHIP] = &cidk__ownership_ops,
};

const char *cidk_cid_policy_name(enum cidk_cid_policy_kind kind)
{
	if ((unsigned int)kind >= CIDK_CID_NR_POLICIES)
		return NULL;
	return policy_ops[kind]->name;
}

int cidk_cid_policy_parse(const char *name, enum cidk_cid_policy_kind *kind)
{
	if (!name)
		return -EINVAL;
	for (int k = 0; k < CIDK_CID_NR_POLICIES; k++)
		if (!strcmp(name, policy_ops[k]->name)) {
			*kind = (enum cidk_cid_policy_kind)k;
			return 0;
		}
	return -EINVAL;
}

static const char *const fix_names[] = {
	"W1", "W2", "W3", "W4", "FEB", "FORK", "VFORK",
};
#define NR_FIXES (sizeof(fix_names) / sizeof(fix_names[0]))

const char *cidk_cid_fix_name(unsigned int fix)
{
	for (unsigned int i = 0; i < NR_FIXES; i++)
		if (fix == 1u << i)
			return fix_names[i];
	return NULL;
}

/* One fix name of @len bytes at @s, any case: its bit, or 0. */
static unsigned int fix_bit(const char *s, size_t len)
{
	for (unsigned int i = 0; i < NR_FIXES; i++) {
		size_t k = 0;

		if (strlen(fix_names[i]) != len)
			continue;
		while (k < len && toupper((unsigned char)s[k]) == fix_names[i][k])
			k++;
		if (k == len)
			return 1u << i;
	}
	return 0;
}

/* The FIXES of "ownership:FIXES" as the bits reverted; -EINVAL if bad. */
static int parse_fixes(const char *s, unsigned int *reverted)
{
	unsigned int named = 0;
	char sign = s[0];

	if (!strcmp(s, "current")) {
		*reverted = 0;
		return 0;
	}
	if (!strcmp(s, "v6.19")) {
		*reverted = CIDK_CID_FIXES_ALL;
		return 0;
	}
	if (sign != '-' && sign != '+')
		return -EINVAL;
	while (*s) {
		const char *name = s + 1;
		size_t len = strcspn(name, "+-");
		unsigned int bit;

		if (*s != sign)
			return -EINVAL; /* '+' and '-' mixed */
		bit = fix_bit(name, len);
		if (!bit || (named & bit))
			return -EINVAL;
		named |= bit;
		s = name + len;
	}
	*reverted = sign == '-' ? named : CIDK_CID_FIXES_ALL & ~named;
	return 0;
}

int cidk_cid_params_name(const struct cidk_cid_params *p, char *buf, size_t len)
{
	unsigned int r, n = 0, out;
	char sign;
	size_t at;
	int k;

	if (!p || (unsigned int)p->kind >= CIDK_CID_NR_POLICIES ||
	    (p->reverted & ~CIDK_CID_FIXES_ALL))
		return -EINVAL;
	r = p->reverted;
	if (p->kind == CIDK_CID_LAZY_BATCHED && p->batch != LAZY_BATCH)
		return snprintf(buf, len, "%s:%u", policy_ops[p->kind]->name,
				p->batch);
	if (!r || p->kind != CIDK_CID_OWNERSHIP)
		return snprintf(buf, len, "%s", policy_ops[p->kind]->name);
	if (r == CIDK_CID_FIXES_ALL)
		return snprintf(buf, len, "%s:v6.19", policy_ops[p->kind]->name);
	for (unsigned int i = 0; i < NR_FIXES; i++)
		n += (r >> i) & 1u;
	sign = 2 * n <= NR_FIXES ? '-' : '+';
	out = sign == '-' ? r : CIDK_CID_FIXES_ALL & ~r;
	k = snprintf(buf, len, "%s:", policy_ops[p->kind]->name);
	at = (size_t)k;
	for (unsigned int i = 0; i < NR_FIXES; i++) {
		if (!(out & (1u << i)))
			continue;
		k = snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,
			     "%c%s", sign, fix_names[i]);
		at += (size_t)k;
	}
	return (int)at;
}

int cidk_cid_params_parse(const char *spec, struct cidk_cid_params *p)
{
	char name[32];
	const char *colon;
	enum cidk_cid_policy_kind kind;
	size_t len;
	unsigned int reverted = 0;

	if (!spec || !p)
		return -EINVAL;
	colon = strchr(spec, ':');
	len = colon ? (size_t)(colon - spec) : strlen(spec);
	if (len >= sizeof(name))
		return -EINVAL;
	memcpy(name, spec, len);
	name[len] = '\0';
	if (cidk_cid_policy_parse(name, &kind))
		return -EINVAL;
	if (colon && kind == CIDK_CID_LAZY_BATCHED && strcmp(colon + 1, "current")) {
		/* "lazy-batched:B": B CPUs per scan call, 1 to 65535 */
		const char *d = colon + 1;
		unsigned long b = 0;

		if (!*d || strlen(d) > 5 || strspn(d, "0123456789") != strlen(d))
			return -EINVAL;
		b = strtoul(d, NULL, 10);
		if (!b || b > 65535)
			return -EINVAL;
		cidk_cid_params_default(p, kind);
		p->batch = (unsigned int)b;
		return 0;
	}
	if (colon) {
		if (parse_fixes(colon + 1, &reverted))
			return -EINVAL;
		if (kind != CIDK_CID_OWNERSHIP && strcmp(colon + 1, "current"))
			return -EINVAL;
	}
	cidk_cid_params_default(p, kind);
	p->reverted = reverted;
	return 0;
}

static unsigned int nr_shards_for(unsigned int nr_cpu_ids)
{
	unsigned int n = 1;

	while (n < nr_cpu_ids && n < 64)
		n <<= 1;
	return n;
}

int cidk_cid_mm_create(const struct cidk_cid_params *p,
		       unsigned int nr_cpu_ids,
		       const struct cidk_mask *allowed,
		       struct cidk_cid_mm **out)
{
	struct cidk_cid_mm *mm;
	unsigned int nshards;
	int rc = -ENOMEM;

	if (!p || !allowed || !out || (unsigned int)p->kind >= CIDK_CID_NR_POLICIES ||
	    (p->trigger != CIDK_CID_SCAN_TICK &&
	     p->trigger != CIDK_CID_SCAN_RETURN_TO_USER) ||
	    !nr_cpu_ids || nr_cpu_ids > SLOT_CID_MASK ||
	    nr_cpu_ids > CIDK_MASK_MAX_BITS || allowed->nbits != nr_cpu_ids ||
	    cidk_mask_empty(allowed) ||
	    (p->reverted & ~CIDK_CID_FIXES_ALL) ||
	    (p->reverted && p->kind != CIDK_CID_OWNERSHIP))
		return -EINVAL;
	if (p->kind == CIDK_CID_LAZY_BATCHED && !p->batch)
		return -EINVAL;

	mm = aligned_alloc(CIDK__CACHELINE, sizeof(*mm));
	if (!mm)
		return -ENOMEM;
	memset(mm, 0, sizeof(*mm));
	mm->p = *p;
	mm->ops = policy_ops[p->kind];
	if (!mm->p.expiry_ns)
		mm->p.expiry_ns = CIDK_CID_EXPIRY_NS;
	if (!mm->p.scan_period_ns)
		mm->p.scan_period_ns = CIDK_CID_SCAN_PERIOD_NS;
	/* lazy: one batch is the whole machine */
	if (mm->p.kind != CIDK_CID_LAZY_BATCHED)
		mm->p.batch = nr_cpu_ids;
	mm->nr_cpu_ids = nr_cpu_ids;
	nshards = nr_shards_for(nr_cpu_ids);
	mm->shard_mask = nshards - 1;

	mm->cidmask = cidk_mask_alloc(nr_cpu_ids);
	mm->allowed = cidk_mask_dup(allowed);
	mm->slots = aligned_alloc(CIDK__CACHELINE,
				  sizeof(*mm->slots) * nr_cpu_ids);
	mm->shards = aligned_alloc(CIDK__CACHELINE,
				   sizeof(*mm->shards) * (nshards + 1));
	if (!mm->cidmask || !mm->allowed || !mm->slots || !mm->shards)
		goto fail;
	memset(mm->shards, 0, sizeof(*mm->shards) * (nshards + 1));
	for (unsigned int c = 0; c < nr_cpu_ids; c++) {
		atomic_init(&mm->slots[c].word, SLOT_UNSET);
		atomic_init(&mm->slots[c].recent, CIDK_CID_NONE);
		atomic_init(&mm->slots[c].time, 0);
		atomic_init(&mm->slots[c].rq_lock, 0);
		mm->slots[c].cid = CIDK__OWN_UNSET;
		mm->slots[c].curr = NULL;
	}
	atomic_init(&mm->nr_cpus_allowed, cidk_mask_weight(allowed));
	atomic_init(&mm->nr_users, 0);
	atomic_init(&mm->mode, 0);
	atomic_init(&mm->percpu, 0);
	atomic_init(&mm->transit, 0);
	atomic_init(&mm->max_cids, 0);
	atomic_init(&mm->mutex, 0);
	atomic_init(&mm->list_lock, 0);
	mm->pcpu_thrs = 0;
	mm->bad_put = 0;
	mm->tasks = NULL;
	atomic_init(&mm->nr_cids_used, 0);
	atomic_init(&mm->next_scan, 0);
	atomic_init(&mm->scan_pos, 0);
	*out = mm;
	return 0;
fail:
	cidk_cid_mm_destroy(mm);
	return rc;
}

void cidk_cid_mm_destroy(struct cidk_cid_mm *mm)
{
	if (!mm)
		return;
	cidk_mask_free(mm->cidmask);
	cidk_mask_free(mm->allowed);
	free(mm->slots);
	free(mm->shards);
	free(mm);
}

/* ---- users and the allowed union ----------------------------------------- */

static unsigned int grow_union(struct cidk_cid_mm *mm,
			       const struct cidk_mask *allowed)
{
	unsigned int gained = cidk__mask_union(mm->allowed, allowed);

	if (gained)
		cidk__add(&mm->nr_cpus_allowed, gained);
	return gained;
}

/*
 * Users: ownership counts them itself, under its mutex, together with its
 * mode (its fork/exit do the whole accounting); the other policies only
 * need the count.
 */
static int fork_task(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
		     const struct cidk_mask *allowed, bool clone_vm)
{
	if (!allowed || allowed->nbits != mm->nr_cpu_ids)
		return -EINVAL;
	cidk_cid_task_init(t);
	t->clone_vm = clone_vm;
	if (mm->ops->fork) {
		mm->ops->fork(mm, t, allowed);
		return 0;
	}
	grow_union(mm, allowed);
	cidk__add(&mm->nr_users, 1);
	return 0;
}

int cidk_cid_fork(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
		  const struct cidk_mask *allowed)
{
	return fork_task(mm, t, allowed, false);
}

int cidk__cid_fork_vm(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
		      const struct cidk_mask *allowed)
{
	return fork_task(mm, t, allowed, true);
}

void cidk_cid_exit(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
		   uint64_t now)
{
	if (t->running)
		cidk_cid_switch(t->cpu, mm, t, NULL, NULL, now);
	if (mm->ops->exit) {
		mm->ops->exit(mm, t);
		return;
	}
	cidk__sub(&mm->nr_users, 1);
}

void cidk__cid_exit_running(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			    uint64_t now)
{
	if (!t->running || mm->p.kind != CIDK_CID_OWNERSHIP) {
		cidk_cid_exit(mm, t, now);
		return;
	}
	mm->ops->exit(mm, t); /* still current on t->cpu */
	cidk_cid_switch(t->cpu, mm, t, NULL, NULL, now); /* the last schedule */
}

int cidk_cid_set_affinity(struct cidk_cid_mm *mm, struct cidk_cid_task *t,
			  const struct cidk_mask *allowed)
{
	(void)t;
	if (!allowed || allowed->nbits != mm->nr_cpu_ids)
		return -EINVAL;
	if (mm->ops->affinity)
		return (int)mm->ops->affinity(mm, allowed);
	return (int)grow_union(mm, allowed);
}

unsigned int cidk__cid_grow_union(struct cidk_cid_mm *mm,
				  const struct cidk_mask *allowed)
{
	return grow_union(mm, allowed);
}

/* ---- queries -------------------------------------------------------------- */

unsigned int cidk_cid_max_cids(const struct cidk_cid_mm *mm)
{
	unsigned int a = cidk__load_u(&mm->nr_cpus_allowed);
	unsigned int u = cidk__load_u(&mm->nr_users);

	return a < u ? a : u;
}

unsigned int cidk_cid_nr_users(const struct cidk_cid_mm *mm)
{
	return cidk__load_u(&mm->nr_users);
}

unsigned int cidk_cid_nr_cpus_allowed(const struct cidk_cid_mm *mm)
{
	return cidk__load_u(&mm->nr_cpus_allowed);
}

unsigned int cidk_cid_nr_cpu_ids(const struct cidk_cid_mm *mm)
{
	return mm->nr_cpu_ids;
}

enum cidk_cid_policy_kind cidk_cid_mm_policy(const struct cidk_cid_mm *mm)
{
	return mm->p.kind;
}

/*
 * The shard after the last holds the mm's totals: each scan call adds its
 * releases there (one RMW), so this is one load, not a sum over 64 shards.
 */
uint64_t cidk_cid_releases(const struct cidk_cid_mm *mm)
{
	const struct cidk__cid_shard *tot = cidk__cid_totals(mm);

	return atomic_load_explicit(&tot->v[ST_COMPACTION_RELEASES],
				    memory_order_relaxed);
}

void cidk_cid_stats(const struct cidk_cid_mm *mm, struct cidk_cid_stats *st)
{
	uint64_t v[ST_NR] = { 0 };

	for (unsigned int s = 0; s <= mm->shard_mask; s++) {
		for (int i = 0; i < ST_NR; i++) {
			uint64_t x = atomic_load_explicit(&mm->shards[s].v[i],
							  memory_order_relaxed);

			if (i == ST_COMPACTION_MAX_CPUS || i == ST_MAX_CID)
				v[i] = x > v[i] ? x : v[i];
			else
				v[i] += x;
		}
	}
	st->bitmap_rmw = v[ST_BITMAP_RMW];
	st->bitmap_search = v[ST_BITMAP_SEARCH];
	st->compaction_calls = v[ST_COMPACTION_CALLS];
	st->compaction_cpus = v[ST_COMPACTION_CPUS];
	st->compaction_max_cpus = v[ST_COMPACTION_MAX_CPUS];
	st->compaction_releases = v[ST_COMPACTION_RELEASES];
	st->deferred_releases = v[ST_DEFERRED_RELEASES];
	st->handovers = v[ST_HANDOVERS];
	st->cid_changes = v[ST_CID_CHANGES];
	st->allocations = v[ST_ALLOCATIONS];
	st->max_cid = v[ST_MAX_CID] ? v[ST_MAX_CID] - 1 : 0;
	st->slot_rmw = v[ST_SLOT_RMW];
	st->migrate_moves = v[ST_MIGRATE_MOVES];
	st->mode_switches = v[ST_MODE_SWITCHES];
	st->fixup_walks = v[ST_FIXUP_WALKS];
	st->fixup_visits = v[ST_FIXUP_VISITS];
	st->transit_drops = v[ST_TRANSIT_DROPS];
	st->stalls = v[ST_STALLS];
	/* a lease's fast re-claim is all three, counted once (cid_internal.h) */
	st->allocations += v[ST_LEASE_FAST];
	st->handovers += v[ST_LEASE_FAST];
	st->slot_rmw += v[ST_LEASE_FAST];
}

/* ---- the bitmap, read with atomic loads ------------------------------------ */

unsigned int cidk__cid_first_zero(const struct cidk_cid_mm *mm,
				  unsigned int limit)
{
	unsigned int nw = CIDK_BITS_TO_LONGS(limit);

	for (unsigned int w = 0; w < nw; w++) {
		unsigned long free = ~cidk__bitmap_word(mm->cidmask, w);

		if (free) {
			unsigned int bit = w * CIDK_BITS_PER_LONG +
					   (unsigned int)__builtin_ctzl(free);

			return bit < limit ? bit : limit;
		}
	}
	return limit;
}

unsigned int cidk__cid_weight(const struct cidk_cid_mm *mm)
{
	unsigned int n = 0;

	for (unsigned int w = 0; w < mm->cidmask->nwords; w++)
		n += (unsigned int)__builtin_popcountl(
			cidk__bitmap_word(mm->cidmask, w));
	return n;
}

unsigned int cidk__cid_take_lowest(struct cidk_cid_mm *mm,
				   struct cidk__cid_shard *sh,
				   unsigned int limit)
{
	if (limit > mm->nr_cpu_ids)
		limit = mm->nr_cpu_ids;
	for (;;) {
		unsigned int cid;

		cidk__st_add(sh, ST_BITMAP_SEARCH, 1);
		cid = cidk__cid_first_zero(mm, limit);
		if (cid >= limit)
			return CIDK_CID_NONE;
		if (cidk__cid_try_take(mm, sh, cid))
			return cid;
		/* lost a race for that bit: search again */
	}
}

/* The lab's question about a lazy-family slot (lib/internal/cidkit_lab.h). */
bool cidk__cid_cpu_has_cid(const struct cidk_cid_mm *mm, unsigned int cpu)
{
	if (mm->ops != &cidk__lazy_ops && mm->ops != &cidk__lazy_batched_ops &&
	    mm->ops != &cidk__cache_local_ops)
		return false;
	return cpu < mm->nr_cpu_ids &&
	       cidk__ld(&mm->slots[cpu].word) != SLOT_UNSET;
}
