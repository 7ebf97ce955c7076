/* SPDX-License-Identifier: MIT */
/*
 * cidkit stress [--seconds S] [--seed N] [--workload W] [--break B] ...
 *
 * Drives the running kernel's mm_cid machinery toward the schedules the
 * checker's scenarios name (thread counts crossing the CPU count while
 * CLONE_VM children that are not threads are alive, concurrent forks,
 * exits, affinity changes that migrate running threads) and watches four
 * invariants from user space (stress.h has the workloads' shapes):
 *
 *   uniqueness  each worker adds 1 to the mm_cid-indexed copy of one
 *               counter inside an rseq critical section (no atomic: two
 *               running threads with one CID lose increments), and counts
 *               its adds privately; at the end the copies must sum to the
 *               private counts exactly.
 *   bound       every mm_cid read is < min(allowed CPUs, users), users
 *               being the tasks of the mm (threads and CLONE_VM children)
 *               created and not yet reaped, kept at its phase's peak until
 *               that phase's compaction window is over, and at the CPUs
 *               after a crossing until they fall below half the CPUs
 *               (per-CPU mode's hysteresis, 6.19's CID rework: pcpu_thrs).
 *   progress    a watchdog thread sees every worker advance within
 *               --watchdog MS.
 *   compaction  after a phase's extra threads exit, every survivor's CID
 *               is back below that bound within --compact MS.
 *
 * Each one can be shown to fail (--break): uniqueness indexes every add to
 * copy 0 (as if all threads had one CID), bound reads mm_cid + 1, progress
 * stops worker 0, compaction checks against a bound of 0 (no CID passes).
 * The rseq area is cidkit's own (lib/rseq): glibc's registration is turned
 * off by re-executing with GLIBC_TUNABLES=glibc.pthread.rseq=0.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cidkit/percpu.h>
#include <cidkit/rseq.h>

#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"
#include "stress.h"
#include "cidkit_lab.h"

#define MAX_SECONDS 86400u
#define REEXEC_ENV "CIDKIT_STRESS_REEXEC"

static const char about[] =
	"Drive the kernel's concurrency IDs (mm_cid) toward the schedules of the\n"
	"published 6.19 bugs and watch four invariants from user space:\n"
	"uniqueness (per-mm_cid counters added to in rseq sections without\n"
	"atomics sum exactly), bound (mm_cid < min(allowed CPUs, users) at\n"
	"every read), progress (every worker advances within --watchdog MS) and\n"
	"compaction (after exits, survivors' CIDs come back below the bound\n"
	"within --compact MS).  Workloads: mixed (all below at once, the\n"
	"default), threads (worker counts crossing the CPU count, released at a\n"
	"barrier), vfork (the same while CLONE_VM children that are not threads\n"
	"sleep), forks (concurrent fork()s from several threads), affinity (one\n"
	"running worker at a time pinned to a random CPU and back); in rounds,\n"
	"each a fresh process (a new mm, in per-task mode): vfork-repro (the\n"
	"deterministic vfork/CLONE_VM case: CPUs-1 busy threads, one sleeping\n"
	"CLONE_VM child, one more thread to cross) and fork-race (two threads\n"
	"created at once cross the CPU count) and affinity-widen (an mm made\n"
	"per-CPU under a one-CPU mask, then widened: do two tasks swapping two\n"
	"CPUs keep their CIDs (per-task mode) or take the CPUs' (per-CPU)?,\n"
	"beside a fresh mm and one that also saw an exit); these watch progress\n"
	"only.\n"
	"Seeded (--seed): the phases' sizes and timings repeat.  Exit 1 when an\n"
	"invariant fails, 0 when all hold (or cannot be checked here: n/a).\n"
	"--break B plants a failure of invariant B (the checks' own test).\n";

static const struct opt_choice workloads[] = {
	{ "mixed", STRESS_MIXED },   { "threads", STRESS_THREADS },
	{ "vfork", STRESS_VFORK },   { "forks", STRESS_FORKS },
	{ "affinity", STRESS_AFFINITY }, { "vfork-repro", STRESS_VFORK_REPRO },
	{ "fork-race", STRESS_FORK_RACE }, { "affinity-widen", STRESS_AFFINITY_WIDEN },
	{ NULL, 0 },
};

static const struct opt_choice breaks[] = {
	{ "none", BREAK_NONE },         { "uniqueness", BREAK_UNIQUENESS },
	{ "bound", BREAK_BOUND },       { "progress", BREAK_PROGRESS },
	{ "compaction", BREAK_COMPACTION }, { NULL, 0 },
};

/* glibc's area off: cidkit's own registration (a 32-byte one from a static
 * glibc hid mm_cid from the first experiment). */
static int own_rseq_or_reexec(char **argv)
{
	if (__rseq_size == 0 || getenv(REEXEC_ENV))
		return 0;
	if (setenv("GLIBC_TUNABLES", "glibc.pthread.rseq=0", 1) ||
	    setenv(REEXEC_ENV, "1", 1))
		return -errno;
	execv("/proc/self/exe", argv);
	return -errno; /* go on with glibc's area */
}

static const char *verdict_name(enum stress_verdict v)
{
	return v == V_PASS ? "pass" : v == V_FAIL ? "FAIL" : "n/a";
}

static const char *const aw_names[AW_KINDS] = { "fresh", "widened", "exit" };

static void print_human(const struct stress_run *r)
{
	const struct stress_result *s = &r->res;

	printf("workload %s, seed %llu, %.1f s, %u allowed CPUs, %u phases, "
	       "max users %u, max mm_cid %d\n",
	       r->workload_name, (unsigned long long)r->seed, s->secs,
	       r->allowed, s->phases, s->max_users, s->max_cid);
	printf("  threads %lu, CLONE_VM children %lu, forks %lu, affinity changes %lu\n",
	       s->threads, s->clones, s->forks, s->affinity_changes);
	if (r->workload == STRESS_AFFINITY_WIDEN)
		for (int k = 0; k < AW_KINDS; k++)
			printf("  %-8s swaps: CIDs kept by the tasks %lu, taken from the CPUs %lu, "
			       "other %lu; largest mm_cid %d\n", aw_names[k], s->aw[k][AW_TASK],
			       s->aw[k][AW_CPU], s->aw[k][AW_OTHER], s->aw_max_cid[k]);
	printf("uniqueness %-4s %s\n", verdict_name(s->v[INV_UNIQUENESS]), s->why[INV_UNIQUENESS]);
	printf("bound      %-4s %s\n", verdict_name(s->v[INV_BOUND]), s->why[INV_BOUND]);
	printf("progress   %-4s %s\n", verdict_name(s->v[INV_PROGRESS]), s->why[INV_PROGRESS]);
	printf("compaction %-4s %s\n", verdict_name(s->v[INV_COMPACTION]), s->why[INV_COMPACTION]);
}

static void print_json(const struct stress_run *r)
{
	static const char *const names[INV_N] = { "uniqueness", "bound", "progress",
						  "compaction" };
	const struct stress_result *s = &r->res;
	struct jw w;

	jw_init(&w, stdout);
	jw_obj(&w);
	jw_kstr(&w, "workload", r->workload_name);
	jw_kuint(&w, "seed", r->seed);
	jw_knum(&w, "seconds", s->secs, 2);
	jw_kuint(&w, "allowed_cpus", r->allowed);
	jw_kuint(&w, "phases", s->phases);
	jw_kuint(&w, "max_users", s->max_users);
	jw_kint(&w, "max_mm_cid", s->max_cid);
	jw_kuint(&w, "threads", s->threads);
	jw_kuint(&w, "clone_vm_children", s->clones);
	jw_kuint(&w, "forks", s->forks);
	jw_kuint(&w, "affinity_changes", s->affinity_changes);
	jw_kuint(&w, "reads", s->reads);
	jw_kuint(&w, "adds", s->adds);
	jw_kint(&w, "lost_adds", s->lost);
	jw_kuint(&w, "max_gap_ms", s->max_gap_ms);
	jw_kuint(&w, "slowest_compaction_ms", s->slowest_compaction_ms);
	if (r->workload == STRESS_AFFINITY_WIDEN) {
		jw_key(&w, "affinity_widen");
		jw_obj(&w);
		for (int k = 0; k < AW_KINDS; k++) {
			jw_key(&w, aw_names[k]);
			jw_obj(&w);
			jw_kuint(&w, "task", s->aw[k][AW_TASK]);
			jw_kuint(&w, "cpu", s->aw[k][AW_CPU]);
			jw_kuint(&w, "other", s->aw[k][AW_OTHER]);
			jw_kint(&w, "max_mm_cid", s->aw_max_cid[k]);
			jw_obj_end(&w);
		}
		jw_obj_end(&w);
	}
	jw_key(&w, "invariants");
	jw_obj(&w);
	for (int i = 0; i < INV_N; i++) {
		jw_key(&w, names[i]);
		jw_obj(&w);
		jw_kstr(&w, "verdict", verdict_name(s->v[i]));
		jw_kstr(&w, "detail", s->why[i]);
		jw_obj_end(&w);
	}
	jw_obj_end(&w);
	jw_kbool(&w, "ok", stress_ok(s));
	jw_obj_end(&w);
	jw_end(&w);
}

int cmd_stress(int argc, char **argv)
{
	struct stress_run r;
	unsigned int seconds = 10;
	uint64_t seed = 1;
	int workload = STRESS_MIXED, brk = BREAK_NONE, rc, first;
	bool json = false;
	struct opt opts[] = {
		{ OPT_UINT("seconds", 's', &seconds, 1, MAX_SECONDS, "S",
			   "run for S seconds (the bound: the run ends then)") },
		{ OPT_U64("seed", 0, &seed, 0, UINT64_MAX, "N",
			  "the phases' sizes and timings") },
		{ OPT_ENUM("workload", 'w', &workload, workloads, "W",
			   "mixed, threads, vfork, forks, affinity, vfork-repro, fork-race "
			   "or affinity-widen") },
		{ OPT_UINT("threads", 't', &r.max_threads, 1, STRESS_MAX_THREADS, "N",
			   "most workers at a phase's peak"),
		  .def = "2 x allowed CPUs + 1" },
		{ OPT_UINT("watchdog", 0, &r.watchdog_ms, 10, 600000, "MS",
			   "progress: a worker that does not advance in MS fails") },
		{ OPT_UINT("compact", 0, &r.compact_ms, 1, 600000, "MS",
			   "compaction: survivors' CIDs back below the bound within MS") },
		{ OPT_UINT("heartbeat", 0, &r.heartbeat_ms, 0, 600000, "MS",
			   "a '# t=...' line on stderr every MS (0: none)") },
		{ OPT_ENUM("break", 0, &brk, breaks, "B",
			   "plant a failure: uniqueness, bound, progress or compaction") },
		{ OPT_FLAG("json", 'j', &json, "one JSON object instead of the table") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { "stress", about, NULL, NULL, 0, 0, opts };

	memset(&r, 0, sizeof(r));
	r.watchdog_ms = 5000;
	r.compact_ms = 2000;
	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	own_rseq_or_reexec(argv - 1); /* main's argv: "cidkit" "stress" ... */
	r.seconds = seconds;
	r.seed = seed;
	r.workload = (enum stress_workload)workload;
	r.brk = (enum stress_break)brk;
	for (const struct opt_choice *c = workloads; c->name; c++)
		if (c->value == workload)
			r.workload_name = c->name;
	rc = stress_run(&r);
	if (rc < 0)
		return cli_fail("stress: %s", strerror(-rc));
	if (json)
		print_json(&r);
	else
		print_human(&r);
	return stress_ok(&r.res) ? 0 : CLI_EXIT_FAIL;
}
