/* SPDX-License-Identifier: MIT */
/*
 * The ownership policy (lib/cid/ownership.c), scripted: single-threaded
 * event sequences with the exact CIDs, ownership records and cost
 * counters each step must produce, for both variants where they differ.
 * The invariant checker runs after every step; where the policy promises
 * it (strict), every running task's CID is also below the kernel's
 * max_cids = min(opt + opt/4, nr_cpu_ids), opt = min(nr_cpus_allowed,
 * nr_users), computed here from the public counts.  (cidk_cid_check()'s
 * own strict bound is min(nr_cpus_allowed, nr_users), which the 25%
 * allowance may exceed: it runs here with strict off.)
 *
 * A task's ownership record is its `own` word (struct cidk_cid_task,
 * policy-private: read here, never written).  Expectations spell it as
 * "3" (the task owns CID 3), "3c" (CID 3 owned by the CPU the task last
 * ran on), "3t" (borrowed in transit), "-" (nothing); a state string
 * lists the live tasks in fork order: "0c 1c - -".
 *
 * What a single-threaded test cannot show: a task that schedules in
 * while a fixup walk is in progress (the walk runs inside fork/exit).
 * "Before/after the walk" here is ordering: a task running when the walk
 * runs (its CID is handed to its CPU; in the current variant in
 * transit, until its switch-out) against one that schedules in
 * afterwards (its CID was dropped; it takes its CPU's or a new one).  The
 * mid-walk cases, with exact CIDs, are replayed on the real code by
 * `cidkit check --replay` in tests/check/check.sh (a switch-in before
 * the walk reaches the task, one after, a migration during the walk);
 * every interleaving of them is explored by the checker's scenarios, and
 * they run under load in tests/stress/cid_ownership_churn.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <cidkit/cid.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "tap.h"

/* the kernel's MM_CID_* bits, as ownership.c stores them in `own` */
#define OWN_UNSET 0x80000000u
#define OWN_ONCPU 0x40000000u
#define OWN_TRANSIT 0x20000000u

#define NT 20

struct world {
	const char *name; /* "current" or "v6.19", for messages */
	struct cidk_cid_mm *mm;
	struct cidk_cid_task t[NT];
	bool alive[NT];
	unsigned int n; /* tasks forked so far */
	struct cidk_mask *allowed;
	unsigned int ncpu;
	bool strict; /* check kernel_max_cids() after each step */
	bool broken; /* the checker failed once: report once, not per step */
};

static void world_init(struct world *w, unsigned int v,
		       unsigned int ncpu, unsigned int nallowed)
{
	struct cidk_cid_params p;

	memset(w, 0, sizeof(*w));
	cidk_cid_params_default(&p, CIDK_CID_OWNERSHIP);
	p.reverted = v;
	w->name = v ? "v6.19" : "current";
	w->ncpu = ncpu;
	w->allowed = cidk_mask_alloc(ncpu);
	cidk_mask_set_range(w->allowed, 0, nallowed);
	w->strict = true;
	if (cidk_cid_mm_create(&p, ncpu, w->allowed, &w->mm))
		abort();
}

static void world_fini(struct world *w)
{
	for (unsigned int i = 0; i < w->n; i++)
		if (w->alive[i])
			cidk_cid_exit(w->mm, &w->t[i], 0);
	cidk_cid_mm_destroy(w->mm);
	cidk_mask_free(w->allowed);
}

/* the kernel's max_cids, from the public counts: min(opt + opt/4, nr_cpu_ids) */
static unsigned int kernel_max_cids(struct world *w)
{
	unsigned int a = cidk_cid_nr_cpus_allowed(w->mm);
	unsigned int u = cidk_cid_nr_users(w->mm);
	unsigned int opt = a < u ? a : u;

	return opt + opt / 4 < w->ncpu ? opt + opt / 4 : w->ncpu;
}

static void check(struct world *w, const char *step)
{
	struct cidk_cid_task *live[NT];
	unsigned int k = 0, max = kernel_max_cids(w);
	char why[200];
	int rc;

	for (unsigned int i = 0; i < w->n; i++)
		if (w->alive[i])
			live[k++] = &w->t[i];
	rc = cidk_cid_check(w->mm, live, k, false, why, sizeof(why));
	for (unsigned int i = 0; !rc && w->strict && i < k; i++)
		if (live[i]->running && live[i]->cid >= max) {
			snprintf(why, sizeof(why),
				 "a task holds CID %u >= max_cids %u", live[i]->cid,
				 max);
			rc = -EINVAL;
		}
	if (rc && !w->broken) {
		w->broken = true;
		ok(false, "%s: after %s: checker: %s", w->name, step, why);
	}
}

/* fork a task allowed on the world's mask; returns its index */
static unsigned int fork_task(struct world *w)
{
	unsigned int i = w->n++;

	if (cidk_cid_fork(w->mm, &w->t[i], w->allowed))
		abort();
	w->alive[i] = true;
	check(w, "fork");
	return i;
}

static void fork_n(struct world *w, unsigned int n)
{
	while (n--)
		fork_task(w);
}

static unsigned int in(struct world *w, unsigned int cpu, unsigned int i)
{
	unsigned int cid = cidk_cid_switch(cpu, NULL, NULL, w->mm, &w->t[i], 0);

	check(w, "switch-in");
	return cid;
}

static void out(struct world *w, unsigned int i)
{
	cidk_cid_switch(w->t[i].cpu, w->mm, &w->t[i], NULL, NULL, 0);
	check(w, "switch-out");
}

static void ex(struct world *w, unsigned int i)
{
	cidk_cid_exit(w->mm, &w->t[i], 0);
	w->alive[i] = false;
	check(w, "exit");
}

static const char *fmt_own(unsigned int v, char *buf, size_t len)
{
	if (v == OWN_UNSET)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%u%s", v & ~(OWN_ONCPU | OWN_TRANSIT),
			 (v & OWN_ONCPU) ? "c" : (v & OWN_TRANSIT) ? "t" : "");
	return buf;
}

/* The ownership records of the live tasks, in fork order. */
static const char *state(struct world *w)
{
	static char s[256];
	size_t off = 0;

	s[0] = '\0';
	for (unsigned int i = 0; i < w->n && off < sizeof(s) - 16; i++) {
		char b[16];

		if (!w->alive[i])
			continue;
		off += (size_t)snprintf(s + off, sizeof(s) - off, "%s%s",
					off ? " " : "",
					fmt_own(w->t[i].own, b, sizeof(b)));
	}
	return s;
}

static bool state_is(struct world *w, const char *want, const char *what)
{
	const char *got = state(w);

	return ok(!strcmp(got, want), "%s: %s: records \"%s\" (want \"%s\")",
		  w->name, what, got, want);
}

static struct cidk_cid_stats st(struct world *w)
{
	struct cidk_cid_stats s;

	cidk_cid_stats(w->mm, &s);
	return s;
}

/*
 * mode switches, walks, visits, transit drops, as one string.  Visits of
 * a task->CPU walk: every task on the list, then -- while users are left
 * unaccounted for -- the second pass for CLONE_VM users.  With every fix
 * it has nothing left; on v6.19 the new task is a user but not on the
 * list yet (no FORK), so one user is left, and the second pass (no
 * VFORK) counts the first task it meets, task 0, again: one visit more.
 */
static bool walks_are(struct world *w, const char *want, const char *what)
{
	struct cidk_cid_stats s = st(w);
	char got[96];

	snprintf(got, sizeof(got), "switches %llu walks %llu visits %llu drops %llu",
		 (unsigned long long)s.mode_switches,
		 (unsigned long long)s.fixup_walks,
		 (unsigned long long)s.fixup_visits,
		 (unsigned long long)s.transit_drops);
	return ok(!strcmp(got, want), "%s: %s: %s (want %s)", w->name, what, got,
		  want);
}

static const unsigned int variants[] = {
	0u,
	CIDK_CID_FIXES_ALL,
};

/* ---- names and parameters --------------------------------------------------- */

/* Specs and the fixes they take out, worked out from the grammar (cid.h). */
static const struct {
	const char *spec;
	int rc;
	unsigned int reverted;
} specs[] = {
	{ "ownership", 0, 0 },
	{ "ownership:current", 0, 0 },
	{ "ownership:v6.19", 0, 0x7f },
	{ "ownership:-W1", 0, 0x01 },
	{ "ownership:-W2", 0, 0x02 },
	{ "ownership:-W3", 0, 0x04 },
	{ "ownership:-W4", 0, 0x08 },
	{ "ownership:-FEB", 0, 0x10 },
	{ "ownership:-FORK", 0, 0x20 },
	{ "ownership:-VFORK", 0, 0x40 },
	{ "ownership:-W1-FORK", 0, 0x21 },
	{ "ownership:-fork-w1", 0, 0x21 },
	{ "ownership:-VFORK-FEB-W3", 0, 0x54 },
	{ "ownership:+W1", 0, 0x7e },
	{ "ownership:+W1+W4", 0, 0x76 },
	{ "ownership:+W1+W2+W3+W4+FEB+FORK+VFORK", 0, 0 },
	{ "ownership:-W1-W2-W3-W4-FEB-FORK-VFORK", 0, 0x7f },
	{ "ownership:-W1,-FORK", -EINVAL, 0 },	/* one separator: the sign */
	{ "ownership:-W1+W4", -EINVAL, 0 },	/* + and - mixed */
	{ "ownership:-W1-W1", -EINVAL, 0 },	/* twice */
	{ "ownership:-W5", -EINVAL, 0 },
	{ "ownership:-FOR", -EINVAL, 0 },
	{ "ownership:-FORKS", -EINVAL, 0 },
	{ "ownership:W1", -EINVAL, 0 },		/* no sign */
	{ "ownership:-", -EINVAL, 0 },
	{ "ownership:+", -EINVAL, 0 },
	{ "ownership:", -EINVAL, 0 },
	{ "ownership:v7.0", -EINVAL, 0 },
	{ "lazy:-W1", -EINVAL, 0 },
	{ "lazy:v6.19", -EINVAL, 0 },
	{ "lazy:2", -EINVAL, 0 },
	{ "lazy-batched:0", -EINVAL, 0 },
	{ "lazy-batched:", -EINVAL, 0 },
	{ "lazy-batched:2x", -EINVAL, 0 },
	{ "lazy-batched:-W1", -EINVAL, 0 },
	{ "lazy-batched:65536", -EINVAL, 0 },
	{ "nope:-W1", -EINVAL, 0 },
};

/* Fix masks and their names, by hand: at most three out -> "-", else "+". */
static const struct {
	unsigned int reverted;
	const char *name;
} names[] = {
	{ 0, "ownership" },
	{ 0x7f, "ownership:v6.19" },
	{ 0x01, "ownership:-W1" },
	{ 0x21, "ownership:-W1-FORK" },
	{ 0x70, "ownership:-FEB-FORK-VFORK" },
	{ 0x0f, "ownership:+FEB+FORK+VFORK" },
	{ 0x7e, "ownership:+W1" },
	{ 0x3f, "ownership:+VFORK" },
};

static void test_params(void)
{
	struct cidk_cid_params p;
	struct cidk_mask *m = cidk_mask_alloc(4);
	struct cidk_cid_mm *mm = NULL;
	char buf[64];
	bool all = true;

	cidk_mask_fill(m);
	ok(!strcmp(cidk_cid_policy_name(CIDK_CID_OWNERSHIP), "ownership"),
	   "the policy is named ownership");
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		int rc;

		memset(&p, 0xa5, sizeof(p));
		p.reverted = 0x5a5a;
		rc = cidk_cid_params_parse(specs[i].spec, &p);
		ok(rc == specs[i].rc &&
		   (rc ? p.reverted == 0x5a5a :
			 p.reverted == specs[i].reverted &&
				 p.batch == 16),
		   "parse \"%s\": %d, fixes out %#x", specs[i].spec, rc,
		   rc ? 0 : p.reverted);
	}
	cidk_cid_params_default(&p, CIDK_CID_OWNERSHIP);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		p.reverted = names[i].reverted;
		ok(cidk_cid_params_name(&p, buf, sizeof(buf)) ==
				   (int)strlen(names[i].name) &&
			   !strcmp(buf, names[i].name),
		   "name of fixes out %#x: %s", names[i].reverted, buf);
	}
	p.reverted = 0x21;
	ok(cidk_cid_params_name(&p, buf, 12) == 18 && !strcmp(buf, "ownership:-"),
	   "name: truncated to the buffer, the full length returned (%s)", buf);
	p.reverted = 0x80;
	ok(cidk_cid_params_name(&p, buf, sizeof(buf)) == -EINVAL,
	   "name: an unknown fix bit is -EINVAL");
	cidk_cid_params_default(&p, CIDK_CID_LAZY);
	ok(cidk_cid_params_name(&p, buf, sizeof(buf)) == 4 && !strcmp(buf, "lazy"),
	   "name: a policy without fixes is its name");
	/* lazy-batched:B: the batch, and the name reads back to it */
	memset(&p, 0xa5, sizeof(p));
	ok(!cidk_cid_params_parse("lazy-batched:2", &p) &&
	   p.kind == CIDK_CID_LAZY_BATCHED && p.batch == 2 && p.reverted == 0 &&
	   p.trigger == CIDK_CID_SCAN_RETURN_TO_USER &&
	   cidk_cid_params_name(&p, buf, sizeof(buf)) == 14 &&
	   !strcmp(buf, "lazy-batched:2"),
	   "parse \"lazy-batched:2\": batch 2, named back so (%s)", buf);
	ok(!cidk_cid_params_parse("lazy-batched:65535", &p) &&
	   p.batch == 65535, "parse \"lazy-batched:65535\": the largest batch");
	ok(!cidk_cid_params_parse("lazy-batched", &p) && p.batch == 16 &&
	   cidk_cid_params_name(&p, buf, sizeof(buf)) == 12 &&
	   !strcmp(buf, "lazy-batched"),
	   "lazy-batched: the default batch 16, named without a suffix (%s)",
	   buf);
	/* every mask: the name reads back to the same fixes */
	for (unsigned int r = 0; r <= CIDK_CID_FIXES_ALL; r++) {
		struct cidk_cid_params q;

		cidk_cid_params_default(&p, CIDK_CID_OWNERSHIP);
		p.reverted = r;
		if (cidk_cid_params_name(&p, buf, sizeof(buf)) < 0 ||
		    cidk_cid_params_parse(buf, &q) || q.reverted != r ||
		    q.kind != CIDK_CID_OWNERSHIP)
			all = false;
	}
	ok(all, "all 128 fix masks: name, then parse, gives the mask back");
	ok(!strcmp(cidk_cid_fix_name(CIDK_CID_FIX_W1), "W1") &&
	   !strcmp(cidk_cid_fix_name(CIDK_CID_FIX_FEB), "FEB") &&
	   !strcmp(cidk_cid_fix_name(CIDK_CID_FIX_VFORK), "VFORK") &&
	   cidk_cid_fix_name(0) == NULL && cidk_cid_fix_name(3) == NULL &&
	   cidk_cid_fix_name(1u << 7) == NULL,
	   "fix names: one bit each, NULL for none, two or unknown");
	cidk_cid_params_default(&p, CIDK_CID_LAZY);
	p.reverted = CIDK_CID_FIX_W1;
	ok(cidk_cid_mm_create(&p, 4, m, &mm) == -EINVAL,
	   "mm_create: a lazy mm without a fix is -EINVAL");
	cidk_cid_params_default(&p, CIDK_CID_OWNERSHIP);
	p.reverted = 0x80;
	ok(cidk_cid_mm_create(&p, 4, m, &mm) == -EINVAL,
	   "mm_create: an unknown fix bit is -EINVAL");
	cidk_mask_free(m);
}

/* ---- per-task mode ------------------------------------------------------------ */

/*
 * Users within max_cids = min(opt + opt/4, nr_cpu_ids), opt =
 * min(nr_cpus_allowed, users): each task owns a CID from its fork on and
 * keeps it across switches and CPUs; switch-in and -out do no bitmap RMW.
 * Both variants alike.
 */
static void test_per_task(unsigned int v)
{
	struct world w;
	uint64_t rmw;
	bool same = true;

	world_init(&w, v, 4, 4);
	fork_n(&w, 3);
	state_is(&w, "0 1 2", "per-task: each task owns a CID from fork on");
	ok(st(&w).bitmap_rmw == 3, "%s: per-task: three forks, three bitmap RMWs",
	   w.name);
	rmw = st(&w).bitmap_rmw;
	ok(in(&w, 0, 0) == 0 && in(&w, 1, 1) == 1 && in(&w, 2, 2) == 2,
	   "%s: per-task: tasks switch in with their own CIDs", w.name);
	state_is(&w, "0 1 2", "per-task: running tasks still own theirs");
	out(&w, 0);
	out(&w, 1);
	ok(in(&w, 1, 0) == 0, "%s: per-task: task 0 on CPU 1 keeps CID 0", w.name);
	ok(in(&w, 3, 1) == 1, "%s: per-task: task 1 on CPU 3 keeps CID 1", w.name);
	for (unsigned int r = 0; r < 50; r++) {
		unsigned int a = r % 3;

		out(&w, a); /* a busy CPU sends it to the next free one */
		same &= in(&w, (r * 7 + 1) % 4, a) == a;
	}
	ok(same, "%s: per-task: 50 more switches, every task keeps its CID",
	   w.name);
	ok(st(&w).bitmap_rmw == rmw && st(&w).bitmap_search == 3,
	   "%s: per-task: switches did no bitmap RMW and no search (RMWs %llu, "
	   "searches %llu)", w.name, (unsigned long long)(st(&w).bitmap_rmw - rmw),
	   (unsigned long long)st(&w).bitmap_search);
	walks_are(&w, "switches 0 walks 0 visits 0 drops 0", "per-task");

	/* the same-mm switch: no hand-over, each keeps its own */
	for (unsigned int i = 0; i < 3; i++)
		out(&w, i);
	in(&w, 0, 2);
	ok(cidk_cid_switch(0, w.mm, &w.t[2], w.mm, &w.t[1], 0) == 1 &&
	   !w.t[2].running && w.t[1].cpu == 0,
	   "%s: per-task: same-mm switch on CPU 0: task 1 runs with its own CID 1",
	   w.name);
	check(&w, "same-mm switch");
	ok(st(&w).bitmap_rmw == rmw, "%s: per-task: still no bitmap RMW", w.name);

	/* a fourth user still fits: it owns the last free CID */
	fork_task(&w);
	state_is(&w, "0 1 2 3", "per-task: a fourth user owns CID 3");
	walks_are(&w, "switches 0 walks 0 visits 0 drops 0",
		  "users == nr_cpus_allowed: no mode switch");
	world_fini(&w);
}

/* leases only: a busy CPU sends the task to the next free allowed one */
static void test_busy_cpu(unsigned int v)
{
	struct world w;

	world_init(&w, v, 4, 4);
	fork_n(&w, 2);
	in(&w, 2, 0);
	ok(in(&w, 2, 1) == 1 && w.t[1].cpu == 3,
	   "%s: CPU 2 busy with task 0: task 1 runs on CPU 3 with its CID 1",
	   w.name);
	world_fini(&w);
}

/* ---- per-task -> per-CPU: the fork over the threshold ------------------------ */

/*
 * nr_cpu_ids 4, all allowed.  Four users fit; the fifth fork switches to
 * per-CPU (users 5 > max_cids = min(4 + 4/4, 4) = 4), pcpu_thrs =
 * min(4 - 4/4, 4/2) = 2.  Task 0 runs on CPU 0 and task 1 on CPU 1 when
 * the walk runs: their CIDs go to those CPUs (current: in transit, handed
 * over at their switch-out); tasks 2 and 3 sleep: theirs go to the pool.
 */
static void test_to_per_cpu(unsigned int v)
{
	struct world w;
	bool cur = v == 0u;
	uint64_t rmw;

	world_init(&w, v, 4, 4);
	fork_n(&w, 4);
	in(&w, 0, 0);
	in(&w, 1, 1);
	in(&w, 2, 2); /* ran on CPU 2 once: CPU 2 remembers CID 2 (a plain one) */
	out(&w, 2);
	state_is(&w, "0 1 2 3", "before the fork over the threshold");
	fork_task(&w);
	/*
	 * The sleeping tasks' CIDs are in the pool ("-"), the new task has
	 * none.  The running tasks': v6.19 moves them to their CPUs at once
	 * ("0c"); with every fix ([WOES] 1/4, "Prevent live lock on task to
	 * CPU mode transition") mm_cid_fixup_task_to_cpu() puts them *in
	 * transit* (mm_cid_transit_to_cpu: cid | TRANSIT on the task and the
	 * CPU, "0t"), and the task's switch-out hands the CID to the CPU
	 * ([WOES] 4/4), checked below.
	 */
	state_is(&w, cur ? "0t 1t - - -" : "0c 1c - - -",
		 cur ? "after the walk (running: in transit)"
		     : "after the walk (running: to their CPUs)");
	walks_are(&w, cur ? "switches 1 walks 1 visits 5 drops 0"
			  : "switches 1 walks 1 visits 5 drops 0",
		  cur ? "one switch, one walk over all five tasks (the new one "
			"is on the list before it is a user: [FORK])"
		      : "one switch, one walk over four tasks (the new one is "
			"not on the list yet)");
	ok(w.t[0].cid == 0 && w.t[1].cid == 1 && w.t[0].running &&
	   w.t[1].running, "%s: the running tasks kept CIDs 0 and 1", w.name);

	/* after the walk: a task scheduling in takes its CPU's CID, or a new one */
	rmw = st(&w).bitmap_rmw;
	ok(in(&w, 2, 2) == 2, "%s: task 2 on CPU 2 (no CPU CID yet): new CID 2",
	   w.name);
	ok(st(&w).bitmap_rmw == rmw + 1,
	   "%s: ... one bitmap RMW to take it", w.name);
	ok(in(&w, 3, 4) == 3, "%s: the new task on CPU 3: new CID 3", w.name);
	state_is(&w, cur ? "0t 1t 2c - 3c" : "0c 1c 2c - 3c",
		 cur ? "CPUs 2 and 3 own 2 and 3, 0 and 1 still in transit"
		     : "four CPUs own 0..3");
	/* the transition is over: a transit CID below max_cids 4 goes to its CPU */
	rmw = st(&w).bitmap_rmw;
	out(&w, 0);
	out(&w, 1);
	state_is(&w, "0c 1c 2c - 3c",
		 cur ? "switch-outs hand transit CIDs 0 and 1 to CPUs 0 and 1"
		     : "switch-outs of CPU-owned CIDs change nothing");
	ok(in(&w, 1, 0) == 1 && in(&w, 0, 1) == 0 && st(&w).bitmap_rmw == rmw,
	   "%s: tasks 0 and 1 swap CPUs and use the CPUs' CIDs, no bitmap RMW",
	   w.name);
	state_is(&w, "1c 0c 2c - 3c", "four CPUs own 0..3");
	out(&w, 2);
	rmw = st(&w).bitmap_rmw;
	ok(in(&w, 2, 3) == 2,
	   "%s: per-CPU: task 3 on CPU 2 uses the CPU's CID 2", w.name);
	out(&w, 3);
	ok(in(&w, 2, 2) == 2, "%s: per-CPU: task 2 back on CPU 2: CID 2 again",
	   w.name);
	ok(st(&w).bitmap_rmw == rmw,
	   "%s: per-CPU: switches on CPUs that own a CID do no bitmap RMW",
	   w.name);
	state_is(&w, "1c 0c 2c 2c 3c",
		 "tasks 2 and 3 both record CPU 2's CID (only one runs)");
	walks_are(&w, cur ? "switches 1 walks 1 visits 5 drops 0"
			  : "switches 1 walks 1 visits 5 drops 0",
		  "per-CPU switches walk nothing");

	/* a sixth user in per-CPU mode: no CID at fork, no walk */
	fork_task(&w);
	ok(w.t[5].own == OWN_UNSET, "%s: a fork in per-CPU mode gives no CID",
	   w.name);
	walks_are(&w, cur ? "switches 1 walks 1 visits 5 drops 0"
			  : "switches 1 walks 1 visits 5 drops 0",
		  "a fork in per-CPU mode does not walk");
	world_fini(&w);
}

/*
 * The threshold counts allowed CPUs, not possible ones, with the merged
 * design's 25% allowance (tip 340af997d25d "Provide CID ownership mode
 * fixup functions", and 6.19): max_cids = min(opt + opt/4, nr_cpu_ids),
 * opt = min(allowed, users), and the mm switches when users > max_cids.
 * nr_cpu_ids 8, allowed 0-3: the 5th user still fits (max_cids 5) and
 * owns CID 4, above nr_cpus_allowed; the 6th switches, pcpu_thrs =
 * min(4 - 4/4, 8/2) = 3.  Task 4 runs on CPU 0 during the walk: CPU 0
 * ends up owning CID 4 (below max_cids 5, so kept at switch-out).
 */
static void test_threshold_allowed(unsigned int v)
{
	struct world w;
	bool cur = v == 0u;

	world_init(&w, v, 8, 4);
	fork_n(&w, 4);
	walks_are(&w, "switches 0 walks 0 visits 0 drops 0",
		  "8 possible, 4 allowed: four users fit");
	fork_task(&w);
	walks_are(&w, "switches 0 walks 0 visits 0 drops 0",
		  "the 5th user fits too (users 5 <= max_cids min(4 + 1, 8) = 5)");
	ok(cidk_cid_nr_cpus_allowed(w.mm) == 4 && in(&w, 0, 4) == 4,
	   "%s: per-task: the 5th task runs with CID 4 >= nr_cpus_allowed 4",
	   w.name);
	state_is(&w, "0 1 2 3 4", "per-task: five task-owned CIDs");
	fork_task(&w);
	ok(st(&w).mode_switches == 1,
	   "%s: the 6th user switches to per-CPU (users 6 > max_cids 5)", w.name);
	state_is(&w, cur ? "- - - - 4t -" : "- - - - 4c -",
		 "only task 4 ran: its CID to CPU 0, the others' to the pool");
	out(&w, 4);
	state_is(&w, "- - - - 4c -",
		 cur ? "task 4 out: its transit CID 4 (< max_cids 5) goes to CPU 0"
		     : "task 4 out: CPU 0 keeps CID 4");
	ok(in(&w, 0, 0) == 4 && in(&w, 1, 1) == 0 && in(&w, 2, 2) == 1,
	   "%s: per-CPU: CPU 0 keeps CID 4, CPUs 1 and 2 take 0 and 1", w.name);
	walks_are(&w, cur ? "switches 1 walks 1 visits 6 drops 0"
			  : "switches 1 walks 1 visits 6 drops 0",
		  "one walk, nothing dropped at switch-out");
	world_fini(&w);
}

/* ---- per-CPU -> per-task: exits below pcpu_thrs, the transit phase ---------- */

/*
 * nr_cpu_ids 6, all allowed.  Seven users: per-CPU with pcpu_thrs =
 * min(6 - 6/4, 6/2) = 3.  Task 0 runs on CPU 0 (CID 0), task 2 on CPU 2
 * (CID 2); task 1's CPU 1 owns CID 1 while task 1 sleeps.  Exits down to
 * two users switch back: the walk over the CPUs gives CPU 0's and CPU 2's
 * CIDs to the tasks running there *in transit*, drops CPU 1's into the
 * pool, and ends the transition.  At switch-out the current variant keeps
 * a transit CID below max_cids (= 2) as the task's own ([WOES] 4/4) and
 * drops one at or above it; v6.19 drops every transit CID.
 */
static void test_back_to_per_task(unsigned int v)
{
	struct world w;
	bool cur = v == 0u;
	uint64_t rmw;

	world_init(&w, v, 6, 6);
	fork_n(&w, 6);
	fork_task(&w); /* 7 > 6: per-CPU; nobody running: all CIDs dropped */
	state_is(&w, "- - - - - - -", "per-CPU, nobody ran yet");
	ok(in(&w, 0, 0) == 0 && in(&w, 1, 1) == 1 && in(&w, 2, 2) == 2,
	   "%s: per-CPU: CPUs 0, 1, 2 take CIDs 0, 1, 2", w.name);
	out(&w, 1);
	state_is(&w, "0c 1c 2c - - - -", "tasks 0 and 2 run, CPU 1 keeps CID 1");
	w.strict = false; /* users fall below the CIDs in use until the switch */
	for (unsigned int i = 6; i >= 3; i--)
		ex(&w, i);
	ok(cidk_cid_nr_users(w.mm) == 3 && st(&w).mode_switches == 1,
	   "%s: three users left (= pcpu_thrs): still per-CPU", w.name);
	ex(&w, 1); /* users 2 < 3: back to per-task */
	ok(st(&w).mode_switches == 2,
	   "%s: the exit to two users (< pcpu_thrs 3) switches back", w.name);
	state_is(&w, "0t 2t",
		 "the tasks running during the switch back hold their CIDs in transit");
	walks_are(&w, cur ? "switches 2 walks 2 visits 13 drops 0"
			  : "switches 2 walks 2 visits 13 drops 0",
		  "two walks: tasks (7 or 6 visited), then the 6 CPUs");
	ok(w.t[0].cid == 0 && w.t[2].cid == 2,
	   "%s: the running tasks' CIDs did not change", w.name);

	/* switch-out after the transition */
	out(&w, 2);
	ok(w.t[2].own == OWN_UNSET,
	   "%s: task 2's transit CID 2 >= max_cids 2: dropped at switch-out",
	   w.name);
	out(&w, 0);
	w.strict = true;
	check(&w, "switch-outs after the transition");
	if (cur) {
		state_is(&w, "0 -",
			 "task 0's transit CID 0 < max_cids is kept as its own");
		walks_are(&w, "switches 2 walks 2 visits 13 drops 1",
			  "one transit drop (task 2's)");
	} else {
		state_is(&w, "- -", "every transit CID is dropped at switch-out");
		walks_are(&w, "switches 2 walks 2 visits 13 drops 2",
			  "two transit drops");
	}

	/* and the next switch-ins, converged below max_cids = 2 */
	rmw = st(&w).bitmap_rmw;
	ok(in(&w, 2, 2) == (cur ? 1u : 0u),
	   "%s: task 2 back on CPU 2: lowest free CID below 2 (%u)", w.name,
	   cur ? 1u : 0u);
	ok(in(&w, 0, 0) == (cur ? 0u : 1u), "%s: task 0 back on CPU 0: CID %u",
	   w.name, cur ? 0u : 1u);
	ok(st(&w).bitmap_rmw == rmw + (cur ? 1 : 2),
	   "%s: %s", w.name,
	   cur ? "one allocation (task 0 kept its CID)"
	       : "two allocations");
	state_is(&w, cur ? "0 1" : "1 0", "per-task again");
	world_fini(&w);
}

/* ---- migration ------------------------------------------------------------------ */

/* Per-task: the CID moves with the task.  Per-CPU: it stays with the CPU. */
static void test_migration(unsigned int v)
{
	struct world w;

	world_init(&w, v, 4, 4);
	fork_n(&w, 2);
	in(&w, 0, 0);
	in(&w, 1, 1);
	out(&w, 0);
	cidk_cid_migrate(w.mm, &w.t[0], 0, 3, 0);
	ok(w.t[0].cpu == 3, "%s: migrate moves the task to CPU 3", w.name);
	check(&w, "migrate");
	ok(in(&w, 3, 0) == 0, "%s: per-task: task 0 runs on CPU 3 with CID 0",
	   w.name);
	out(&w, 0);
	out(&w, 1);
	ok(in(&w, 0, 1) == 1,
	   "%s: per-task: task 1 on CPU 0 (where CID 0 ran): still CID 1", w.name);
	out(&w, 1);
	world_fini(&w);

	/* per-CPU: 5 users on 4 CPUs */
	world_init(&w, v, 4, 4);
	fork_n(&w, 5);
	ok(in(&w, 0, 0) == 0 && in(&w, 3, 1) == 1,
	   "%s: per-CPU: task 0 on CPU 0 takes 0, task 1 on CPU 3 takes 1", w.name);
	out(&w, 0);
	out(&w, 1);
	cidk_cid_migrate(w.mm, &w.t[0], 0, 3, 0);
	check(&w, "migrate");
	ok(in(&w, 3, 0) == 1,
	   "%s: per-CPU: task 0 migrated to CPU 3 uses CPU 3's CID 1", w.name);
	ok(in(&w, 0, 1) == 0,
	   "%s: per-CPU: task 1 on CPU 0 uses CPU 0's CID 0", w.name);
	state_is(&w, "1c 0c - - -", "per-CPU: the CIDs stayed with the CPUs");
	/* a running task is left alone by migrate */
	cidk_cid_migrate(w.mm, &w.t[0], 3, 2, 0);
	ok(w.t[0].cpu == 3, "%s: migrate of a running task does nothing", w.name);
	world_fini(&w);
}

/* ---- convergence ------------------------------------------------------------------ */

/*
 * A CID at or above max_cids is exchanged at switch-in for the lowest
 * free one below it -- on the fast path only (the task's and the CPU's
 * records agree on the mode), as mm_cid_from_task()/mm_cid_from_cpu() do.
 */
static void test_convergence(unsigned int v)
{
	struct world w;
	bool cur = v == 0u;

	/* per-task: task 3 owns CID 3; users fall to 2 */
	world_init(&w, v, 4, 4);
	fork_n(&w, 4);
	in(&w, 0, 3);
	out(&w, 3); /* CPU 0's record: plain CID 3 */
	ex(&w, 0);
	ex(&w, 1);
	ok(cidk_cid_max_cids(w.mm) == 2, "%s: two users: max_cids 2", w.name);
	w.strict = false;
	ok(in(&w, 1, 3) == 3,
	   "%s: per-task, CPU 1 never ran the mm: task 3 keeps CID 3 (no fast path)",
	   w.name);
	out(&w, 3);
	w.strict = true;
	ok(in(&w, 1, 3) == 0,
	   "%s: per-task, again on CPU 1 (fast path): CID 3 >= 2 converges to 0",
	   w.name);
	out(&w, 3);
	ok(in(&w, 1, 2) == 1,
	   "%s: task 2 (CID 2) on CPU 1 (fast path): converges to 1", w.name);
	state_is(&w, "1 0", "per-task, converged");
	world_fini(&w);

	/*
	 * per-CPU: task 3 runs on CPU 3 with CID 3 when the fifth fork
	 * switches, and switches out before the exits, so CPU 3 owns CID 3
	 * (current: handed over at that switch-out, 3 < max_cids 4); exits
	 * to 2 users (= pcpu_thrs 2) stay per-CPU with max_cids 2.
	 */
	world_init(&w, v, 4, 4);
	fork_n(&w, 4);
	in(&w, 3, 3);
	fork_task(&w);
	state_is(&w, cur ? "- - - 3t -" : "- - - 3c -",
		 "per-CPU: task 3's CID 3 to CPU 3 (current: in transit)");
	out(&w, 3);
	state_is(&w, "- - - 3c -", "per-CPU: CPU 3 owns task 3's CID 3");
	w.strict = false;
	ex(&w, 4);
	ex(&w, 0);
	ex(&w, 1);
	ok(cidk_cid_nr_users(w.mm) == 2 && st(&w).mode_switches == 1 &&
	   cidk_cid_max_cids(w.mm) == 2,
	   "%s: two users (= pcpu_thrs): still per-CPU, max_cids 2", w.name);
	ok(in(&w, 3, 2) == 3,
	   "%s: task 2 (no record) on CPU 3: takes the CPU's CID 3 as it is",
	   w.name);
	out(&w, 2);
	w.strict = true;
	ok(in(&w, 3, 2) == 0,
	   "%s: again on CPU 3 (task and CPU agree): CID 3 converges to 0", w.name);
	state_is(&w, "0c 3c", "CPU 3 now owns CID 0 (task 3's record is stale)");
	out(&w, 2);
	ok(in(&w, 3, 3) == 0, "%s: task 3 on CPU 3: the CPU's CID 0", w.name);
	world_fini(&w);

	/*
	 * The same, but task 3 still runs when the exits bring max_cids to
	 * 2: current drops its transit CID 3 (>= max_cids) at switch-out
	 * ([WOES] 4/4), and CPU 3 owns nothing; v6.19's CPU 3 owns CID 3.
	 */
	world_init(&w, v, 4, 4);
	fork_n(&w, 4);
	in(&w, 3, 3);
	fork_task(&w);
	w.strict = false;
	ex(&w, 4);
	ex(&w, 0);
	ex(&w, 1);
	out(&w, 3);
	state_is(&w, cur ? "- -" : "- 3c",
		 cur ? "transit CID 3 >= max_cids 2: dropped at switch-out"
		     : "CPU 3 owns CID 3");
	walks_are(&w, cur ? "switches 1 walks 1 visits 5 drops 1"
			  : "switches 1 walks 1 visits 5 drops 0",
		  cur ? "one transit drop" : "no transit drop");
	w.strict = cur; /* v6.19: the slow path keeps CID 3 >= max_cids 2 */
	ok(in(&w, 3, 2) == (cur ? 0u : 3u),
	   "%s: task 2 on CPU 3: %s", w.name,
	   cur ? "CPU 3 owns nothing: the lowest free CID 0"
	       : "the CPU's CID 3 as it is");
	world_fini(&w);
}

/* ---- affinity ---------------------------------------------------------------------- */

/*
 * nr_cpu_ids 16, the mm allowed on CPUs 0-1: the third user switches to
 * per-CPU with pcpu_thrs = min(2 - 0, 8) = 2.  Growing to 8 users keeps
 * that threshold: exits down to 5 users stay per-CPU.  When a task's
 * affinity grows to all 16 CPUs, the threshold is recomputed from the
 * wider set, min(8 - 2, 8) = 6 (mm_update_cpus_allowed), and the exit to
 * 5 users switches back.  The affinity change itself never switches: with
 * opt = min(allowed, users) <= users, users < opt - opt/4 cannot hold.
 */
static void test_affinity(unsigned int v, bool widen)
{
	struct world w;
	struct cidk_mask *all;

	world_init(&w, v, 16, 2);
	fork_n(&w, 3);
	ok(st(&w).mode_switches == 1,
	   "%s: 2 allowed CPUs: the third user switches to per-CPU", w.name);
	fork_n(&w, 5);
	ok(in(&w, 0, 0) == 0 && in(&w, 1, 1) == 1,
	   "%s: CPUs 0 and 1 own CIDs 0 and 1", w.name);
	out(&w, 0);
	if (widen) {
		all = cidk_mask_alloc(16);
		cidk_mask_fill(all);
		ok(cidk_cid_set_affinity(w.mm, &w.t[7], all) == 14 &&
		   cidk_cid_nr_cpus_allowed(w.mm) == 16 &&
		   cidk_cid_max_cids(w.mm) == 8,
		   "%s: task 7 allowed everywhere: +14 CPUs, min(nr_cpus_allowed, "
		   "nr_users) 8", w.name);
		cidk_mask_free(all);
		check(&w, "set_affinity");
		ok(st(&w).mode_switches == 1,
		   "%s: the affinity change alone does not switch", w.name);
	}
	ex(&w, 7);
	ex(&w, 6);
	ok(st(&w).mode_switches == 1,
	   "%s: 6 users (>= pcpu_thrs %u): still per-CPU", w.name, widen ? 6 : 2);
	ex(&w, 5);
	if (widen) {
		ok(st(&w).mode_switches == 2,
		   "%s: widened: the exit to 5 users (< pcpu_thrs 6) switches back",
		   w.name);
		state_is(&w, "0c 1t - - -",
			 "task 1 (running) holds CPU 1's CID in transit; CPU 0's CID "
			 "went to the pool (task 0's record is stale)");
	} else {
		ok(st(&w).mode_switches == 1,
		   "%s: not widened: 5 users (>= pcpu_thrs 2) stay per-CPU", w.name);
		state_is(&w, "0c 1c - - -", "still per-CPU");
	}
	world_fini(&w);
}

int main(void)
{
	test_params();
	for (unsigned int i = 0; i < 2; i++) {
		unsigned int v = variants[i];

		test_per_task(v);
		test_busy_cpu(v);
		test_to_per_cpu(v);
		test_threshold_allowed(v);
		test_back_to_per_task(v);
		test_migration(v);
		test_convergence(v);
		test_affinity(v, false);
		test_affinity(v, true);
	}
	return done_testing();
}
