/* SPDX-License-Identifier: MIT */
/*
 * cidkit sim replay TRACE - a recorded schedule (the ftrace text format,
 * as `cidkit trace record` writes it) driven through every policy: the
 * per-policy table of cid.h's cost counters, and the agreement of the
 * policy that models the traced kernel with the kernel's own mm_cids.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cidkit/trace.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"

static const char about[] =
	"Reads TRACE (ftrace text: /sys/kernel/tracing/trace, trace-cmd report,\n"
	"or what 'cidkit trace record' writes; trace-cmd's trace.dat, by its magic;\n"
	"'-' for standard input; .xz and .gz through xz -dc and gzip -dc) and drives\n"
	"each policy with its thread group's switches, migrations, forks, exits\n"
	"and returns to user space (rseq_update events).  Prints per policy the\n"
	"CIDs handed out, the largest and distinct ones and the cost counters,\n"
	"and for the policy that models the traced kernel (--model, else the\n"
	"kernel the trace names) the share of rseq_update events whose mm_cid\n"
	"it predicts exactly, next to two naive predictors (the lowest CID free\n"
	"at switch-in; the task's previous CID) and the first disagreements.\n";

/* '-' is standard input; any other TRACE as trace.h's opener reads it */
static FILE *open_trace(const char *file, pid_t *pid)
{
	*pid = -1;
	return strcmp(file, "-") ? cidk_trace_open_file(file, pid) : stdin;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

static void print_cid(unsigned int v)
{
	if (v == CIDK_CID_NONE)
		printf(" %7s", "-");
	else
		printf(" %7u", v);
}

struct replay_cli {
	const char *file;
	char names[CIDK_REPLAY_MAX_POLICIES][OPT_ITEM_LEN];
	const char *model_from; /* "--model" or "kernel X" */
};

static void human(const struct replay_cli *c,
		  const struct cidk_replay_params *p,
		  const struct cidk_trace_info *info,
		  const struct cidk_replay_result *r, unsigned int show)
{
	printf("trace %s: kernel %s, %u CPUs, thread group %d (%u threads)\n",
	       c->file, info->kernel[0] ? info->kernel : "unknown", p->nr_cpus,
	       p->tgid, r->threads);
	printf("%llu events, %llu of the group, %llu rseq_update; kernel mm_cids: largest ",
	       (unsigned long long)r->events,
	       (unsigned long long)r->group_events,
	       (unsigned long long)r->rseq_updates);
	if (r->kernel_largest == CIDK_CID_NONE)
		printf("-");
	else
		printf("%u", r->kernel_largest);
	printf(", %u distinct\n", r->kernel_distinct);
	if (p->kernel_scan)
		printf("the lazy family's scan runs at the trace's task_mm_cid_work calls (mm_cid_work events)\n");
	if (r->inconsistent)
		printf("%llu events the replay could not follow (a thread seen running where the trace had not switched it in)\n",
		       (unsigned long long)r->inconsistent);
	printf("\n%-18s %8s %7s %7s %8s %9s %9s %6s %7s %6s %8s %8s\n", "policy",
	       "switches", "handed", "largest", "distinct", "rmw/sw", "handovers",
	       "modesw", "visits", "scans", "releases", "agree");
	for (unsigned int i = 0; i < r->nr_policies; i++) {
		const struct cidk_replay_policy_result *q = &r->pol[i];
		double n = q->switches ? (double)q->switches : 1;
		char name[40];

		snprintf(name, sizeof(name), "%s%s", c->names[i],
			 (int)i == p->model ? " *" : "");
		printf("%-18s %8llu %7llu", name, (unsigned long long)q->switches,
		       (unsigned long long)q->handed);
		print_cid(q->largest);
		printf(" %8u %9.4f %9llu %6llu %7llu %6llu %8llu %7.2f%%\n",
		       q->distinct, (double)q->stats.bitmap_rmw / n,
		       (unsigned long long)q->stats.handovers,
		       (unsigned long long)q->stats.mode_switches,
		       (unsigned long long)q->stats.fixup_visits,
		       (unsigned long long)q->stats.compaction_calls,
		       (unsigned long long)(q->stats.compaction_releases +
					    q->stats.deferred_releases),
		       pct(q->agree, r->rseq_updates));
	}
	printf("(rmw/sw: CID-bitmap RMWs per switch; modesw, visits: ownership's mode switches and walk visits;\n"
	       " scans, releases: the lazy family's compaction calls and the CIDs they released)\n");
	if (p->model < 0) {
		printf("\nno model: the trace names no kernel with mm_cid (--model POLICY)\n");
		return;
	}
	printf("\nagreement with the kernel's mm_cid (%llu rseq_update events; model %s, from %s):\n",
	       (unsigned long long)r->rseq_updates, c->names[p->model],
	       c->model_from);
	printf("  %-22s %8llu  %7.2f %%\n", c->names[p->model],
	       (unsigned long long)r->pol[p->model].agree,
	       pct(r->pol[p->model].agree, r->rseq_updates));
	printf("  %-22s %8llu  %7.2f %%\n", "naive: lowest free",
	       (unsigned long long)r->naive_lowest,
	       pct(r->naive_lowest, r->rseq_updates));
	printf("  %-22s %8llu  %7.2f %%\n", "naive: previous CID",
	       (unsigned long long)r->naive_prev,
	       pct(r->naive_prev, r->rseq_updates));
	if (!r->nr_disagree)
		return;
	printf("\nfirst disagreements (of %llu):\n",
	       (unsigned long long)(r->rseq_updates - r->pol[p->model].agree));
	printf("%8s %17s %7s %4s %6s %6s %6s %5s %5s %7s %8s %9s\n", "event",
	       "time s", "pid", "cpu", "kernel", "model", "lowest", "prev",
	       "users", "running", "in after", "since us");
	for (unsigned int i = 0; i < r->nr_disagree && i < show; i++) {
		const struct cidk_replay_disagree *d = &r->disagree[i];

		printf("%8lu %10llu.%06llu %7d %4u %6d", d->event,
		       (unsigned long long)(d->ts_ns / 1000000000ull),
		       (unsigned long long)(d->ts_ns % 1000000000ull / 1000),
		       d->pid, d->cpu, d->kernel_cid);
		if (d->model_cid == CIDK_CID_NONE)
			printf(" %6s", "-");
		else
			printf(" %6u", d->model_cid);
		printf(" %6d %5d %5u %7u %8d %9.1f\n", d->lowest_free,
		       d->prev_cid, d->nr_users, d->nr_running,
		       d->last_switch_prev, (double)d->since_switch_ns / 1000);
	}
}

static void json(const struct replay_cli *c, const struct cidk_replay_params *p,
		 const struct cidk_trace_info *info,
		 const struct cidk_replay_result *r, unsigned int show)
{
	struct jw j;

	jw_init(&j, stdout);
	jw_obj(&j);
	jw_kstr(&j, "kernel", info->kernel);
	jw_kuint(&j, "cpus", p->nr_cpus);
	jw_kint(&j, "tgid", p->tgid);
	jw_kuint(&j, "threads", r->threads);
	jw_kuint(&j, "events", r->events);
	jw_kuint(&j, "group_events", r->group_events);
	jw_kuint(&j, "rseq_updates", r->rseq_updates);
	jw_kuint(&j, "inconsistent", r->inconsistent);
	if (r->kernel_largest == CIDK_CID_NONE)
		jw_knull(&j, "kernel_largest");
	else
		jw_kuint(&j, "kernel_largest", r->kernel_largest);
	jw_kuint(&j, "kernel_distinct", r->kernel_distinct);
	if (p->model >= 0)
		jw_kstr(&j, "model", c->names[p->model]);
	else
		jw_knull(&j, "model");
	jw_kuint(&j, "naive_lowest", r->naive_lowest);
	jw_kuint(&j, "naive_prev", r->naive_prev);
	jw_key(&j, "policies");
	jw_arr(&j);
	for (unsigned int i = 0; i < r->nr_policies; i++) {
		const struct cidk_replay_policy_result *q = &r->pol[i];

		jw_break(&j, "\n  ");
		jw_obj(&j);
		jw_kstr(&j, "policy", c->names[i]);
		jw_kuint(&j, "switches", q->switches);
		jw_kuint(&j, "switches_in", q->switches_in);
		jw_kuint(&j, "handed", q->handed);
		if (q->largest == CIDK_CID_NONE)
			jw_knull(&j, "largest");
		else
			jw_kuint(&j, "largest", q->largest);
		jw_kuint(&j, "distinct", q->distinct);
		jw_kuint(&j, "agree", q->agree);
		jw_kuint(&j, "bitmap_rmw", q->stats.bitmap_rmw);
		jw_kuint(&j, "bitmap_search", q->stats.bitmap_search);
		jw_kuint(&j, "slot_rmw", q->stats.slot_rmw);
		jw_kuint(&j, "handovers", q->stats.handovers);
		jw_kuint(&j, "mode_switches", q->stats.mode_switches);
		jw_kuint(&j, "fixup_walks", q->stats.fixup_walks);
		jw_kuint(&j, "fixup_visits", q->stats.fixup_visits);
		jw_kuint(&j, "compaction_calls", q->stats.compaction_calls);
		jw_kuint(&j, "compaction_releases", q->stats.compaction_releases);
		jw_kuint(&j, "deferred_releases", q->stats.deferred_releases);
		jw_kuint(&j, "migrate_moves", q->stats.migrate_moves);
		jw_obj_end(&j);
	}
	jw_break(&j, "\n");
	jw_arr_end(&j);
	jw_key(&j, "disagreements");
	jw_arr(&j);
	for (unsigned int i = 0; i < r->nr_disagree && i < show; i++) {
		const struct cidk_replay_disagree *d = &r->disagree[i];

		jw_break(&j, "\n  ");
		jw_obj(&j);
		jw_kuint(&j, "event", d->event);
		jw_kuint(&j, "ts_ns", d->ts_ns);
		jw_kint(&j, "pid", d->pid);
		jw_kuint(&j, "cpu", d->cpu);
		jw_kint(&j, "kernel", d->kernel_cid);
		if (d->model_cid == CIDK_CID_NONE)
			jw_knull(&j, "model");
		else
			jw_kuint(&j, "model", d->model_cid);
		jw_kint(&j, "lowest_free", d->lowest_free);
		jw_kint(&j, "prev_cid", d->prev_cid);
		jw_kuint(&j, "users", d->nr_users);
		jw_kuint(&j, "running", d->nr_running);
		jw_kint(&j, "switched_in_after", d->last_switch_prev);
		jw_kuint(&j, "since_switch_ns", d->since_switch_ns);
		jw_obj_end(&j);
	}
	jw_break(&j, "\n");
	jw_arr_end(&j);
	jw_obj_end(&j);
	jw_end(&j);
}

int cmd_sim_replay(int argc, char **argv)
{
	const char *cmdname = "sim replay";
	struct opt_list pols = { .n = 0 };
	const char *model = NULL;
	unsigned int cpus = 0, tgid = 0, show = 10;
	bool as_json = false;
	struct opt opts[] = {
		{ OPT_LIST("policy", 0, &pols, "P",
			   "policies (NAME or NAME:VARIANT, e.g. ownership:v6.19)"),
		  .def = "all six" },
		{ OPT_STRING("model", 0, &model, "POLICY",
			     "the policy that models the traced kernel"),
		  .def = "from the trace's kernel" },
		{ OPT_UINT("tgid", 0, &tgid, 1, 1u << 30, "PID",
			   "the thread group to replay"),
		  .def = "the trace's header" },
		{ OPT_UINT("cpus", 0, &cpus, 1, CIDK_TRACE_MAX_CPUS, "N",
			   "the traced machine's CPUs"),
		  .def = "the trace's header" },
		{ OPT_UINT("disagreements", 0, &show, 0, CIDK_REPLAY_MAX_DISAGREE,
			   "N", "first disagreements shown") },
		{ OPT_FLAG("json", 0, &as_json, "one JSON object") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { cmdname, about, NULL, "TRACE", 1, 1, opts };
	struct replay_cli c = { 0 };
	struct cidk_replay_params p = { 0 };
	struct cidk_trace_reader *rd = NULL;
	struct cidk_replay_result *res = NULL;
	const struct cidk_trace_info *info;
	struct cidk_replay *rp = NULL;
	struct cidk_trace_event ev;
	FILE *f;
	int rc, more, first, status = CLI_EXIT_USAGE, ws;
	pid_t child;

	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	c.file = argv[first];
	/* the policies */
	if (!pols.n)
		for (unsigned int i = 0; i < CIDK_CID_NR_POLICIES; i++)
			pols.item[pols.n++] = cidk_cid_policy_name(i);
	for (unsigned int i = 0; i < pols.n; i++) {
		if (i >= CIDK_REPLAY_MAX_POLICIES - 1)
			return cli_error("%s: at most %u policies", cmdname,
					 CIDK_REPLAY_MAX_POLICIES - 1);
		if (cidk_cid_params_parse(pols.item[i], &p.policy[i]))
			return cli_error("%s: unknown policy '%s' (bitmap, lazy, lazy-batched, cache-local, inherit, ownership[:v6.19])",
					 cmdname, cli_q(pols.item[i]));
		snprintf(c.names[i], sizeof(c.names[i]), "%s", pols.item[i]);
	}
	p.nr_policies = pols.n;
	p.model = -1;
	if (model) {
		struct cidk_cid_params mp;

		if (cidk_cid_params_parse(model, &mp))
			return cli_error("%s: unknown model policy '%s'", cmdname,
					 cli_q(model));
	}

	f = open_trace(c.file, &child);
	if (!f)
		return cli_error("%s: %s: %s", cmdname, cli_q(c.file),
				 strerror(errno));
	rc = cidk_trace_reader_open(f, &rd);
	if (rc == -ENOMEM)
		goto fail;
	if (rc) {
		cli_error("%s: %s: %s", cmdname, cli_q(c.file),
			  rc == -ENOTSUP ? "a trace.dat, and this cidkit was built without libtracecmd"
			  : rc == -EIO   ? "a trace.dat that could not be copied to a temporary file"
					 : "a trace.dat that libtracecmd cannot read");
		goto out;
	}
	rc = more = cidk_trace_reader_next(rd, &ev);
	if (rc == 0 && child > 0) {
		/* empty, or not what it says: did the decompressor fail? */
		fclose(f);
		f = NULL;
		if (waitpid(child, &ws, 0) != child || !WIFEXITED(ws) ||
		    WEXITSTATUS(ws)) {
			child = -1;
			cli_error("%s: %s: cannot decompress (xz -dc / gzip -dc failed)",
				  cmdname, cli_q(c.file));
			goto out;
		}
		child = -1;
	}
	if (rc < 0)
		goto bad_line;
	info = cidk_trace_reader_info(rd);
	p.nr_cpus = cpus ? cpus : info->nr_cpus;
	p.tgid = tgid ? (int)tgid : info->tgid;
	if (!p.nr_cpus) {
		cli_error("%s: %s: the trace does not say how many CPUs it ran on (--cpus)",
			  cmdname, cli_q(c.file));
		goto out;
	}
	if (p.tgid < 0) {
		cli_error("%s: %s: the trace names no thread group (--tgid)",
			  cmdname, cli_q(c.file));
		goto out;
	}
	if (!tgid) {
		p.threads = info->threads;
		p.nr_threads = info->nr_threads;
	}
	/* the model: named, or the kernel's */
	if (model || info->kernel[0]) {
		struct cidk_cid_params mp;
		enum cidk_cid_policy_kind k;
		const char *name = model;

		if (model) {
			cidk_cid_params_parse(model, &mp);
			c.model_from = "--model";
		} else if (cidk_trace_kernel_model(info->kernel, &k)) {
			name = NULL;
		} else {
			name = cidk_cid_policy_name(k);
			cidk_cid_params_default(&mp, k);
			c.model_from = "the trace's kernel";
		}
		for (unsigned int i = 0; name && i < p.nr_policies; i++)
			if (!strcmp(c.names[i], name))
				p.model = (int)i;
		if (name && p.model < 0) {
			p.model = (int)p.nr_policies;
			p.policy[p.nr_policies] = mp;
			snprintf(c.names[p.nr_policies], sizeof(c.names[0]),
				 "%s", name);
			p.nr_policies++;
		}
	}
	p.keep_disagree = show;
	/* the recorder's kprobe on task_mm_cid_work(): the kernel's own clock */
	p.kernel_scan = (info->probes & CIDK_TRACE_PROBE_CID_WORK) != 0;
	rc = cidk_replay_create(&p, &rp);
	if (rc == -EINVAL) {
		cli_error("%s: %s: cannot replay on %u CPUs", cmdname,
			  cli_q(c.file), p.nr_cpus);
		goto out;
	}
	if (rc)
		goto fail;
	rc = more;
	while (rc == 1) {
		rc = cidk_replay_event(rp, &ev);
		if (rc == -EINVAL) {
			cli_error("%s: %s:%lu: a CPU at or above the trace's %u",
				  cmdname, cli_q(c.file),
				  cidk_trace_reader_line(rd), p.nr_cpus);
			goto out;
		}
		if (rc)
			goto fail;
		rc = cidk_trace_reader_next(rd, &ev);
	}
	if (rc < 0)
		goto bad_line;
	if (child > 0) {
		fclose(f);
		f = NULL;
		if (waitpid(child, &ws, 0) != child || !WIFEXITED(ws) ||
		    WEXITSTATUS(ws)) {
			child = -1;
			cli_error("%s: %s: cannot decompress (xz -dc / gzip -dc failed)",
				  cmdname, cli_q(c.file));
			goto out;
		}
		child = -1;
	}
	res = malloc(sizeof(*res));
	if (!res) {
		rc = -ENOMEM;
		goto fail;
	}
	cidk_replay_result(rp, res);
	if (as_json)
		json(&c, &p, info, res, show);
	else
		human(&c, &p, info, res, show);
	status = CLI_EXIT_OK;
	goto out;
bad_line:
	if (cidk_trace_reader_is_dat(rd))
		cli_error("%s: %s: record %lu: %s", cmdname, cli_q(c.file),
			  cidk_trace_reader_line(rd),
			  rc == -EINVAL ? "too short for the fields of its event"
					: strerror(-rc));
	else if (rc == -EINVAL)
		cli_error("%s: %s:%lu: not a trace line of the ftrace text format (or a field of a kept event missing or out of range)",
			  cmdname, cli_q(c.file), cidk_trace_reader_line(rd));
	else
		cli_error("%s: %s:%lu: %s", cmdname, cli_q(c.file),
			  cidk_trace_reader_line(rd), strerror(-rc));
	goto out;
fail:
	cli_error("%s: %s", cmdname, strerror(-rc));
out:
	free(res);
	cidk_replay_destroy(rp);
	cidk_trace_reader_close(rd);
	if (f && f != stdin)
		fclose(f);
	if (child > 0)
		waitpid(child, &ws, 0);
	return status;
}
