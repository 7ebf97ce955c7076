/* SPDX-License-Identifier: MIT */
/*
 * check/shard.c - who explores which unit: a part of N (--shard, greedy
 * by estimate), or one of N processes (--jobs, a shared counter); and the
 * processes themselves (fork, a pipe each, the parts merged).  See
 * shard.h.
 *
 * Cost: every part runs the first execution of every unit (about
 * UNITS_PER_PART units per part at each bound), and counts those of its
 * own: small next to the schedules below them.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include <jansson.h>
#include "shard.h"

#define UNITS_PER_PART 16

int shard_parse_spec(const char *s, struct shard_spec *sp)
{
	unsigned long k, n;
	char *end;

	if (*s < '1' || *s > '9')
		return -1;
	errno = 0;
	k = strtoul(s, &end, 10);
	if (errno || *end != '/' || end[1] < '1' || end[1] > '9')
		return -1;
	n = strtoul(end + 1, &end, 10);
	if (errno || *end || k > n || n > 100000)
		return -1;
	sp->k = (unsigned int)k;
	sp->n = (unsigned int)n;
	return 0;
}

/* ---- PCT: a share of the executions, from the part's own seed -------------- */

static void pct_part(struct chk_opts *o, const struct shard_spec *sp)
{
	unsigned long r = o->random;

	o->random = r / sp->n + (sp->k - 1 < r % sp->n);
	if (sp->n > 1)
		o->seed += (uint64_t)(sp->k - 1) * 0x9e3779b97f4a7c15ull;
}

/* ---- --shard: greedy by estimate -------------------------------------------- */

struct greedy {
	struct shard_spec sp;
	unsigned int bound;
	double *load;
};

/* Every part computes the same loads: the unit goes to the least loaded
 * part (the lowest among equals). */
static bool greedy_mine(void *arg, unsigned int bound, unsigned long unit,
			double est)
{
	struct greedy *g = arg;
	unsigned int best = 0;

	(void)unit;
	if (bound != g->bound) {
		memset(g->load, 0, g->sp.n * sizeof(*g->load));
		g->bound = bound;
	}
	for (unsigned int i = 1; i < g->sp.n; i++)
		if (g->load[i] < g->load[best])
			best = i;
	g->load[best] += est;
	return best == g->sp.k - 1;
}

int shard_explore(const struct chk_model *m, const struct chk_opts *o,
		  const struct shard_spec *sp, struct chk_result *r)
{
	struct greedy g = { *sp, ~0u, calloc(sp->n, sizeof(double)) };
	struct chk_shard sh = { greedy_mine, &g,
				UNITS_PER_PART * (unsigned long)sp->n, sp->k == 1 };
	struct chk_opts c = *o;
	int rc;

	if (!g.load)
		return -ENOMEM;
	c.export_states = true;
	if (c.random)
		pct_part(&c, sp);
	else
		c.shard = &sh;
	rc = chk_explore(m, &c, r);
	free(g.load);
	return rc;
}

/* ---- --jobs: claims from a shared counter ------------------------------------- */

struct shared {
	_Atomic unsigned long next[CHK_MAX_BOUND + 1];
	_Atomic unsigned int stop_above; /* a part found a violation there */
};

struct claims {
	struct shared *sh;
	unsigned long mine[CHK_MAX_BOUND + 1]; /* the unit claimed, or ~0 */
};

/*
 * Every process walks the units in the same order and holds at most one
 * claim per bound, taken when it reaches a unit without one; claims are
 * handed out in increasing order, so a claim is never below the unit
 * where it is taken, and each unit is explored by exactly one process.
 * Above a bound where a violation was found nothing is explored: the
 * merge stops there.
 */
static bool claim_mine(void *arg, unsigned int bound, unsigned long unit,
		       double est)
{
	struct claims *c = arg;

	(void)est;
	if (bound > atomic_load(&c->sh->stop_above))
		return false;
	if (c->mine[bound] == ~0ul)
		c->mine[bound] = atomic_fetch_add(&c->sh->next[bound], 1);
	if (c->mine[bound] != unit)
		return false;
	c->mine[bound] = ~0ul;
	return true;
}

/* The child: its part as one JSON object on @fd; exit status 0 or 3. */
static void job_child(const struct chk_model *m, const struct chk_opts *o,
		      struct shared *shm, const struct shard_spec *sp, int fd)
{
	struct claims cl = { .sh = shm };
	struct chk_shard sh = { claim_mine, &cl,
				UNITS_PER_PART * (unsigned long)sp->n, sp->k == 1 };
	struct chk_opts c = *o;
	struct chk_result r;
	struct jw w;
	FILE *f;

	memset(cl.mine, 0xff, sizeof(cl.mine));
	c.progress = NULL;
	c.export_states = true;
	if (c.random)
		pct_part(&c, sp);
	else
		c.shard = &sh;
	if (chk_explore(m, &c, &r))
		_exit(3);
	f = fdopen(fd, "w");
	if (!f)
		_exit(3);
	jw_init(&w, f);
	jw_obj(&w);
	shard_write_part(&w, &r, sp);
	jw_obj_end(&w);
	jw_end(&w);
	_exit(fclose(f) ? 3 : 0);
}

struct job {
	pid_t pid;
	int fd;
	char *buf;
	size_t len, cap;
	bool done;
};

static int job_read(struct job *j)
{
	ssize_t n;

	if (j->len + 65536 > j->cap) {
		size_t cap = j->cap ? 2 * j->cap : 1u << 20;
		char *b = realloc(j->buf, cap);

		if (!b)
			return -ENOMEM;
		j->buf = b;
		j->cap = cap;
	}
	n = read(j->fd, j->buf + j->len, j->cap - j->len - 1);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (n == 0) {
		j->done = true;
		j->buf[j->len] = '\0';
		close(j->fd);
		return 0;
	}
	j->len += (size_t)n;
	return 0;
}

/* A finished job's part; a violation there stops the others above it. */
static int job_part(struct job *j, struct shard_part *p, struct shared *shm,
		    char *why, size_t len)
{
	char w[200];
	json_t *v = shard_parse(j->buf, j->len, w, sizeof(w));
	int rc;

	if (!v) {
		snprintf(why, len, "a job's result: %s", w);
		return -EIO;
	}
	rc = shard_read_part(v, p, why, len);
	json_decref(v);
	if (rc)
		return -EIO;
	if (p->violation && p->bound < atomic_load(&shm->stop_above))
		atomic_store(&shm->stop_above, p->bound);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int shard_jobs(const struct chk_model *m, const struct chk_opts *o,
	       unsigned int jobs, struct chk_result *r, char *why, size_t len)
{
	struct job *j = calloc(jobs, sizeof(*j));
	struct shard_part *p = calloc(jobs, sizeof(*p));
	double cpu[64] = { 0 };
	struct shared *shm;
	unsigned int left = 0;
	double t0 = now_s();
	int rc = 0;

	memset(r, 0, sizeof(*r));
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!j || !p || shm == MAP_FAILED) {
		free(j);
		free(p);
		snprintf(why, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	atomic_store(&shm->stop_above, CHK_MAX_BOUND + 1);
	fflush(NULL);
	for (unsigned int i = 0; i < jobs; i++) {
		struct shard_spec sp = { i + 1, jobs };
		int fds[2];

		if (pipe(fds)) {
			rc = -errno;
			break;
		}
		j[i].pid = fork();
		if (j[i].pid < 0) {
			rc = -errno;
			close(fds[0]);
			close(fds[1]);
			break;
		}
		if (j[i].pid == 0) {
			close(fds[0]);
			for (unsigned int k = 0; k < i; k++)
				close(j[k].fd);
			job_child(m, o, shm, &sp, fds[1]);
		}
		close(fds[1]);
		j[i].fd = fds[0];
		left++;
	}
	if (rc)
		snprintf(why, len, "cannot start the jobs: %s", strerror(-rc));
	while (left) {
		struct pollfd pf[64];
		unsigned int map[64], np = 0;

		for (unsigned int i = 0; i < jobs && np < 64; i++)
			if (j[i].pid > 0 && !j[i].done) {
				pf[np].fd = j[i].fd;
				pf[np].events = POLLIN;
				map[np++] = i;
			}
		if (poll(pf, np, -1) < 0 && errno != EINTR) {
			rc = rc ? rc : -errno;
			break;
		}
		for (unsigned int q = 0; q < np; q++) {
			struct job *jj = &j[map[q]];
			int e;

			if (!(pf[q].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			e = job_read(jj);
			if (e && !rc) {
				rc = e;
				snprintf(why, len, "reading a job: %s", strerror(-e));
			}
			if (e || !jj->done)
				continue;
			left--;
			if (!rc && jj->len)
				rc = job_part(jj, &p[map[q]], shm, why, len);
		}
	}
	for (unsigned int i = 0; i < jobs; i++) {
		struct rusage ru;
		int st;

		if (j[i].pid <= 0)
			continue;
		if (!j[i].done) {
			kill(j[i].pid, SIGKILL);
			close(j[i].fd);
		}
		memset(&ru, 0, sizeof(ru));
		if (wait4(j[i].pid, &st, 0, &ru) > 0)
			cpu[i] = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
				 (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
		if (j[i].pid > 0 && !rc &&
		    (!WIFEXITED(st) || WEXITSTATUS(st))) {
			rc = -EIO;
			snprintf(why, len, "job %u of %u failed (%s %d)", i + 1,
				 jobs, WIFEXITED(st) ? "exit status" : "signal",
				 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		}
	}
	if (!rc) {
		rc = shard_merge(m, o, p, jobs, r);
		if (rc)
			snprintf(why, len, "%s", r->why);
	}
	r->seconds = now_s() - t0;
	if (!rc) {
		/* each process's CPU time: what the jobs would take on idle
		 * cores is the longest (measurement, on stderr) */
		fprintf(stderr, "jobs: CPU seconds per process:");
		for (unsigned int i = 0; i < jobs; i++)
			fprintf(stderr, " %.2f", cpu[i]);
		fprintf(stderr, "\n");
	}
	for (unsigned int i = 0; i < jobs; i++) {
		free(j[i].buf);
		shard_part_free(&p[i]);
	}
	free(j);
	free(p);
	munmap(shm, sizeof(*shm));
	return rc;
}

/* ---- options ---------------------------------------------------------------------- */

void shard_options(const struct chk_opts *o, char *buf, size_t len)
{
	snprintf(buf, len,
		 "preemptions=%u max_steps=%lu sleep_sets=%d random=%lu "
		 "seed=%" PRIu64 " depth=%u",
		 o->preemptions, o->max_steps, o->sleep_sets, o->random, o->seed,
		 o->pct_depth);
	if (o->memory) { /* (sc: the string the parts had before) */
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, " memory=%u weak_bound=%u",
			 o->memory, o->weak_bound);
	}
	if (o->plain_points) { /* (sc only) */
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, " plain_points=1");
	}
}

int shard_options_parse(const char *s, struct chk_opts *o)
{
	unsigned int p, d;
	unsigned long ms, rnd;
	uint64_t seed;
	int por, n = 0, m = 0;

	if (sscanf(s, "preemptions=%u max_steps=%lu sleep_sets=%d random=%lu "
		      "seed=%" SCNu64 " depth=%u%n",
		   &p, &ms, &por, &rnd, &seed, &d, &n) != 6 ||
	    p > CHK_MAX_BOUND || !ms || (por != 0 && por != 1) || !d || d > 8)
		return -1;
	o->memory = o->weak_bound = 0;
	o->plain_points = false;
	if (!s[n]) {
		/* sc */
	} else if (!strcmp(s + n, " plain_points=1")) {
		o->plain_points = true;
	} else if (sscanf(s + n, " memory=%u weak_bound=%u%n", &o->memory,
			  &o->weak_bound, &m) != 2 || s[n + m] ||
		   !o->memory || o->memory > 2) {
		return -1;
	}
	o->preemptions = p;
	o->max_steps = ms;
	o->sleep_sets = por;
	o->random = rnd;
	o->seed = seed;
	o->pct_depth = d;
	o->keep_searching = true;
	return 0;
}
