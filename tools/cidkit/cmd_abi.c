/* SPDX-License-Identifier: MIT */
/*
 * cidkit abi [--json] [--list] [--only NAME,...] [--seconds S]
 *            [--require NAME,...] [--quick] [--break NAME,...]
 *
 * Does the running kernel keep rseq's promises?  Runs the checks of
 * lib/abi (each in a child process) and prints one row per check: its
 * name, pass / FAIL / n/a, the reason, and the evidence as numbers.
 * Exit 1 when a check fails, 0 otherwise, 2 on bad input.
 *
 * --quick runs only the library's in-process probe (cidkit/abi.h,
 * cidk_abi_probe_cached) and says what the per-CPU operations decided from
 * it (cidk_percpu_path, cidk_percpu_why).  --require is the gate: it runs
 * only the named promises of the probe and checks, one line each, and
 * exits 0 when each holds, 1 when one is broken, 3 when one cannot be told
 * (the probe's unknown, a check's n/a).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include <cidkit/abi.h>
#include <cidkit/percpu.h>

#include "cidkit_lab.h"
#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"

/* --require: a required promise that cannot be told (unknown, n/a). */
#define ABI_EXIT_UNKNOWN 3

static const char about[] =
	"Check the running kernel against the rseq ABI (rseq(2), linux/rseq.h, the\n"
	"kernel's rseq selftests, the 2026 legacy/V2 modes) with cidkit's own\n"
	"critical sections: one row per check with pass, FAIL or n/a, the reason,\n"
	"and the evidence (counts, values, time).  Each check runs in a child\n"
	"process.  The timed checks share --seconds.  Exit 1 when a check fails.\n"
	"\n"
	"--quick runs only the library's in-process probe (cidk_abi_probe_cached,\n"
	"about 0.1 ms) and prints what the per-CPU operations chose from it and\n"
	"why.  --require gates: it runs only what it names and exits 0 when each\n"
	"promise holds, 1 when one is broken (FAIL), 3 when one cannot be told\n"
	"(the probe's unknown, a check's n/a).  The launcher's gate:\n"
	"  cidkit abi --quick --require abort >/dev/null || export CIDK_PERCPU=atomic\n";

static const char epilog[] =
	"Checks (--list prints them with what each checks): register, ids,\n"
	"abort-preempt, abort-migrate, abort-signal, cpu-id-start, mm-cid,\n"
	"membarrier-rseq, slice-ext, probe (the library's probe, in a child).\n"
	"--require also takes the promises of the library's probe, run from\n"
	"this process: abort (a section interrupted by membarrier's RSEQ command\n"
	"or by a preemption aborts: the process's cached answer, the one the\n"
	"per-CPU operations decide from), signal and cpu-id-start (opt-in, a\n"
	"fork each); cpu-id-start names the full check unless --quick is given.\n"
	"--break (for tests) runs the checks, and the probe, on a deliberately\n"
	"broken user side (comma-separated to combine): cs-short, no-sig,\n"
	"write-early, unregistered, stale, no-event, unarmed, idle-helper,\n"
	"unmarked; see docs/abi.md.\n";

/* One name of --require: a promise of the probe or a check. */
struct req {
	const char *name;
	int probe;          /* 1: enum cidk_abi_promise idx; 0: check idx */
	unsigned int idx;
	unsigned int slot;  /* checks: where its result is in res[] */
};

static void print_human(const struct cidk__abi_result *res, unsigned int n,
			const char *release, const char *machine, double seconds)
{
	printf("rseq ABI on Linux %s %s (timed checks share %.2f s)\n\n", release,
	       machine, seconds);
	printf("%-16s %-5s %s\n", "check", "", "reason / evidence");
	for (unsigned int i = 0; i < n; i++) {
		const struct cidk__abi_result *r = &res[i];

		printf("%-16s %-5s %s\n", r->name, cidk__abi_verdict_name(r->verdict),
		       r->reason);
		printf("%-16s %-5s", "", "");
		for (unsigned int k = 0; k < r->n_evidence; k++)
			printf(" %s=%lld", r->evidence[k].key,
			       (long long)r->evidence[k].value);
		printf(" ms=%llu\n", (unsigned long long)(r->elapsed_ns / 1000000u));
	}
}

static void print_json(const struct cidk__abi_result *res, unsigned int n,
		       const char *release, const char *machine, double seconds,
		       unsigned int failed)
{
	struct jw j;

	jw_init(&j, stdout);
	jw_obj(&j);
	jw_kstr(&j, "kernel", release);
	jw_kstr(&j, "arch", machine);
	jw_knum(&j, "seconds", seconds, 2);
	jw_kuint(&j, "failed", failed);
	jw_break(&j, "\n ");
	jw_key(&j, "checks");
	jw_arr(&j);
	for (unsigned int i = 0; i < n; i++) {
		const struct cidk__abi_result *r = &res[i];

		jw_break(&j, "\n  ");
		jw_obj(&j);
		jw_kstr(&j, "name", r->name);
		jw_kstr(&j, "verdict", cidk__abi_verdict_name(r->verdict));
		jw_kstr(&j, "reason", r->reason);
		jw_kuint(&j, "ms", r->elapsed_ns / 1000000u);
		jw_key(&j, "evidence");
		jw_obj(&j);
		for (unsigned int k = 0; k < r->n_evidence; k++)
			jw_kint(&j, r->evidence[k].key, r->evidence[k].value);
		jw_obj_end(&j);
		jw_obj_end(&j);
	}
	jw_break(&j, "\n ");
	jw_arr_end(&j);
	jw_break(&j, "\n");
	jw_obj_end(&j);
	jw_end(&j);
}

/* A check's verdict as an answer of the gate: n/a cannot be told. */
static enum cidk_abi_answer check_answer(enum cidk__abi_verdict v)
{
	return v == CIDK__ABI_PASS ? CIDK_ABI_PASS
	       : v == CIDK__ABI_FAIL ? CIDK_ABI_FAIL : CIDK_ABI_UNKNOWN;
}

static int promise_find(const char *name)
{
	for (unsigned int p = 0; p < CIDK_ABI_NR_PROMISES; p++)
		if (!strcmp(cidk_abi_promise_name((enum cidk_abi_promise)p), name))
			return (int)p;
	return -1;
}

/* The answer, native verdict name and reason of one requirement. */
static enum cidk_abi_answer req_answer(const struct req *q,
				       const struct cidk__abi_result *res,
				       const struct cidk_abi_probe_result *pr,
				       const char **verdict, const char **reason)
{
	if (q->probe) {
		const struct cidk_abi_promise_result *p = &pr->promise[q->idx];

		*verdict = cidk_abi_answer_name(p->verdict);
		*reason = p->why;
		return p->verdict;
	}
	*verdict = cidk__abi_verdict_name(res[q->slot].verdict);
	*reason = res[q->slot].reason;
	return check_answer(res[q->slot].verdict);
}

/* 0 when every requirement holds, 1 when one is broken, 3 when one is not known. */
static int gate_status(const struct req *reqs, unsigned int nreq,
		       const struct cidk__abi_result *res,
		       const struct cidk_abi_probe_result *pr)
{
	int unknown = 0, broken = 0;

	for (unsigned int k = 0; k < nreq; k++) {
		const char *v, *why;
		enum cidk_abi_answer a = req_answer(&reqs[k], res, pr, &v, &why);

		broken |= a == CIDK_ABI_FAIL;
		unknown |= a == CIDK_ABI_UNKNOWN;
	}
	return broken ? CLI_EXIT_FAIL : unknown ? ABI_EXIT_UNKNOWN : CLI_EXIT_OK;
}

static void evidence_human(const struct cidk_abi_promise_result *p)
{
	printf("attempts=%u aborts_in_event=%u stray_aborts=%u broken=%u "
	       "events=%u us=%.1f",
	       p->attempts, p->aborts_in_event, p->stray_aborts, p->broken,
	       p->events, p->ns / 1000.0);
}

static void evidence_json(struct jw *j, const struct cidk_abi_promise_result *p)
{
	jw_kuint(j, "attempts", p->attempts);
	jw_kuint(j, "aborts_in_event", p->aborts_in_event);
	jw_kuint(j, "stray_aborts", p->stray_aborts);
	jw_kuint(j, "broken", p->broken);
	jw_kuint(j, "events", p->events);
	jw_knum(j, "us", p->ns / 1000.0, 1);
}

/* --require: one line per requirement, in the order given. */
static void req_human(const struct req *reqs, unsigned int nreq,
		      const struct cidk__abi_result *res,
		      const struct cidk_abi_probe_result *pr, const char *prefix)
{
	for (unsigned int k = 0; k < nreq; k++) {
		const char *v, *why;

		req_answer(&reqs[k], res, pr, &v, &why);
		printf("%s%-16s %-7s %s\n", prefix, reqs[k].name, v, why);
	}
}

static void req_json(struct jw *j, const struct req *reqs, unsigned int nreq,
		     const struct cidk__abi_result *res,
		     const struct cidk_abi_probe_result *pr, int status)
{
	jw_kint(j, "exit", status);
	jw_break(j, "\n ");
	jw_key(j, "require");
	jw_arr(j);
	for (unsigned int k = 0; k < nreq; k++) {
		const struct req *q = &reqs[k];
		const char *v, *why;
		enum cidk_abi_answer a = req_answer(q, res, pr, &v, &why);

		jw_break(j, "\n  ");
		jw_obj(j);
		jw_kstr(j, "name", q->name);
		jw_kstr(j, "from", q->probe ? "probe" : "check");
		jw_kstr(j, "verdict", v);
		jw_kstr(j, "answer", cidk_abi_answer_name(a));
		jw_kstr(j, "reason", why);
		jw_key(j, "evidence");
		jw_obj(j);
		if (q->probe) {
			evidence_json(j, &pr->promise[q->idx]);
		} else {
			const struct cidk__abi_result *r = &res[q->slot];

			for (unsigned int e = 0; e < r->n_evidence; e++)
				jw_kint(j, r->evidence[e].key, r->evidence[e].value);
			jw_kuint(j, "ms", r->elapsed_ns / 1000000u);
		}
		jw_obj_end(j);
		jw_obj_end(j);
	}
	jw_break(j, "\n ");
	jw_arr_end(j);
}

static const struct {
	enum cidk_percpu_index idx;
	const char *name;
} indexings[] = {
	{ CIDK_PERCPU_CPU_ID, "cpu_id" },
	{ CIDK_PERCPU_MM_CID, "mm_cid" },
};

#define NR_INDEXINGS (sizeof(indexings) / sizeof(indexings[0]))

/* --quick: the probe's verdicts and evidence, then the operations' paths. */
static void quick_human(const struct cidk_abi_probe_result *pr, double call_us,
			const char *release, const char *machine)
{
	const char *env = getenv("CIDK_PERCPU");

	printf("the library's probe on Linux %s %s (cidk_abi_probe_cached)\n",
	       release, machine);
	for (unsigned int p = 0; p < CIDK_ABI_NR_PROMISES; p++) {
		const struct cidk_abi_promise_result *r = &pr->promise[p];

		if (!(pr->asked & CIDK_ABI_ASK(p)))
			continue;
		printf("%-12s %-7s %s\n", cidk_abi_promise_name((enum cidk_abi_promise)p),
		       cidk_abi_answer_name(r->verdict), r->why);
		printf("%-12s %-7s ", "", "");
		evidence_human(r);
		printf("\n");
	}
	printf("%-12s %.1f us on %u CPUs (the call: %.1f us)\n", "probe",
	       pr->ns / 1000.0, pr->cpus, call_us);
	if (env)
		printf("\nper-CPU operations (CIDK_PERCPU=%s)\n", env);
	else
		printf("\nper-CPU operations (CIDK_PERCPU unset: probe)\n");
	for (unsigned int i = 0; i < NR_INDEXINGS; i++)
		printf("%-12s %-7s %s\n", indexings[i].name,
		       cidk_percpu_path_name(cidk_percpu_path(indexings[i].idx)),
		       cidk_percpu_why(indexings[i].idx));
}

static void quick_json(struct jw *j, const struct cidk_abi_probe_result *pr,
		       double call_us)
{
	const char *env = getenv("CIDK_PERCPU");

	jw_knum(j, "probe_us", pr->ns / 1000.0, 1);
	jw_knum(j, "call_us", call_us, 1);
	jw_kuint(j, "cpus", pr->cpus);
	if (env)
		jw_kstr(j, "CIDK_PERCPU", env);
	else
		jw_knull(j, "CIDK_PERCPU");
	jw_break(j, "\n ");
	jw_key(j, "promises");
	jw_arr(j);
	for (unsigned int p = 0; p < CIDK_ABI_NR_PROMISES; p++) {
		const struct cidk_abi_promise_result *r = &pr->promise[p];

		if (!(pr->asked & CIDK_ABI_ASK(p)))
			continue;
		jw_break(j, "\n  ");
		jw_obj(j);
		jw_kstr(j, "name", cidk_abi_promise_name((enum cidk_abi_promise)p));
		jw_kstr(j, "verdict", cidk_abi_answer_name(r->verdict));
		jw_kstr(j, "why", r->why);
		evidence_json(j, r);
		jw_obj_end(j);
	}
	jw_break(j, "\n ");
	jw_arr_end(j);
	jw_break(j, "\n ");
	jw_key(j, "percpu");
	jw_arr(j);
	for (unsigned int i = 0; i < NR_INDEXINGS; i++) {
		jw_break(j, "\n  ");
		jw_obj(j);
		jw_kstr(j, "index", indexings[i].name);
		jw_kstr(j, "path",
			cidk_percpu_path_name(cidk_percpu_path(indexings[i].idx)));
		jw_kstr(j, "why", cidk_percpu_why(indexings[i].idx));
		jw_obj_end(j);
	}
	jw_break(j, "\n ");
	jw_arr_end(j);
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* A probe that could not run: UNKNOWN for each promise asked, with why. */
static void probe_failed(struct cidk_abi_probe_result *pr, unsigned int ask, int rc)
{
	for (unsigned int p = 0; p < CIDK_ABI_NR_PROMISES; p++) {
		if (!(ask & CIDK_ABI_ASK(p)))
			continue;
		pr->promise[p].verdict = CIDK_ABI_UNKNOWN;
		snprintf(pr->promise[p].why, sizeof(pr->promise[p].why),
			 "the probe could not run: %s", strerror(-rc));
	}
}

/*
 * The probe: the abort promise from the process's own answer
 * (cidk_abi_probe_cached: the one the per-CPU operations decide from),
 * the opt-in promises of @extra (signal, cpu-id-start: a fork each time)
 * from one fresh probe with @breaks.  @pr->asked says which are in.
 */
static void run_probe(struct cidk_abi_probe_result *pr, double *call_us,
		      int cached, unsigned int extra, unsigned int breaks)
{
	struct cidk_abi_probe_opts o = { 0, 0, extra };
	struct cidk_abi_probe_result x;
	double t0 = now_us();
	int rc;

	memset(pr, 0, sizeof(*pr));
	if (cached) {
		/* the breaks reach the process's own probe (unarmed,
		 * idle-helper: FAIL; unarmed,no-event: unknown), and through
		 * it the per-CPU operations' choice, which --quick shows */
		cidk__abi_probe_cached_breaks = breaks;
		rc = cidk_abi_probe_cached(pr);
		*call_us = now_us() - t0;
		pr->asked = CIDK_ABI_ASK(CIDK_ABI_ABORT);
		if (rc && rc != -ENOSYS)
			probe_failed(pr, pr->asked, rc);
	}
	if (!extra)
		return;
	rc = cidk__abi_probe_run(&o, breaks, &x);
	if (rc && rc != -ENOSYS)
		probe_failed(&x, extra, rc);
	for (unsigned int p = 0; p < CIDK_ABI_NR_PROMISES; p++)
		if (extra & CIDK_ABI_ASK(p))
			pr->promise[p] = x.promise[p];
	pr->asked |= extra;
	if (!cached) {
		pr->ns = x.ns;
		pr->cpus = x.cpus;
		*call_us = now_us() - t0;
	}
}

int cmd_abi(int argc, char **argv)
{
	struct cidk__abi_result res[16];
	struct cidk_abi_probe_result pr;
	struct req reqs[OPT_LIST_MAX];
	unsigned int sel[16], nsel = 0, ntimed = 0, failed = 0, breaks = 0;
	unsigned int nchecks = cidk__abi_nr_checks(), nreq = 0, extra = 0;
	struct opt_list only, brk, require;
	double seconds = 2.0, call_us = 0;
	bool json = false, list = false, quick = false, probe = false;
	struct utsname u;
	int rc, first, status;
	struct opt opts[] = {
		{ OPT_FLAG("json", 'j', &json, "one JSON object instead of the table") },
		{ OPT_FLAG("list", 'l', &list, "list the checks and what each checks, run none") },
		{ OPT_LIST("only", 'o', &only, "NAME", "run only these checks (comma-separated)"),
		  .def = "all", .group = 1 },
		{ OPT_DOUBLE("seconds", 's', &seconds, 0.01, 600, "S",
			     "time shared by the timed checks (abort-*, cpu-id-start, mm-cid, membarrier-rseq)") },
		{ OPT_LIST("require", 'r', &require, "NAME",
			   "gate on these promises (abort, or check names): run only them; "
			   "exit 0 all pass, 1 one FAIL, 3 one unknown or n/a"),
		  .def = "", .group = 1 },
		{ OPT_FLAG("quick", 'q', &quick,
			   "run only the in-process probe (abort) and show the path the "
			   "per-CPU operations took from it") },
		{ OPT_LIST("break", 0, &brk, "NAME",
			   "tests only: run on a deliberately broken user side (comma-separated)"),
		  .def = "" },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { "abi", about, epilog, NULL, 0, 0, opts };

	memset(&only, 0, sizeof(only));
	memset(&brk, 0, sizeof(brk));
	memset(&require, 0, sizeof(require));
	memset(&pr, 0, sizeof(pr));
	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	for (unsigned int k = 0; k < brk.n; k++) {
		unsigned int b = cidk__abi_break_parse(brk.item[k]);

		if (!b)
			return cli_error("abi: unknown --break %s (see cidkit abi --help)",
					 cli_q(brk.item[k]));
		breaks |= b;
	}
	if (list) {
		for (unsigned int i = 0; i < nchecks; i++)
			printf("%-16s %s%s\n", cidk__abi_check_name(i),
			       cidk__abi_check_about(i),
			       cidk__abi_check_timed(i) ? " (timed)" : "");
		return CLI_EXIT_OK;
	}
	if (quick && opt_given(&cmd, "only"))
		return cli_error("abi: --quick runs only the probe: no --only");
	if (quick && opt_given(&cmd, "seconds"))
		return cli_error("abi: --quick runs only the probe: no --seconds");
	for (unsigned int k = 0; k < require.n; k++) {
		const char *name = require.item[k];
		int p = promise_find(name), c = cidk__abi_check_find(name);
		int dup = 0;

		if (p < 0 && c < 0)
			return cli_error("abi: --require: no promise or check named %s "
					 "(abort, signal, cpu-id-start, or see cidkit abi --list)",
					 cli_q(name));
		if (quick && p < 0)
			return cli_error("abi: --quick runs only the probe: --require %s "
					 "needs the full checks (drop --quick)", cli_q(name));
		/* a name that is both (cpu-id-start): the check, or under
		 * --quick the probe's promise */
		if (!quick && c >= 0)
			p = -1;
		for (unsigned int m = 0; m < nreq; m++)
			dup |= !strcmp(reqs[m].name, name);
		if (dup)
			continue;
		reqs[nreq] = (struct req){ name, p >= 0, p >= 0 ? (unsigned int)p
								: (unsigned int)c, 0 };
		if (p == CIDK_ABI_ABORT) {
			probe = true;
		} else if (p >= 0) {
			extra |= CIDK_ABI_ASK(p);
		} else {
			reqs[nreq].slot = nsel;
			sel[nsel++] = (unsigned int)c;
		}
		nreq++;
	}
	if (quick) {
		probe = true;
	} else if (opt_given(&cmd, "only")) {
		for (unsigned int k = 0; k < only.n; k++) {
			int i = cidk__abi_check_find(only.item[k]);
			int dup = 0;

			if (i < 0)
				return cli_error("abi: no check named %s (see cidkit abi --list)",
						 cli_q(only.item[k]));
			for (unsigned int m = 0; m < nsel; m++)
				dup |= sel[m] == (unsigned int)i;
			if (!dup)
				sel[nsel++] = (unsigned int)i;
		}
	} else if (!nreq) {
		for (unsigned int i = 0; i < nchecks; i++)
			sel[nsel++] = i;
	}
	for (unsigned int k = 0; k < nsel; k++)
		ntimed += cidk__abi_check_timed(sel[k]) ? 1 : 0;
	for (unsigned int k = 0; k < nsel; k++) {
		struct cidk__abi_opts o = { seconds, breaks };

		if (ntimed && cidk__abi_check_timed(sel[k]))
			o.seconds = seconds / ntimed;
		else
			o.seconds = seconds < 1 ? seconds : 1;
		rc = cidk__abi_run(sel[k], &o, &res[k]);
		if (rc)
			return cli_fail("abi: cannot run %s: %s",
					cidk__abi_check_name(sel[k]), strerror(-rc));
		failed += res[k].verdict == CIDK__ABI_FAIL;
	}
	/* after the checks: their children fork from a process that never
	 * ran the probe's thread */
	if (probe || extra)
		run_probe(&pr, &call_us, probe, extra, breaks);
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	if (nreq)
		status = gate_status(reqs, nreq, res, &pr);
	else if (quick)
		status = pr.promise[CIDK_ABI_ABORT].verdict == CIDK_ABI_FAIL
				 ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	else
		status = failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;

	if (!quick && !nreq) {
		if (json)
			print_json(res, nsel, u.release, u.machine, seconds, failed);
		else
			print_human(res, nsel, u.release, u.machine, seconds);
		return status;
	}
	if (json) {
		struct jw j;

		jw_init(&j, stdout);
		jw_obj(&j);
		jw_kstr(&j, "kernel", u.release);
		jw_kstr(&j, "arch", u.machine);
		if (quick)
			quick_json(&j, &pr, call_us);
		if (nreq)
			req_json(&j, reqs, nreq, res, &pr, status);
		jw_break(&j, "\n");
		jw_obj_end(&j);
		jw_end(&j);
		return status;
	}
	if (quick)
		quick_human(&pr, call_us, u.release, u.machine);
	if (quick && nreq)
		printf("\n");
	if (nreq)
		req_human(reqs, nreq, res, &pr, quick ? "require " : "");
	return status;
}
