/* SPDX-License-Identifier: MIT */
/*
 * The ftrace text reader (trace/text.c, trace/reader.c) and the replay
 * (trace/replay.c) on any text.  Properties: every kept event,
 * written back in the canonical ftrace form (this harness's own writer),
 * parses to the same event (round trip); no line of a kept event is
 * skipped, and each is kept as its kind: the harness finds each line's
 * event name itself (the token after the timestamp's colon, which follows
 * the first " [CPU]") and looks it up in its own table of the ftrace
 * names, so a reader that silently dropped or mislabelled a kind fails
 * here (the round trip sees only what the reader kept); every kind this
 * harness writes reads back as that kind; the streaming reader gives the
 * events the line parser gives, line by line, and stops at the first
 * malformed line with that line's number; the replay of those events
 * never counts more agreements or naive hits than rseq_update events, nor
 * more distinct CIDs than CPUs; a CPU beyond the trace's is refused
 * without a change.
 */
#include <errno.h>

#include <cidkit/trace.h>

#include "fuzz.h"

#define NCPUS 8

static void write_event(const struct cidk_trace_event *e, char *buf, size_t n)
{
	int k = snprintf(buf, n, "  t-%d ", e->pid);

	if (e->tgid >= 0)
		k += snprintf(buf + k, n - (size_t)k, "(%7d) ", e->tgid);
	else
		k += snprintf(buf + k, n - (size_t)k, "(-------) ");
	k += snprintf(buf + k, n - (size_t)k, "[%03u] d..2. %llu.%09llu: ",
		      e->cpu, (unsigned long long)(e->ts_ns / 1000000000ull),
		      (unsigned long long)(e->ts_ns % 1000000000ull));
	switch (e->kind) {
	case CIDK_TRACE_RSEQ_UPDATE:
		snprintf(buf + k, n - (size_t)k,
			 "rseq_update: cpu_id=%d node_id=%d mm_cid=%d\n",
			 e->cpu_id, e->node_id, e->mm_cid);
		break;
	case CIDK_TRACE_SWITCH:
		snprintf(buf + k, n - (size_t)k,
			 "sched_switch: prev_comm=a prev_pid=%d prev_prio=120 prev_state=%s ==> next_comm=b next_pid=%d next_prio=120\n",
			 e->prev_pid, e->prev_runnable ? "R" : "S", e->next_pid);
		break;
	case CIDK_TRACE_MIGRATE:
		snprintf(buf + k, n - (size_t)k,
			 "sched_migrate_task: comm=a pid=%d prio=120 orig_cpu=%d dest_cpu=%d\n",
			 e->task_pid, e->orig_cpu, e->dest_cpu);
		break;
	case CIDK_TRACE_FORK:
		snprintf(buf + k, n - (size_t)k,
			 "sched_process_fork: comm=a pid=%d child_comm=a child_pid=%d\n",
			 e->task_pid, e->child_pid);
		break;
	case CIDK_TRACE_EXIT:
		snprintf(buf + k, n - (size_t)k,
			 "sched_process_exit: comm=a pid=%d prio=120 group_dead=%s\n",
			 e->task_pid, e->group_dead ? "true" : "false");
		break;
	case CIDK_TRACE_EXEC:
		snprintf(buf + k, n - (size_t)k,
			 "sched_process_exec: filename=/x pid=%d old_pid=%d\n",
			 e->task_pid, e->task_pid);
		break;
	case CIDK_TRACE_WAKEUP:
		snprintf(buf + k, n - (size_t)k,
			 "sched_wakeup: comm=a pid=%d prio=120 target_cpu=%03d\n",
			 e->task_pid, e->dest_cpu);
		break;
	case CIDK_TRACE_CID_WORK:
		snprintf(buf + k, n - (size_t)k,
			 "mm_cid_work: (task_mm_cid_work+0x4/0x220)\n");
		break;
	case CIDK_TRACE_CID_EXIT:
		snprintf(buf + k, n - (size_t)k,
			 "mm_cid_exit: (sched_mm_cid_exit_signals+0x4/0x120)\n");
		break;
	case CIDK_TRACE_CID_FORK:
		snprintf(buf + k, n - (size_t)k,
			 "mm_cid_fork: (sched_mm_cid_fork+0x4/0x320)\n");
		break;
	case CIDK_TRACE_AFFINITY:
		snprintf(buf + k, n - (size_t)k,
			 "cpus_allowed: (set_cpus_allowed_common+0x4/0x50) pid=%d mask=0x%llx\n",
			 e->task_pid, (unsigned long long)e->cpus_word);
		break;
	default:
		snprintf(buf + k, n - (size_t)k,
			 "sched_wakeup_new: comm=a pid=%d prio=120 target_cpu=%03d\n",
			 e->task_pid, e->dest_cpu);
		break;
	}
}

/* The events the reader keeps, by their ftrace names (trace/text.c). */
static const struct {
	const char *name;
	enum cidk_trace_kind kind;
} kept[] = {
	{ "rseq_update", CIDK_TRACE_RSEQ_UPDATE },
	{ "sched_switch", CIDK_TRACE_SWITCH },
	{ "sched_migrate_task", CIDK_TRACE_MIGRATE },
	{ "sched_process_fork", CIDK_TRACE_FORK },
	{ "sched_process_exit", CIDK_TRACE_EXIT },
	{ "sched_process_exec", CIDK_TRACE_EXEC },
	{ "sched_wakeup_new", CIDK_TRACE_WAKEUP_NEW },
	{ "sched_wakeup", CIDK_TRACE_WAKEUP },
	{ "mm_cid_work", CIDK_TRACE_CID_WORK },
	{ "mm_cid_exit", CIDK_TRACE_CID_EXIT },
	{ "mm_cid_fork", CIDK_TRACE_CID_FORK },
	{ "cpus_allowed", CIDK_TRACE_AFFINITY },
};

/*
 * The kind of the event line s[0..n) by its name, or -1 (no name, or one
 * not kept).  Found without the reader, by the format's landmarks: after
 * the first " [digits]" (the CPU column) the first ':' ends the timestamp
 * (flags hold no ':'), and the name runs from there to the next ':' or
 * ' '.  Comment lines ('#' first) have none.  Exact for every line the
 * reader does not reject.
 */
static int kind_by_name(const char *s, size_t n)
{
	size_t i = 0, b, e, p, q;

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	while (i < n && s[i] == ' ')
		i++;
	if (i < n && s[i] == '#')
		return -1;
	for (b = i; b + 3 < n; b++) {
		if (s[b] != ' ' || s[b + 1] != '[' || s[b + 2] < '0' || s[b + 2] > '9')
			continue;
		for (e = b + 2; e < n && s[e] >= '0' && s[e] <= '9'; e++)
			;
		if (e < n && s[e] == ']')
			break;
	}
	if (b + 3 >= n)
		return -1;
	p = e;
	while (p < n && s[p] != ':')
		p++;
	for (p++; p < n && s[p] == ' '; p++)
		;
	for (q = p; q < n && s[q] != ':' && s[q] != ' '; q++)
		;
	for (size_t k = 0; k < sizeof(kept) / sizeof(kept[0]); k++)
		if (strlen(kept[k].name) == q - p && !memcmp(s + p, kept[k].name, q - p))
			return (int)kept[k].kind;
	return -1;
}

/* Every kind the harness writes (all of them) reads back as that kind. */
static void every_kind_reads_back(void)
{
	static bool done;
	struct cidk_trace_event e, back;
	char buf[512];

	if (done)
		return;
	done = true;
	for (unsigned int k = 0; k < CIDK_TRACE_NR_KINDS; k++) {
		memset(&e, 0, sizeof(e));
		e.kind = (enum cidk_trace_kind)k;
		e.pid = 7;
		e.tgid = 5;
		e.cpu = 3;
		e.ts_ns = 1234567890123ull;
		e.task_pid = 9;
		e.child_pid = 11;
		e.dest_cpu = 2;
		e.orig_cpu = 1;
		e.next_pid = 13;
		e.prev_pid = 7;
		e.cpus_word = 0xf0;
		write_event(&e, buf, sizeof(buf));
		FUZZ_CHECK(cidk_trace_parse_line(buf, strlen(buf), &back, NULL) == 1);
		FUZZ_CHECK(back.kind == e.kind);
		FUZZ_CHECK(kind_by_name(buf, strlen(buf)) == (int)e.kind);
		FUZZ_CHECK(back.pid == 7 && back.tgid == 5 && back.cpu == 3 &&
			   back.ts_ns == e.ts_ns);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cidk_replay_params p = { .nr_cpus = NCPUS, .tgid = 1,
					.nr_policies = CIDK_CID_NR_POLICIES,
					.keep_disagree = 4, .model = 3 };
	struct cidk_trace_reader *rd;
	struct cidk_replay_result *res;
	struct cidk_trace_event ev, ev2, evr;
	struct cidk_trace_info info;
	struct cidk_replay *rp;
	unsigned long line = 0;
	char buf[512];
	size_t at = 0;
	FILE *f;
	int rc = 0;

	every_kind_reads_back();
	if (size > 1 << 16)
		return 0;
	for (unsigned int i = 0; i < CIDK_CID_NR_POLICIES; i++)
		cidk_cid_params_default(&p.policy[i], i);
	if (cidk_replay_create(&p, &rp))
		abort();
	f = fmemopen((void *)data, size ? size : 1, "r");
	if (!f || cidk_trace_reader_open(f, &rd))
		abort();
	if (!size)
		fgetc(f); /* fmemopen of 0 bytes is refused: read the one */
	cidk_trace_info_init(&info);
	while (at < size) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t len = nl ? (size_t)(nl - (data + at)) + 1 : size - at;
		bool has_nul = memchr(data + at, 0, len) != NULL;

		line++;
		if (len > CIDK_TRACE_LINE_MAX || has_nul)
			break; /* the reader's own cases: checked below */
		rc = cidk_trace_parse_line((const char *)data + at, len, &ev, &info);
		/* a kept event is never skipped, and kept as its own kind */
		if (rc == 0)
			FUZZ_CHECK(kind_by_name((const char *)data + at, len) < 0);
		if (rc == 1)
			FUZZ_CHECK(kind_by_name((const char *)data + at, len) ==
				   (int)ev.kind);
		if (rc < 0) {
			FUZZ_CHECK(rc == -EINVAL || rc == -ENOMEM);
			FUZZ_CHECK(cidk_trace_reader_next(rd, &evr) == rc);
			FUZZ_CHECK(cidk_trace_reader_line(rd) == line);
			break;
		}
		if (rc == 1) {
			FUZZ_CHECK(ev.kind < CIDK_TRACE_NR_KINDS);
			FUZZ_CHECK(ev.cpu < CIDK_TRACE_MAX_CPUS);
			FUZZ_CHECK(cidk_trace_reader_next(rd, &evr) == 1);
			FUZZ_CHECK(cidk_trace_reader_line(rd) == line);
			FUZZ_CHECK(!memcmp(&ev, &evr, sizeof(ev)));
			write_event(&ev, buf, sizeof(buf));
			FUZZ_CHECK(cidk_trace_parse_line(buf, strlen(buf), &ev2,
							 NULL) == 1);
			if (ev.kind != CIDK_TRACE_EXIT)
				ev2.group_dead = ev.group_dead;
			FUZZ_CHECK(!memcmp(&ev, &ev2, sizeof(ev)));
			rc = cidk_replay_event(rp, &ev);
			FUZZ_CHECK(rc == 0 || rc == -EINVAL);
			FUZZ_CHECK(rc == 0 || ev.cpu >= NCPUS ||
				   ev.kind == CIDK_TRACE_MIGRATE ||
				   ev.kind == CIDK_TRACE_WAKEUP_NEW ||
				   ev.kind == CIDK_TRACE_WAKEUP ||
				   ev.kind == CIDK_TRACE_RSEQ_UPDATE);
		}
		at += len;
	}
	if (at >= size)
		FUZZ_CHECK(cidk_trace_reader_next(rd, &evr) == 0);
	res = malloc(sizeof(*res));
	if (!res)
		abort();
	cidk_replay_result(rp, res);
	FUZZ_CHECK(res->naive_lowest <= res->rseq_updates);
	FUZZ_CHECK(res->naive_prev <= res->rseq_updates);
	FUZZ_CHECK(res->kernel_distinct <= NCPUS);
	for (unsigned int i = 0; i < res->nr_policies; i++) {
		FUZZ_CHECK(res->pol[i].agree <= res->rseq_updates);
		FUZZ_CHECK(res->pol[i].distinct <= NCPUS);
		FUZZ_CHECK(res->pol[i].switches_in <= res->pol[i].switches);
	}
	FUZZ_CHECK(res->nr_disagree <= 4);
	free(res);
	cidk_trace_info_fini(&info);
	cidk_trace_reader_close(rd);
	fclose(f);
	cidk_replay_destroy(rp);
	return 0;
}
