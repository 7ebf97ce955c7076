/* SPDX-License-Identifier: MIT */
/*
 * cidkit trace record [--out FILE] [--seconds S] -- CMD [ARGS...]
 *
 * The options and what is said; the recording itself is trace/record.c
 * (cidk_trace_record(), trace.h): the events trace.h reads, in a tracefs
 * instance of its own, CMD's thread group and every sched_switch on the
 * CPUs it ran on, written in the ftrace text format.  --kprobes adds the
 * kprobe events of trace.h (mm_cid_work, cpus_allowed, mm_cid_exit,
 * mm_cid_fork) where the kernel takes them, and names the ones recorded in
 * the header (probes=); under "auto" a missing one is said with the
 * summary line.  --stream writes each event as it happens (trace/stream.c:
 * CMD and every process it starts, through trace_pipe), for a run that
 * may never end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/trace.h>

#include "cli.h"
#include "cmds.h"
#include "opt.h"
#include "stream.h"

/* CMD and its arguments, each quoted as the messages quote them. */
static char *command_text(char *const *argv)
{
	size_t n = 1;
	char *s;

	for (char *const *a = argv; *a; a++)
		n += strlen(cli_q(*a)) + 1;
	s = malloc(n);
	if (!s)
		return NULL;
	*s = 0;
	for (char *const *a = argv; *a; a++) {
		if (a != argv)
			strcat(s, " ");
		strcat(s, cli_q(*a));
	}
	return s;
}

static int record(const char *cmdname, struct cidk_trace_record_params *p)
{
	struct cidk_trace_record_result res;
	const struct cidk_trace_probe *pr;
	char *cmd = command_text(p->argv);
	int rc;

	if (!cmd)
		return cli_error("%s: out of memory", cmdname);
	p->command = cmd;
	rc = cidk_trace_record(p, &res);
	free(cmd);
	if (rc) {
		switch (res.stage) {
		case CIDK_TRACE_REC_EXEC:
			return cli_error("%s: %s: %s", cmdname, cli_q(p->argv[0]),
					 res.msg);
		case CIDK_TRACE_REC_EMPTY:
			return cli_error("%s: no event of %s (pid %d) was recorded",
					 cmdname, cli_q(p->argv[0]), res.tgid);
		case CIDK_TRACE_REC_OUT:
			return cli_error("%s: %s: %s", cmdname, cli_q(p->out),
					 res.msg);
		default:
			return cli_error("%s: %s", cmdname, res.msg);
		}
	}
	for (unsigned int i = 0; (pr = cidk_trace_probe(i)); i++)
		if (res.missing[i])
			fprintf(stderr, "trace record: not recorded: cidkit/%s, a kprobe on %s (%s): %s\n",
				pr->event, pr->func, pr->why, res.missing[i]);
	fprintf(stderr, "trace record: %lu of %lu events (thread group %d, %u threads) to %s\n",
		res.kept, res.total, res.tgid, res.nr_threads, p->out);
	return CLI_EXIT_OK;
}

/* --stream: trace/stream.c; the summary says what left before CMD ended. */
static int stream(const char *cmdname, struct cidk_trace_stream_params *p)
{
	struct cidk_trace_stream_result res;
	char *cmd = command_text(p->argv);
	int rc;

	if (!cmd)
		return cli_error("%s: out of memory", cmdname);
	p->command = cmd;
	rc = cidk_trace_stream(p, &res);
	free(cmd);
	if (rc) {
		if (res.stage == CIDK_TRACE_REC_EXEC)
			return cli_error("%s: %s: %s", cmdname, cli_q(p->argv[0]),
					 res.msg);
		if (res.stage == CIDK_TRACE_REC_OUT)
			return cli_error("%s: %s: %s", cmdname, cli_q(p->out),
					 res.msg);
		return cli_error("%s: %s", cmdname, res.msg);
	}
	fprintf(stderr, "trace record: streamed %lu events (%lu before CMD ended, %lu lost by the kernel; pid %d and its descendants) to %s\n",
		res.lines, res.before_end, res.lost, res.tgid,
		strcmp(p->out, "-") ? p->out : "standard output");
	return CLI_EXIT_OK;
}

static const char about[] =
	"Runs CMD with the scheduler's and rseq's tracepoints on (a tracefs\n"
	"instance of its own, through libtracefs; tracefs is mounted if needed)\n"
	"and writes, in the ftrace text format, the events of CMD's thread group\n"
	"and every sched_switch on the CPUs it ran on, for 'cidkit sim replay'.\n"
	"Needs root (or tracefs access).  Two kprobe events are added where\n"
	"the kernel has their function (--kprobes): mm_cid_work, the lazy\n"
	"family's compaction work (task_mm_cid_work, Linux 6.4-6.18), and\n"
	"cpus_allowed, a task's new allowed CPUs (set_cpus_allowed_common, with\n"
	"BTF), mm_cid_exit, where an exiting task gives its CID back\n"
	"(sched_mm_cid_exit_signals, 6.4-6.18; sched_mm_cid_exit, 6.19 on), and\n"
	"mm_cid_fork, where the parent counts a new user (sched_mm_cid_fork);\n"
	"one missing under 'auto' is said on stderr, not recorded.\n"
	"--stream: for a run that may never end (a kernel that freezes), each\n"
	"event is written as the kernel hands it over (trace_pipe), for CMD and\n"
	"every process it starts (set_event_pid, event-fork), without kprobes;\n"
	"a last '# cidkit-trace: stream-end' line when CMD ended.  --out -\n"
	"writes to standard output (CMD's standard output goes to standard\n"
	"error).  In a guest that may freeze (docs/hunt.md): --fifo 50 and\n"
	"--out /dev/console with the kernel lab's frame as --line-prefix.\n";

static int cmd_trace_record(int argc, char **argv)
{
	const char *cmdname = "trace record";
	const char *out = "cidkit.trace";
	double seconds = 0;
	unsigned int buffer_kb = 16384;
	struct cidk_trace_record_params p = { 0 };
	static const char kprobes_auto[] = "auto";
	const char *kprobes = kprobes_auto;
	bool streaming = false;
	const char *prefix = NULL;
	unsigned int fifo = 0;
	struct opt opts[] = {
		{ OPT_STRING("out", 'o', &out, "FILE", "where the trace goes") },
		{ OPT_DOUBLE("seconds", 's', &seconds, 0, 3600, "S",
			     "stop CMD (SIGKILL) after S seconds; 0: when it exits") },
		{ OPT_UINT("buffer-kb", 0, &buffer_kb, 64, 1u << 22, "KB",
			   "trace buffer per CPU") },
		{ OPT_STRING("kprobes", 0, &kprobes, "LIST",
			     "auto (each the kernel has), none, or a list of mm_cid_work, cpus_allowed, mm_cid_exit, mm_cid_fork (each must work)") },
		{ OPT_FLAG("stream", 0, &streaming,
			   "write each event as it happens (CMD and its descendants; no kprobes)") },
		{ OPT_STRING("line-prefix", 0, &prefix, "TEXT",
			     "--stream: each line written starts with TEXT (a console shared with other output)") },
		{ OPT_UINT("fifo", 0, &fifo, 1, 99, "PRIO",
			   "--stream: the recorder runs SCHED_FIFO at PRIO (CMD stays SCHED_OTHER), to keep up with busy CPUs") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { cmdname, about,
			       "Options go before CMD: from CMD on, every word is CMD's.\n",
			       "CMD [ARGS...]", 1, OPT_MANY, opts };
	int rc, first;

	/* CMD's own options are CMD's (as env, timeout and taskset take them) */
	rc = opt_parse_in_order(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	if (streaming) {
		struct cidk_trace_stream_params sp = { 0 };

		if (kprobes != kprobes_auto)
			return cli_error("%s: --kprobes is not taken with --stream",
					 cmdname);
		sp.out = out;
		sp.seconds = seconds;
		sp.buffer_kb = buffer_kb;
		sp.argv = argv + first;
		sp.prefix = prefix;
		sp.fifo = (int)fifo;
		return stream(cmdname, &sp);
	}
	if (prefix || fifo)
		return cli_error("%s: --%s is taken with --stream only", cmdname,
				 prefix ? "line-prefix" : "fifo");
	if (cidk_trace_probes_parse(kprobes, &p.want, &p.must))
		return cli_error("%s: --kprobes %s: not auto, none or a list of mm_cid_work, cpus_allowed, mm_cid_exit, mm_cid_fork",
				 cmdname, cli_q(kprobes));
	p.out = out;
	p.seconds = seconds;
	p.buffer_kb = buffer_kb;
	p.argv = argv + first;
	return record(cmdname, &p);
}

static const struct cli_cmd subs[] = {
	{ "record", cmd_trace_record, "record a command's schedule and rseq IDs (libtracefs)" },
	{ NULL, NULL, NULL },
};

int cmd_trace(int argc, char **argv)
{
	return cli_dispatch("trace", subs, argc - 1, argv + 1);
}
