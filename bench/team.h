/* SPDX-License-Identifier: MIT */
/*
 * bench/team.h - a team of worker threads that run one measured job at a
 * time, all together: the harness of the benches that time alternatives
 * side by side on N threads (lease, percpu).
 *
 *	bench_team_start(&t, n);
 *	bench_team_run(t, job, arg);   // every worker: job(arg, id); then return
 *	bench_team_stop(t);
 *
 * bench_team_run() returns when every worker has finished its job; the
 * jobs write their results where @arg says.  Not MT-safe: one controlling
 * thread.
 */
#ifndef CIDKIT_BENCH_TEAM_H
#define CIDKIT_BENCH_TEAM_H

struct bench_team;

/*
 * Start @n workers.  Returns 0 and *out, or a negative errno (nothing
 * left running).
 */
int bench_team_start(struct bench_team **out, unsigned int n);

/* Every worker runs @job(@arg, its id in [0, n)); returns when all did. */
void bench_team_run(struct bench_team *t, void (*job)(void *arg, unsigned int id),
		    void *arg);

/* Stop and join the workers, free @t.  NULL: no-op. */
void bench_team_stop(struct bench_team *t);

#endif /* CIDKIT_BENCH_TEAM_H */
