/* SPDX-License-Identifier: MIT */
/*
 * cidkit cat [--count N] [--cpu C] [--print] [--stats] [--json]
 *            [--keep-going] FILE...
 *
 * Open every file once, pread() each N times at offset 0, close them: the
 * counter-reading pattern, and a drop-in for the benchmarking tool
 * fastcat (N from FASTCAT_READ_COUNT when --count is not given).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"
#include "cidkit_lab.h"
#include "stats.h"

#define CAT_BUF 4096
#define CAT_MAX_SAMPLES (1u << 20) /* rounds kept for the median */

static const char about[] =
	"Open every FILE once, read each N times with pread(fd, buf, 4096, 0),\n"
	"then close them all: what a counter sampler does, without cat's\n"
	"open+read+close per value.  A drop-in for fastcat: without --count, N\n"
	"is the environment variable FASTCAT_READ_COUNT when set (0 = open and\n"
	"close only, to measure the set-up cost), else 1.  Silent by default.\n";

static const char epilog[] =
	"A file that cannot be opened or read is one line 'cidkit: PATH: reason'\n"
	"and exit status 2.\n";

struct cat_file {
	const char *path;
	int fd;
	ssize_t len; /* of the last read; -1 none */
	char *buf;
};

struct cat_opts {
	uint64_t count;
	int cpu; /* -1: not bound */
	bool print, stats, json, keep_going;
};

/* Without --count: FASTCAT_READ_COUNT, else 1. */
static int env_count(struct cat_opts *o)
{
	const char *env = getenv("FASTCAT_READ_COUNT");

	if (env && *env)
		return cli_parse_u64("cat: FASTCAT_READ_COUNT", env, 0,
				     1000000000, &o->count);
	o->count = 1;
	return 0;
}

/* Report a failed file; returns whether to go on. */
static bool file_failed(const struct cat_opts *o, struct cat_file *f, int err,
			unsigned int *failed)
{
	cli_error("%s: %s", cli_q(f->path), cidk__open_strerror(-err));
	(*failed)++;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	f->len = -1;
	return o->keep_going;
}

static void print_value(struct jw *j, const struct cat_file *f)
{
	size_t len = (size_t)f->len;
	char *v;

	while (len && (f->buf[len - 1] == '\n' || f->buf[len - 1] == '\0'))
		len--;
	v = strndup(f->buf, len);
	if (!v)
		return;
	if (j) {
		jw_obj(j);
		jw_kstr(j, "path", f->path);
		jw_kstr(j, "value", v);
		jw_obj_end(j);
	} else {
		printf("%s: %s\n", f->path, v);
	}
	free(v);
}

static int report(const struct cat_opts *o, struct cat_file *files,
		  unsigned int n, unsigned int readable, double *samples,
		  size_t nsamples, uint64_t open_ns, uint64_t close_ns,
		  unsigned int failed)
{
	struct cidk__summary s = { 0 };
	struct jw j;

	cidk__summarize(samples, nsamples, &s);
	if (o->json) {
		jw_init(&j, stdout);
		jw_obj(&j);
		jw_kuint(&j, "files", n);
		jw_kuint(&j, "readable", readable);
		jw_kuint(&j, "count", o->count);
		jw_kuint(&j, "reads", o->count * readable);
		if (o->cpu >= 0)
			jw_kint(&j, "cpu", o->cpu);
		else
			jw_knull(&j, "cpu");
		jw_kuint(&j, "open_ns", open_ns);
		jw_kuint(&j, "close_ns", close_ns);
		jw_key(&j, "read_ns");
		jw_obj(&j);
		jw_knum(&j, "median", s.median, 1);
		jw_knum(&j, "min", s.min, 1);
		jw_knum(&j, "max", s.max, 1);
		jw_kuint(&j, "rounds", nsamples);
		jw_obj_end(&j);
		jw_kuint(&j, "failed", failed);
		if (o->print) {
			jw_key(&j, "values");
			jw_arr(&j);
			for (unsigned int i = 0; i < n; i++)
				if (files[i].len >= 0)
					print_value(&j, &files[i]);
			jw_arr_end(&j);
		}
		jw_obj_end(&j);
		jw_end(&j);
		return 0;
	}
	if (o->print)
		for (unsigned int i = 0; i < n; i++)
			if (files[i].len >= 0)
				print_value(NULL, &files[i]);
	if (o->stats) {
		printf("cat: %u file(s), %llu round(s), %llu read(s)", readable,
		       (unsigned long long)o->count,
		       (unsigned long long)(o->count * readable));
		if (o->cpu >= 0)
			printf(", bound to CPU %d", o->cpu);
		printf("\nset-up: open %.1f us (%.2f us/file), close %.1f us\n",
		       open_ns / 1e3, n ? open_ns / 1e3 / n : 0, close_ns / 1e3);
		if (nsamples)
			printf("per read: median %.0f ns, min %.0f - max %.0f ns "
			       "(over %zu rounds)\n",
			       s.median, s.min, s.max, nsamples);
		else
			printf("per read: no reads (count 0)\n");
	}
	return 0;
}

int cmd_cat(int argc, char **argv)
{
	struct cat_opts o = { .cpu = -1 };
	struct cat_file *files = NULL;
	double *samples = NULL;
	unsigned int n, readable = 0, failed = 0, cpu = 0, every = 1;
	uint64_t t0, t1, open_ns, close_ns;
	size_t nsamples = 0;
	int rc, first;
	struct opt opts[] = {
		{ OPT_U64("count", 0, &o.count, 0, 1000000000, "N",
			  "reads per file; overrides FASTCAT_READ_COUNT"),
		  .def = "FASTCAT_READ_COUNT, else 1" },
		{ OPT_UINT("cpu", 0, &cpu, 0, CPU_SETSIZE - 1, "C",
			   "bind this thread to CPU C first"),
		  .def = "" },
		{ OPT_FLAG("print", 0, &o.print,
			   "print 'path: value' of each file's last read") },
		{ OPT_FLAG("stats", 0, &o.stats,
			   "ns per read: median and min-max over the N rounds (a "
			   "round reads every file once), and the set-up cost") },
		{ OPT_FLAG("json", 0, &o.json,
			   "the statistics (and values with --print) as JSON") },
		{ OPT_FLAG("keep-going", 0, &o.keep_going,
			   "report a file that cannot be opened or read and go on "
			   "(exit status 1 at the end) instead of stopping (2)") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { "cat", about, epilog, "FILE", 1, OPT_MANY, opts };

	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	if (opt_given(&cmd, "cpu"))
		o.cpu = (int)cpu;
	if (!opt_given(&cmd, "count") && env_count(&o))
		return CLI_EXIT_USAGE;
	rc = CLI_EXIT_USAGE;
	n = (unsigned int)(argc - first);
	if (o.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			return cli_error("cat: --cpu %d: %s", o.cpu,
					 strerror(errno));
	}
	files = calloc(n, sizeof(*files));
	if (!files)
		return cli_error("cat: %s", strerror(ENOMEM));
	if (o.count > CAT_MAX_SAMPLES)
		every = (unsigned int)((o.count + CAT_MAX_SAMPLES - 1) /
				       CAT_MAX_SAMPLES);
	samples = calloc(o.count / every + 1, sizeof(double));
	for (unsigned int i = 0; i < n; i++) {
		files[i].path = argv[first + i];
		files[i].fd = -1;
		files[i].len = -1;
		files[i].buf = malloc(CAT_BUF);
		if (!files[i].buf || !samples) {
			cli_error("cat: %s", strerror(ENOMEM));
			goto out;
		}
	}

	t0 = cidk__now_ns();
	for (unsigned int i = 0; i < n; i++) {
		/* a FIFO or device is refused at once, never read */
		int fd = cidk__open_regular(files[i].path);

		files[i].fd = fd < 0 ? -1 : fd;
		if (fd < 0 && !file_failed(&o, &files[i], -fd, &failed))
			goto out;
	}
	t1 = cidk__now_ns();
	open_ns = t1 - t0;

	for (unsigned int i = 0; i < n; i++)
		readable += files[i].fd >= 0;
	for (uint64_t r = 0; r < o.count && readable; r++) {
		unsigned int reads = 0;

		t0 = cidk__now_ns();
		for (unsigned int i = 0; i < n; i++) {
			struct cat_file *f = &files[i];

			if (f->fd < 0)
				continue;
			f->len = pread(f->fd, f->buf, CAT_BUF, 0);
			if (f->len < 0) {
				if (!file_failed(&o, f, errno, &failed))
					goto out;
				continue;
			}
			reads++;
		}
		t1 = cidk__now_ns();
		if (reads && r % every == 0)
			samples[nsamples++] = (double)(t1 - t0) / reads;
		readable = reads;
	}

	t0 = cidk__now_ns();
	for (unsigned int i = 0; i < n; i++)
		if (files[i].fd >= 0) {
			close(files[i].fd);
			files[i].fd = -1;
		}
	close_ns = cidk__now_ns() - t0;

	report(&o, files, n, readable, samples, nsamples, open_ns, close_ns,
	       failed);
	rc = failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
out:
	for (unsigned int i = 0; i < n; i++) {
		if (files[i].fd >= 0)
			close(files[i].fd);
		free(files[i].buf);
	}
	free(files);
	free(samples);
	return rc;
}
