/* SPDX-License-Identifier: MIT */
/*
 * bench/pipe.c - the context-switch round trip (see bench_pipe.h).
 *
 * Each run creates its two sides afresh (threads, or forked children) and
 * a fresh pair of pipes; creation is outside the timed part, and a warm-up
 * of BENCH_PIPE_WARMUP round trips lets both sides settle (page faults of a
 * new stack, copy-on-write after fork) before side A starts the clock.
 *
 * What the sides report lives in a MAP_SHARED anonymous page, so that the
 * same code serves threads and children; their file descriptors and
 * settings stay private (a child works on its copy).  A side that fails (affinity
 * refused, a pipe error) records the error and closes its write end, so
 * that its partner's read() sees end-of-file instead of blocking forever.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include "bench_pipe.h"
#include "cidkit_lab.h"

const char *const bench_pipe_placement_name[BENCH_PIPE_NR] = {
	[BENCH_PIPE_SAME_CPU] = "same CPU",
	[BENCH_PIPE_TWO_CPUS] = "two CPUs",
	[BENCH_PIPE_UNPINNED] = "unpinned",
};

/* What one side reports; lives in the shared page. */
struct side_out {
	int err;          /* 0 or a negative errno */
	uint64_t ns;      /* side A: the timed loops */
	long nvcsw, nivcsw;
};

/* One side of one run: private to the side (a fork copies it). */
struct side {
	int rfd, wfd;     /* -1 once closed */
	bool is_a;        /* A writes first and keeps the time */
	bool pin;
	unsigned int cpu; /* when pinned */
	unsigned int loops;
	bool processes;
	struct side_out *out;
};

static int pin_self(unsigned int cpu)
{
	cpu_set_t set;

	if (cpu >= CPU_SETSIZE)
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* pid 0: the calling thread (Linux affinity is per thread) */
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* One hand-over: A writes then reads, B reads then writes. */
static int exchange(struct side *s, char *c)
{
	ssize_t n;

	if (s->is_a) {
		n = write(s->wfd, c, 1);
		if (n == 1)
			n = read(s->rfd, c, 1);
	} else {
		n = read(s->rfd, c, 1);
		if (n == 1)
			n = write(s->wfd, c, 1);
	}
	if (n == 1)
		return 0;
	return n < 0 ? -errno : -EPIPE; /* 0: the partner gave up */
}

static void side_run(struct side *s)
{
	int who = s->processes ? RUSAGE_SELF : RUSAGE_THREAD;
	struct rusage r0, r1;
	uint64_t t0 = 0, t1 = 0;
	char c = 'x';
	int rc = 0;

	if (s->pin)
		rc = pin_self(s->cpu);
	for (unsigned int i = 0; !rc && i < BENCH_PIPE_WARMUP; i++)
		rc = exchange(s, &c);
	if (rc)
		goto fail;
	getrusage(who, &r0);
	t0 = cidk__now_ns();
	for (unsigned int i = 0; !rc && i < s->loops; i++)
		rc = exchange(s, &c);
	t1 = cidk__now_ns();
	getrusage(who, &r1);
	if (rc)
		goto fail;
	s->out->ns = t1 - t0;
	s->out->nvcsw = r1.ru_nvcsw - r0.ru_nvcsw;
	s->out->nivcsw = r1.ru_nivcsw - r0.ru_nivcsw;
	return;
fail:
	s->out->err = rc;
	close(s->wfd); /* the partner's read() now returns 0 */
	s->wfd = -1;
}

static void *side_thread(void *arg)
{
	side_run(arg);
	return NULL;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Start both sides; wait for them; the fds are closed on return. */
static int run_sides(struct side *sd, bool processes)
{
	pthread_t tid[2];
	pid_t pid[2] = { -1, -1 };
	int started = 0, rc = 0;

	for (int i = 0; i < 2; i++) {
		if (processes) {
			pid[i] = fork();
			if (pid[i] == 0) {
				/* a write to a partner that is gone: EPIPE */
				signal(SIGPIPE, SIG_IGN);
				/* child: keep only this side's two ends */
				close_fd(&sd[1 - i].rfd);
				close_fd(&sd[1 - i].wfd);
				side_run(&sd[i]);
				_exit(0);
			}
			if (pid[i] < 0) {
				rc = -errno;
				break;
			}
		} else {
			rc = -pthread_create(&tid[i], NULL, side_thread, &sd[i]);
			if (rc)
				break;
		}
		started++;
	}
	if (processes || rc) {
		/*
		 * The parent holds no end any more (or, if a side could not
		 * start, the started one reads end-of-file and gives up).
		 * Threads share these fds: close them only after the join.
		 */
		if (processes)
			for (int i = 0; i < 2; i++) {
				close_fd(&sd[i].rfd);
				close_fd(&sd[i].wfd);
			}
		else
			close_fd(&sd[1].wfd); /* A's reads see end-of-file */
	}
	for (int i = 0; i < started; i++) {
		if (processes) {
			int status;

			while (waitpid(pid[i], &status, 0) < 0 && errno == EINTR)
				;
			if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) &&
			    !rc)
				rc = -ECHILD;
		} else {
			pthread_join(tid[i], NULL);
		}
	}
	for (int i = 0; i < 2; i++) {
		close_fd(&sd[i].rfd);
		close_fd(&sd[i].wfd);
	}
	return rc;
}

/* One run of one placement: @us per round trip, switches of both sides. */
static int one_run(const struct bench_pipe_config *cfg,
		   enum bench_pipe_placement p, struct side_out *out,
		   double *us, uint64_t *vol, uint64_t *invol)
{
	struct side sd[2];
	int ab[2], ba[2], rc;

	if (pipe2(ab, O_CLOEXEC))
		return -errno;
	if (pipe2(ba, O_CLOEXEC)) {
		rc = -errno;
		close(ab[0]);
		close(ab[1]);
		return rc;
	}
	memset(sd, 0, sizeof(sd));
	memset(out, 0, 2 * sizeof(*out));
	for (int i = 0; i < 2; i++) {
		sd[i].out = &out[i];
		sd[i].is_a = i == 0;
		sd[i].loops = cfg->loops;
		sd[i].processes = cfg->processes;
		sd[i].pin = p != BENCH_PIPE_UNPINNED;
		sd[i].cpu = (p == BENCH_PIPE_TWO_CPUS && i == 1) ? cfg->cpu_b
								  : cfg->cpu_a;
	}
	sd[0].wfd = ab[1];
	sd[0].rfd = ba[0];
	sd[1].rfd = ab[0];
	sd[1].wfd = ba[1];
	rc = run_sides(sd, cfg->processes);
	/* the cause, rather than the partner's end-of-file (-EPIPE) */
	if (!rc || out[0].err || out[1].err)
		rc = out[0].err && out[0].err != -EPIPE ? out[0].err
		     : out[1].err			  ? out[1].err
							  : out[0].err;
	if (rc)
		return rc;
	*us = (double)out[0].ns / cfg->loops / 1000.0;
	*vol += (uint64_t)(out[0].nvcsw + out[1].nvcsw);
	*invol += (uint64_t)(out[0].nivcsw + out[1].nivcsw);
	return 0;
}

int bench_pipe_run(const struct bench_pipe_config *cfg,
		   struct bench_pipe_result *res)
{
	double *us[BENCH_PIPE_NR] = { NULL };
	struct side_out *out = MAP_FAILED;
	int rc = -ENOMEM;

	if (!cfg || !res || !cfg->loops || !cfg->runs ||
	    (cfg->two_cpus && cfg->cpu_a == cfg->cpu_b))
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	res->cfg = *cfg;
	res->rusage_scope = cfg->processes ? "RUSAGE_SELF" : "RUSAGE_THREAD";
	out = mmap(NULL, 2 * sizeof(*out), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (out == MAP_FAILED) {
		rc = -errno;
		goto out;
	}
	for (int p = 0; p < BENCH_PIPE_NR; p++)
		if (!(us[p] = calloc(cfg->runs, sizeof(double))))
			goto out;

	for (unsigned int r = 0; r < cfg->runs; r++)
		for (unsigned int k = 0; k < BENCH_PIPE_NR; k++) {
			enum bench_pipe_placement p = (r + k) % BENCH_PIPE_NR;
			struct bench_pipe_placement_result *pr = &res->p[p];

			if (p == BENCH_PIPE_TWO_CPUS && !cfg->two_cpus)
				continue;
			rc = one_run(cfg, p, out, &us[p][r], &pr->voluntary,
				     &pr->involuntary);
			if (rc)
				goto out;
			pr->measured = true;
		}
	for (int p = 0; p < BENCH_PIPE_NR; p++)
		if (res->p[p].measured)
			cidk__summarize(us[p], cfg->runs, &res->p[p].us);
	rc = 0;
out:
	for (int p = 0; p < BENCH_PIPE_NR; p++)
		free(us[p]);
	if (out != MAP_FAILED)
		munmap(out, 2 * sizeof(*out));
	return rc;
}
