/* SPDX-License-Identifier: MIT */
/*
 * trace/record.c - the recorder: a command's schedule through libtracefs
 * (Debian libtracefs-dev), in a tracefs instance of its own (the
 * top-level buffer and other users' instances are left alone), written in
 * the ftrace text format trace/text.c reads back.  The command
 * (tools/cidkit/cmd_trace.c) parses the options and says the result; this
 * file prints nothing.
 *
 * Memory: one line buffer and the group's thread list, whatever the
 * trace's length (bounded by the buffer: buffer_kb per CPU).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cidkit/topo.h>
#include <cidkit/trace.h>

/*
 * The kprobe events (trace.h): group "cidkit", created unless they exist
 * already (another recorder's: then shared, and left to it), destroyed
 * afterwards.  The fetch arguments need the kernel's BTF (p->pid) and
 * $argN (Linux 6.6 on; 6.12's kprobe_events takes both).
 */
static const struct probe {
	struct cidk_trace_probe pub;
	const char *format;
	const char *func2; /* where the kernel has no func (NULL: none) */
} probes[] = {
	{ { "mm_cid_work", "task_mm_cid_work",
	    "the lazy family's compaction work (Linux 6.4-6.18)",
	    CIDK_TRACE_PROBE_CID_WORK }, NULL, NULL },
	{ { "cpus_allowed", "set_cpus_allowed_common",
	    "a task's new allowed CPUs", CIDK_TRACE_PROBE_AFFINITY },
	  "pid=p->pid mask=+0(+0($arg2)):x64", NULL },
	{ { "mm_cid_exit", "sched_mm_cid_exit_signals",
	    "an exiting task gives its CID back", CIDK_TRACE_PROBE_CID_EXIT },
	  NULL, "sched_mm_cid_exit" },
	{ { "mm_cid_fork", "sched_mm_cid_fork",
	    "the parent counts a new user of its mm", CIDK_TRACE_PROBE_CID_FORK },
	  NULL, NULL },
};
#define NR_PROBES (sizeof(probes) / sizeof(probes[0]))
_Static_assert(NR_PROBES <= sizeof(((struct cidk_trace_record_result *)0)->missing) /
			       sizeof(const char *),
	       "cidk_trace_record_result.missing holds every probe");

const struct cidk_trace_probe *cidk_trace_probe(unsigned int i)
{
	return i < NR_PROBES ? &probes[i].pub : NULL;
}

int cidk_trace_probes_parse(const char *s, unsigned int *want,
			    unsigned int *must)
{
	*want = *must = 0;
	if (!strcmp(s, "auto")) {
		for (unsigned int i = 0; i < NR_PROBES; i++)
			*want |= probes[i].pub.bit;
		return 0;
	}
	if (!strcmp(s, "none"))
		return 0;
	while (*s) {
		size_t n = strcspn(s, ",");
		unsigned int i;

		for (i = 0; i < NR_PROBES; i++)
			if (strlen(probes[i].pub.event) == n &&
			    !strncmp(s, probes[i].pub.event, n))
				break;
		if (i == NR_PROBES || !n)
			return -EINVAL;
		*want |= probes[i].pub.bit;
		s += n + (s[n] == ',');
	}
	*must = *want;
	return 0;
}

/* @res's stage and message; returns -@err (the recorder's return value). */
__attribute__((format(printf, 4, 5)))
static int fail(struct cidk_trace_record_result *res,
		enum cidk_trace_record_stage stage, int err, const char *fmt, ...)
{
	va_list ap;

	res->stage = stage;
	va_start(ap, fmt);
	vsnprintf(res->msg, sizeof(res->msg), fmt, ap);
	va_end(ap);
	return err > 0 ? -err : -EIO; /* (a call that failed without errno) */
}

#ifdef CIDKIT_HAVE_TRACEFS
#include <tracefs.h>

#include "instance.h"

static const char *const events[][2] = {
	{ "rseq", "rseq_update" },
	{ "sched", "sched_switch" },
	{ "sched", "sched_migrate_task" },
	{ "sched", "sched_process_fork" },
	{ "sched", "sched_process_exit" },
	{ "sched", "sched_process_exec" },
	{ "sched", "sched_wakeup_new" },
	{ "sched", "sched_wakeup" },
};
#define NR_EVENTS (sizeof(events) / sizeof(events[0]))

struct pidset {
	int *v;
	unsigned int n, cap;
};

static bool pid_in(const struct pidset *s, int pid)
{
	for (unsigned int i = 0; i < s->n; i++)
		if (s->v[i] == pid)
			return true;
	return false;
}

static int pid_add(struct pidset *s, int pid)
{
	if (pid_in(s, pid))
		return 0;
	if (s->n == s->cap) {
		unsigned int cap = s->cap ? s->cap * 2 : 16;
		int *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = pid;
	return 0;
}

/* Is this event about the group (or a switch on one of its CPUs)? */
static bool keep(const struct cidk_trace_event *ev, const struct pidset *g,
		 const unsigned char *cpus)
{
	switch (ev->kind) {
	case CIDK_TRACE_SWITCH:
		return cpus[ev->cpu];
	case CIDK_TRACE_RSEQ_UPDATE:
		return pid_in(g, ev->pid);
	case CIDK_TRACE_FORK:
		return pid_in(g, ev->task_pid) || pid_in(g, ev->child_pid);
	case CIDK_TRACE_CID_WORK:
	case CIDK_TRACE_CID_EXIT:
	case CIDK_TRACE_CID_FORK:
		return pid_in(g, ev->pid);
	default:
		return pid_in(g, ev->task_pid);
	}
}

/* Everything a recording holds, released by rec_fini() whatever happened. */
struct rec {
	struct tracefs_instance *inst;
	struct tracefs_dynevent *kp[NR_PROBES];
	struct pidset g;
	unsigned char *cpus;
	unsigned int ncpu;
	char *path;
	FILE *in, *o;
	int go[2], err[2];
	pid_t child;
};

static void rec_fini(struct rec *r)
{
	int ws;

	if (r->o)
		fclose(r->o);
	if (r->in)
		fclose(r->in);
	for (unsigned int i = 0; i < 2; i++) {
		if (r->go[i] >= 0)
			close(r->go[i]);
		if (r->err[i] >= 0)
			close(r->err[i]);
	}
	if (r->child > 0 && waitpid(r->child, &ws, WNOHANG) == 0) {
		kill(r->child, SIGKILL);
		waitpid(r->child, &ws, 0);
	}
	tracefs_put_tracing_file(r->path);
	if (r->inst) {
		tracefs_instance_destroy(r->inst);
		tracefs_instance_free(r->inst);
	}
	for (unsigned int i = 0; i < NR_PROBES; i++)
		if (r->kp[i]) {
			/* fails while another instance has it on: left to it */
			tracefs_dynevent_destroy(r->kp[i], false);
			tracefs_dynevent_free(r->kp[i]);
		}
	free(r->cpus);
	free(r->g.v);
}

/* The instance, with the tracepoints on (tracing itself off). */
static int rec_instance(struct rec *r, const struct cidk_trace_record_params *p,
			struct cidk_trace_record_result *res)
{
	char name[64];
	int err;

	snprintf(name, sizeof(name), "cidkit-record-%ld", (long)getpid());
	r->inst = cidk__trace_instance(name, p->buffer_kb, false, events, NR_EVENTS,
				       &err, res->msg, sizeof(res->msg));
	if (!r->inst) {
		res->stage = CIDK_TRACE_REC_SETUP;
		return err > 0 ? -err : -EIO;
	}
	return 0;
}

/* Each wanted kprobe event, created (or found) and enabled. */
static int rec_probes(struct rec *r, const struct cidk_trace_record_params *p,
		      struct cidk_trace_record_result *res)
{
	for (unsigned int i = 0; i < NR_PROBES; i++) {
		const struct probe *pr = &probes[i];
		const char *why;

		if (!(p->want & pr->pub.bit))
			continue;
		for (unsigned int f = 0; f < 2 && !r->kp[i]; f++) {
			const char *fn = f ? pr->func2 : pr->pub.func;

			if (!fn)
				break;
			r->kp[i] = tracefs_kprobe_alloc("cidkit", pr->pub.event,
							fn, pr->format);
			if (r->kp[i] && tracefs_dynevent_create(r->kp[i]) < 0) {
				/* the kernel refuses it, or it exists
				   (another recorder's: used, left to it) */
				tracefs_dynevent_free(r->kp[i]);
				r->kp[i] = NULL;
				if (tracefs_event_file_exists(r->inst, "cidkit",
							      pr->pub.event,
							      "enable"))
					break;
			}
		}
		if (tracefs_event_file_exists(r->inst, "cidkit", pr->pub.event,
					      "enable") &&
		    tracefs_event_enable(r->inst, "cidkit", pr->pub.event) >= 0) {
			res->have |= pr->pub.bit;
			continue;
		}
		why = tracefs_file_exists(NULL, "kprobe_events")
			      ? "the kernel refused it (no such function, or no BTF: see tracefs error_log)"
			      : "this kernel has no kprobe events (CONFIG_KPROBE_EVENTS)";
		if (p->must & pr->pub.bit)
			return fail(res, CIDK_TRACE_REC_SETUP, EINVAL,
				    "cannot add the kprobe event cidkit/%s on %s: %s",
				    pr->pub.event, pr->pub.func, why);
		res->missing[i] = why;
	}
	return 0;
}

/*
 * The child: waits for tracing to be on, then execs CMD; an exec that
 * fails sends its errno through @r->err (close-on-exec: nothing arrives
 * when the exec succeeds).
 */
static __attribute__((noreturn)) void rec_child(struct rec *r,
						char *const *argv)
{
	char c;
	int e;

	close(r->go[1]);
	close(r->err[0]);
	if (read(r->go[0], &c, 1) != 1)
		_exit(127);
	close(r->go[0]);
	execvp(argv[0], argv);
	e = errno;
	if (write(r->err[1], &e, sizeof(e)) != sizeof(e))
		_exit(127);
	_exit(127);
}

/* Fork CMD, turn tracing on, let it exec, wait for its end (or kill it). */
static int rec_run(struct rec *r, const struct cidk_trace_record_params *p,
		   struct cidk_trace_record_result *res)
{
	int ws = 0, e = 0;
	ssize_t n;

	if (pipe2(r->go, O_CLOEXEC) || pipe2(r->err, O_CLOEXEC))
		return fail(res, CIDK_TRACE_REC_SETUP, errno, "pipe: %s",
			    strerror(errno));
	fflush(NULL);
	r->child = fork();
	if (r->child < 0)
		return fail(res, CIDK_TRACE_REC_SETUP, errno, "fork: %s",
			    strerror(errno));
	if (r->child == 0)
		rec_child(r, p->argv);
	res->tgid = (int)r->child;
	close(r->go[0]);
	close(r->err[1]);
	r->go[0] = r->err[1] = -1;
	tracefs_trace_on(r->inst);
	if (write(r->go[1], "g", 1) != 1)
		return fail(res, CIDK_TRACE_REC_SETUP, errno, "pipe: %s",
			    strerror(errno));
	close(r->go[1]);
	r->go[1] = -1;
	while ((n = read(r->err[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	if (n == sizeof(e)) {
		waitpid(r->child, &ws, 0);
		r->child = -1;
		tracefs_trace_off(r->inst);
		return fail(res, CIDK_TRACE_REC_EXEC, e, "%s", strerror(e));
	}
	if (p->seconds > 0) {
		struct timespec t0, now, nap = { 0, 1000000 };

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (;;) {
			if (waitpid(r->child, &ws, WNOHANG) == r->child)
				break;
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((double)(now.tv_sec - t0.tv_sec) +
				    (double)(now.tv_nsec - t0.tv_nsec) / 1e9 >=
			    p->seconds) {
				kill(r->child, SIGKILL);
				waitpid(r->child, &ws, 0);
				break;
			}
			nanosleep(&nap, NULL);
		}
	} else {
		waitpid(r->child, &ws, 0);
	}
	r->child = -1;
	tracefs_trace_off(r->inst);
	for (unsigned int i = 0; i < NR_EVENTS; i++)
		tracefs_event_disable(r->inst, events[i][0], events[i][1]);
	for (unsigned int i = 0; i < NR_PROBES; i++)
		if (res->have & probes[i].pub.bit)
			tracefs_event_disable(r->inst, "cidkit",
					      probes[i].pub.event);
	return 0;
}

/* Pass 1: the group's threads and CPUs, and whether the buffer lost any. */
static int rec_scan(struct rec *r, struct cidk_trace_record_result *res,
		    char *line, size_t size)
{
	unsigned long long in_buf = 0, written = 0;
	struct cidk_trace_event ev;

	r->path = tracefs_instance_get_file(r->inst, "trace");
	r->in = r->path ? fopen(r->path, "r") : NULL;
	if (!r->in)
		return fail(res, CIDK_TRACE_REC_READ, errno,
			    "cannot read the trace: %s", strerror(errno));
	while (fgets(line, (int)size, r->in)) {
		int rc = cidk_trace_parse_line(line, strlen(line), &ev, NULL);
		const char *e = strstr(line, "entries-in-buffer/entries-written: ");

		if (e)
			sscanf(e + 35, "%llu/%llu", &in_buf, &written);
		if (rc != 1)
			continue;
		res->total++;
		if (ev.tgid == res->tgid && pid_add(&r->g, ev.pid))
			return fail(res, CIDK_TRACE_REC_READ, ENOMEM, "%s",
				    strerror(ENOMEM));
	}
	if (in_buf != written)
		return fail(res, CIDK_TRACE_REC_READ, EIO,
			    "the trace buffer lost %llu of %llu events (--buffer-kb, --seconds)",
			    written - in_buf, written);
	if (!r->g.n)
		return fail(res, CIDK_TRACE_REC_EMPTY, ESRCH,
			    "no event of pid %d was recorded", res->tgid);
	res->nr_threads = r->g.n;
	rewind(r->in);
	while (fgets(line, (int)size, r->in))
		if (cidk_trace_parse_line(line, strlen(line), &ev, NULL) == 1 &&
		    pid_in(&r->g, ev.kind == CIDK_TRACE_SWITCH ? ev.next_pid
							       : ev.pid) &&
		    ev.cpu < r->ncpu)
			r->cpus[ev.cpu] = 1;
	return 0;
}

/* Pass 2: the header, then the buffer's header lines and the kept lines. */
static int rec_write(struct rec *r, const struct cidk_trace_record_params *p,
		     struct cidk_trace_record_result *res, char *line,
		     size_t size)
{
	struct cidk_trace_event ev;
	const char *sep = " probes=";
	struct utsname u;
	int rc;

	r->o = fopen(p->out, "w");
	if (!r->o)
		return fail(res, CIDK_TRACE_REC_OUT, errno, "%s", strerror(errno));
	uname(&u);
	fprintf(r->o, "# cidkit-trace: kernel=%s cpus=%u tgid=%d threads=",
		u.release, r->ncpu, res->tgid);
	for (unsigned int i = 0; i < r->g.n; i++)
		fprintf(r->o, "%s%d", i ? "," : "", r->g.v[i]);
	for (unsigned int i = 0; i < NR_PROBES; i++)
		if (res->have & probes[i].pub.bit) {
			fprintf(r->o, "%s%s", sep, probes[i].pub.event);
			sep = ",";
		}
	fprintf(r->o, "\n# cidkit-trace: command=%s\n", p->command);
	rewind(r->in);
	while (fgets(line, (int)size, r->in)) {
		rc = cidk_trace_parse_line(line, strlen(line), &ev, NULL);
		if (rc == 0 && line[0] == '#')
			fputs(line, r->o);
		else if (rc == 1 && ev.cpu < r->ncpu && keep(&ev, &r->g, r->cpus)) {
			fputs(line, r->o);
			res->kept++;
		}
	}
	rc = fclose(r->o);
	r->o = NULL;
	if (rc)
		return fail(res, CIDK_TRACE_REC_OUT, errno, "%s", strerror(errno));
	return 0;
}

int cidk_trace_record(const struct cidk_trace_record_params *p,
		      struct cidk_trace_record_result *res)
{
	struct rec r = { .go = { -1, -1 }, .err = { -1, -1 }, .child = -1 };
	const size_t size = CIDK_TRACE_LINE_MAX + 1;
	char *line = malloc(size);
	int rc;

	memset(res, 0, sizeof(*res));
	res->tgid = -1;
	/* CPU numbers are below nr_cpu_ids, the library's one count of the
	   possible CPUs (get_nprocs_conf() may count fewer on a sparse list) */
	rc = cidk_topo_read_nr_cpu_ids(NULL, NULL);
	r.ncpu = rc > 0 ? (unsigned int)rc : (unsigned int)get_nprocs_conf();
	r.cpus = calloc(r.ncpu ? r.ncpu : 1, 1);
	if (!r.cpus || !line)
		rc = fail(res, CIDK_TRACE_REC_SETUP, ENOMEM, "%s",
			  strerror(ENOMEM));
	else
		rc = rec_instance(&r, p, res);
	if (!rc)
		rc = rec_probes(&r, p, res);
	if (!rc)
		rc = rec_run(&r, p, res);
	if (!rc)
		rc = rec_scan(&r, res, line, size);
	if (!rc)
		rc = rec_write(&r, p, res, line, size);
	rec_fini(&r);
	free(line);
	return rc;
}
#else
int cidk_trace_record(const struct cidk_trace_record_params *p,
		      struct cidk_trace_record_result *res)
{
	(void)p;
	memset(res, 0, sizeof(*res));
	res->tgid = -1;
	return fail(res, CIDK_TRACE_REC_NOTSUP, ENOTSUP,
		    "this cidkit was built without libtracefs");
}
#endif
