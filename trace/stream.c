/* SPDX-License-Identifier: MIT */
/*
 * trace/stream.c - the streaming recorder (stream.h): trace_pipe read
 * while CMD runs, each event written at once.  Prints nothing (the
 * command, tools/cidkit/cmd_trace.c, says the result).
 *
 * Memory: one read buffer and one partial line, whatever the run's
 * length.  Cost in the traced machine: the kernel formats each event
 * (trace_pipe's text), this process parses it once (cidk_trace_parse_line,
 * to keep only the events the reader knows) and writes it.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cidkit/topo.h>

#include "stream.h"

/* @res's stage and message; returns -@err. */
__attribute__((format(printf, 4, 5)))
static int sfail(struct cidk_trace_stream_result *res,
		 enum cidk_trace_record_stage stage, int err, const char *fmt, ...)
{
	va_list ap;

	res->stage = stage;
	va_start(ap, fmt);
	vsnprintf(res->msg, sizeof(res->msg), fmt, ap);
	va_end(ap);
	return err > 0 ? -err : -EIO;
}

#ifdef CIDKIT_HAVE_TRACEFS
#include <tracefs.h>

#include "instance.h"

/* The events trace.h reads (trace/record.c's list). */
static const char *const sevents[][2] = {
	{ "rseq", "rseq_update" },
	{ "sched", "sched_switch" },
	{ "sched", "sched_migrate_task" },
	{ "sched", "sched_process_fork" },
	{ "sched", "sched_process_exit" },
	{ "sched", "sched_process_exec" },
	{ "sched", "sched_wakeup_new" },
	{ "sched", "sched_wakeup" },
};
#define NR_SEVENTS (sizeof(sevents) / sizeof(sevents[0]))

#define CHUNK 65536u

struct strm {
	struct tracefs_instance *inst;
	const char *prefix; /* "" or what each line starts with */
	size_t plen;
	int pipe, out;
	int go[2], err[2];
	pid_t child;
	char *buf, *line;  /* a read, the partial line carried over */
	size_t len;        /* of the partial line */
};

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static void strm_fini(struct strm *s)
{
	int ws;

	for (unsigned int i = 0; i < 2; i++) {
		if (s->go[i] >= 0)
			close(s->go[i]);
		if (s->err[i] >= 0)
			close(s->err[i]);
	}
	if (s->child > 0 && waitpid(s->child, &ws, WNOHANG) == 0) {
		kill(s->child, SIGKILL);
		waitpid(s->child, &ws, 0);
	}
	if (s->pipe >= 0)
		close(s->pipe);
	if (s->out >= 0)
		close(s->out);
	if (s->inst) {
		tracefs_trace_off(s->inst);
		tracefs_instance_destroy(s->inst);
		tracefs_instance_free(s->inst);
	}
	free(s->buf);
	free(s->line);
}

/*
 * Not the recorder's own wake-ups and switches: a traced task is current
 * when the recorder is woken or switched to, so these pass the pid filter,
 * and each one read would wake it again (a loop that never ends while CMD
 * runs: 1.7 million events in 0.1 s of `sh -c true` before this filter).
 */
static int strm_filters(struct strm *s, struct cidk_trace_stream_result *res)
{
	static const char *const f[][3] = {
		{ "sched", "sched_wakeup", "pid != %ld" },
		{ "sched", "sched_migrate_task", "pid != %ld" },
		{ "sched", "sched_switch", "prev_pid != %ld && next_pid != %ld" },
	};
	char text[96];

	for (unsigned int i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		snprintf(text, sizeof(text), f[i][2], (long)getpid(),
			 (long)getpid());
		if (tracefs_event_file_write(s->inst, f[i][0], f[i][1], "filter",
					     text) < 0)
			return sfail(res, CIDK_TRACE_REC_SETUP, errno,
				     "cannot filter %s:%s: %s", f[i][0], f[i][1],
				     strerror(errno));
	}
	return 0;
}

/* The instance: buffer, tgid column, event-fork, the tracepoints (off). */
static int strm_instance(struct strm *s, const struct cidk_trace_stream_params *p,
			 struct cidk_trace_stream_result *res)
{
	char name[64];
	int err;

	snprintf(name, sizeof(name), "cidkit-stream-%ld", (long)getpid());
	s->inst = cidk__trace_instance(name, p->buffer_kb, true, sevents, NR_SEVENTS,
				       &err, res->msg, sizeof(res->msg));
	if (!s->inst) {
		res->stage = CIDK_TRACE_REC_SETUP;
		return err > 0 ? -err : -EIO;
	}
	return strm_filters(s, res);
}

/* The child: waits for tracing, then execs CMD (errno through s->err). */
static __attribute__((noreturn)) void strm_child(struct strm *s,
						 const struct cidk_trace_stream_params *p)
{
	char c;
	int e;

	close(s->go[1]);
	close(s->err[0]);
	if (p->fifo > 0) {
		struct sched_param sp = { .sched_priority = 0 };

		if (sched_setscheduler(0, SCHED_OTHER, &sp))
			_exit(127);
	}
	if (read(s->go[0], &c, 1) != 1)
		_exit(127);
	close(s->go[0]);
	if (!strcmp(p->out, "-") && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		_exit(127);
	execvp(p->argv[0], p->argv);
	e = errno;
	if (write(s->err[1], &e, sizeof(e)) != sizeof(e))
		_exit(127);
	_exit(127);
}

/* One line of the pipe (no newline): an event kept, a loss counted. */
static int strm_line(struct strm *s, char *l, size_t n,
		     struct cidk_trace_stream_result *res)
{
	struct cidk_trace_event ev;
	unsigned long lost;
	unsigned int cpu;
	char note[96];
	int k;

	if (sscanf(l, "CPU:%u [LOST %lu EVENTS]", &cpu, &lost) == 2) {
		res->lost += lost;
		k = snprintf(note, sizeof(note), "%s# lost %lu events on CPU %u\n",
			     s->prefix, lost, cpu);
		return write_all(s->out, note, (size_t)k);
	}
	/* the events the reader knows (1) and other events (0: an extra
	   kprobe's); not blank or malformed lines */
	if (!n || n > CIDK_TRACE_LINE_MAX || l[0] == '#' ||
	    cidk_trace_parse_line(l, n, &ev, NULL) < 0)
		return 0;
	l[n] = '\n';
	res->lines++;
	/* the prefix sits in front of the line (strm.line has room) */
	memcpy(l - s->plen, s->prefix, s->plen);
	return write_all(s->out, l - s->plen, s->plen + n + 1);
}

/*
 * Read what the pipe holds now (non-blocking), at most 64 chunks (a pipe
 * that never empties must not keep the caller from CMD's end and
 * --seconds), and write its lines.  Returns 0 when the pipe is empty, 1
 * when it may hold more, -1 on a write error.
 */
static int strm_drain(struct strm *s, struct cidk_trace_stream_result *res)
{
	for (unsigned int chunks = 0; chunks < 64; chunks++) {
		ssize_t n = read(s->pipe, s->buf, CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		for (ssize_t i = 0; i < n; i++) {
			char c = s->buf[i];

			if (c != '\n') {
				if (s->len < CIDK_TRACE_LINE_MAX + 1)
					s->line[s->plen + s->len++] = c;
				continue;
			}
			if (strm_line(s, s->line + s->plen, s->len, res))
				return -1;
			s->len = 0;
		}
	}
	return 1;
}

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) +
	       (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The header: this kernel, its CPUs, CMD's pid, the command. */
static int strm_header(struct strm *s, const struct cidk_trace_stream_params *p,
		       int ncpu, pid_t pid)
{
	struct utsname u;
	char h[512];
	int k;

	uname(&u);
	k = snprintf(h, sizeof(h),
		     "%s# cidkit-trace: kernel=%s cpus=%d tgid=%ld threads=%ld stream\n"
		     "%s# cidkit-trace: command=%s\n",
		     s->prefix, u.release, ncpu, (long)pid, (long)pid, s->prefix,
		     p->command);
	if (k >= (int)sizeof(h))
		k = (int)sizeof(h) - 1;
	return write_all(s->out, h, (size_t)k);
}

/* Fork CMD, point the pid filter at it, trace, stream until it ends. */
static int strm_run(struct strm *s, const struct cidk_trace_stream_params *p,
		    struct cidk_trace_stream_result *res, int ncpu)
{
	/* read every 10 ms, not on each event: a reader waiting in poll() is
	   woken for every event, which costs the traced CPUs an interrupt each */
	struct timespec t0, nap = { 0, 10000000L };
	char pid[32], end[256];
	int ws = 0, e = 0, k;
	ssize_t n;

	if (pipe2(s->go, O_CLOEXEC) || pipe2(s->err, O_CLOEXEC))
		return sfail(res, CIDK_TRACE_REC_SETUP, errno, "pipe: %s",
			     strerror(errno));
	fflush(NULL);
	s->child = fork();
	if (s->child < 0)
		return sfail(res, CIDK_TRACE_REC_SETUP, errno, "fork: %s",
			     strerror(errno));
	if (s->child == 0)
		strm_child(s, p);
	res->tgid = (int)s->child;
	close(s->go[0]);
	close(s->err[1]);
	s->go[0] = s->err[1] = -1;
	snprintf(pid, sizeof(pid), "%ld", (long)s->child);
	if (tracefs_instance_file_write(s->inst, "set_event_pid", pid) < 0)
		return sfail(res, CIDK_TRACE_REC_SETUP, errno,
			     "cannot write set_event_pid: %s", strerror(errno));
	s->pipe = tracefs_instance_file_open(s->inst, "trace_pipe",
					     O_RDONLY | O_NONBLOCK);
	if (s->pipe < 0)
		return sfail(res, CIDK_TRACE_REC_SETUP, errno,
			     "cannot open trace_pipe: %s", strerror(errno));
	if (strm_header(s, p, ncpu, s->child))
		return sfail(res, CIDK_TRACE_REC_OUT, errno, "%s", strerror(errno));
	tracefs_trace_on(s->inst);
	if (write(s->go[1], "g", 1) != 1)
		return sfail(res, CIDK_TRACE_REC_SETUP, errno, "pipe: %s",
			     strerror(errno));
	close(s->go[1]);
	s->go[1] = -1;
	while ((n = read(s->err[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	if (n == sizeof(e)) {
		waitpid(s->child, &ws, 0);
		s->child = -1;
		return sfail(res, CIDK_TRACE_REC_EXEC, e, "%s", strerror(e));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int more = strm_drain(s, res);

		if (more < 0)
			return sfail(res, CIDK_TRACE_REC_OUT, errno, "%s",
				     strerror(errno));
		if (waitpid(s->child, &ws, WNOHANG) == s->child)
			break;
		if (p->seconds > 0 && since(&t0) >= p->seconds) {
			kill(s->child, SIGKILL);
			waitpid(s->child, &ws, 0);
			ws = -1;
			break;
		}
		if (!more)
			nanosleep(&nap, NULL);
	}
	s->child = -1;
	res->status = ws;
	res->before_end = res->lines;
	tracefs_trace_off(s->inst);
	do /* tracing is off: what is left is finite */
		k = strm_drain(s, res);
	while (k > 0);
	if (k < 0)
		return sfail(res, CIDK_TRACE_REC_OUT, errno, "%s", strerror(errno));
	k = snprintf(end, sizeof(end),
		     "%s# cidkit-trace: stream-end status=%d lines=%lu before-end=%lu lost=%lu\n",
		     s->prefix, ws, res->lines, res->before_end, res->lost);
	if (write_all(s->out, end, (size_t)k))
		return sfail(res, CIDK_TRACE_REC_OUT, errno, "%s", strerror(errno));
	return 0;
}

int cidk_trace_stream(const struct cidk_trace_stream_params *p,
		      struct cidk_trace_stream_result *res)
{
	struct strm s = { .pipe = -1, .out = -1, .go = { -1, -1 },
			  .err = { -1, -1 }, .child = -1 };
	int rc, ncpu;

	memset(res, 0, sizeof(*res));
	res->tgid = -1;
	s.prefix = p->prefix ? p->prefix : "";
	s.plen = strlen(s.prefix);
	s.buf = malloc(CHUNK);
	s.line = malloc(s.plen + CIDK_TRACE_LINE_MAX + 2);
	if (!s.buf || !s.line) {
		strm_fini(&s);
		return sfail(res, CIDK_TRACE_REC_SETUP, ENOMEM, "%s",
			     strerror(ENOMEM));
	}
	ncpu = cidk_topo_read_nr_cpu_ids(NULL, NULL);
	if (ncpu <= 0)
		ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (!strcmp(p->out, "-"))
		s.out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	else
		s.out = open(p->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0644);
	if (s.out < 0)
		rc = sfail(res, CIDK_TRACE_REC_OUT, errno, "%s", strerror(errno));
	else
		rc = strm_instance(&s, p, res);
	if (!rc && p->fifo > 0) {
		struct sched_param sp = { .sched_priority = p->fifo };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			rc = sfail(res, CIDK_TRACE_REC_SETUP, errno,
				   "cannot run at SCHED_FIFO %d: %s", p->fifo,
				   strerror(errno));
	}
	if (!rc)
		rc = strm_run(&s, p, res, ncpu);
	strm_fini(&s);
	return rc;
}
#else
int cidk_trace_stream(const struct cidk_trace_stream_params *p,
		      struct cidk_trace_stream_result *res)
{
	(void)p;
	memset(res, 0, sizeof(*res));
	res->tgid = -1;
	return sfail(res, CIDK_TRACE_REC_NOTSUP, ENOTSUP,
		     "this cidkit was built without libtracefs");
}
#endif
