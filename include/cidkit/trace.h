/* SPDX-License-Identifier: MIT */
/*
 * cidkit/trace.h - real schedules: recording them (libtracefs), reading
 * the kernel's ftrace text and replaying it through every CID policy (the
 * lab's, like sim.h: trace/, linked into the command, not into
 * libcidkit.so, not installed).
 *
 * Reader.  trace-cmd's trace.dat (trace/dat.c), or the ftrace text format,
 * as /sys/kernel/tracing/trace prints it
 * (with or without the record-tgid column "(  TGID)" and the latency
 * flags) and as `trace-cmd report` prints it (no flags; sched_switch in
 * trace-cmd's own "COMM:PID [PRIO] STATE ==> COMM:PID [PRIO]" form).  One
 * line at a time: memory is one line buffer (at most CIDK_TRACE_LINE_MAX
 * bytes), whatever the trace's length.  The events kept are
 * rseq:rseq_update, sched:sched_switch, sched_migrate_task,
 * sched_process_fork, sched_process_exit, sched_process_exec,
 * sched_wakeup_new and sched_wakeup, and two kprobe events `cidkit trace
 * record` adds where the kernel lets it: "mm_cid_work" (an entry probe on
 * task_mm_cid_work(), the lazy family's compaction work; no fields) and
 * "cpus_allowed" (an entry probe on set_cpus_allowed_common() with the
 * fields pid=PID and mask=0xHEX, the first word of the new mask), and
 * "mm_cid_exit" (an entry probe on sched_mm_cid_exit_signals(), 6.4-6.18,
 * or sched_mm_cid_exit(), 6.19 on, where an exiting task gives its CID
 * back, early in do_exit(), before the futex wake-up of a joiner and
 * before sched_process_exit) and "mm_cid_fork" (an entry probe on
 * sched_mm_cid_fork(), in the parent, where copy_process() counts the new
 * user, before sched_process_fork): there
 * is no affinity-change tracepoint (sched_setaffinity's system-call event
 * carries a user pointer, not the mask).  Other events of a
 * well-formed line are skipped; blank lines and "#" comments are skipped,
 * except the header lines the reader learns from:
 *   "# entries-in-buffer/entries-written: A/B   #P:N"   N CPUs (ftrace)
 *   "cpus=N"                                           N CPUs (trace-cmd)
 *   "# cidkit-trace: kernel=RELEASE cpus=N tgid=T threads=P,P,... [probes=E,E]"
 *     written by `cidkit trace record`: the traced kernel, its CPUs, the
 *     thread group recorded and every thread of it, and the kprobe events
 *     that were on (mm_cid_work, cpus_allowed, mm_cid_exit, mm_cid_fork).
 *
 * Replay.  One mm (the thread group T) per policy, created at T's exec
 * (or at its first event when the trace has no exec), its threads joining
 * at their fork; every switch, migration and exit of a thread of T, and
 * every return to user space (an rseq_update event), drives each policy
 * through cid.h in trace order; other tasks are the policies' idle task.
 * Each rseq_update's mm_cid is compared with each policy's CID for that
 * task, and with two naive predictors: the lowest CID not held by another
 * running thread of T at the task's switch-in (as the kernel said), and the
 * task's previous mm_cid.  Deterministic: a pure function of the events.
 *
 * Not MT-safe: one reader or replay per thread.
 */
#ifndef CIDKIT_TRACE_H
#define CIDKIT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <cidkit/cid.h>
#include <cidkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CIDK_TRACE_LINE_MAX 4096 /* bytes of one line, with its newline */
#define CIDK_TRACE_COMM_LEN 16	 /* the kernel's TASK_COMM_LEN */

enum cidk_trace_kind {
	CIDK_TRACE_RSEQ_UPDATE, /* pid returned to user: cpu_id, node_id, mm_cid */
	CIDK_TRACE_SWITCH,	/* on cpu: prev_pid -> next_pid */
	CIDK_TRACE_MIGRATE,	/* pid: orig_cpu -> dest_cpu */
	CIDK_TRACE_FORK,	/* pid forked child_pid */
	CIDK_TRACE_EXIT,	/* pid exits (group_dead) */
	CIDK_TRACE_EXEC,	/* pid exec'd (a new mm) */
	CIDK_TRACE_WAKEUP_NEW,	/* pid, new, placed on target_cpu */
	CIDK_TRACE_WAKEUP,	/* pid woken: enqueued on target_cpu (sched_wakeup) */
	CIDK_TRACE_CID_WORK,	/* the line's task ran task_mm_cid_work() (the
				   kprobe event cidkit/mm_cid_work) */
	CIDK_TRACE_AFFINITY,	/* pid's allowed CPUs are now cpus_word (the
				   kprobe event cidkit/cpus_allowed) */
	CIDK_TRACE_CID_EXIT,	/* the line's task gives its CID up for its exit
				   (the kprobe event cidkit/mm_cid_exit) */
	CIDK_TRACE_CID_FORK,	/* the line's task (the parent) makes a new user
				   of its mm (the kprobe event cidkit/mm_cid_fork) */
	CIDK_TRACE_NR_KINDS,
};

/* One event.  Fields not used by its kind are zero. */
struct cidk_trace_event {
	enum cidk_trace_kind kind;
	uint64_t ts_ns;	  /* the timestamp, in ns */
	unsigned int cpu; /* the CPU column */
	int pid;	  /* the task of the line (the task column) */
	int tgid;	  /* its thread group, -1 when the trace has no column */
	/* by kind: */
	int prev_pid, next_pid;	 /* SWITCH */
	bool prev_runnable;	 /* SWITCH: prev_state R (preempted) */
	int task_pid;		 /* MIGRATE, EXIT, EXEC, WAKEUP_NEW, WAKEUP,
				    AFFINITY: the event's pid */
	int child_pid;		 /* FORK (task_pid: the parent) */
	int orig_cpu, dest_cpu;	 /* MIGRATE; dest_cpu: WAKEUP(_NEW)'s target_cpu */
	int cpu_id, node_id, mm_cid; /* RSEQ_UPDATE */
	bool group_dead;	 /* EXIT */
	uint64_t cpus_word;	 /* AFFINITY: CPUs 0-63 of the new mask */
};

/*
 * What a line was, for cidk_trace_parse_line() and the reader's header.
 */
struct cidk_trace_info {
	unsigned int nr_cpus; /* 0: not said yet */
	int tgid;	      /* -1: not said */
	char kernel[64];      /* "" when not said */
	int *threads;	      /* the header's thread list (malloc'd) */
	unsigned int nr_threads;
	unsigned int probes;  /* CIDK_TRACE_PROBE_*: kprobe events recorded */
};

/* The kprobe events a "# cidkit-trace: probes=A,B" header says were on. */
#define CIDK_TRACE_PROBE_CID_WORK 1u  /* "mm_cid_work" */
#define CIDK_TRACE_PROBE_AFFINITY 2u  /* "cpus_allowed" */
#define CIDK_TRACE_PROBE_CID_EXIT 4u  /* "mm_cid_exit" */
#define CIDK_TRACE_PROBE_CID_FORK 8u  /* "mm_cid_fork" */

/*
 * cidk_trace_parse_line - parse one line (@len bytes at @line, no NUL
 * needed, a trailing newline allowed) of the ftrace text format.
 * Returns 1 and *@ev for a kept event; 0 for a line that carries none (a
 * blank or comment line, a header line - then @info is updated when not
 * NULL - or another event); -EINVAL for a malformed line (not an event
 * line, a kept event with a missing or bad field, a number out of range,
 * a CPU >= CIDK_TRACE_MAX_CPUS); -ENOMEM (a thread list).  On failure
 * *@ev is unspecified and @info unchanged.
 */
#define CIDK_TRACE_MAX_CPUS 65536u
int cidk_trace_parse_line(const char *line, size_t len,
			  struct cidk_trace_event *ev,
			  struct cidk_trace_info *info);

void cidk_trace_info_init(struct cidk_trace_info *info);
void cidk_trace_info_fini(struct cidk_trace_info *info);

/* A streaming reader over a FILE (not owned: the caller closes it). */
struct cidk_trace_reader;

/*
 * cidk_trace_open_file - @file opened for cidk_trace_reader_open(): TRACE.xz
 * and TRACE.gz read through "xz -dc" and "gzip -dc" (a child, no shell,
 * its stderr silenced; *@pid is the child to wait for, else -1), any
 * other name with fopen().  NULL and errno on failure; a decompressor that
 * fails shows as the child's exit status.
 */
FILE *cidk_trace_open_file(const char *file, pid_t *pid);

/*
 * cidk_trace_reader_open - a reader of @f: the ftrace text format, or
 * trace-cmd's trace.dat when @f starts with its magic ("\027\010\104tracing",
 * read through libtracecmd; a trace.dat that cannot seek, a pipe, is first
 * copied to an unlinked temporary file in $TMPDIR or /tmp).  Returns 0 and
 * *@out; -ENOMEM; for a trace.dat also -EINVAL (a file libtracecmd cannot
 * read, a kept event without its fields), -EIO (the copy failed) or
 * -ENOTSUP (built without libtracecmd).
 */
int cidk_trace_reader_open(FILE *f, struct cidk_trace_reader **out);

/*
 * cidk_trace_reader_next - the next kept event.  Returns 1 and *@ev; 0 at
 * the end; -EINVAL for a malformed line or one longer than
 * CIDK_TRACE_LINE_MAX (cidk_trace_reader_line() says which); -EIO when
 * reading fails; -ENOMEM.
 */
int cidk_trace_reader_next(struct cidk_trace_reader *r,
			   struct cidk_trace_event *ev);

/* The number of the line read last (1 = the first); of a trace.dat, the
 * number of the record read last, kept or not (counted in timestamp order). */
unsigned long cidk_trace_reader_line(const struct cidk_trace_reader *r);

/* Whether the reader reads a trace.dat (records, not lines). */
bool cidk_trace_reader_is_dat(const struct cidk_trace_reader *r);

/* What the header lines said so far. */
const struct cidk_trace_info *
cidk_trace_reader_info(const struct cidk_trace_reader *r);

void cidk_trace_reader_close(struct cidk_trace_reader *r);

/* ---- replay ------------------------------------------------------------- */

#define CIDK_REPLAY_MAX_POLICIES 16
#define CIDK_REPLAY_MAX_DISAGREE 16

struct cidk_replay_params {
	unsigned int nr_cpus;	/* the trace's CPUs (every cpu below it) */
	int tgid;		/* the thread group replayed */
	const int *threads;	/* its threads, if known (else: fork lineage) */
	unsigned int nr_threads;
	unsigned int nr_policies;
	struct cidk_cid_params policy[CIDK_REPLAY_MAX_POLICIES];
	unsigned int keep_disagree; /* first disagreements kept (<= MAX) */
	int model;		/* index of the model policy, -1: none */
	/*
	 * The trace has the kernel's compaction calls (CID_WORK events): the
	 * lazy family's scan runs at them (trigger CIDK_CID_SCAN_TICK, period
	 * CIDK_REPLAY_SCAN_PERIOD_NS), never at a return to user space.
	 */
	bool kernel_scan;
};

/*
 * With kernel_scan: a task_mm_cid_work() call scans unless one did less
 * than this before.  The kernel's step is 100 ms in jiffies
 * (mm_cid_next_scan); a call that loses its cmpxchg comes within a few ms
 * of the winner, and a due one may come up to one jiffy (4 ms at HZ=250,
 * 10 ms at HZ=100) short of 100 ms by the trace clock.
 */
#define CIDK_REPLAY_SCAN_PERIOD_NS (90ull * 1000 * 1000)

/* One rseq_update the model did not predict, with its context. */
struct cidk_replay_disagree {
	uint64_t ts_ns;
	unsigned long event;	/* its index among the replayed events */
	int pid;
	unsigned int cpu;
	int kernel_cid;		/* the event's mm_cid */
	unsigned int model_cid; /* CIDK_CID_NONE: the model had none */
	int lowest_free, prev_cid; /* the naive predictors (-1: none) */
	unsigned int nr_users, nr_running; /* of the group, in the model */
	int last_switch_prev;	/* the switch that brought the task in: prev pid */
	uint64_t since_switch_ns; /* time since that switch */
};

struct cidk_replay_policy_result {
	struct cidk_cid_stats stats;
	uint64_t switches_in;	/* switch-ins of the group's threads (the
				   first task's exec counts as one) */
	uint64_t switches;	/* switches with a thread of the group on
				   either side (and those switch-ins) */
	uint64_t handed;	/* CIDs handed out (switch-ins with a CID) */
	unsigned int largest;	/* largest CID handed out (CIDK_CID_NONE: none) */
	unsigned int distinct;	/* distinct CIDs handed out */
	uint64_t agree;		/* rseq_update events predicted exactly */
};

struct cidk_replay_result {
	uint64_t events;	/* events given to the replay */
	uint64_t group_events;	/* of those, about the group */
	uint64_t rseq_updates;	/* rseq_update events of the group (after exec) */
	uint64_t naive_lowest;	/* predicted by the lowest free CID */
	uint64_t naive_prev;	/* predicted by the task's previous CID */
	unsigned int kernel_largest, kernel_distinct; /* the kernel's mm_cids */
	unsigned int threads;	/* threads of the group seen */
	uint64_t inconsistent;	/* events the model's state could not follow
				   (a thread switched in while running elsewhere) */
	unsigned int nr_policies;
	struct cidk_replay_policy_result pol[CIDK_REPLAY_MAX_POLICIES];
	unsigned int nr_disagree;
	struct cidk_replay_disagree disagree[CIDK_REPLAY_MAX_DISAGREE];
};

struct cidk_replay;

/*
 * cidk_replay_create - a replay of @p's group through @p's policies.
 * Returns 0 and *@out, -EINVAL (no CPU, more than 65536 CPUs, no or too
 * many policies, a bad model index or policy) or -ENOMEM.
 */
int cidk_replay_create(const struct cidk_replay_params *p,
		       struct cidk_replay **out);

/*
 * cidk_replay_event - replay one event, in trace order.  Returns 0,
 * -EINVAL (a CPU at or above nr_cpus, in the event or its fields: the
 * replay's state is unchanged) or -ENOMEM.
 */
int cidk_replay_event(struct cidk_replay *r, const struct cidk_trace_event *ev);

/* The figures so far (the replay may go on). */
void cidk_replay_result(const struct cidk_replay *r,
			struct cidk_replay_result *res);

void cidk_replay_destroy(struct cidk_replay *r);

/*
 * cidk_trace_kernel_model - the policy that models kernel @release
 * ("6.18.44-fc", "7.0.1"), after docs/cid.md: bitmap for 6.3 (the first
 * mm_cid kernel), lazy for 6.4 to 6.14, cache-local for 6.15 to 6.18,
 * ownership from 6.19.  Returns 0 and *@kind; -ENOENT for a kernel without
 * mm_cid (before 6.3); -EINVAL when @release does not start "MAJOR.MINOR".
 */
int cidk_trace_kernel_model(const char *release,
			    enum cidk_cid_policy_kind *kind);

/* ---- record ------------------------------------------------------------ */

/* One kprobe event a recording may add (the table above: trace/record.c). */
struct cidk_trace_probe {
	const char *event; /* "mm_cid_work": the event cidkit/EVENT */
	const char *func;  /* the kernel function probed */
	const char *why;   /* what it shows, for people */
	unsigned int bit;  /* CIDK_TRACE_PROBE_* */
};

/* The @i-th kprobe event a recording knows, NULL past the last one. */
const struct cidk_trace_probe *cidk_trace_probe(unsigned int i);

/*
 * cidk_trace_probes_parse - "auto" (every probe, each where the kernel
 * takes it), "none", or a comma list of probe names (each must work) ->
 * *@want and *@must, CIDK_TRACE_PROBE_* bits.  Returns 0, or -EINVAL (an
 * unknown or empty name; *@want and *@must unspecified).
 */
int cidk_trace_probes_parse(const char *s, unsigned int *want,
			    unsigned int *must);

struct cidk_trace_record_params {
	char *const *argv;   /* CMD and its arguments (NULL-terminated) */
	const char *out;     /* the trace file written */
	const char *command; /* the header's "command=" text, as the caller
				quotes it */
	double seconds;	     /* > 0: SIGKILL CMD after that long */
	unsigned int buffer_kb; /* per CPU */
	unsigned int want, must; /* CIDK_TRACE_PROBE_* (probes_parse) */
};

/* Where a recording stopped; the message in cidk_trace_record_result. */
enum cidk_trace_record_stage {
	CIDK_TRACE_REC_DONE,	/* recorded */
	CIDK_TRACE_REC_SETUP,	/* tracefs, its instance, a tracepoint, a
				   kprobe that must work, pipe or fork */
	CIDK_TRACE_REC_EXEC,	/* CMD could not be run (msg: strerror) */
	CIDK_TRACE_REC_READ,	/* the buffer: unreadable, or it lost events */
	CIDK_TRACE_REC_EMPTY,	/* no event of CMD's thread group (tgid) */
	CIDK_TRACE_REC_OUT,	/* writing @out (msg: strerror) */
	CIDK_TRACE_REC_NOTSUP,	/* built without libtracefs */
};

struct cidk_trace_record_result {
	enum cidk_trace_record_stage stage;
	char msg[256];		/* why, for a stage other than DONE: a
				   sentence of facts, no caller text */
	int tgid;		/* CMD's pid (its thread group) */
	unsigned int nr_threads; /* the group's threads recorded */
	unsigned long kept, total; /* events written, events in the buffer */
	unsigned int have;	/* CIDK_TRACE_PROBE_*: probes recorded */
	const char *missing[8];	/* per probe (cidk_trace_probe(i)): why a
				   wanted one was not recorded, NULL: not
				   wanted or recorded */
};

/*
 * cidk_trace_record - run @p->argv with the events trace.h reads on, in a
 * tracefs instance of its own (tracefs mounted when it is not), and
 * write to @p->out, in the ftrace text format, a "# cidkit-trace:" header
 * (kernel, CPUs, the thread group and its threads, the probes recorded,
 * the command), the buffer's header lines, every event of CMD's thread
 * group and every sched_switch on the CPUs it ran on.  The buffer is read
 * twice after CMD ends (threads and CPUs first, then the lines); a buffer
 * that lost events is a failure, not a shorter trace.  CMD inherits the
 * caller's standard streams; the caller's stdio buffers are flushed
 * before the fork.  Returns 0 (@res->stage DONE), or a negative errno
 * (-ENOTSUP: built without libtracefs; -EIO: the buffer lost events;
 * -ESRCH: no event of the group; else the failing call's) with
 * @res->stage and @res->msg saying where and why; the instance and the
 * kprobe events it created are removed, CMD killed if it still runs.
 * Needs root or tracefs access.  Not MT-safe (it forks and waits).
 */
int cidk_trace_record(const struct cidk_trace_record_params *p,
		      struct cidk_trace_record_result *res);

#ifdef __cplusplus
}
#endif

#endif /* CIDKIT_TRACE_H */
