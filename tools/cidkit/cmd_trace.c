/* SPDX-License-Identifier: MIT */
/*
 * cidkit trace record [--out FILE] [--seconds S] -- CMD [ARGS...]
 *
 * Records CMD's schedule through libtracefs, in a tracefs instance of its
 * own (the top-level buffer and other users' instances are left alone):
 * the events trace.h reads, with the record-tgid column; then writes, in
 * the ftrace text format, a "# cidkit-trace:" header (kernel, CPUs, the
 * thread group, its threads), the buffer's own header lines, every event
 * of CMD's thread group (its forks, exits, exec, migrations, wake-ups and
 * rseq_update events) and every sched_switch on the CPUs it ran on.
 * The buffer is read twice after CMD ends (threads first, then the lines):
 * the trace's length is bounded by --buffer-kb per CPU, and a buffer that
 * overflowed is an error, not a silently shorter trace.  --kprobes adds
 * the kprobe events of trace.h (mm_cid_work, cpus_allowed, mm_cid_exit,
 * mm_cid_fork) where the kernel takes them, and names the ones recorded in
 * the header (probes=); under "auto" a missing one is said with the
 * summary line.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cidkit/trace.h>

#include "cli.h"
#include "cmds.h"
#include "opt.h"

#ifdef CIDKIT_HAVE_TRACEFS
#include <tracefs.h>

static const char *const events[][2] = {
	{ "rseq", "rseq_update" },
	{ "sched", "sched_switch" },
	{ "sched", "sched_migrate_task" },
	{ "sched", "sched_process_fork" },
	{ "sched", "sched_process_exit" },
	{ "sched", "sched_process_exec" },
	{ "sched", "sched_wakeup_new" },
	{ "sched", "sched_wakeup" },
};
#define NR_EVENTS (sizeof(events) / sizeof(events[0]))

/*
 * The kprobe events (trace.h): group "cidkit", created unless they exist
 * already (another recorder's: then shared, and left to it), destroyed
 * afterwards.  The fetch arguments need the kernel's BTF (p->pid) and
 * $argN (Linux 6.6 on; 6.12's kprobe_events takes both).
 */
static const struct probe {
	const char *event, *func, *format, *why;
	unsigned int bit;
	const char *func2; /* where the kernel has no func (NULL: none) */
} probes[] = {
	{ "mm_cid_work", "task_mm_cid_work", NULL,
	  "the lazy family's compaction work (Linux 6.4-6.18)",
	  CIDK_TRACE_PROBE_CID_WORK, NULL },
	{ "cpus_allowed", "set_cpus_allowed_common",
	  "pid=p->pid mask=+0(+0($arg2)):x64",
	  "a task's new allowed CPUs",
	  CIDK_TRACE_PROBE_AFFINITY, NULL },
	{ "mm_cid_exit", "sched_mm_cid_exit_signals", NULL,
	  "an exiting task gives its CID back",
	  CIDK_TRACE_PROBE_CID_EXIT, "sched_mm_cid_exit" },
	{ "mm_cid_fork", "sched_mm_cid_fork", NULL,
	  "the parent counts a new user of its mm",
	  CIDK_TRACE_PROBE_CID_FORK, NULL },
};
#define NR_PROBES (sizeof(probes) / sizeof(probes[0]))

/* "auto", "none" or a comma list of probe names -> *want, *must. */
static int probes_parse(const char *s, unsigned int *want, unsigned int *must)
{
	*want = *must = 0;
	if (!strcmp(s, "auto")) {
		for (unsigned int i = 0; i < NR_PROBES; i++)
			*want |= probes[i].bit;
		return 0;
	}
	if (!strcmp(s, "none"))
		return 0;
	while (*s) {
		size_t n = strcspn(s, ",");
		unsigned int i;

		for (i = 0; i < NR_PROBES; i++)
			if (strlen(probes[i].event) == n &&
			    !strncmp(s, probes[i].event, n))
				break;
		if (i == NR_PROBES || !n)
			return -EINVAL;
		*want |= probes[i].bit;
		s += n + (s[n] == ',');
	}
	*must = *want;
	return 0;
}

struct pidset {
	int *v;
	unsigned int n, cap;
};

static bool pid_in(const struct pidset *s, int pid)
{
	for (unsigned int i = 0; i < s->n; i++)
		if (s->v[i] == pid)
			return true;
	return false;
}

static int pid_add(struct pidset *s, int pid)
{
	if (pid_in(s, pid))
		return 0;
	if (s->n == s->cap) {
		unsigned int cap = s->cap ? s->cap * 2 : 16;
		int *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = pid;
	return 0;
}

/* Is this event about the group (or a switch on one of its CPUs)? */
static bool keep(const struct cidk_trace_event *ev, const struct pidset *g,
		 const unsigned char *cpus)
{
	switch (ev->kind) {
	case CIDK_TRACE_SWITCH:
		return cpus[ev->cpu];
	case CIDK_TRACE_RSEQ_UPDATE:
		return pid_in(g, ev->pid);
	case CIDK_TRACE_FORK:
		return pid_in(g, ev->task_pid) || pid_in(g, ev->child_pid);
	case CIDK_TRACE_CID_WORK:
	case CIDK_TRACE_CID_EXIT:
	case CIDK_TRACE_CID_FORK:
		return pid_in(g, ev->pid);
	default:
		return pid_in(g, ev->task_pid);
	}
}

static int record(const char *cmdname, const char *out, double seconds,
		  unsigned int buffer_kb, unsigned int want, unsigned int must,
		  char **argv)
{
	struct tracefs_dynevent *kp[NR_PROBES] = { 0 };
	unsigned int have = 0;
	const char *why, *missing[NR_PROBES] = { 0 };
	struct tracefs_instance *inst = NULL;
	struct cidk_trace_event ev;
	struct pidset g = { 0 };
	unsigned char *cpus = NULL;
	char name[64], *path = NULL, line[CIDK_TRACE_LINE_MAX + 1];
	const char *dir;
	int go[2] = { -1, -1 }, status = CLI_EXIT_USAGE, ws = 0;
	unsigned long lineno = 0, kept = 0, total = 0;
	unsigned long long in_buf = 0, written = 0;
	FILE *in = NULL, *o = NULL;
	struct utsname u;
	pid_t child = -1;
	unsigned int ncpu = (unsigned int)get_nprocs_conf();

	/*
	 * tracefs_tracing_dir() caches the directory it finds (or mounts);
	 * tracefs_tracing_dir_is_mounted() hands out a copy nobody frees (a
	 * leak LeakSanitizer reports).  Mount it ourselves if neither finds it.
	 */
	dir = tracefs_tracing_dir();
	if (!dir && mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) &&
	    errno != EBUSY)
		return cli_error("%s: cannot mount tracefs: %s", cmdname,
				 strerror(errno));
	if (!dir && !(dir = tracefs_tracing_dir()))
		return cli_error("%s: no tracefs at /sys/kernel/tracing", cmdname);
	snprintf(name, sizeof(name), "cidkit-record-%ld", (long)getpid());
	inst = tracefs_instance_create(name);
	if (!inst)
		return cli_error("%s: cannot create the tracefs instance %s: %s",
				 cmdname, name, strerror(errno));
	cpus = calloc(ncpu ? ncpu : 1, 1);
	if (!cpus) {
		cli_error("%s: %s", cmdname, strerror(ENOMEM));
		goto out;
	}
	if (tracefs_instance_set_buffer_size(inst, buffer_kb, -1) < 0 ||
	    tracefs_option_enable(inst, TRACEFS_OPTION_RECORD_TGID) < 0) {
		cli_error("%s: cannot set up the tracefs instance: %s", cmdname,
			  strerror(errno));
		goto out;
	}
	tracefs_trace_off(inst);
	for (unsigned int i = 0; i < NR_EVENTS; i++)
		if (tracefs_event_enable(inst, events[i][0], events[i][1]) < 0) {
			cli_error("%s: this kernel has no tracepoint %s:%s",
				  cmdname, events[i][0], events[i][1]);
			goto out;
		}
	for (unsigned int i = 0; i < NR_PROBES; i++) {
		const struct probe *pr = &probes[i];

		if (!(want & pr->bit))
			continue;
		for (unsigned int f = 0; f < 2 && !kp[i]; f++) {
			const char *fn = f ? pr->func2 : pr->func;

			if (!fn)
				break;
			kp[i] = tracefs_kprobe_alloc("cidkit", pr->event, fn,
						     pr->format);
			if (kp[i] && tracefs_dynevent_create(kp[i]) < 0) {
				/* the kernel refuses it, or it exists
				   (another recorder's: used, left to it) */
				tracefs_dynevent_free(kp[i]);
				kp[i] = NULL;
				if (tracefs_event_file_exists(inst, "cidkit",
							      pr->event, "enable"))
					break;
			}
		}
		if (tracefs_event_file_exists(inst, "cidkit", pr->event, "enable") &&
		    tracefs_event_enable(inst, "cidkit", pr->event) >= 0) {
			have |= pr->bit;
			continue;
		}
		why = tracefs_file_exists(NULL, "kprobe_events")
			      ? "the kernel refused it (no such function, or no BTF: see tracefs error_log)"
			      : "this kernel has no kprobe events (CONFIG_KPROBE_EVENTS)";
		if (must & pr->bit) {
			cli_error("%s: cannot add the kprobe event cidkit/%s on %s: %s",
				  cmdname, pr->event, pr->func, why);
			goto out;
		}
		missing[i] = why; /* said with the summary */
	}
	if (pipe(go)) {
		cli_error("%s: pipe: %s", cmdname, strerror(errno));
		goto out;
	}
	fflush(NULL);
	child = fork();
	if (child < 0) {
		cli_error("%s: fork: %s", cmdname, strerror(errno));
		goto out;
	}
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		close(go[0]);
		execvp(argv[0], argv);
		fprintf(stderr, "cidkit: %s: %s: %s\n", cmdname, argv[0],
			strerror(errno));
		_exit(127);
	}
	close(go[0]);
	go[0] = -1;
	tracefs_trace_on(inst);
	if (write(go[1], "g", 1) != 1) {
		cli_error("%s: pipe: %s", cmdname, strerror(errno));
		goto out;
	}
	close(go[1]);
	go[1] = -1;
	if (seconds > 0) {
		struct timespec t0, now, nap = { 0, 1000000 };

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (;;) {
			pid_t w = waitpid(child, &ws, WNOHANG);

			if (w == child)
				break;
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((double)(now.tv_sec - t0.tv_sec) +
				    (double)(now.tv_nsec - t0.tv_nsec) / 1e9 >= seconds) {
				kill(child, SIGKILL);
				waitpid(child, &ws, 0);
				break;
			}
			nanosleep(&nap, NULL);
		}
	} else {
		waitpid(child, &ws, 0);
	}
	tracefs_trace_off(inst);
	for (unsigned int i = 0; i < NR_EVENTS; i++)
		tracefs_event_disable(inst, events[i][0], events[i][1]);
	for (unsigned int i = 0; i < NR_PROBES; i++)
		if (have & probes[i].bit)
			tracefs_event_disable(inst, "cidkit", probes[i].event);
	if (WIFEXITED(ws) && WEXITSTATUS(ws) == 127) {
		status = CLI_EXIT_USAGE; /* the child said why */
		goto out;
	}

	/* pass 1: the group's threads and CPUs, and lost events */
	path = tracefs_instance_get_file(inst, "trace");
	in = path ? fopen(path, "r") : NULL;
	if (!in) {
		cli_error("%s: cannot read the trace: %s", cmdname, strerror(errno));
		goto out;
	}
	while (fgets(line, sizeof(line), in)) {
		int rc = cidk_trace_parse_line(line, strlen(line), &ev, NULL);
		const char *e = strstr(line, "entries-in-buffer/entries-written: ");

		if (e)
			sscanf(e + 35, "%llu/%llu", &in_buf, &written);
		if (rc != 1)
			continue;
		total++;
		if (ev.tgid == (int)child && pid_add(&g, ev.pid)) {
			cli_error("%s: %s", cmdname, strerror(ENOMEM));
			goto out;
		}
	}
	if (in_buf != written) {
		cli_error("%s: the trace buffer lost %llu of %llu events (--buffer-kb, --seconds)",
			  cmdname, written - in_buf, written);
		goto out;
	}
	if (!g.n) {
		cli_error("%s: no event of %s (pid %d) was recorded", cmdname,
			  cli_q(argv[0]), (int)child);
		goto out;
	}
	rewind(in);
	while (fgets(line, sizeof(line), in))
		if (cidk_trace_parse_line(line, strlen(line), &ev, NULL) == 1 &&
		    pid_in(&g, ev.kind == CIDK_TRACE_SWITCH ? ev.next_pid : ev.pid) &&
		    ev.cpu < ncpu)
			cpus[ev.cpu] = 1;

	/* pass 2: the header, then the lines */
	o = fopen(out, "w");
	if (!o) {
		cli_error("%s: %s: %s", cmdname, cli_q(out), strerror(errno));
		goto out;
	}
	uname(&u);
	fprintf(o, "# cidkit-trace: kernel=%s cpus=%u tgid=%d threads=", u.release,
		ncpu, (int)child);
	for (unsigned int i = 0; i < g.n; i++)
		fprintf(o, "%s%d", i ? "," : "", g.v[i]);
	if (have) {
		const char *sep = " probes=";

		for (unsigned int i = 0; i < NR_PROBES; i++)
			if (have & probes[i].bit) {
				fprintf(o, "%s%s", sep, probes[i].event);
				sep = ",";
			}
	}
	fprintf(o, "\n# cidkit-trace: command=");
	for (char **a = argv; *a; a++)
		fprintf(o, "%s%s", a == argv ? "" : " ", cli_q(*a));
	fprintf(o, "\n");
	rewind(in);
	while (fgets(line, sizeof(line), in)) {
		int rc = cidk_trace_parse_line(line, strlen(line), &ev, NULL);

		lineno++;
		if (rc == 0 && line[0] == '#')
			fputs(line, o);
		else if (rc == 1 && ev.cpu < ncpu && keep(&ev, &g, cpus)) {
			fputs(line, o);
			kept++;
		}
	}
	if (fclose(o)) {
		o = NULL;
		cli_error("%s: %s: %s", cmdname, cli_q(out), strerror(errno));
		goto out;
	}
	o = NULL;
	for (unsigned int i = 0; i < NR_PROBES; i++)
		if (missing[i])
			fprintf(stderr, "trace record: not recorded: cidkit/%s, a kprobe on %s (%s): %s\n",
				probes[i].event, probes[i].func, probes[i].why,
				missing[i]);
	fprintf(stderr, "trace record: %lu of %lu events (thread group %d, %u threads) to %s\n",
		kept, total, (int)child, g.n, out);
	status = CLI_EXIT_OK;
out:
	if (o)
		fclose(o);
	if (in)
		fclose(in);
	if (go[0] >= 0)
		close(go[0]);
	if (go[1] >= 0)
		close(go[1]);
	if (child > 0 && waitpid(child, &ws, WNOHANG) == 0) {
		kill(child, SIGKILL);
		waitpid(child, &ws, 0);
	}
	tracefs_put_tracing_file(path);
	if (inst) {
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
	}
	for (unsigned int i = 0; i < NR_PROBES; i++)
		if (kp[i]) {
			/* fails while another instance has it on: left to it */
			tracefs_dynevent_destroy(kp[i], false);
			tracefs_dynevent_free(kp[i]);
		}
	free(cpus);
	free(g.v);
	(void)lineno;
	return status;
}
#endif

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
	"one missing under 'auto' is said on stderr, not recorded.\n";

static int cmd_trace_record(int argc, char **argv)
{
	const char *cmdname = "trace record";
	const char *out = "cidkit.trace";
	double seconds = 0;
	unsigned int buffer_kb = 16384, want, must;
	const char *kprobes = "auto";
	struct opt opts[] = {
		{ OPT_STRING("out", 'o', &out, "FILE", "where the trace goes") },
		{ OPT_DOUBLE("seconds", 's', &seconds, 0, 3600, "S",
			     "stop CMD (SIGKILL) after S seconds; 0: when it exits") },
		{ OPT_UINT("buffer-kb", 0, &buffer_kb, 64, 1u << 22, "KB",
			   "trace buffer per CPU") },
		{ OPT_STRING("kprobes", 0, &kprobes, "LIST",
			     "auto (each the kernel has), none, or a list of mm_cid_work, cpus_allowed, mm_cid_exit, mm_cid_fork (each must work)") },
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
#ifdef CIDKIT_HAVE_TRACEFS
	if (probes_parse(kprobes, &want, &must))
		return cli_error("%s: --kprobes %s: not auto, none or a list of mm_cid_work, cpus_allowed, mm_cid_exit, mm_cid_fork",
				 cmdname, cli_q(kprobes));
	return record(cmdname, out, seconds, buffer_kb, want, must, argv + first);
#else
	(void)want;
	(void)must;
	(void)kprobes;
	(void)seconds;
	(void)buffer_kb;
	(void)out;
	return cli_error("%s: this cidkit was built without libtracefs", cmdname);
#endif
}

static const struct cli_cmd subs[] = {
	{ "record", cmd_trace_record, "record a command's schedule and rseq IDs (libtracefs)" },
	{ NULL, NULL, NULL },
};

int cmd_trace(int argc, char **argv)
{
	return cli_dispatch("trace", subs, argc - 1, argv + 1);
}
