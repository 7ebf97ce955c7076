/* SPDX-License-Identifier: MIT */
/*
 * check/kmodel.c - the `kernel` policy: a scenario as a model whose code
 * under test is the kernel's own mm_cid code, built at run time by
 * scripts/kernel-source into a shared object (check/kernel/: our
 * stand-ins and call context; docs/check-kernel.md).  This file loads
 * the object and checks the scenario's properties on the kernel's state.
 *
 * Properties (the ones cid_model.c and cidk_cid_check() give ownership,
 * computed here from the kernel's own words):
 *   after every step  - tasks in user space (from the end of their switch-
 *       in to the start of their switch-out or exit) hold a CID (not
 *       MM_CID_UNSET), distinct, below nr_cpu_ids; and the stand-ins
 *       reported nothing (a WARN_ON_ONCE that fired, a lockdep assertion
 *       on a lock nobody holds, a bit operation past the bitmap);
 *   at quiescence     - every CID owned at most once (a task: plain or in
 *       transit; a CPU: ONCPU in its per-CPU word), its bitmap bit set
 *       exactly when owned (nothing leaks), a running task with a CPU-owned
 *       CID runs where its CPU owns it, a task not running holds nothing in
 *       transit, the mode word holds no TRANSIT (no transition left
 *       half-done), in per-task mode no CPU owns a CID, and users counts
 *       the live tasks;
 *   at the end        - the same.
 * The properties of props.c that read lib/cid's own words (own-mode,
 * own-keep, own-converge, ...) are not checked here: docs/check-kernel.md.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel/kops.h"
#include "kmodel.h"
#include "statecache.h"

#include "cidkit_lab.h" /* the library's lab-only interface */

#define NOBODY 0xffu
#define UNSET 0x80000000u
#define ONCPU 0x40000000u
#define TRANSIT 0x20000000u
#define CIDBITS 0x1fffffffu

static const struct kops *K;
static char kversion[32];

struct kmodel {
	const struct scenario *s;
	unsigned int nthreads;	/* tasks, and the worker when one is needed */
	bool worker;
	const char *names[CHK_MAX_THREADS];
	/* per execution */
	unsigned int pc[CHK_MAX_THREADS];
	bool alive[CHK_MAX_THREADS], started[CHK_MAX_THREADS];
	bool in_user[CHK_MAX_THREADS], running[CHK_MAX_THREADS];
	bool in_event[CHK_MAX_THREADS];
	unsigned int user_cid[CHK_MAX_THREADS];
	unsigned int cpu_of[SCN_MAX_CPUS];
	char event[CHK_MAX_THREADS + 1][24];
	struct kview v;	/* scratch */
};

int kmodel_load(const char *so, char *why, size_t len)
{
	void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	const struct kops *k;

	if (!h) {
		snprintf(why, len, "cannot load %s: %s", so, dlerror());
		return -EINVAL;
	}
	k = dlsym(h, "kchk_ops");
	if (!k || k->abi != KOPS_ABI) {
		snprintf(why, len, "%s is not a kernel build of this checker "
			 "(rebuild it: docs/check-kernel.md)", so);
		return -EINVAL;
	}
	K = k;
	snprintf(kversion, sizeof(kversion), "%s", k->version);
	return 0;
}

#ifndef KCHK_SRCDIR
#define KCHK_SRCDIR "."
#endif

/* the source tree's check/kernel and scripts (CIDKIT_SOURCE_DIR: another) */
static const char *srcdir(void)
{
	const char *d = getenv("CIDKIT_SOURCE_DIR");

	return d && *d ? d : KCHK_SRCDIR;
}

int kmodel_build(const struct kbuild *b, char *why, size_t len)
{
	char script[4096], stubs[4096], lib[4096], inc[4096], out[8192] = "";
	static char parg[8][4200], plarg[4200];
	const char *argv[26];
	unsigned int n = 0;
	int fd[2], st;
	pid_t pid;
	ssize_t r;
	size_t got = 0;
	char *sp, *patches = NULL;

	snprintf(script, sizeof(script), "%s/scripts/kernel-source", srcdir());
	snprintf(stubs, sizeof(stubs), "%s/check/kernel", srcdir());
	snprintf(lib, sizeof(lib), "%s/lib", srcdir());
	snprintf(inc, sizeof(inc), "%s/include", srcdir());
	if (access(script, R_OK)) {
		snprintf(why, len, "no %s: the kernel policy needs cidkit's source "
			 "tree (set CIDKIT_SOURCE_DIR)", script);
		return -EINVAL;
	}
	argv[n++] = "python3";
	argv[n++] = script;
	argv[n++] = "build";
	argv[n++] = b->tree ? "--tree" : "--source";
	argv[n++] = b->tree ? b->tree : b->source;
	argv[n++] = "--stubs";
	argv[n++] = stubs;
	argv[n++] = "--include";
	argv[n++] = lib;
	argv[n++] = "--include";
	argv[n++] = inc;
	if (b->plant) {
		snprintf(plarg, sizeof(plarg), "--plant=%s", b->plant);
		argv[n++] = plarg;
	}
	if (b->patch) {
		patches = strdup(b->patch);
		if (!patches)
			return -ENOMEM;
		unsigned int k = 0;

		for (char *p = strtok_r(patches, ",", &sp); p && k < 8;
		     p = strtok_r(NULL, ",", &sp), k++) {
			snprintf(parg[k], sizeof(parg[k]), "--patch=%s", p);
			argv[n++] = parg[k];
		}
	}
	if (b->plain)
		argv[n++] = "--plain";
	argv[n] = NULL;
	if (pipe(fd)) {
		free(patches);
		return -errno;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp("python3", (char *const *)argv);
		_exit(127);
	}
	close(fd[1]);
	while (pid > 0 && got + 1 < sizeof(out) &&
	       (r = read(fd[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)r;
	out[got] = '\0';
	close(fd[0]);
	free(patches);
	if (pid < 0 || waitpid(pid, &st, 0) < 0) {
		snprintf(why, len, "cannot run %s", script);
		return -EINVAL;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 2)
		return 2; /* it said why */
	if (!WIFEXITED(st) || WEXITSTATUS(st) || !strchr(out, ' ')) {
		snprintf(why, len, "%s build failed (status %d)", script,
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return -EINVAL;
	}
	*strchr(out, ' ') = '\0';
	return kmodel_load(out, why, len);
}

const char *kmodel_version(void)
{
	return K ? kversion : NULL;
}

const struct kops *kmodel_ops(void)
{
	return K;
}

static uint64_t task_cpus(const struct scenario *s, unsigned int i)
{
	return scn_task_cpus(s, i);
}

static unsigned int lowest(uint64_t m)
{
	return m ? (unsigned int)__builtin_ctzll(m) : 0;
}

static bool tasks_done(const struct kmodel *km)
{
	for (unsigned int i = 0; i < km->s->ntasks; i++)
		if (km->started[i] && km->pc[i] < km->s->task[i].nev)
			return false;
	return true;
}

static void reset(void *ctx)
{
	struct kmodel *km = ctx;
	const struct scenario *s = km->s;
	uint64_t aff[KOPS_MAX_TASKS], allowed = 0;
	bool initial[KOPS_MAX_TASKS], clone_vm[KOPS_MAX_TASKS];
	unsigned int cpu0[KOPS_MAX_TASKS];

	for (unsigned int i = 0; i < s->ntasks; i++) {
		aff[i] = task_cpus(s, i);
		initial[i] = s->task[i].initial;
		clone_vm[i] = s->task[i].clone_vm;
		cpu0[i] = lowest(aff[i]);
		if (initial[i])
			allowed |= aff[i];
		km->pc[i] = 0;
		km->alive[i] = km->started[i] = initial[i];
		km->in_user[i] = km->running[i] = km->in_event[i] = false;
		km->user_cid[i] = UNSET;
		km->event[i][0] = '\0';
		if (s->task[i].nev)
			scn_event_str(s, &s->task[i].ev[0], km->event[i],
				      sizeof(km->event[i]));
	}
	snprintf(km->event[s->ntasks], sizeof(km->event[0]), "work");
	for (unsigned int c = 0; c < s->cpus; c++)
		km->cpu_of[c] = NOBODY;
	K->reset(allowed, aff, initial, clone_vm, cpu0);
}

/* An idle CPU for task @tid to exit on, not running: its own, else the
 * first idle one it may run on; -1 none. */
static int exit_cpu(struct kmodel *km, unsigned int tid)
{
	uint64_t aff = task_cpus(km->s, tid);

	K->view(&km->v);
	if (km->cpu_of[km->v.cpu[tid]] == NOBODY)
		return (int)km->v.cpu[tid];
	for (unsigned int c = 0; c < km->s->cpus; c++)
		if ((aff >> c & 1) && km->cpu_of[c] == NOBODY)
			return (int)c;
	return -1;
}

static bool enabled(void *ctx, unsigned int tid)
{
	struct kmodel *km = ctx;
	const struct scn_task *t;
	const struct scn_event *e;

	if (tid == km->s->ntasks) {
		K->view(&km->v);
		return km->v.irq_pending || km->v.work_pending || tasks_done(km);
	}
	t = &km->s->task[tid];
	if (!km->started[tid])
		return false;
	if (km->pc[tid] >= t->nev)
		return true;
	e = &t->ev[km->pc[tid]];
	if (e->kind == SCN_IN)
		return km->cpu_of[e->arg] == NOBODY;
	if (e->kind == SCN_EXIT && !km->running[tid])
		return exit_cpu(km, tid) >= 0;
	return true;
}

static const char *waiting(void *ctx, unsigned int tid, char *buf, size_t len)
{
	struct kmodel *km = ctx;

	if (tid == km->s->ntasks)
		return "(the worker) waits for work";
	if (!km->started[tid])
		return "is not forked yet";
	snprintf(buf, len, "waits for its CPU to be free");
	return buf;
}

static void run_event(struct kmodel *km, unsigned int tid,
		      const struct scn_event *e)
{
	unsigned int c;

	switch (e->kind) {
	case SCN_IN:
		km->cpu_of[e->arg] = (uint8_t)tid;
		K->in(tid, e->arg);
		K->view(&km->v);
		km->user_cid[tid] = km->v.cid[tid];
		km->running[tid] = km->in_user[tid] = true;
		break;
	case SCN_OUT:
		km->in_user[tid] = false;
		K->view(&km->v);
		c = km->v.cpu[tid];
		K->out(tid);
		km->running[tid] = false;
		km->cpu_of[c] = NOBODY;
		break;
	case SCN_EXIT:
		km->in_user[tid] = false;
		K->view(&km->v);
		c = km->running[tid] ? km->v.cpu[tid] : (unsigned int)exit_cpu(km, tid);
		km->cpu_of[c] = (uint8_t)tid;
		K->exit(tid, km->running[tid] ? -1 : (int)c);
		km->cpu_of[c] = NOBODY;
		km->running[tid] = false;
		km->alive[tid] = false;
		break;
	case SCN_FORK:
		K->fork(tid, e->arg, km->s->task[e->arg].clone_vm);
		km->alive[e->arg] = km->started[e->arg] = true;
		break;
	case SCN_MIGRATE:
		K->migrate(tid, e->arg);
		break;
	case SCN_AFFINITY:
		K->affinity(tid, e->mask);
		break;
	case SCN_TICK:
	case SCN_RTU:
		break; /* no mm_cid code there since 6.19 */
	}
}

static void thread(void *ctx, unsigned int tid)
{
	struct kmodel *km = ctx;
	const struct scn_task *t;

	if (tid == km->s->ntasks) { /* the worker */
		for (;;) {
			if (!K->work() && tasks_done(km))
				return;
			chk_event();
		}
	}
	t = &km->s->task[tid];
	for (unsigned int k = 0; k < t->nev; k++) {
		km->pc[tid] = k;
		scn_event_str(km->s, &t->ev[k], km->event[tid],
			      sizeof(km->event[tid]));
		if (k)
			chk_event();
		km->in_event[tid] = true;
		run_event(km, tid, &t->ev[k]);
		km->in_event[tid] = false;
	}
	km->pc[tid] = t->nev;
	snprintf(km->event[tid], sizeof(km->event[tid]), "(done)");
}

static int check_step(void *ctx, char *why, size_t len)
{
	struct kmodel *km = ctx;
	const struct scenario *s = km->s;

	K->view(&km->v);
	if (km->v.bug[0]) {
		snprintf(why, len, "kernel: %s", km->v.bug);
		return -1;
	}
	for (unsigned int i = 0; i < s->ntasks; i++) {
		unsigned int c = km->user_cid[i];

		if (!km->in_user[i])
			continue;
		if (c & UNSET) {
			snprintf(why, len, "%s runs in user space without a CID",
				 s->task[i].name);
			return -1;
		}
		c &= CIDBITS;
		if (c >= s->cpus) {
			snprintf(why, len, "%s got CID %u, not below the %u its "
				 "policy promises", s->task[i].name, c, s->cpus);
			return -1;
		}
		for (unsigned int j = 0; j < i; j++)
			if (km->in_user[j] && (km->user_cid[j] & CIDBITS) == c) {
				snprintf(why, len, "CID %u used by %s and %s at the "
					 "same time", c, s->task[j].name, s->task[i].name);
				return -1;
			}
	}
	return 0;
}

#define CPU_OWNER 0x80000000u

/* cidk_cid_check()'s ownership invariant, on the kernel's words */
static int check_owners(struct kmodel *km, char *why, size_t len)
{
	const struct scenario *s = km->s;
	const struct kview *v = &km->v;
	unsigned int owner[KOPS_MAX_CPUS], users = 0;
	const char *const *nm = km->names;

	for (unsigned int c = 0; c < s->cpus; c++)
		owner[c] = KOPS_NONE;
	for (unsigned int c = 0; c < s->cpus; c++) {
		unsigned int w = v->pcp_cid[c], cid = w & CIDBITS;

		if (!(w & ONCPU) || (w & UNSET))
			continue;
		if (cid >= s->cpus || owner[cid] != KOPS_NONE) {
			snprintf(why, len, cid >= s->cpus ?
				 "CPU %u owns CID %u >= nr_cpu_ids" :
				 "CPU %u owns CID %u, owned twice", c, cid);
			return -1;
		}
		owner[cid] = c | CPU_OWNER;
	}
	for (unsigned int i = 0; i < s->ntasks; i++) {
		unsigned int w = v->cid[i], cid = w & CIDBITS;
		bool run = v->curr[v->cpu[i]] == (int)i;

		users += km->alive[i];
		if (w & UNSET)
			continue;
		if (!run && (w & TRANSIT)) {
			snprintf(why, len, "%s is not running but holds CID %u in "
				 "transit", nm[i], cid);
			return -1;
		}
		if (w & ONCPU) {
			if (run && v->pcp_cid[v->cpu[i]] != w) {
				snprintf(why, len, "running %s uses CPU CID %u that "
					 "CPU %u does not own", nm[i], cid, v->cpu[i]);
				return -1;
			}
			continue;
		}
		if (cid >= s->cpus) {
			snprintf(why, len, "%s owns CID %u >= nr_cpu_ids", nm[i], cid);
			return -1;
		}
		if (owner[cid] != KOPS_NONE) {
			snprintf(why, len, "CID %u owned twice: by %s and by %s%s", cid,
				 nm[i], (owner[cid] & CPU_OWNER) ? "CPU " : "",
				 (owner[cid] & CPU_OWNER) ? "" : nm[owner[cid]]);
			if (owner[cid] & CPU_OWNER) {
				size_t l = strlen(why);

				snprintf(why + l, len - l, "%u", owner[cid] & ~CPU_OWNER);
			}
			return -1;
		}
		owner[cid] = i;
	}
	for (unsigned int c = 0; c < s->cpus; c++) {
		bool set = (v->cidmask >> c) & 1;

		if (set != (owner[c] != KOPS_NONE)) {
			snprintf(why, len, set ? "CID %u leaked: set in the bitmap, "
				 "owned by no task or CPU" :
				 "CID %u owned but clear in the bitmap", c);
			return -1;
		}
	}
	if (v->users != users) {
		snprintf(why, len, "users: the mm counts %u, %u tasks are live",
			 v->users, users);
		return -1;
	}
	return 0;
}

static int check_quiet(void *ctx, char *why, size_t len)
{
	struct kmodel *km = ctx;
	const struct kview *v = &km->v;

	K->view(&km->v);
	if (v->bug[0]) {
		snprintf(why, len, "kernel: %s", v->bug);
		return -1;
	}
	if (check_owners(km, why, len))
		return -1;
	if (v->mode & TRANSIT) {
		snprintf(why, len, "a mode transition never completed: TRANSIT "
			 "still set in mm_cid.mode");
		return -1;
	}
	if (!(v->mode & ONCPU))
		for (unsigned int c = 0; c < km->s->cpus; c++)
			if ((v->pcp_cid[c] & ONCPU) && !(v->pcp_cid[c] & UNSET)) {
				snprintf(why, len, "per-task mode, but CPU %u owns "
					 "CID %u", c, v->pcp_cid[c] & CIDBITS);
				return -1;
			}
	return 0;
}

static const char *thread_name(void *ctx, unsigned int tid)
{
	struct kmodel *km = ctx;

	return tid < km->s->ntasks ? km->s->task[tid].name : "kwork";
}

static const char *thread_event(void *ctx, unsigned int tid)
{
	struct kmodel *km = ctx;

	return km->event[tid];
}

static int thread_cpu(void *ctx, unsigned int tid)
{
	struct kmodel *km = ctx;

	for (unsigned int c = 0; c < km->s->cpus; c++)
		if (km->cpu_of[c] == tid)
			return (int)c;
	return -1;
}

static bool addr_valid(void *ctx, const void *a)
{
	(void)ctx;
	return K->addr_valid(a);
}

static const char *addr_name(void *ctx, const void *a, char *buf, size_t len)
{
	struct kmodel *km = ctx;

	return K->addr_name(a, km->names, buf, len);
}

static void cid_str(unsigned int w, char *buf, size_t len)
{
	if (w & UNSET)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%u%s%s", w & CIDBITS, (w & ONCPU) ? " oncpu" : "",
			 (w & TRANSIT) ? " transit" : "");
}

static void dump(void *ctx, FILE *f)
{
	struct kmodel *km = ctx;
	const struct kview *v = &km->v;
	char b[32];

	K->view(&km->v);
	fprintf(f, "mm (kernel %s): users %u, nr_cpus_allowed %u, cidmask", kversion,
		v->users, v->nr_cpus_allowed);
	for (unsigned int c = 0; c < km->s->cpus; c++)
		if ((v->cidmask >> c) & 1)
			fprintf(f, " %u", c);
	fprintf(f, "; mode %s%s, max_cids %u, pcpu_thrs %u%s\n",
		(v->mode & ONCPU) ? "per-cpu" : "per-task",
		(v->mode & TRANSIT) ? " transit" : "", v->max_cids, v->pcpu_thrs,
		v->irq_pending || v->work_pending ? ", work queued" : "");
	for (unsigned int c = 0; c < km->s->cpus; c++) {
		cid_str(v->pcp_cid[c], b, sizeof(b));
		fprintf(f, "cpu%u: runs %s, pcp cid %s\n", c,
			v->curr[c] < 0 ? "-" : km->names[v->curr[c]], b);
	}
	for (unsigned int i = 0; i < km->s->ntasks; i++) {
		cid_str(v->cid[i], b, sizeof(b));
		fprintf(f, "%s: %s, cpu %u, cid %s%s\n", km->names[i],
			!km->started[i] ? "not forked yet" : !km->alive[i] ? "exited" :
			km->running[i] ? "running" : "not running", v->cpu[i], b,
			v->active[i] ? "" : ", inactive");
	}
}

static uint64_t state_hash(void *ctx)
{
	struct kmodel *km = ctx;
	uint64_t h = 0xcbf29ce484222325ull;
	const void *p;
	size_t n;

	for (unsigned int i = 0; (n = K->block(i, &p)); i++)
		for (size_t j = 0; j < n; j++)
			h = (h ^ ((const unsigned char *)p)[j]) * 0x100000001b3ull;
	for (unsigned int i = 0; i < km->s->ntasks; i++)
		h = (h ^ (km->pc[i] | (uint64_t)km->in_user[i] << 8 |
			  (uint64_t)km->running[i] << 9 |
			  (uint64_t)km->alive[i] << 10)) * 0x100000001b3ull;
	return h;
}

static void full_state(void *ctx, struct chk_fp *f)
{
	struct kmodel *km = ctx;
	const void *p;
	size_t n;

	for (unsigned int i = 0; (n = K->block(i, &p)); i++)
		chk_fp_bytes(f, p, n);
	chk_fp_bytes(f, km->pc, (size_t)((const char *)&km->event -
					 (const char *)km->pc));
}

int kmodel_new(const struct scenario *s, struct chk_model *m,
	       struct kmodel **out)
{
	struct kmodel *km;
	bool worker = false;

	if (!K)
		return -ENOENT;
	for (unsigned int i = 0; i < s->ntasks; i++)
		for (unsigned int k = 0; k < s->task[i].nev; k++)
			worker |= s->task[i].ev[k].kind == SCN_AFFINITY;
	if (s->ntasks + worker > CHK_MAX_THREADS || s->cpus > KOPS_MAX_CPUS ||
	    K->setup(s->cpus, s->ntasks))
		return -EINVAL;
	km = calloc(1, sizeof(*km));
	if (!km)
		return -ENOMEM;
	km->s = s;
	km->worker = worker;
	km->nthreads = s->ntasks + worker;
	for (unsigned int i = 0; i < s->ntasks; i++)
		km->names[i] = s->task[i].name;
	memset(m, 0, sizeof(*m));
	m->nthreads = km->nthreads;
	m->ctx = km;
	m->reset = reset;
	m->thread = thread;
	m->enabled = enabled;
	m->check_step = check_step;
	m->check_quiet = check_quiet;
	m->check_final = check_quiet;
	m->thread_name = thread_name;
	m->thread_event = thread_event;
	m->thread_cpu = thread_cpu;
	m->waiting = waiting;
	m->addr_name = addr_name;
	m->addr_valid = addr_valid;
	m->dump = dump;
	m->state_hash = state_hash;
	m->full_state = full_state;
	*out = km;
	return 0;
}

void kmodel_free(struct kmodel *km)
{
	free(km);
}
