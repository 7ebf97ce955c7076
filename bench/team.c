/* SPDX-License-Identifier: MIT */
/*
 * bench/team.c - worker threads released together by a barrier for each
 * job and waited for by a second one (team.h).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "team.h"

struct bench_team {
	pthread_barrier_t start, done;
	void (*job)(void *arg, unsigned int id);
	void *arg;
	int quit;
	atomic_int armed; /* the barriers exist */
	unsigned int n;
	pthread_t *th;
	struct member {
		struct bench_team *t;
		unsigned int id;
	} *m;
};

static void *member_main(void *p)
{
	struct member *m = p;
	struct bench_team *t = m->t;

	while (!atomic_load(&t->armed))
		sched_yield();
	for (;;) {
		pthread_barrier_wait(&t->start);
		if (t->quit)
			return NULL;
		t->job(t->arg, m->id);
		pthread_barrier_wait(&t->done);
	}
}

int bench_team_start(struct bench_team **out, unsigned int n)
{
	struct bench_team *t = calloc(1, sizeof(*t));
	unsigned int started = 0;
	int rc = -ENOMEM;

	if (!t)
		return -ENOMEM;
	t->th = calloc(n, sizeof(*t->th));
	t->m = calloc(n, sizeof(*t->m));
	if (!t->th || !t->m)
		goto fail;
	atomic_init(&t->armed, 0);
	for (; started < n; started++) {
		t->m[started].t = t;
		t->m[started].id = started;
		rc = -pthread_create(&t->th[started], NULL, member_main,
				     &t->m[started]);
		if (rc)
			break;
	}
	/* sized for the members that started; on failure they only quit */
	pthread_barrier_init(&t->start, NULL, started + 1);
	pthread_barrier_init(&t->done, NULL, started + 1);
	t->n = started;
	atomic_store(&t->armed, 1);
	if (started == n) {
		*out = t;
		return 0;
	}
	bench_team_stop(t);
	return rc;
fail:
	free(t->th);
	free(t->m);
	free(t);
	return rc;
}

void bench_team_run(struct bench_team *t, void (*job)(void *arg, unsigned int id),
		    void *arg)
{
	t->job = job;
	t->arg = arg;
	pthread_barrier_wait(&t->start);
	pthread_barrier_wait(&t->done);
}

void bench_team_stop(struct bench_team *t)
{
	if (!t)
		return;
	t->quit = 1;
	pthread_barrier_wait(&t->start);
	for (unsigned int i = 0; i < t->n; i++)
		pthread_join(t->th[i], NULL);
	pthread_barrier_destroy(&t->start);
	pthread_barrier_destroy(&t->done);
	free(t->th);
	free(t->m);
	free(t);
}
