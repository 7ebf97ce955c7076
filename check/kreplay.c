/* SPDX-License-Identifier: MIT */
/*
 * check/kreplay.c - a recorded schedule through the kernel's own mm_cid
 * code, one event at a time, and its CIDs against the recorded ones
 * (kreplay.h says which event is which call).
 *
 * State: the thread group's tasks (a small array: the recorded workloads
 * have at most a hundred threads over their life), each on a task slot of
 * the call context while it lives (slots are reused after an exit: at
 * most KOPS_MAX_TASKS alive at once), and which of them runs on each CPU.
 * The kernel object runs driven (kops.h): each call runs whole here, and a
 * wait that cannot end longjmp()s back through stuck().
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cidkit/trace.h>

#include "json.h"
#include "kernel/kops.h"
#include "kmodel.h"
#include "kreplay.h"

#define UNSET 0x80000000u
#define ONCPU 0x40000000u
#define TRANSIT 0x20000000u
#define CIDBITS 0x1fffffffu
#define NTASKS 1024 /* tasks over the trace's life */

struct ktask {
	int pid;
	int slot;		/* its call-context task while alive, else -1 */
	bool alive, running;
	unsigned int cpu;	/* where it runs (running) */
	int last;		/* the last recorded mm_cid, -1 none */
};

struct kr {
	const struct kops *K;
	const struct cidk_trace_info *info;
	struct kreplay_result *r;
	struct ktask t[NTASKS];
	unsigned int nt;
	int on_cpu[KOPS_MAX_CPUS];	/* task index, -1 none */
	bool slot_used[KOPS_MAX_TASKS];
	unsigned int live;
	bool mm_up, percpu;
	struct kview v;
	unsigned long line;	/* the trace's line of the event */
	char why[200];
};

static const char *const call_name[KR_NCALLS] = {
	"exec", "context_switch", "switch_in", "switch_out", "fork", "exit",
	"set_task_cpu", "set_cpus_allowed", "work",
};

static jmp_buf kr_stuck_jb;

static void kr_stuck(void)
{
	longjmp(kr_stuck_jb, 1);
}

static struct ktask *find(struct kr *k, int pid)
{
	for (unsigned int i = k->nt; i-- > 0;)
		if (k->t[i].pid == pid)
			return &k->t[i];
	return NULL;
}

static bool in_threads(const struct kr *k, int pid)
{
	for (unsigned int i = 0; i < k->info->nr_threads; i++)
		if (k->info->threads[i] == pid)
			return true;
	return false;
}

/* A new task of the group with a slot; NULL and k->why when none. */
static struct ktask *add(struct kr *k, int pid)
{
	struct ktask *t;
	unsigned int s;

	for (s = 0; s < KOPS_MAX_TASKS && k->slot_used[s]; s++)
		;
	if (s == KOPS_MAX_TASKS || k->nt == NTASKS) {
		snprintf(k->why, sizeof(k->why), "more than %u threads %s",
			 s == KOPS_MAX_TASKS ? KOPS_MAX_TASKS : NTASKS,
			 s == KOPS_MAX_TASKS ? "alive at once (the call "
			 "context's tasks)" : "in the trace");
		return NULL;
	}
	t = &k->t[k->nt++];
	t->pid = pid;
	t->slot = (int)s;
	t->alive = true;
	t->running = false;
	t->cpu = 0;
	t->last = -1;
	k->slot_used[s] = true;
	k->r->threads++;
	if (++k->live > k->r->max_live)
		k->r->max_live = k->live;
	return t;
}

static void out(struct kr *k, struct ktask *t)
{
	k->r->calls[KR_OUT]++;
	k->K->out((unsigned int)t->slot);
	k->on_cpu[t->cpu] = -1;
	t->running = false;
}

/* Make room on @cpu and take @t off another CPU (events the trace lost). */
static void clear_for(struct kr *k, struct ktask *t, unsigned int cpu)
{
	if (k->on_cpu[cpu] >= 0 && &k->t[k->on_cpu[cpu]] != t) {
		k->r->inconsistent++;
		out(k, &k->t[k->on_cpu[cpu]]);
	}
	if (t->running && t->cpu != cpu) {
		k->r->inconsistent++;
		out(k, t);
	}
}

static void run_on(struct kr *k, struct ktask *t, unsigned int cpu)
{
	k->r->calls[KR_IN]++;
	k->K->in((unsigned int)t->slot, cpu);
	t->running = true;
	t->cpu = cpu;
	k->on_cpu[cpu] = (int)(t - k->t);
}

/* @t runs on @cpu by the trace: switched in there if it was not */
static void ensure_running(struct kr *k, struct ktask *t, unsigned int cpu)
{
	if (t->running && t->cpu == cpu)
		return;
	clear_for(k, t, cpu);
	k->r->inconsistent++;
	run_on(k, t, cpu);
}

/* the mm at the leader's exec on @cpu: the leader is T0, running */
static int mm_create(struct kr *k, int pid, unsigned int cpu)
{
	uint64_t aff[KOPS_MAX_TASKS];
	bool initial[KOPS_MAX_TASKS] = { true }, clone_vm[KOPS_MAX_TASKS] = { 0 };
	unsigned int cpu0[KOPS_MAX_TASKS];
	uint64_t all = k->r->cpus == 64 ? ~0ull : (1ull << k->r->cpus) - 1;
	struct ktask *t;

	if (k->K->setup(k->r->cpus, KOPS_MAX_TASKS)) {
		snprintf(k->why, sizeof(k->why), "%u CPUs: the call context "
			 "holds at most %u", k->r->cpus, KOPS_MAX_CPUS);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < KOPS_MAX_TASKS; i++) {
		aff[i] = all;
		cpu0[i] = cpu;
	}
	k->K->reset(all, aff, initial, clone_vm, cpu0);
	k->r->calls[KR_EXEC]++;
	t = add(k, pid);
	if (!t)
		return -EINVAL;
	k->mm_up = true;
	run_on(k, t, cpu);
	return 0;
}

/* a live task of the group with @pid, or NULL */
static struct ktask *live(struct kr *k, int pid)
{
	struct ktask *t = find(k, pid);

	return t && t->alive ? t : NULL;
}

static void ev_switch(struct kr *k, const struct cidk_trace_event *e)
{
	struct ktask *p = live(k, e->prev_pid), *n = live(k, e->next_pid);
	unsigned int c = e->cpu;

	if (p && (!p->running || p->cpu != c))
		p = NULL;
	if (!p && !n)
		return;
	k->r->group_events++;
	/* (events the trace lost: another thread of ours on c, n elsewhere) */
	if (k->on_cpu[c] >= 0 && &k->t[k->on_cpu[c]] != p) {
		k->r->inconsistent++;
		out(k, &k->t[k->on_cpu[c]]);
	}
	if (n && n->running) {
		k->r->inconsistent++;
		out(k, n);
	}
	if (p && n) {
		k->r->calls[KR_SWITCH]++;
		k->K->switch_to((unsigned int)p->slot, (unsigned int)n->slot, c);
		p->running = false;
		n->running = true;
		n->cpu = c;
		k->on_cpu[c] = (int)(n - k->t);
	} else if (p) {
		out(k, p);
	} else {
		run_on(k, n, c);
	}
}

static void ev_rseq(struct kr *k, const struct cidk_trace_event *e)
{
	struct kreplay_result *r = k->r;
	struct ktask *t = live(k, e->pid);
	unsigned int w;
	int code;

	if (!t)
		return;
	r->group_events++;
	ensure_running(k, t, e->cpu);
	k->K->view(&k->v);
	w = k->v.cid[t->slot];
	code = (w & UNSET) ? -1 : (int)(w & CIDBITS);
	r->rseq_updates++;
	if (code == e->mm_cid) {
		r->agree++;
	} else if (r->ndisagree < KREPLAY_KEEP) {
		struct kreplay_disagree *d = &r->dis[r->ndisagree++];

		d->ts_ns = e->ts_ns;
		d->line = k->line;
		d->pid = t->pid;
		d->cpu = e->cpu;
		d->recorded = e->mm_cid;
		d->code = code;
		d->word = w;
		d->users = k->v.users;
		d->percpu = k->v.mode & ONCPU;
		d->prev_recorded = t->last;
	}
	t->last = e->mm_cid;
}

static int ev_fork(struct kr *k, const struct cidk_trace_event *e)
{
	struct ktask *p = live(k, e->task_pid), *c;

	if (!p || find(k, e->child_pid) ||
	    (k->info->nr_threads && !in_threads(k, e->child_pid)))
		return 0;
	k->r->group_events++;
	ensure_running(k, p, e->cpu);
	c = add(k, e->child_pid);
	if (!c)
		return -EINVAL;
	k->r->calls[KR_FORK]++;
	k->K->dup((unsigned int)p->slot, (unsigned int)c->slot);
	k->K->fork((unsigned int)p->slot, (unsigned int)c->slot, false);
	return 0;
}

static void ev_exit(struct kr *k, const struct cidk_trace_event *e, int pid)
{
	struct ktask *t = live(k, pid);

	if (!t)
		return;
	k->r->group_events++;
	k->r->calls[KR_EXIT]++;
	if (t->running) {
		k->K->exit((unsigned int)t->slot, -1);
		k->on_cpu[t->cpu] = -1;
	} else {
		clear_for(k, t, e->cpu);
		k->r->inconsistent++;
		k->K->exit((unsigned int)t->slot, (int)e->cpu);
	}
	t->running = t->alive = false;
	k->slot_used[t->slot] = false;
	t->slot = -1;
	k->live--;
}

static void ev_migrate(struct kr *k, const struct cidk_trace_event *e)
{
	struct ktask *t = live(k, e->task_pid);

	if (!t)
		return;
	k->r->group_events++;
	if (!t->running && e->dest_cpu >= 0 &&
	    (unsigned int)e->dest_cpu < k->r->cpus) {
		k->r->calls[KR_MIGRATE]++;
		k->K->migrate((unsigned int)t->slot, (unsigned int)e->dest_cpu);
	}
}

static void ev_affinity(struct kr *k, const struct cidk_trace_event *e)
{
	struct ktask *t = live(k, e->task_pid);
	uint64_t all = k->r->cpus == 64 ? ~0ull : (1ull << k->r->cpus) - 1;

	if (!t || !(e->cpus_word & all))
		return;
	k->r->group_events++;
	k->r->calls[KR_AFFINITY]++;
	k->K->affinity((unsigned int)t->slot, e->cpus_word & all);
}

static int ev_exec(struct kr *k, const struct cidk_trace_event *e)
{
	if (k->mm_up || e->task_pid != k->r->tgid)
		return 0;
	k->r->group_events++;
	return mm_create(k, e->task_pid, e->cpu);
}

/* One event; 0, or -EINVAL and k->why. */
static int event(struct kr *k, const struct cidk_trace_event *e)
{
	k->r->events++;
	if (e->cpu >= k->r->cpus) {
		snprintf(k->why, sizeof(k->why), "an event on CPU %u of %u",
			 e->cpu, k->r->cpus);
		return -EINVAL;
	}
	if (e->kind == CIDK_TRACE_EXEC)
		return ev_exec(k, e);
	if (!k->mm_up)
		return 0;
	switch (e->kind) {
	case CIDK_TRACE_SWITCH:
		ev_switch(k, e);
		break;
	case CIDK_TRACE_RSEQ_UPDATE:
		ev_rseq(k, e);
		break;
	case CIDK_TRACE_FORK:
		return ev_fork(k, e);
	case CIDK_TRACE_EXIT:
		ev_exit(k, e, e->task_pid);
		break;
	case CIDK_TRACE_CID_EXIT:
		ev_exit(k, e, e->pid);
		break;
	case CIDK_TRACE_MIGRATE:
		ev_migrate(k, e);
		break;
	case CIDK_TRACE_AFFINITY:
		ev_affinity(k, e);
		break;
	default:
		break; /* wake-ups, mm_cid_fork: no mm_cid code runs there */
	}
	return 0;
}

/* after each event: the worker runs what was queued (@work); the mode;
 * a report */
static void settle(struct kr *k, bool work)
{
	bool percpu;

	while (work && k->K->work())
		k->r->calls[KR_WORK]++;
	k->K->view(&k->v);
	percpu = k->v.mode & ONCPU;
	k->r->mode_switches += percpu != k->percpu;
	k->percpu = percpu;
	if (k->v.bug[0] && !k->r->bug[0]) {
		snprintf(k->r->bug, sizeof(k->r->bug), "%s", k->v.bug);
		k->r->bug_line = k->line;
	}
}

/* the events, until the end, a bad line, or the kernel code stuck */
static int replay(struct kr *k, struct cidk_trace_reader *rd, const char *path)
{
	struct cidk_trace_event e;
	int rc;

	while ((rc = cidk_trace_reader_next(rd, &e)) == 1) {
		k->line = cidk_trace_reader_line(rd);
		if (!k->r->cpus) {
			k->info = cidk_trace_reader_info(rd);
			k->r->cpus = k->info->nr_cpus;
			k->r->tgid = k->info->tgid;
			snprintf(k->r->kernel, sizeof(k->r->kernel), "%s",
				 k->info->kernel);
			if (!k->r->cpus || k->r->tgid < 0 ||
			    k->r->cpus > KOPS_MAX_CPUS) {
				snprintf(k->why, sizeof(k->why), "%s: %s", path,
					 k->r->cpus > KOPS_MAX_CPUS ?
					 "more CPUs than the call context holds (64)" :
					 "no '# cidkit-trace: ... cpus= tgid=' header "
					 "(cidkit trace record writes it)");
				return -EINVAL;
			}
		}
		if (setjmp(kr_stuck_jb)) {
			k->r->stopped = true;
			settle(k, false);
			return 0;
		}
		if (event(k, &e))
			return -EINVAL;
		if (k->mm_up)
			settle(k, true);
	}
	if (rc < 0) {
		snprintf(k->why, sizeof(k->why), "%s:%lu: %s", path,
			 cidk_trace_reader_line(rd), rc == -EINVAL ?
			 "a malformed trace line" : strerror(-rc));
		return rc;
	}
	if (!k->mm_up) {
		snprintf(k->why, sizeof(k->why), "%s: no sched_process_exec of "
			 "thread group %d (the trace starts after it)", path,
			 k->r->tgid);
		return -EINVAL;
	}
	return 0;
}

int kreplay_run(const char *path, struct kreplay_result *r, char *why,
		size_t len)
{
	struct cidk_trace_reader *rd = NULL;
	struct kr *k;
	pid_t pid;
	FILE *f;
	int rc, st;

	memset(r, 0, sizeof(*r));
	if (!kmodel_ops()) {
		snprintf(why, len, "no kernel code loaded");
		return -EINVAL;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->K = kmodel_ops();
	k->r = r;
	r->tgid = -1;
	snprintf(r->code, sizeof(r->code), "%s", kmodel_version());
	for (unsigned int c = 0; c < KOPS_MAX_CPUS; c++)
		k->on_cpu[c] = -1;
	k->K->drive(kr_stuck);
	f = cidk_trace_open_file(path, &pid);
	if (!f) {
		rc = -errno;
		snprintf(why, len, "%s: %s", path, strerror(errno));
		free(k);
		return rc;
	}
	rc = cidk_trace_reader_open(f, &rd);
	if (rc)
		snprintf(k->why, sizeof(k->why), "%s: %s", path,
			 "not a trace (neither ftrace text nor a trace.dat)");
	else
		rc = replay(k, rd, path);
	cidk_trace_reader_close(rd);
	fclose(f);
	/* (stopped early, the decompressor dies of SIGPIPE: no matter) */
	if (pid > 0 && waitpid(pid, &st, 0) == pid && !rc && !r->stopped &&
	    (!WIFEXITED(st) || WEXITSTATUS(st))) {
		snprintf(k->why, sizeof(k->why), "%s: decompression failed", path);
		rc = -EINVAL;
	}
	if (rc)
		snprintf(why, len, "%s", k->why);
	free(k);
	return rc;
}

static double pct(unsigned long a, unsigned long b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

static void cid_word(unsigned int w, char *buf, size_t len)
{
	if (w & UNSET)
		snprintf(buf, len, "unset");
	else
		snprintf(buf, len, "%u%s%s", w & CIDBITS, (w & ONCPU) ? " oncpu" : "",
			 (w & TRANSIT) ? " transit" : "");
}

static void print_json(const char *path, const struct kreplay_result *r)
{
	struct jw w;

	jw_init(&w, stdout);
	jw_obj(&w);
	jw_kstr(&w, "trace", path);
	jw_kstr(&w, "kernel", r->kernel);
	jw_kstr(&w, "code", r->code);
	jw_kuint(&w, "cpus", r->cpus);
	jw_kint(&w, "tgid", r->tgid);
	jw_kuint(&w, "threads", r->threads);
	jw_kuint(&w, "max_live", r->max_live);
	jw_kuint(&w, "events", r->events);
	jw_kuint(&w, "group_events", r->group_events);
	jw_kuint(&w, "rseq_updates", r->rseq_updates);
	jw_kuint(&w, "agree", r->agree);
	jw_kuint(&w, "inconsistent", r->inconsistent);
	jw_kuint(&w, "mode_switches", r->mode_switches);
	jw_key(&w, "calls");
	jw_obj(&w);
	for (unsigned int i = 0; i < KR_NCALLS; i++)
		jw_kuint(&w, call_name[i], r->calls[i]);
	jw_obj_end(&w);
	jw_kstr(&w, "bug", r->bug);
	jw_kbool(&w, "stopped", r->stopped);
	jw_key(&w, "disagreements");
	jw_arr(&w);
	for (unsigned int i = 0; i < r->ndisagree; i++) {
		const struct kreplay_disagree *d = &r->dis[i];

		jw_obj(&w);
		jw_kuint(&w, "line", d->line);
		jw_kuint(&w, "ts_ns", d->ts_ns);
		jw_kint(&w, "pid", d->pid);
		jw_kuint(&w, "cpu", d->cpu);
		jw_kint(&w, "recorded", d->recorded);
		jw_kint(&w, "code", d->code);
		jw_kuint(&w, "word", d->word);
		jw_kuint(&w, "users", d->users);
		jw_kbool(&w, "percpu", d->percpu);
		jw_kint(&w, "previous", d->prev_recorded);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);
	jw_end(&w);
}

void kreplay_print(const char *path, const struct kreplay_result *r, bool json)
{
	char b[40];

	if (json) {
		print_json(path, r);
		return;
	}
	printf("trace %s: kernel %s, %u CPUs, thread group %d (%u threads, at "
	       "most %u alive at once)\n", path, r->kernel[0] ? r->kernel :
	       "unknown", r->cpus, r->tgid, r->threads, r->max_live);
	printf("replayed through kernel:%s's mm_cid code, one recorded event at "
	       "a time: %lu events, %lu of the group, %lu rseq_update, %lu mode "
	       "switches\n", r->code, r->events, r->group_events,
	       r->rseq_updates, r->mode_switches);
	if (r->inconsistent)
		printf("%lu times a thread ran where the trace had not switched "
		       "it in (lost events): switched in there\n",
		       r->inconsistent);
	printf("calls:");
	for (unsigned int i = 0; i < KR_NCALLS; i++)
		printf(" %s %lu", call_name[i], r->calls[i]);
	printf("\n");
	if (r->bug[0])
		printf("the stand-ins reported, at line %lu: %s\n", r->bug_line,
		       r->bug);
	if (r->stopped)
		printf("stopped at line %lu: the kernel code waits for what a "
		       "one-at-a-time replay cannot give\n", r->bug_line);
	printf("agreement with the recorded mm_cid: %lu of %lu rseq_update "
	       "(%.2f %%)\n", r->agree, r->rseq_updates,
	       pct(r->agree, r->rseq_updates));
	for (unsigned int i = 0; i < r->ndisagree; i++) {
		const struct kreplay_disagree *d = &r->dis[i];

		cid_word(d->word, b, sizeof(b));
		printf("  line %lu at %llu.%06llu s: pid %d on CPU %u: recorded "
		       "%d, kernel code %d (word %s; previous recorded %d; users "
		       "%u, %s)\n", d->line,
		       (unsigned long long)(d->ts_ns / 1000000000u),
		       (unsigned long long)(d->ts_ns % 1000000000u / 1000u),
		       d->pid, d->cpu, d->recorded, d->code, b, d->prev_recorded,
		       d->users, d->percpu ? "per-CPU" : "per-task");
	}
}
