/* SPDX-License-Identifier: MIT */
/*
 * check/cid_model.c - a scenario as a model: threads run their scripts
 * against one mm through the public cidk_cid_* calls, so the checker
 * explores the very code the simulator and leases run.
 *
 * Properties:
 *   after every step (safety)  - the CIDs that tasks in user space use
 *       (from the end of their switch-in to the start of their switch-out
 *       or exit) are distinct, none is CIDK_CID_NONE, and each is below
 *       the bound its policy promises at the start or the end of the
 *       switch-in that handed it out (users may change meanwhile):
 *       min(nr_cpus_allowed, nr_users) for inherit, nr_cpus_allowed for
 *       bitmap and the lazy family, nr_cpu_ids for ownership (which may
 *       exceed max_cids during a transition and converges back);
 *   when every live task is between two events (quiescence) -
 *       cidk_cid_check(): ownership of every CID (task, CPU or transit,
 *       never two), the bitmap agrees, nothing leaks;
 *   at the end - the same, and for ownership no mode transition left
 *       half done (no TRANSIT in the mode).
 * Liveness is the explorer's (chk.h).
 *
 * An `in` event waits (is not enabled) while another task of the
 * scenario runs on its CPU, as a CPU runs one task at a time; a forked
 * task starts when its fork returned.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cid/cid_internal.h"
#include "cid_model.h"
#include "props.h"
#include "statecache.h"

#include "cidkit_lab.h" /* the library's lab-only interface */

#define EVENT_NS (60ull * 1000 * 1000)

/* cache_local.c's shrink bound in this build (cid_internal.h): the
 * library's 4 unless --cl-shrink-tries lowers it */
unsigned int cidk__chk_cl_shrink_tries = 4;
/* its claim loop's lost races: as many as claims (the library's 2 * max
 * in all) unless --cl-claim-races lowers them */
unsigned int cidk__chk_cl_claim_races = UINT_MAX;
#define NOBODY 0xffu

struct cid_model {
	const struct scenario *s;
	struct cidk_cid_params p;
	struct cidk_cid_mm *mm;
	struct cidk_mask *all, *amask[CHK_MAX_THREADS];
	struct cidk_mask *aff; /* scratch for affinity events */
	struct cidk_cid_task task[CHK_MAX_THREADS];
	/* per execution */
	unsigned int pc[CHK_MAX_THREADS];	/* the event about to run */
	bool alive[CHK_MAX_THREADS];		/* joined, not exited */
	bool started[CHK_MAX_THREADS];		/* may run (forked) */
	bool in_user[CHK_MAX_THREADS];
	bool in_event[CHK_MAX_THREADS];
	unsigned int user_cid[CHK_MAX_THREADS];
	unsigned int bound_at_in[CHK_MAX_THREADS];
	unsigned int scan_ret[CHK_MAX_THREADS]; /* for props_lazy.c */
	unsigned int cpu_of[SCN_MAX_CPUS];	/* who runs there, or NOBODY */
	uint64_t now;
	char event[CHK_MAX_THREADS][24];
	struct props *pr; /* the policies' promises (props.h) */
	/* the mm as created, byte for byte (mm_save) */
	unsigned char *fresh;
	size_t fresh_len;
};

/*
 * The blocks of the mm (lib/cid/mm.c, cidk_cid_mm_create: the mm, its
 * two masks, the slots, the shards and totals; lib/cid allocates nothing
 * else that lives from one event to the next); full_state hashes the same.
 * Block @i of @mm into *@p, its size returned; 0: no block @i.
 */
static size_t mm_block(struct cidk_cid_mm *mm, unsigned int i, void **p)
{
	switch (i) {
	case 0:
		*p = mm;
		return sizeof(*mm);
	case 1:
	case 2:
		*p = i == 1 ? mm->cidmask : mm->allowed;
		return sizeof(struct cidk_mask) +
		       ((struct cidk_mask *)*p)->nwords * sizeof(unsigned long);
	case 3:
		*p = mm->slots;
		return sizeof(*mm->slots) * mm->nr_cpu_ids;
	case 4:
		*p = mm->shards;
		return sizeof(*mm->shards) * (mm->shard_mask + 2u);
	default:
		return 0;
	}
}

/* Keep the bytes of the mm just created (cm->fresh); 0 or -ENOMEM. */
static int mm_save(struct cid_model *cm)
{
	size_t n = 0, len;
	void *b;

	for (unsigned int i = 0; (len = mm_block(cm->mm, i, &b)); i++)
		n += len;
	cm->fresh = malloc(n);
	if (!cm->fresh)
		return -ENOMEM;
	cm->fresh_len = n;
	n = 0;
	for (unsigned int i = 0; (len = mm_block(cm->mm, i, &b)); i++, n += len)
		memcpy(cm->fresh + n, b, len);
	return 0;
}

/*
 * The mm back to what cidk_cid_mm_create made, in place: the same bytes
 * at the same addresses every execution.  (Freed and created again, the
 * mm landed at one of a few layouts, by the malloc history of the
 * process; addresses are in the state cache's fingerprint -- the pending
 * steps' words, the pointers on the stacks and in the mm -- so one state
 * had several fingerprints, and the counts with the cache depended on
 * what the process had run before.)  The block sizes are read from the
 * fresh copy, never from the mm an execution left.
 */
static void mm_restore(struct cid_model *cm)
{
	struct cidk_cid_mm *mm = cm->mm;
	const struct cidk_cid_mm *fresh = (const void *)cm->fresh;
	void *blk[5] = { mm, fresh->cidmask, fresh->allowed, fresh->slots,
			 fresh->shards };
	size_t n = 0, len;
	void *b;

	for (unsigned int i = 0; (len = mm_block((struct cidk_cid_mm *)fresh,
						 i, &b)); i++, n += len)
		memcpy(blk[i], cm->fresh + n, len);
}

static unsigned int promised_bound(struct cid_model *cm)
{
	switch (cm->p.kind) {
	case CIDK_CID_INHERIT:
		return cidk_cid_max_cids(cm->mm);
	case CIDK_CID_OWNERSHIP:
		return cm->s->cpus;
	default:
		return cidk_cid_nr_cpus_allowed(cm->mm);
	}
}

/* The fork of task @i: a thread, or a CLONE_VM user (scenario.h). */
static void fork_task(struct cid_model *cm, unsigned int i)
{
	if (cm->s->task[i].clone_vm)
		cidk__cid_fork_vm(cm->mm, &cm->task[i], cm->amask[i]);
	else
		cidk_cid_fork(cm->mm, &cm->task[i], cm->amask[i]);
}

static void reset(void *ctx)
{
	struct cid_model *cm = ctx;
	const struct scenario *s = cm->s;

	mm_restore(cm);
	cm->now = 0;
	for (unsigned int c = 0; c < s->cpus; c++)
		cm->cpu_of[c] = NOBODY;
	for (unsigned int i = 0; i < s->ntasks; i++) {
		cm->pc[i] = 0;
		cm->alive[i] = false;
		cm->started[i] = s->task[i].initial;
		cm->in_user[i] = false;
		cm->in_event[i] = false;
		cm->user_cid[i] = CIDK_CID_NONE;
		cm->event[i][0] = '\0';
		if (s->task[i].nev)
			scn_event_str(s, &s->task[i].ev[0], cm->event[i],
				      sizeof(cm->event[i]));
		cidk_cid_task_init(&cm->task[i]);
	}
	for (unsigned int i = 0; i < s->ntasks; i++)
		if (s->task[i].initial) {
			fork_task(cm, i);
			cm->alive[i] = true;
		}
	props_reset(cm->pr, cm->mm);
}

static bool enabled(void *ctx, unsigned int tid)
{
	struct cid_model *cm = ctx;
	const struct scn_task *t = &cm->s->task[tid];

	if (!cm->started[tid])
		return false;
	if (cm->pc[tid] < t->nev && t->ev[cm->pc[tid]].kind == SCN_IN)
		return cm->cpu_of[t->ev[cm->pc[tid]].arg] == NOBODY;
	return true;
}

static const char *waiting(void *ctx, unsigned int tid, char *buf, size_t len)
{
	struct cid_model *cm = ctx;
	const struct scn_task *t = &cm->s->task[tid];
	unsigned int c;

	if (!cm->started[tid])
		return "is not forked yet";
	if (cm->pc[tid] < t->nev && t->ev[cm->pc[tid]].kind == SCN_IN) {
		c = t->ev[cm->pc[tid]].arg;
		snprintf(buf, len, "waits to switch in on CPU %u, where %s runs", c,
			 cm->cpu_of[c] == NOBODY ? "nobody" :
			 cm->s->task[cm->cpu_of[c]].name);
		return buf;
	}
	return NULL;
}

static void run_event(struct cid_model *cm, unsigned int tid,
		      const struct scn_event *e)
{
	struct cidk_cid_task *t = &cm->task[tid];
	unsigned int cpu = t->cpu, cid, a, b;

	switch (e->kind) {
	case SCN_IN:
		cm->cpu_of[e->arg] = (uint8_t)tid;
		b = promised_bound(cm);
		/* a lease's enter; when it finds no CID, the full switch */
		cid = CIDK_CID_NONE;
		if (e->lease)
			cid = cidk__cid_lease_in(cm->mm, t, e->arg, cm->now);
		if (cid == CIDK_CID_NONE)
			cid = cidk_cid_switch(e->arg, NULL, NULL, cm->mm, t,
					      cm->now);
		/* the bound may move during the switch: either end holds */
		a = promised_bound(cm);
		cm->bound_at_in[tid] = a > b ? a : b;
		cm->user_cid[tid] = cid;
		cm->in_user[tid] = true;
		break;
	case SCN_OUT:
		cm->in_user[tid] = false;
		if (e->lease)
			cidk__cid_lease_out(cm->mm, t, cm->now);
		else
			cidk_cid_switch(cpu, cm->mm, t, NULL, NULL, cm->now);
		cm->cpu_of[cpu] = NOBODY;
		break;
	case SCN_EXIT:
		cm->in_user[tid] = false;
		cidk__cid_exit_running(cm->mm, t, cm->now); /* do_exit() */
		if (cm->cpu_of[cpu] == tid)
			cm->cpu_of[cpu] = NOBODY;
		cm->alive[tid] = false;
		break;
	case SCN_FORK:
		fork_task(cm, e->arg);
		cm->alive[e->arg] = true;
		cm->started[e->arg] = true;
		break;
	case SCN_MIGRATE:
		cidk_cid_migrate(cm->mm, t, t->cpu, e->arg, cm->now);
		break;
	case SCN_AFFINITY:
		cidk_mask_zero(cm->aff);
		for (unsigned int c = 0; c < cm->s->cpus; c++)
			if (e->mask & (1ull << c))
				cidk_mask_set(cm->aff, c);
		cidk_cid_set_affinity(cm->mm, t, cm->aff);
		break;
	case SCN_TICK:
		cm->scan_ret[tid] = cidk_cid_tick(cm->mm, t, cpu, cm->now);
		break;
	case SCN_RTU:
		cm->scan_ret[tid] = cidk_cid_return_to_user(cm->mm, t, cpu,
							     cm->now);
		break;
	}
}

static void thread(void *ctx, unsigned int tid)
{
	struct cid_model *cm = ctx;
	const struct scn_task *t = &cm->s->task[tid];

	for (unsigned int k = 0; k < t->nev; k++) {
		cm->pc[tid] = k;
		/* (named before its point: the trace's "begin" step and a
		 * wait for it show the event about to start) */
		scn_event_str(cm->s, &t->ev[k], cm->event[tid],
			      sizeof(cm->event[tid]));
		if (k) /* the thread's start is the first event's point */
			chk_event();
		cm->in_event[tid] = true;
		cm->now += EVENT_NS;
		props_begin(cm->pr, tid, &t->ev[k]);
		run_event(cm, tid, &t->ev[k]);
		props_end(cm->pr, tid, &t->ev[k]);
		cm->in_event[tid] = false;
	}
	cm->pc[tid] = t->nev;
	snprintf(cm->event[tid], sizeof(cm->event[tid]), "(done)");
}

static int check_step(void *ctx, char *why, size_t len)
{
	struct cid_model *cm = ctx;
	const struct scenario *s = cm->s;

	if (props_step(cm->pr, why, len))
		return -1;
	for (unsigned int i = 0; i < s->ntasks; i++) {
		unsigned int c = cm->user_cid[i];

		if (!cm->in_user[i])
			continue;
		if (c == CIDK_CID_NONE) {
			snprintf(why, len, "%s runs in user space without a CID",
				 s->task[i].name);
			return -1;
		}
		if (c >= cm->bound_at_in[i]) {
			snprintf(why, len,
				 "%s got CID %u, not below the %u its policy promises",
				 s->task[i].name, c, cm->bound_at_in[i]);
			return -1;
		}
		for (unsigned int j = 0; j < i; j++)
			if (cm->in_user[j] && cm->user_cid[j] == c) {
				snprintf(why, len,
					 "CID %u used by %s and %s at the same time",
					 c, s->task[j].name, s->task[i].name);
				return -1;
			}
	}
	return 0;
}

static int check_mm(struct cid_model *cm, char *why, size_t len)
{
	struct cidk_cid_task *tp[CHK_MAX_THREADS];
	char w[256];
	unsigned int n = 0;

	for (unsigned int i = 0; i < cm->s->ntasks; i++)
		if (cm->alive[i])
			tp[n++] = &cm->task[i];
	if (cidk_cid_check(cm->mm, tp, n, false, w, sizeof(w))) {
		/* the checker numbers the tasks it was given: name them */
		snprintf(why, len, "%s (tasks:", w);
		for (unsigned int i = 0, k = 0; i < cm->s->ntasks; i++)
			if (cm->alive[i]) {
				size_t l = strlen(why);

				snprintf(why + l, len - l, " %u=%s", k++,
					 cm->s->task[i].name);
			}
		strncat(why, ")", len - strlen(why) - 1);
		return -1;
	}
	return 0;
}

static int check_quiet(void *ctx, char *why, size_t len)
{
	struct cid_model *cm = ctx;

	return check_mm(cm, why, len) ? -1 : props_quiet(cm->pr, why, len);
}

static int check_final(void *ctx, char *why, size_t len)
{
	struct cid_model *cm = ctx;

	if (check_mm(cm, why, len) || props_quiet(cm->pr, why, len))
		return -1;
	if (cm->p.kind == CIDK_CID_OWNERSHIP &&
	    ((cidk__load_u(&cm->mm->mode) & 0x20000000u) ||
	     cidk__load_u(&cm->mm->transit))) {
		snprintf(why, len,
			 "a mode transition never completed: TRANSIT still set at the end");
		return -1;
	}
	return 0;
}

static const char *thread_name(void *ctx, unsigned int tid)
{
	struct cid_model *cm = ctx;

	return cm->s->task[tid].name;
}

static const char *thread_event(void *ctx, unsigned int tid)
{
	struct cid_model *cm = ctx;

	return cm->event[tid];
}

/*
 * The CPU @tid occupies: it runs there, or is switching in or out there
 * (an `in` claims its CPU when it starts, an `out` frees it when it
 * ends), or -1.  Not task->cpu, the runqueue a sleeping task sits on,
 * which a switch-in's move_task changes halfway through the event.
 */
static int thread_cpu(void *ctx, unsigned int tid)
{
	struct cid_model *cm = ctx;

	for (unsigned int c = 0; c < cm->s->cpus; c++)
		if (cm->cpu_of[c] == tid)
			return (int)c;
	return -1;
}

/* What task @i is doing, in words that agree with the CPU lines. */
static const char *task_status(const struct cid_model *cm, unsigned int i)
{
	const struct scn_task *st = &cm->s->task[i];

	if (!cm->started[i])
		return "not forked yet";
	if (!cm->alive[i])
		return "exited";
	if (cm->in_event[i] && cm->pc[i] < st->nev)
		switch (st->ev[cm->pc[i]].kind) {
		case SCN_IN:
			return "switching in";
		case SCN_OUT:
			return "switching out";
		case SCN_EXIT:
			return "exiting";
		default:
			break;
		}
	return cm->task[i].running ? "running" : "not running";
}

static bool inside(const void *a, const void *base, size_t size)
{
	return (const char *)a >= (const char *)base &&
	       (const char *)a < (const char *)base + size;
}

/* The mm, its two masks' words, its per-CPU slots, the tasks. */
static bool addr_valid(void *ctx, const void *a)
{
	struct cid_model *cm = ctx;
	struct cidk_cid_mm *mm = cm->mm;

	return inside(a, mm, sizeof(*mm)) ||
	       inside(a, mm->cidmask->bits,
		      mm->cidmask->nwords * sizeof(mm->cidmask->bits[0])) ||
	       inside(a, mm->allowed->bits,
		      mm->allowed->nwords * sizeof(mm->allowed->bits[0])) ||
	       inside(a, mm->slots, cm->s->cpus * sizeof(mm->slots[0])) ||
	       inside(a, cm->task, cm->s->ntasks * sizeof(cm->task[0]));
}

static const char *addr_name(void *ctx, const void *a, char *buf, size_t len)
{
	struct cid_model *cm = ctx;
	struct cidk_cid_mm *mm = cm->mm;
	static const struct {
		size_t off;
		const char *name;
	} words[] = {
		{ offsetof(struct cidk_cid_mm, nr_cpus_allowed), "mm.nr_cpus_allowed" },
		{ offsetof(struct cidk_cid_mm, nr_users), "mm.users" },
		{ offsetof(struct cidk_cid_mm, nr_cids_used), "mm.nr_cids_used" },
		{ offsetof(struct cidk_cid_mm, next_scan), "mm.next_scan" },
		{ offsetof(struct cidk_cid_mm, scan_pos), "mm.scan_pos" },
		{ offsetof(struct cidk_cid_mm, mode), "mm.mode" },
		{ offsetof(struct cidk_cid_mm, percpu), "mm.percpu" },
		{ offsetof(struct cidk_cid_mm, transit), "mm.transit" },
		{ offsetof(struct cidk_cid_mm, max_cids), "mm.max_cids" },
		{ offsetof(struct cidk_cid_mm, mutex), "mm.mutex" },
		{ offsetof(struct cidk_cid_mm, list_lock), "mm.list_lock" },
		{ offsetof(struct cidk_cid_mm, tasks), "mm.tasks" },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (a == (const char *)mm + words[i].off) {
			snprintf(buf, len, "%s", words[i].name);
			return buf;
		}
	for (unsigned int w = 0; w < mm->cidmask->nwords; w++)
		if (a == &mm->cidmask->bits[w]) {
			snprintf(buf, len, w ? "cidmask[%u]" : "cidmask", w);
			return buf;
		}
	for (unsigned int w = 0; w < mm->allowed->nwords; w++)
		if (a == &mm->allowed->bits[w]) {
			snprintf(buf, len, w ? "mm.allowed[%u]" : "mm.allowed", w);
			return buf;
		}
	for (unsigned int c = 0; c < cm->s->cpus; c++) {
		const struct cidk__cid_slot *sl = &mm->slots[c];

		if (a == &sl->word)
			snprintf(buf, len, "cpu%u.slot", c);
		else if (a == &sl->recent)
			snprintf(buf, len, "cpu%u.recent", c);
		else if (a == &sl->time)
			snprintf(buf, len, "cpu%u.time", c);
		else if (a == &sl->rq_lock)
			snprintf(buf, len, "cpu%u.rq_lock", c);
		else
			continue;
		return buf;
	}
	for (unsigned int i = 0; i < cm->s->ntasks; i++) {
		const struct cidk_cid_task *t = &cm->task[i];

		if (a == &t->cpu)
			snprintf(buf, len, "%s.cpu", cm->s->task[i].name);
		else if (a == &t->own)
			snprintf(buf, len, "%s.own", cm->s->task[i].name);
		else if (a == &t->next) /* --plain-points */
			snprintf(buf, len, "%s.next", cm->s->task[i].name);
		else
			continue;
		return buf;
	}
	return NULL;
}

/* A task list pointer (--plain-points) in the trace: 1 + the task's
 * index (T0 is 1), 0 for NULL: the same bytes for the same input. */
static uint64_t plain_value(void *ctx, uint64_t v)
{
	struct cid_model *cm = ctx;

	for (unsigned int i = 0; i < cm->s->ntasks; i++)
		if (v == (uintptr_t)&cm->task[i])
			return i + 1u;
	return v;
}

static void own_str(unsigned int v, char *buf, size_t len)
{
	if (v == CIDK__OWN_UNSET || v == CIDK_CID_NONE)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%u%s%s", v & 0x1fffffffu,
			 (v & 0x40000000u) ? " oncpu" : "",
			 (v & 0x20000000u) ? " transit" : "");
}

static void dump(void *ctx, FILE *f)
{
	struct cid_model *cm = ctx;
	struct cidk_cid_mm *mm = cm->mm;
	char b[32];

	fprintf(f, "mm: users %u, nr_cpus_allowed %u, cidmask",
		cidk__load_u(&mm->nr_users), cidk__load_u(&mm->nr_cpus_allowed));
	for (unsigned int c = 0; c < cm->s->cpus; c++)
		if (cidk_mask_test_atomic(mm->cidmask, c))
			fprintf(f, " %u", c);
	if (cm->p.kind == CIDK_CID_OWNERSHIP) {
		unsigned int mode = (cm->p.reverted & CIDK_CID_FIX_W2) ?
			(cidk__load_u(&mm->percpu) ? 0x40000000u : 0) |
				cidk__load_u(&mm->transit) :
			cidk__load_u(&mm->mode);

		fprintf(f, "; mode %s%s, max_cids %u",
			(mode & 0x40000000u) ? "per-cpu" : "per-task",
			(mode & 0x20000000u) ? " transit" : "",
			cidk__load_u(&mm->max_cids));
	}
	fputc('\n', f);
	for (unsigned int c = 0; c < cm->s->cpus; c++) {
		const struct cidk__cid_slot *sl = &mm->slots[c];

		if (cm->cpu_of[c] == NOBODY)
			fprintf(f, "cpu%u: runs -", c);
		else if (strcmp(task_status(cm, cm->cpu_of[c]), "running") &&
			 strcmp(task_status(cm, cm->cpu_of[c]), "not running"))
			fprintf(f, "cpu%u: %s %s", c, cm->s->task[cm->cpu_of[c]].name,
				task_status(cm, cm->cpu_of[c]));
		else
			fprintf(f, "cpu%u: runs %s", c,
				cm->s->task[cm->cpu_of[c]].name);
		if (cm->p.kind == CIDK_CID_OWNERSHIP) {
			own_str(sl->cid, b, sizeof(b));
			fprintf(f, ", cid %s%s", b,
				cidk__load_u(&sl->rq_lock) ? ", rq_lock held" : "");
		} else if (cidk__is_lazy_family(mm)) {
			unsigned int w = cidk__load_u(&sl->word);

			if (w == SLOT_UNSET)
				fprintf(f, ", slot -");
			else
				fprintf(f, ", slot %u%s%s", w & SLOT_CID_MASK,
					(w & SLOT_BUSY) ? " busy" : "",
					(w & SLOT_LAZY_PUT) ? " lazy-put" : "");
		}
		fputc('\n', f);
	}
	for (unsigned int i = 0; i < cm->s->ntasks; i++) {
		const struct cidk_cid_task *t = &cm->task[i];

		fprintf(f, "%s: %s, cpu %u, cid ", cm->s->task[i].name,
			task_status(cm, i), t->cpu);
		if (t->cid == CIDK_CID_NONE)
			fputc('-', f);
		else
			fprintf(f, "%u", t->cid);
		if (cm->p.kind == CIDK_CID_OWNERSHIP) {
			own_str(t->own, b, sizeof(b));
			fprintf(f, ", owns %s", b);
		}
		fprintf(f, ", next event %s\n",
			cm->pc[i] < cm->s->task[i].nev ? "pending" : "none");
	}
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

static uint64_t state_hash(void *ctx)
{
	struct cid_model *cm = ctx;
	struct cidk_cid_mm *mm = cm->mm;
	uint64_t h = 0xcbf29ce484222325ull;

	for (unsigned int w = 0; w < mm->cidmask->nwords; w++)
		h = mix(h, mm->cidmask->bits[w]);
	h = mix(h, cidk__load_u(&mm->nr_users));
	h = mix(h, cidk__load_u(&mm->mode) ^ cidk__load_u(&mm->percpu) << 8 ^
			   cidk__load_u(&mm->transit));
	h = mix(h, cidk__load_u(&mm->max_cids));
	h = mix(h, cidk__load_u(&mm->mutex) << 1 | cidk__load_u(&mm->list_lock));
	h = mix(h, cidk__load_u(&mm->nr_cids_used));
	for (unsigned int c = 0; c < cm->s->cpus; c++) {
		const struct cidk__cid_slot *sl = &mm->slots[c];

		h = mix(h, cidk__load_u(&sl->word));
		h = mix(h, cidk__load_u(&sl->recent));
		h = mix(h, sl->cid ^ (uint64_t)cidk__load_u(&sl->rq_lock) << 32);
		h = mix(h, cm->cpu_of[c]);
	}
	for (unsigned int i = 0; i < cm->s->ntasks; i++) {
		const struct cidk_cid_task *t = &cm->task[i];

		h = mix(h, t->cid ^ (uint64_t)t->own << 32);
		h = mix(h, t->cpu | (uint64_t)t->running << 16 |
				   (uint64_t)cm->alive[i] << 17 |
				   (uint64_t)cm->in_user[i] << 18 | (uint64_t)cm->pc[i] << 20);
	}
	return h;
}

/*
 * The state cache's view (chk_model.full_state): every byte of the mm and
 * of what hangs off it (lib/cid keeps no other state), the tasks, this
 * model's per-execution fields (pc .. now; the event names follow from
 * pc) and the properties' state.  Raw bytes: a field added later is in.
 */
static void full_state(void *ctx, struct chk_fp *f)
{
	struct cid_model *cm = ctx;
	struct cidk_cid_mm *mm = cm->mm;

	size_t len;
	void *b;

	for (unsigned int i = 0; (len = mm_block(mm, i, &b)); i++)
		chk_fp_bytes(f, b, len);
	chk_fp_bytes(f, cm->task, sizeof(cm->task));
	chk_fp_bytes(f, cm->pc, (size_t)((const char *)&cm->now -
					 (const char *)cm->pc) +
				     sizeof(cm->now));
	props_full_state(cm->pr, f);
}

int cid_model_new(const struct scenario *s, const struct cidk_cid_params *p,
		  struct chk_model *m, struct cid_model **out)
{
	struct cid_model *cm = calloc(1, sizeof(*cm));
	int rc = -ENOMEM;

	if (!cm)
		return -ENOMEM;
	cm->s = s;
	cm->p = *p;
	cm->all = cidk_mask_alloc(s->cpus);
	cm->aff = cidk_mask_alloc(s->cpus);
	if (!cm->all || !cm->aff)
		goto fail;
	/* the mm's allowed union: its initial tasks' CPUs (a fork adds more) */
	for (unsigned int i = 0; i < s->ntasks; i++)
		for (unsigned int c = 0; c < s->cpus; c++)
			if (s->task[i].initial && (scn_task_cpus(s, i) & (1ull << c)))
				cidk_mask_set(cm->all, c);
	for (unsigned int i = 0; i < s->ntasks; i++) {
		/* its own affinity (scenario.h), else 'allowed' */
		cm->amask[i] = cidk_mask_alloc(s->cpus);
		if (!cm->amask[i])
			goto fail;
		for (unsigned int c = 0; c < s->cpus; c++)
			if (scn_task_cpus(s, i) & (1ull << c))
				cidk_mask_set(cm->amask[i], c);
	}
	cm->pr = props_new(&(struct props_view){ s, &cm->p, cm->task, cm->alive,
						 cm->in_user, cm->user_cid,
						 &cm->now, cm->scan_ret });
	if (!cm->pr)
		goto fail;
	rc = cidk_cid_mm_create(p, s->cpus, cm->all, &cm->mm);
	if (rc || (rc = mm_save(cm)))
		goto fail;

	memset(m, 0, sizeof(*m));
	m->nthreads = s->ntasks;
	m->ctx = cm;
	m->reset = reset;
	m->thread = thread;
	m->enabled = enabled;
	m->check_step = check_step;
	m->check_quiet = check_quiet;
	m->check_final = check_final;
	m->thread_name = thread_name;
	m->thread_event = thread_event;
	m->thread_cpu = thread_cpu;
	m->waiting = waiting;
	m->addr_name = addr_name;
	m->addr_valid = addr_valid;
	m->plain_value = plain_value;
	m->dump = dump;
	m->state_hash = state_hash;
	m->full_state = full_state;
	*out = cm;
	return 0;
fail:
	cid_model_free(cm);
	return rc;
}

void cid_model_free(struct cid_model *cm)
{
	if (!cm)
		return;
	cidk_cid_mm_destroy(cm->mm);
	free(cm->fresh);
	cidk_mask_free(cm->all);
	cidk_mask_free(cm->aff);
	props_free(cm->pr);
	for (unsigned int i = 0; i < CHK_MAX_THREADS; i++)
		cidk_mask_free(cm->amask[i]);
	free(cm);
}
