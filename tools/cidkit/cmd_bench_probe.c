/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench probe [--runs N] [--processes P] [--json] | --first
 *
 * What the library's in-process probe (cidkit/abi.h) costs: N fresh
 * cidk_abi_probe() calls in this process, each next to one
 * pthread_create + pthread_join timed in the same loop (the yardstick a
 * guest under TCG can be compared with: there only ratios mean anything),
 * and the first probe of P fresh processes -- this command run again with
 * --first, which does the one cidk_abi_probe_cached() a program's first
 * per-CPU operation would do and prints its time.  Times are the caller's
 * wall clock around the call (CLOCK_MONOTONIC): threads, membarrier and
 * all.
 */
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cidkit/abi.h>

#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"
#include "stats.h"

extern char **environ;

#define PROBE_MAX_RUNS 100000u
#define PROBE_MAX_PROCESSES 10000u

static const char about[] =
	"What the library's rseq probe (cidkit/abi.h) costs on this machine:\n"
	"  probe     cidk_abi_probe(), fresh each run (not the cached answer)\n"
	"  thread    one pthread_create + pthread_join, timed in the same loop\n"
	"  first     the first probe of a fresh process (cidk_abi_probe_cached,\n"
	"            what a program's first per-CPU operation pays): this command\n"
	"            run again with --first, P times\n"
	"Microseconds of wall clock around each call: median, p99 (nearest rank),\n"
	"min-max, and the ratio of each median to the thread's (under TCG only\n"
	"the ratios mean anything).  The verdicts are counted, not judged.\n";

struct stats {
	double median, p99, min, max;
};

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Sorts @v (labutil/stats.c: the lab's one median and percentile code). */
static struct stats stats_of(double *v, unsigned int n)
{
	struct cidk__summary sum;
	struct stats s;

	cidk__summarize(v, n, &sum);
	s.median = sum.median;
	s.p99 = cidk__percentile(v, n, 99); /* nearest rank */
	s.min = sum.min;
	s.max = sum.max;
	return s;
}

static void *nothing(void *arg)
{
	return arg;
}

/* --first: this process's first probe, "US VERDICT" on stdout. */
static int run_first(void)
{
	struct cidk_abi_probe_result r;
	double t0 = now_us(), us;
	int rc = cidk_abi_probe_cached(&r);

	us = now_us() - t0;
	if (rc && rc != -ENOSYS)
		return cli_fail("bench probe: cidk_abi_probe_cached: %s", strerror(-rc));
	printf("%.1f %s\n", us, cidk_abi_answer_name(r.promise[CIDK_ABI_ABORT].verdict));
	return CLI_EXIT_OK;
}

/* Run "/proc/self/exe bench probe --first" and read its line. */
static int spawn_first(double *us, char *verdict, size_t vlen)
{
	char *args[] = { "cidkit", "bench", "probe", "--first", NULL };
	posix_spawn_file_actions_t fa;
	char line[128], fmt[32];
	int fd[2], st, rc;
	ssize_t got, n = 0;
	pid_t pid;

	if (pipe(fd))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	rc = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, args, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (rc) {
		close(fd[0]);
		return -rc;
	}
	while (n < (ssize_t)sizeof(line) - 1 &&
	       (got = read(fd[0], line + n, sizeof(line) - 1 - (size_t)n)) > 0)
		n += got;
	line[n] = 0;
	close(fd[0]);
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	snprintf(fmt, sizeof(fmt), "%%lf %%%zus", vlen - 1);
	if (!WIFEXITED(st) || WEXITSTATUS(st) || sscanf(line, fmt, us, verdict) != 2)
		return -EPROTO;
	return 0;
}

static void count_verdict(unsigned int *v, const char *name)
{
	v[!strcmp(name, "pass") ? 0 : !strcmp(name, "FAIL") ? 1 : 2]++;
}

static void row(const char *what, const struct stats *s, double base)
{
	printf("%-22s %9.1f %9.1f %9.1f %9.1f %8.2fx\n", what, s->median, s->p99,
	       s->min, s->max, base > 0 ? s->median / base : 0);
}

static void jstats(struct jw *j, const char *key, const struct stats *s,
		   double base)
{
	jw_key(j, key);
	jw_obj(j);
	jw_knum(j, "median_us", s->median, 1);
	jw_knum(j, "p99_us", s->p99, 1);
	jw_knum(j, "min_us", s->min, 1);
	jw_knum(j, "max_us", s->max, 1);
	jw_knum(j, "ratio", base > 0 ? s->median / base : 0, 2);
	jw_obj_end(j);
}

static void jverdicts(struct jw *j, const char *key, const unsigned int *v)
{
	jw_key(j, key);
	jw_obj(j);
	jw_kuint(j, "pass", v[0]);
	jw_kuint(j, "FAIL", v[1]);
	jw_kuint(j, "unknown", v[2]);
	jw_obj_end(j);
}

int cmd_bench_probe(int argc, char **argv)
{
	unsigned int runs = 201, procs = 31, cpus = 0;
	unsigned int verd[3] = { 0, 0, 0 }, fverd[3] = { 0, 0, 0 };
	double *probe_us = NULL, *thread_us = NULL, *first_us = NULL;
	struct stats sp, st, sf = { 0, 0, 0, 0 };
	bool json = false, first = false;
	int rc, opt_first, status = CLI_EXIT_OK;
	struct opt opts[] = {
		{ OPT_UINT("runs", 0, &runs, 1, PROBE_MAX_RUNS, "N",
			   "probes (and thread creations) in this process") },
		{ OPT_UINT("processes", 0, &procs, 0, PROBE_MAX_PROCESSES, "P",
			   "fresh processes for the first probe (0: none)") },
		{ OPT_FLAG("json", 0, &json, "one JSON object") },
		{ OPT_FLAG("first", 0, &first,
			   "only this process's first probe: print its us and verdict "
			   "(what the report spawns)") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { "bench probe", about, NULL, NULL, 0, 0, opts };

	rc = opt_parse(&cmd, argc, argv, &opt_first);
	if (rc)
		return opt_status(rc);
	if (first) {
		if (opt_given(&cmd, "runs") || opt_given(&cmd, "processes") || json)
			return cli_error("bench probe: --first takes no other option");
		return run_first();
	}
	probe_us = calloc(runs, sizeof(double));
	thread_us = calloc(runs, sizeof(double));
	first_us = calloc(procs ? procs : 1, sizeof(double));
	if (!probe_us || !thread_us || !first_us) {
		status = cli_fail("bench probe: out of memory");
		goto out;
	}
	/* the process's own first probe (membarrier registration, the
	 * cached answer) is paid before the loop: the loop times fresh
	 * probes in a warm process */
	{
		struct cidk_abi_probe_result r;

		rc = cidk_abi_probe_cached(&r);
		if (rc && rc != -ENOSYS) {
			status = cli_fail("bench probe: %s", strerror(-rc));
			goto out;
		}
	}
	for (unsigned int i = 0; i < runs; i++) {
		struct cidk_abi_probe_result r;
		pthread_t t;
		double t0;

		t0 = now_us();
		rc = pthread_create(&t, NULL, nothing, NULL);
		if (rc) {
			status = cli_fail("bench probe: pthread_create: %s", strerror(rc));
			goto out;
		}
		pthread_join(t, NULL);
		thread_us[i] = now_us() - t0;

		t0 = now_us();
		rc = cidk_abi_probe(NULL, &r, 0);
		probe_us[i] = now_us() - t0;
		if (rc && rc != -ENOSYS) {
			status = cli_fail("bench probe: cidk_abi_probe: %s", strerror(-rc));
			goto out;
		}
		cpus = r.cpus;
		count_verdict(verd, cidk_abi_answer_name(r.promise[CIDK_ABI_ABORT].verdict));
	}
	for (unsigned int i = 0; i < procs; i++) {
		char v[16];

		rc = spawn_first(&first_us[i], v, sizeof(v));
		if (rc) {
			status = cli_fail("bench probe: cidkit bench probe --first: %s",
					  strerror(-rc));
			goto out;
		}
		count_verdict(fverd, v);
	}
	sp = stats_of(probe_us, runs);
	st = stats_of(thread_us, runs);
	if (procs)
		sf = stats_of(first_us, procs);

	if (json) {
		struct jw j;

		jw_init(&j, stdout);
		jw_obj(&j);
		jw_kuint(&j, "runs", runs);
		jw_kuint(&j, "processes", procs);
		jw_kuint(&j, "cpus", cpus);
		jw_break(&j, "\n ");
		jstats(&j, "probe", &sp, st.median);
		jw_break(&j, "\n ");
		jstats(&j, "thread", &st, st.median);
		jw_break(&j, "\n ");
		if (procs)
			jstats(&j, "first", &sf, st.median);
		else
			jw_knull(&j, "first");
		jw_break(&j, "\n ");
		jverdicts(&j, "verdicts", verd);
		jverdicts(&j, "first_verdicts", fverd);
		jw_break(&j, "\n");
		jw_obj_end(&j);
		jw_end(&j);
		goto out;
	}
	printf("the rseq probe (cidkit/abi.h) on %u CPUs: %u fresh probes, each next to\n"
	       "one pthread_create+join; the first probe of %u fresh processes\n\n",
	       cpus, runs, procs);
	printf("%-22s %9s %9s %9s %9s %9s\n", "us", "median", "p99", "min", "max",
	       "ratio");
	row("probe", &sp, st.median);
	row("pthread_create+join", &st, st.median);
	if (procs)
		row("first of a process", &sf, st.median);
	printf("\nverdicts: probe %u pass, %u FAIL, %u unknown", verd[0], verd[1],
	       verd[2]);
	if (procs)
		printf("; first %u pass, %u FAIL, %u unknown", fverd[0], fverd[1],
		       fverd[2]);
	printf("\nratio = median / pthread_create+join median\n");
out:
	free(probe_us);
	free(thread_us);
	free(first_us);
	return status;
}
