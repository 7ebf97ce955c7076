/* SPDX-License-Identifier: MIT */
/*
 * check/fromtrace.c - a recorded schedule as a scenario (fromtrace.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/trace.h>

#include "fromtrace.h"
#include "scenario.h"

#define FT_TASKS CHK_MAX_THREADS
#define FT_EVENTS (FT_TASKS * SCN_MAX_EVENTS)

struct ft_task {
	int pid;
	bool initial, exited;
	int running;			/* the CPU it runs on, or -1 */
	unsigned int nev;
	char ev[SCN_MAX_EVENTS][24];
};

struct ft {
	struct ft_task t[FT_TASKS];
	unsigned int ntasks;
	int children[FT_TASKS];		/* forked pids not seen yet */
	unsigned int nchildren;
	unsigned char order[FT_EVENTS];	/* the task of each event, in order */
	unsigned int nevents, max_events;
	int maxcpu;
	char cut[160];			/* why the prefix ends, or "" */
	const struct cidk_trace_info *info;
	int tgid;
};

static bool in_list(const int *v, unsigned int n, int pid)
{
	for (unsigned int i = 0; i < n; i++)
		if (v[i] == pid)
			return true;
	return false;
}

static int task_of(const struct ft *f, int pid)
{
	for (unsigned int i = 0; i < f->ntasks; i++)
		if (f->t[i].pid == pid)
			return (int)i;
	return -1;
}

static bool member(const struct ft *f, int pid, int line_tgid)
{
	if (pid <= 0)
		return false;
	return pid == f->tgid || task_of(f, pid) >= 0 ||
	       in_list(f->children, f->nchildren, pid) ||
	       in_list(f->info->threads, f->info->nr_threads, pid) ||
	       (line_tgid >= 0 && line_tgid == f->tgid);
}

/* The task of @pid, created (initial unless a fork's child) if new. */
static int task_get(struct ft *f, int pid, bool forked)
{
	int i = task_of(f, pid);

	if (i >= 0)
		return i;
	if (f->ntasks == FT_TASKS) {
		snprintf(f->cut, sizeof(f->cut),
			 "a %u-th task (pid %d): the checker runs %u", FT_TASKS + 1,
			 pid, FT_TASKS);
		return -1;
	}
	i = (int)f->ntasks++;
	memset(&f->t[i], 0, sizeof(f->t[i]));
	f->t[i].pid = pid;
	f->t[i].initial = !forked;
	f->t[i].running = -1;
	return i;
}

static int emit(struct ft *f, int i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * One event of task @i: 0, or -1 when a limit cuts the prefix here.  A
 * switch-in keeps room for the switch-out that closes the prefix (a task
 * left running on a CPU at the end would keep a task whose switch-in
 * there the explorer ran later waiting for ever: a scenario mistake).
 */
static int emit(struct ft *f, int i, const char *fmt, ...)
{
	struct ft_task *t = &f->t[i];
	unsigned int room = fmt[0] == 'i' ? 2 : 1, nrun = 0;
	va_list ap;

	for (unsigned int u = 0; u < f->ntasks; u++)
		nrun += f->t[u].running >= 0;
	if (t->nev + room > SCN_MAX_EVENTS) {
		snprintf(f->cut, sizeof(f->cut),
			 "T%d's %u-th event: a scenario's task has at most %u",
			 i, SCN_MAX_EVENTS + 1, SCN_MAX_EVENTS);
		return -1;
	}
	if (f->nevents + nrun + room - 1 >= f->max_events) {
		snprintf(f->cut, sizeof(f->cut),
			 "the %u-th event: at most %u are kept (the search's "
			 "cost grows with them)", f->max_events + 1,
			 f->max_events);
		return -1;
	}
	va_start(ap, fmt);
	vsnprintf(t->ev[t->nev++], sizeof(t->ev[0]), fmt, ap);
	va_end(ap);
	f->order[f->nevents++] = (unsigned char)i;
	return 0;
}

static int switch_out(struct ft *f, int i)
{
	if (f->t[i].running < 0)
		return 0;
	if (emit(f, i, "out"))
		return -1;
	f->t[i].running = -1;
	return 0;
}

/* Task @i runs on @cpu from here: its switch-in, after what it needs. */
static int run_on(struct ft *f, int i, int cpu)
{
	if (f->t[i].running == cpu)
		return 0;
	if (switch_out(f, i))
		return -1;
	for (unsigned int u = 0; u < f->ntasks; u++)
		if ((int)u != i && f->t[u].running == cpu && switch_out(f, (int)u))
			return -1;
	if (emit(f, i, "in %d", cpu))
		return -1;
	f->t[i].running = cpu;
	if (cpu > f->maxcpu)
		f->maxcpu = cpu;
	return 0;
}

static void cpulist(uint64_t m, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int c = 0; c < 64 && n < len; c++) {
		int e = c;

		if (!(m >> c & 1))
			continue;
		while (e + 1 < 64 && (m >> (e + 1) & 1))
			e++;
		n += (size_t)snprintf(buf + n, len - n, n ? ",%d" : "%d", c);
		if (e > c && n < len)
			n += (size_t)snprintf(buf + n, len - n, "-%d", e);
		c = e;
	}
}

/* One kept event of the trace: 0, or -1 at the cut. */
static int take(struct ft *f, const struct cidk_trace_event *e)
{
	int i, c;

	switch (e->kind) {
	case CIDK_TRACE_SWITCH:
		if (member(f, e->prev_pid, e->tgid) &&
		    (i = task_get(f, e->prev_pid, false)) >= 0 &&
		    !f->t[i].exited &&
		    (run_on(f, i, (int)e->cpu) || switch_out(f, i)))
			return -1;
		if (f->cut[0])
			return -1;
		if (!member(f, e->next_pid, -1))
			return 0;
		i = task_get(f, e->next_pid, false);
		if (i < 0)
			return -1;
		return f->t[i].exited ? 0 : run_on(f, i, (int)e->cpu);
	case CIDK_TRACE_FORK:
		if (!member(f, e->task_pid, e->tgid))
			return 0;
		i = task_get(f, e->task_pid, false);
		if (i < 0 || f->t[i].exited)
			return i < 0 ? -1 : 0;
		if (run_on(f, i, (int)e->cpu))
			return -1;
		c = task_get(f, e->child_pid, true);
		if (c < 0)
			return -1;
		return emit(f, i, "fork T%d", c);
	case CIDK_TRACE_EXIT:
		if (!member(f, e->task_pid, e->tgid))
			return 0;
		i = task_get(f, e->task_pid, false);
		if (i < 0 || f->t[i].exited)
			return i < 0 ? -1 : 0;
		if (emit(f, i, "exit"))
			return -1;
		f->t[i].exited = true;
		f->t[i].running = -1;
		return 0;
	case CIDK_TRACE_RSEQ_UPDATE:
		if (!member(f, e->pid, e->tgid))
			return 0;
		i = task_get(f, e->pid, false);
		if (i < 0 || f->t[i].exited)
			return i < 0 ? -1 : 0;
		return run_on(f, i, e->cpu_id);
	case CIDK_TRACE_AFFINITY: {
		char list[200];
		uint64_t m = e->cpus_word;

		if (!member(f, e->task_pid, e->tgid) || !m)
			return 0;
		i = task_get(f, e->task_pid, false);
		if (i < 0 || f->t[i].exited)
			return i < 0 ? -1 : 0;
		cpulist(m, list, sizeof(list));
		if ((int)(63 - __builtin_clzll(m)) > f->maxcpu)
			f->maxcpu = 63 - __builtin_clzll(m);
		return emit(f, i, "affinity %s", list);
	}
	default:
		return 0;
	}
}

/* Read the trace's prefix into @f: 0, or -errno + @why. */
static int read_trace(struct ft *f, const char *path, char *why, size_t len)
{
	struct cidk_trace_reader *r;
	struct cidk_trace_event e;
	FILE *fp = fopen(path, "r");
	int rc;

	if (!fp) {
		rc = -errno;
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return rc;
	}
	rc = cidk_trace_reader_open(fp, &r);
	if (rc) {
		snprintf(why, len, "%s: %s", path, rc == -EIO ?
			 "a trace.dat: this reader takes the ftrace text "
			 "(`trace-cmd report` prints it)" :
			 "not a trace (neither ftrace text nor a trace.dat)");
		fclose(fp);
		return rc;
	}
	f->info = cidk_trace_reader_info(r);
	f->tgid = -1;
	while ((rc = cidk_trace_reader_next(r, &e)) == 1) {
		if (f->tgid < 0)
			f->tgid = f->info->tgid >= 0 ? f->info->tgid :
				  e.kind == CIDK_TRACE_EXEC ? e.task_pid : -1;
		if (f->tgid < 0)
			continue;
		if (e.kind == CIDK_TRACE_FORK && member(f, e.task_pid, e.tgid) &&
		    f->nchildren < FT_TASKS && !member(f, e.child_pid, -1))
			f->children[f->nchildren++] = e.child_pid;
		if (take(f, &e))
			break;
	}
	/* close the prefix: whoever still runs switches out (room kept) */
	for (unsigned int u = 0; u < f->ntasks; u++)
		if (f->t[u].running >= 0) {
			f->max_events = FT_EVENTS;
			switch_out(f, (int)u);
		}
	if (rc < 0)
		snprintf(why, len, "%s:%lu: %s", path, cidk_trace_reader_line(r),
			 rc == -EINVAL ? "a malformed trace line" : strerror(-rc));
	else if (f->tgid < 0)
		snprintf(why, len, "%s: no thread group: no '# cidkit-trace: "
			 "... tgid=' header (cidkit trace record) and no "
			 "sched_process_exec", path), rc = -EINVAL;
	else if (!f->nevents)
		snprintf(why, len, "%s: thread group %d has no switch, fork, "
			 "exit or affinity change in the trace", path, f->tgid),
			rc = -EINVAL;
	else if ((unsigned int)f->maxcpu >= SCN_MAX_CPUS ||
		 f->info->nr_cpus > SCN_MAX_CPUS)
		snprintf(why, len, "%s: more than %u CPUs (a scenario's most)",
			 path, SCN_MAX_CPUS), rc = -EINVAL;
	else
		rc = 0;
	/* the info lives in the reader: keep what the text needs */
	if (!rc) {
		f->info = NULL;
		f->maxcpu = f->maxcpu + 1 > (int)cidk_trace_reader_info(r)->nr_cpus ?
			    f->maxcpu + 1 : (int)cidk_trace_reader_info(r)->nr_cpus;
	}
	cidk_trace_reader_close(r);
	fclose(fp);
	return rc;
}

/* The text (fromtrace.h); @cpus the machine. */
static char *write_text(const struct ft *f, const char *path,
			const char **replay)
{
	size_t cap = 4096 + FT_EVENTS * 32, n = 0;
	char *s = malloc(cap);
	size_t at;

	if (!s)
		return NULL;
#define P(...) (n += (size_t)snprintf(s + n, n < cap ? cap - n : 0, __VA_ARGS__))
	P("# cidkit check --from-trace %s: thread group %d,", path, f->tgid);
	for (unsigned int i = 0; i < f->ntasks; i++)
		P(" T%u = pid %d%s", i, f->t[i].pid,
		  i + 1 < f->ntasks ? "," : "\n");
	if (f->cut[0])
		P("# the trace's prefix up to %s\n", f->cut);
	P("# the recorded order: --replay ");
	at = n;
	for (unsigned int k = 0; k < f->nevents;) {
		unsigned int j = k;

		while (j < f->nevents && f->order[j] == f->order[k])
			j++;
		P("%sT%u/%u", k ? "," : "", f->order[k], j - k);
		k = j;
	}
	P("\nname trace-%d\n", f->tgid);
	P("about %u events of thread group %d, recorded (cidkit trace record)\n",
	  f->nevents, f->tgid);
	P("cpus %d\n", f->maxcpu);
	for (unsigned int i = 0; i < f->ntasks; i++) {
		P("task T%u%s:", i, f->t[i].initial ? " initial" : "");
		for (unsigned int k = 0; k < f->t[i].nev; k++)
			P(" %s%s", f->t[i].ev[k], k + 1 < f->t[i].nev ? ";" : "");
		P("\n");
	}
#undef P
	if (n >= cap) {
		free(s);
		return NULL;
	}
	*replay = s + at;
	return s;
}

int chk_from_trace(const char *path, unsigned int max_events, char **text,
		   const char **replay, char *why, size_t len)
{
	struct ft *f = calloc(1, sizeof(*f));
	int rc;

	*text = NULL;
	if (!f) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	f->max_events = max_events < FT_EVENTS ? max_events : FT_EVENTS;
	f->maxcpu = 0;
	rc = read_trace(f, path, why, len);
	if (!rc) {
		*text = write_text(f, path, replay);
		if (!*text) {
			snprintf(why, len, "out of memory");
			rc = -ENOMEM;
		}
	}
	free(f);
	return rc;
}
