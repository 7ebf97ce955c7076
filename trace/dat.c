/* SPDX-License-Identifier: MIT */
/*
 * trace/dat.c - trace-cmd's binary trace.dat (`trace-cmd record`,
 * `trace-cmd extract`) -> events, through libtracecmd (Debian
 * libtracecmd-dev) and libtraceevent.
 *
 * libtracecmd reads a trace.dat one ring-buffer page per CPU at a time
 * (it seeks: the file must be seekable).  The records of the CPUs are
 * merged here by timestamp (the lower CPU first on a tie), keeping one
 * record per CPU: memory is bounded by the CPUs, not the trace's length.
 * The events kept, and their fields, are those of the text reader
 * (trace/text.c), read from the raw records by the formats the file
 * carries; a record too short for a field it must have is -EINVAL.
 *
 * Which buffer: the top-level one; a file whose top-level buffer holds no
 * record and that has named buffers (`trace-cmd extract -B NAME`, or
 * `record -B`) is read from its first named buffer.  What is not read:
 * the kernel's release and the thread groups (libtracecmd 3.1 exports no
 * getter for the file's uname; records carry no tgid) -- `sim replay`
 * needs --tgid and --model for a trace.dat, as for `trace-cmd report`'s
 * text.  prev_state is "runnable" when its low 8 bits (the kernel's
 * TASK_REPORT bits and TASK_REPORT_IDLE, Linux 4.14 on) are 0, as the
 * kernel's own print format says "R".
 *
 * Without libtracecmd (a static build: Debian has no libtracecmd.a) the
 * open is -ENOTSUP.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dat.h"

#ifndef CIDKIT_HAVE_TRACECMD

int cidk__trace_dat_open(int fd, struct cidk__trace_dat **out)
{
	(void)fd;
	*out = NULL;
	return -ENOTSUP;
}

int cidk__trace_dat_next(struct cidk__trace_dat *d, struct cidk_trace_event *ev,
			 struct cidk_trace_info *info)
{
	(void)d;
	(void)ev;
	(void)info;
	return -ENOTSUP;
}

unsigned long cidk__trace_dat_record(const struct cidk__trace_dat *d)
{
	(void)d;
	return 0;
}

void cidk__trace_dat_close(struct cidk__trace_dat *d)
{
	(void)d;
}

#else

#include <trace-cmd.h>
#include <event-parse.h>

/*
 * LeakSanitizer (the ASan builds, the fuzz harness): libtraceevent 1.7.1
 * leaks a few bytes (a strdup) in tep_parse_event() while libtracecmd reads
 * the event formats of a well-formed trace.dat (found by
 * tests/fuzz/fuzz_trace_dat.c on its first seed); not ours to fix.
 */
#if defined(__SANITIZE_ADDRESS__)
#define CIDK__LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CIDK__LSAN 1
#endif
#endif
#ifdef CIDK__LSAN
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\nleak:libtracecmd.so\n";
}
#endif

enum { F0, F1, F2, F3, NR_F };

/* One kept event: its id in this file and the fields read. */
struct kept {
	int id; /* -1: not in the file */
	enum cidk_trace_kind kind;
	struct tep_format_field *f[NR_F];
};

static const struct {
	const char *sys, *name;
	enum cidk_trace_kind kind;
	const char *field[NR_F]; /* NULL: none; "?name": optional */
} kept_events[] = {
	{ "rseq", "rseq_update", CIDK_TRACE_RSEQ_UPDATE,
	  { "cpu_id", "node_id", "mm_cid", NULL } },
	{ "sched", "sched_switch", CIDK_TRACE_SWITCH,
	  { "prev_pid", "prev_state", "next_pid", NULL } },
	{ "sched", "sched_migrate_task", CIDK_TRACE_MIGRATE,
	  { "pid", "orig_cpu", "dest_cpu", NULL } },
	{ "sched", "sched_process_fork", CIDK_TRACE_FORK,
	  { "parent_pid", "child_pid", NULL, NULL } },
	{ "sched", "sched_process_exit", CIDK_TRACE_EXIT,
	  { "pid", "?group_dead", NULL, NULL } },
	{ "sched", "sched_process_exec", CIDK_TRACE_EXEC,
	  { "pid", NULL, NULL, NULL } },
	{ "sched", "sched_wakeup_new", CIDK_TRACE_WAKEUP_NEW,
	  { "pid", "target_cpu", NULL, NULL } },
	{ "sched", "sched_wakeup", CIDK_TRACE_WAKEUP,
	  { "pid", "target_cpu", NULL, NULL } },
	/* the kprobe events of `cidkit trace record` (trace.h) */
	{ "cidkit", "mm_cid_work", CIDK_TRACE_CID_WORK,
	  { NULL, NULL, NULL, NULL } },
	{ "cidkit", "cpus_allowed", CIDK_TRACE_AFFINITY,
	  { "pid", "mask", NULL, NULL } },
	{ "cidkit", "mm_cid_exit", CIDK_TRACE_CID_EXIT,
	  { NULL, NULL, NULL, NULL } },
	{ "cidkit", "mm_cid_fork", CIDK_TRACE_CID_FORK,
	  { NULL, NULL, NULL, NULL } },
};
#define NR_KEPT (sizeof(kept_events) / sizeof(kept_events[0]))

struct cidk__trace_dat {
	struct tracecmd_input *top; /* the file */
	struct tracecmd_input *buf; /* the buffer read: top, or a named one */
	struct tep_handle *tep;
	unsigned int nr_cpus;
	struct tep_record **next; /* per CPU: its next record, not yet given */
	unsigned long record;	  /* records read so far */
	int common_end;		  /* bytes of the common fields */
	struct kept kept[NR_KEPT];
};

static int lookup(struct cidk__trace_dat *d)
{
	struct tep_event *any = NULL;

	for (unsigned int i = 0; i < NR_KEPT; i++) {
		struct tep_event *e = tep_find_event_by_name(
			d->tep, kept_events[i].sys, kept_events[i].name);
		struct kept *k = &d->kept[i];

		k->id = -1;
		k->kind = kept_events[i].kind;
		if (!e)
			continue;
		any = e;
		for (unsigned int j = 0; j < NR_F; j++) {
			const char *n = kept_events[i].field[j];
			bool optional = n && n[0] == '?';

			k->f[j] = NULL;
			if (!n)
				continue;
			k->f[j] = tep_find_field(e, optional ? n + 1 : n);
			if (!k->f[j] && !optional)
				return -EINVAL; /* a kept event without its field */
			if (k->f[j] && (k->f[j]->offset < 0 || k->f[j]->size <= 0 ||
					k->f[j]->size > 8))
				return -EINVAL;
		}
		k->id = e->id;
	}
	d->common_end = 8; /* common_type, flags, preempt_count, pid */
	if (any) {
		struct tep_format_field *pid = tep_find_common_field(any, "common_pid");

		if (!pid || pid->offset < 0 || pid->size != 4)
			return -EINVAL;
		if (pid->offset + 4 > d->common_end)
			d->common_end = pid->offset + 4;
	}
	return 0;
}

/* The first record of every CPU of @h; 1 if there is one, 0 if none. */
static int load_first(struct cidk__trace_dat *d, struct tracecmd_input *h)
{
	int found = 0;

	for (unsigned int c = 0; c < d->nr_cpus; c++) {
		d->next[c] = tracecmd_read_cpu_first(h, (int)c);
		if (d->next[c])
			found = 1;
	}
	return found;
}

static void drop_all(struct cidk__trace_dat *d)
{
	for (unsigned int c = 0; c < d->nr_cpus; c++) {
		tracecmd_free_record(d->next[c]);
		d->next[c] = NULL;
	}
}

int cidk__trace_dat_open(int fd, struct cidk__trace_dat **out)
{
	struct cidk__trace_dat *d = calloc(1, sizeof(*d));
	int cpus, rc = -EINVAL;

	*out = NULL;
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	d->top = tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS |
					      TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!d->top) {
		close(fd);
		goto fail;
	}
	d->buf = d->top;
	d->tep = tracecmd_get_tep(d->top);
	cpus = d->tep ? tep_get_cpus(d->tep) : 0;
	if (cpus <= 0 || (unsigned int)cpus > CIDK_TRACE_MAX_CPUS)
		goto fail;
	d->nr_cpus = (unsigned int)cpus;
	d->next = calloc(d->nr_cpus, sizeof(*d->next));
	if (!d->next) {
		rc = -ENOMEM;
		goto fail;
	}
	if (!load_first(d, d->top) && tracecmd_buffer_instances(d->top) > 0) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(d->top, 0);
		struct tep_handle *t = b ? tracecmd_get_tep(b) : NULL;

		if (!t || tep_get_cpus(t) <= 0 ||
		    (unsigned int)tep_get_cpus(t) > d->nr_cpus) {
			if (b)
				tracecmd_close(b);
			goto fail;
		}
		d->buf = b;
		d->tep = t;
		d->nr_cpus = (unsigned int)tep_get_cpus(t);
		load_first(d, b);
	}
	rc = lookup(d);
	if (rc)
		goto fail;
	*out = d;
	return 0;
fail:
	cidk__trace_dat_close(d);
	return rc;
}

/* Field @j of @k in @r, as a signed number; 0 or -EINVAL. */
static int get(const struct kept *k, unsigned int j, const struct tep_record *r,
	       long long lo, long long hi, long long *v)
{
	const struct tep_format_field *f = k->f[j];
	unsigned long long u = 0;

	if (!f || f->offset + f->size > r->size)
		return -EINVAL;
	if (tep_read_number_field((struct tep_format_field *)f, r->data, &u))
		return -EINVAL;
	/* sign-extend a field narrower than 64 bits (pids, CPUs are s32) */
	if (f->size < 8 && (f->flags & TEP_FIELD_IS_SIGNED) &&
	    (u >> (f->size * 8 - 1)) & 1)
		u |= ~0ULL << (f->size * 8);
	*v = (long long)u;
	if (*v < lo || *v > hi)
		return -EINVAL;
	return 0;
}

static int to_int(const struct kept *k, unsigned int j,
		  const struct tep_record *r, long long lo, long long hi, int *out)
{
	long long v;

	if (get(k, j, r, lo, hi, &v))
		return -EINVAL;
	*out = (int)v;
	return 0;
}

static int convert(const struct cidk__trace_dat *d, const struct kept *k,
		   struct tep_record *r, struct cidk_trace_event *ev)
{
	const long long M = CIDK_TRACE_MAX_CPUS - 1;
	long long st;

	memset(ev, 0, sizeof(*ev));
	ev->kind = k->kind;
	ev->ts_ns = r->ts;
	ev->cpu = (unsigned int)r->cpu;
	ev->pid = tep_data_pid(d->tep, r);
	ev->tgid = -1;
	if (ev->pid < 0)
		return -EINVAL;
	switch (k->kind) {
	case CIDK_TRACE_RSEQ_UPDATE:
		return to_int(k, F0, r, -1, M, &ev->cpu_id) ||
		       to_int(k, F1, r, -1, INT_MAX, &ev->node_id) ||
		       to_int(k, F2, r, -1, M, &ev->mm_cid) ? -EINVAL : 1;
	case CIDK_TRACE_SWITCH:
		if (to_int(k, F0, r, 0, INT_MAX, &ev->prev_pid) ||
		    get(k, F1, r, LLONG_MIN, LLONG_MAX, &st) ||
		    to_int(k, F2, r, 0, INT_MAX, &ev->next_pid))
			return -EINVAL;
		ev->prev_runnable = (st & 0xff) == 0;
		return 1;
	case CIDK_TRACE_MIGRATE:
		return to_int(k, F0, r, 0, INT_MAX, &ev->task_pid) ||
		       to_int(k, F1, r, 0, M, &ev->orig_cpu) ||
		       to_int(k, F2, r, 0, M, &ev->dest_cpu) ? -EINVAL : 1;
	case CIDK_TRACE_FORK:
		return to_int(k, F0, r, 0, INT_MAX, &ev->task_pid) ||
		       to_int(k, F1, r, 0, INT_MAX, &ev->child_pid) ? -EINVAL : 1;
	case CIDK_TRACE_EXIT:
		if (to_int(k, F0, r, 0, INT_MAX, &ev->task_pid))
			return -EINVAL;
		if (k->f[F1]) {
			if (get(k, F1, r, LLONG_MIN, LLONG_MAX, &st))
				return -EINVAL;
			ev->group_dead = st != 0;
		}
		return 1;
	case CIDK_TRACE_EXEC:
		return to_int(k, F0, r, 0, INT_MAX, &ev->task_pid) ? -EINVAL : 1;
	case CIDK_TRACE_WAKEUP_NEW:
	case CIDK_TRACE_WAKEUP:
		return to_int(k, F0, r, 0, INT_MAX, &ev->task_pid) ||
		       to_int(k, F1, r, 0, M, &ev->dest_cpu) ? -EINVAL : 1;
	case CIDK_TRACE_CID_WORK:
	case CIDK_TRACE_CID_EXIT:
	case CIDK_TRACE_CID_FORK:
		return 1;
	case CIDK_TRACE_AFFINITY:
		if (to_int(k, F0, r, 0, INT_MAX, &ev->task_pid) ||
		    get(k, F1, r, LLONG_MIN, LLONG_MAX, &st))
			return -EINVAL;
		ev->cpus_word = (uint64_t)st;
		return 1;
	default:
		return -EINVAL;
	}
}

int cidk__trace_dat_next(struct cidk__trace_dat *d, struct cidk_trace_event *ev,
			 struct cidk_trace_info *info)
{
	if (!info->nr_cpus)
		info->nr_cpus = d->nr_cpus;
	for (;;) {
		struct tep_record *r = NULL;
		unsigned int cpu = 0;
		int type, rc = 0;

		for (unsigned int c = 0; c < d->nr_cpus; c++)
			if (d->next[c] && (!r || d->next[c]->ts < r->ts)) {
				r = d->next[c];
				cpu = c;
			}
		if (!r)
			return 0;
		d->next[cpu] = tracecmd_read_data(d->buf, (int)cpu);
		d->record++;
		if (r->size < d->common_end || !r->data || r->cpu < 0 ||
		    (unsigned int)r->cpu >= d->nr_cpus) {
			tracecmd_free_record(r);
			return -EINVAL;
		}
		type = tep_data_type(d->tep, r);
		for (unsigned int i = 0; i < NR_KEPT; i++)
			if (d->kept[i].id >= 0 && d->kept[i].id == type) {
				rc = convert(d, &d->kept[i], r, ev);
				break;
			}
		tracecmd_free_record(r);
		if (rc)
			return rc;
	}
}

unsigned long cidk__trace_dat_record(const struct cidk__trace_dat *d)
{
	return d ? d->record : 0;
}

void cidk__trace_dat_close(struct cidk__trace_dat *d)
{
	if (!d)
		return;
	if (d->next)
		drop_all(d);
	free(d->next);
	if (d->buf && d->buf != d->top)
		tracecmd_close(d->buf);
	if (d->top)
		tracecmd_close(d->top);
	free(d);
}

#endif
