/* SPDX-License-Identifier: MIT */
/*
 * cidkit abi [--json] [--list] [--only NAME,...] [--seconds S]
 *
 * Does the running kernel keep rseq's promises?  Runs the checks of
 * lib/abi (each in a child process) and prints one row per check: its
 * name, pass / FAIL / n/a, the reason, and the evidence as numbers.
 * Exit 1 when a check fails, 0 otherwise, 2 on bad input.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "abi/abi.h"
#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"

static const char about[] =
	"Check the running kernel against the rseq ABI (rseq(2), linux/rseq.h, the\n"
	"kernel's rseq selftests, the 2026 legacy/V2 modes) with cidkit's own\n"
	"critical sections: one row per check with pass, FAIL or n/a, the reason,\n"
	"and the evidence (counts, values, time).  Each check runs in a child\n"
	"process.  The timed checks share --seconds.  Exit 1 when a check fails.\n";

static const char epilog[] =
	"Checks (--list prints them with what each checks): register, ids,\n"
	"abort-preempt, abort-migrate, abort-signal, cpu-id-start, mm-cid,\n"
	"membarrier-rseq, slice-ext.  --break (for tests) runs the checks on a\n"
	"deliberately broken user side (comma-separated to combine): cs-short,\n"
	"no-sig, write-early, unregistered, stale, no-event, unarmed,\n"
	"idle-helper; see docs/abi.md.\n";

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

int cmd_abi(int argc, char **argv)
{
	struct cidk__abi_result res[16];
	unsigned int sel[16], nsel = 0, ntimed = 0, failed = 0, breaks = 0;
	unsigned int nchecks = cidk__abi_nr_checks();
	struct opt_list only, brk;
	double seconds = 2.0;
	bool json = false, list = false;
	struct utsname u;
	int rc, first;
	struct opt opts[] = {
		{ OPT_FLAG("json", 'j', &json, "one JSON object instead of the table") },
		{ OPT_FLAG("list", 'l', &list, "list the checks and what each checks, run none") },
		{ OPT_LIST("only", 'o', &only, "NAME", "run only these checks (comma-separated)"),
		  .def = "all" },
		{ OPT_DOUBLE("seconds", 's', &seconds, 0.01, 600, "S",
			     "time shared by the timed checks (abort-*, cpu-id-start, mm-cid, membarrier-rseq)") },
		{ OPT_LIST("break", 0, &brk, "NAME",
			   "tests only: run on a deliberately broken user side (comma-separated)"),
		  .def = "" },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { "abi", about, epilog, NULL, 0, 0, opts };

	memset(&only, 0, sizeof(only));
	memset(&brk, 0, sizeof(brk));
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
	if (opt_given(&cmd, "only")) {
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
	} else {
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
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	if (json)
		print_json(res, nsel, u.release, u.machine, seconds, failed);
	else
		print_human(res, nsel, u.release, u.machine, seconds);
	return failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
