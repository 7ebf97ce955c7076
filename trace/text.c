/* SPDX-License-Identifier: MIT */
/*
 * trace/text.c - one line of the ftrace text format -> one event.
 *
 * An event line is
 *   COMM-PID [(TGID)] [CPU] [FLAGS] SECONDS.FRACTION: EVENT: FIELDS
 * where COMM may hold spaces, dashes and brackets (it ends at the last '-'
 * before the PID that precedes the "[CPU]" column), the TGID column is
 * there with the record-tgid option ("(-------)" when unknown), FLAGS are
 * the latency flags of /sys/kernel/tracing/trace (absent in trace-cmd
 * report's output), and FIELDS are the event's "name=value" pairs (or
 * trace-cmd's sched_switch form).  Values are looked up by " name=" so that
 * a comm with '=' in it before the field cannot shift the others (the
 * field names of the kept events come after their comm, or hold none).
 *
 * Hot path: every line of a trace; no allocation, no copy, one pass over
 * the prefix and one look-up per field.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/trace.h>

struct span {
	const char *s;
	size_t n;
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A decimal at s[0..n), optionally negative; 0 or -EINVAL. */
static int parse_int(const char *s, size_t n, long long lo, long long hi,
		     long long *out)
{
	bool neg = false;
	long long v = 0;
	size_t i = 0;

	if (n && s[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i == n || n - i > 18)
		return -EINVAL;
	for (; i < n; i++) {
		if (!is_digit(s[i]))
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	if (neg)
		v = -v;
	if (v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "0x" and 1-16 hex digits; 0 or -EINVAL. */
static int parse_hex64(struct span v, uint64_t *out)
{
	uint64_t x = 0;

	if (v.n < 3 || v.n > 18 || v.s[0] != '0' || (v.s[1] != 'x' && v.s[1] != 'X'))
		return -EINVAL;
	for (size_t i = 2; i < v.n; i++) {
		char c = v.s[i];
		unsigned int d;

		if (is_digit(c))
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			return -EINVAL;
		x = x << 4 | d;
	}
	*out = x;
	return 0;
}

/* The value of " name=" in @f: up to the next space or the end. */
static int field(struct span f, const char *name, struct span *val)
{
	size_t nl = strlen(name);

	for (size_t i = 0; i + nl + 1 <= f.n; i++) {
		if ((i == 0 || f.s[i - 1] == ' ') && f.s[i + nl] == '=' &&
		    !memcmp(f.s + i, name, nl)) {
			size_t j = i + nl + 1, k = j;

			while (k < f.n && f.s[k] != ' ')
				k++;
			val->s = f.s + j;
			val->n = k - j;
			return 0;
		}
	}
	return -EINVAL;
}

static int field_int(struct span f, const char *name, long long lo,
		     long long hi, int *out)
{
	struct span v;
	long long x;

	if (field(f, name, &v) || parse_int(v.s, v.n, lo, hi, &x))
		return -EINVAL;
	*out = (int)x;
	return 0;
}

/* trace-cmd's "COMM:PID [PRIO]" at the end of @s: the PID. */
static int tc_pid(const char *s, size_t n, int *pid)
{
	size_t b, c;
	long long v;

	/* strip " [PRIO]" */
	while (n && s[n - 1] == ' ')
		n--;
	if (!n || s[n - 1] != ']')
		return -EINVAL;
	for (b = n; b && s[b - 1] != '['; b--)
		;
	if (b < 2 || s[b - 2] != ' ')
		return -EINVAL;
	n = b - 2;
	for (c = n; c && s[c - 1] != ':'; c--)
		;
	if (!c || parse_int(s + c, n - c, 0, INT_MAX, &v))
		return -EINVAL;
	*pid = (int)v;
	return 0;
}

/*
 * sched_switch: "prev_comm=... prev_pid=P prev_prio=.. prev_state=S ==>
 * next_comm=... next_pid=N next_prio=..", or trace-cmd's
 * "PCOMM:P [PRIO] S ==> NCOMM:N [PRIO]".
 */
static int parse_switch(struct span f, struct cidk_trace_event *ev)
{
	const char *arrow = NULL;
	struct span st;

	for (size_t i = 0; i + 5 <= f.n; i++)
		if (!memcmp(f.s + i, " ==> ", 5)) {
			arrow = f.s + i;
			break;
		}
	if (!arrow)
		return -EINVAL;
	if (!field(f, "prev_pid", &st)) {
		struct span left = { f.s, (size_t)(arrow - f.s) };
		struct span right = { arrow + 5, f.n - (size_t)(arrow + 5 - f.s) };

		if (field_int(left, "prev_pid", 0, INT_MAX, &ev->prev_pid) ||
		    field(left, "prev_state", &st) ||
		    field_int(right, "next_pid", 0, INT_MAX, &ev->next_pid))
			return -EINVAL;
	} else {
		/* trace-cmd: the state is the word before the arrow */
		size_t e = (size_t)(arrow - f.s), b = e;

		while (b && f.s[b - 1] != ' ')
			b--;
		if (b == e || b < 1)
			return -EINVAL;
		st.s = f.s + b;
		st.n = e - b;
		if (tc_pid(f.s, b - 1, &ev->prev_pid) ||
		    tc_pid(arrow + 5, f.n - (size_t)(arrow + 5 - f.s),
			   &ev->next_pid))
			return -EINVAL;
	}
	if (!st.n)
		return -EINVAL;
	ev->prev_runnable = st.s[0] == 'R';
	return 0;
}

/*
 * trace-cmd's sched_wakeup_new: "COMM:PID [PRIO] [success=N] CPU:NNN"
 * (its sched_switch plugin's form).
 */
static int parse_tc_wakeup(struct span f, struct cidk_trace_event *ev)
{
	size_t e = f.n, c;
	long long cpu;

	while (e && (f.s[e - 1] == ' ' || f.s[e - 1] == '\n'))
		e--;
	for (c = e; c >= 5 && memcmp(f.s + c - 5, " CPU:", 5); c--)
		;
	if (c < 5 || parse_int(f.s + c, e - c, 0, CIDK_TRACE_MAX_CPUS - 1, &cpu))
		return -EINVAL;
	ev->dest_cpu = (int)cpu;
	c -= 5;
	/* an optional " success=N" before it */
	for (size_t b = c; b > 9; b--)
		if (!memcmp(f.s + b - 9, " success=", 9)) {
			c = b - 9;
			break;
		}
	return tc_pid(f.s, c, &ev->task_pid);
}

static int parse_fields(const char *name, size_t nn, struct span f,
			struct cidk_trace_event *ev)
{
	const int M = CIDK_TRACE_MAX_CPUS - 1;

#define IS(lit) (nn == sizeof(lit) - 1 && !memcmp(name, lit, nn))
	if (IS("rseq_update")) {
		ev->kind = CIDK_TRACE_RSEQ_UPDATE;
		if (field_int(f, "cpu_id", -1, M, &ev->cpu_id) ||
		    field_int(f, "node_id", -1, INT_MAX, &ev->node_id) ||
		    field_int(f, "mm_cid", -1, M, &ev->mm_cid))
			return -EINVAL;
		return 1;
	}
	if (IS("sched_switch")) {
		ev->kind = CIDK_TRACE_SWITCH;
		return parse_switch(f, ev) ? -EINVAL : 1;
	}
	if (IS("sched_migrate_task")) {
		ev->kind = CIDK_TRACE_MIGRATE;
		if (field_int(f, "pid", 0, INT_MAX, &ev->task_pid) ||
		    field_int(f, "orig_cpu", 0, M, &ev->orig_cpu) ||
		    field_int(f, "dest_cpu", 0, M, &ev->dest_cpu))
			return -EINVAL;
		return 1;
	}
	if (IS("sched_process_fork")) {
		ev->kind = CIDK_TRACE_FORK;
		if (field_int(f, "pid", 0, INT_MAX, &ev->task_pid) ||
		    field_int(f, "child_pid", 0, INT_MAX, &ev->child_pid))
			return -EINVAL;
		return 1;
	}
	if (IS("sched_process_exit")) {
		struct span g;

		ev->kind = CIDK_TRACE_EXIT;
		if (field_int(f, "pid", 0, INT_MAX, &ev->task_pid))
			return -EINVAL;
		/* group_dead= came with Linux 6.x; older traces have none */
		ev->group_dead = !field(f, "group_dead", &g) && g.n == 4 &&
				 !memcmp(g.s, "true", 4);
		return 1;
	}
	if (IS("sched_process_exec")) {
		ev->kind = CIDK_TRACE_EXEC;
		if (field_int(f, "pid", 0, INT_MAX, &ev->task_pid))
			return -EINVAL;
		return 1;
	}
	if (IS("sched_wakeup_new")) {
		struct span v;

		ev->kind = CIDK_TRACE_WAKEUP_NEW;
		if (!field(f, "pid", &v))
			return field_int(f, "pid", 0, INT_MAX, &ev->task_pid) ||
			       field_int(f, "target_cpu", 0, M, &ev->dest_cpu)
				       ? -EINVAL : 1;
		return parse_tc_wakeup(f, ev) ? -EINVAL : 1;
	}
	if (IS("sched_wakeup")) {
		struct span v;

		ev->kind = CIDK_TRACE_WAKEUP;
		if (!field(f, "pid", &v))
			return field_int(f, "pid", 0, INT_MAX, &ev->task_pid) ||
			       field_int(f, "target_cpu", 0, M, &ev->dest_cpu)
				       ? -EINVAL : 1;
		return parse_tc_wakeup(f, ev) ? -EINVAL : 1;
	}
	/* the kprobe events of `cidkit trace record` (trace.h) */
	if (IS("mm_cid_work")) {
		ev->kind = CIDK_TRACE_CID_WORK;
		return 1;
	}
	if (IS("mm_cid_exit")) {
		ev->kind = CIDK_TRACE_CID_EXIT;
		return 1;
	}
	if (IS("mm_cid_fork")) {
		ev->kind = CIDK_TRACE_CID_FORK;
		return 1;
	}
	if (IS("cpus_allowed")) {
		struct span v;

		ev->kind = CIDK_TRACE_AFFINITY;
		if (field_int(f, "pid", 0, INT_MAX, &ev->task_pid) ||
		    field(f, "mask", &v) || parse_hex64(v, &ev->cpus_word))
			return -EINVAL;
		return 1;
	}
#undef IS
	return 0;
}

/* "N,N,..." into a new array. */
static int parse_threads(struct span v, int **out, unsigned int *n)
{
	unsigned int cnt = 1, k = 0;
	int *a;

	for (size_t i = 0; i < v.n; i++)
		cnt += v.s[i] == ',';
	a = malloc(cnt * sizeof(*a));
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i <= v.n;) {
		size_t j = i;
		long long x;

		while (j < v.n && v.s[j] != ',')
			j++;
		if (parse_int(v.s + i, j - i, 0, INT_MAX, &x)) {
			free(a);
			return -EINVAL;
		}
		a[k++] = (int)x;
		i = j + 1;
	}
	*out = a;
	*n = k;
	return 0;
}

/* A comment or header line; 0 or an error. */
static int parse_header(struct span l, struct cidk_trace_info *info)
{
	static const char ck[] = "# cidkit-trace:";
	struct span v;
	long long x;

	if (!info)
		return 0;
	if (l.n >= sizeof(ck) - 1 && !memcmp(l.s, ck, sizeof(ck) - 1)) {
		struct span f = { l.s + sizeof(ck) - 2, l.n - (sizeof(ck) - 2) };
		unsigned int ncpu = info->nr_cpus;
		int tgid = info->tgid, *th = NULL;
		unsigned int nth = 0, probes = info->probes;
		struct span k = { "", 0 };
		int rc;

		if (!field(f, "cpus", &v)) {
			if (parse_int(v.s, v.n, 1, CIDK_TRACE_MAX_CPUS, &x))
				return -EINVAL;
			ncpu = (unsigned int)x;
		}
		if (!field(f, "tgid", &v)) {
			if (parse_int(v.s, v.n, 0, INT_MAX, &x))
				return -EINVAL;
			tgid = (int)x;
		}
		if (!field(f, "kernel", &k) && k.n >= sizeof(info->kernel))
			return -EINVAL;
		if (!field(f, "probes", &v)) {
			for (size_t a = 0, z; a < v.n; a = z + 1) {
				for (z = a; z < v.n && v.s[z] != ','; z++)
					;
				if (z - a == 11 && !memcmp(v.s + a, "mm_cid_work", 11))
					probes |= CIDK_TRACE_PROBE_CID_WORK;
				else if (z - a == 12 &&
					 !memcmp(v.s + a, "cpus_allowed", 12))
					probes |= CIDK_TRACE_PROBE_AFFINITY;
				else if (z - a == 11 &&
					 !memcmp(v.s + a, "mm_cid_exit", 11))
					probes |= CIDK_TRACE_PROBE_CID_EXIT;
				else if (z - a == 11 &&
					 !memcmp(v.s + a, "mm_cid_fork", 11))
					probes |= CIDK_TRACE_PROBE_CID_FORK;
				else if (z > a)
					return -EINVAL;
			}
		}
		if (!field(f, "threads", &v)) {
			rc = parse_threads(v, &th, &nth);
			if (rc)
				return rc;
		}
		info->nr_cpus = ncpu;
		info->tgid = tgid;
		info->probes = probes;
		if (k.n) {
			memcpy(info->kernel, k.s, k.n);
			info->kernel[k.n] = 0;
		}
		if (th) {
			free(info->threads);
			info->threads = th;
			info->nr_threads = nth;
		}
		return 0;
	}
	/* ftrace: "# entries-in-buffer/entries-written: A/B   #P:N" */
	for (size_t i = 1; i + 3 <= l.n; i++)
		if (l.s[i] == '#' && l.s[i + 1] == 'P' && l.s[i + 2] == ':') {
			size_t j = i + 3, e = j;

			while (e < l.n && is_digit(l.s[e]))
				e++;
			if (parse_int(l.s + j, e - j, 1, CIDK_TRACE_MAX_CPUS, &x))
				return -EINVAL;
			info->nr_cpus = (unsigned int)x;
			return 0;
		}
	return 0;
}

void cidk_trace_info_init(struct cidk_trace_info *info)
{
	memset(info, 0, sizeof(*info));
	info->tgid = -1;
}

void cidk_trace_info_fini(struct cidk_trace_info *info)
{
	free(info->threads);
	info->threads = NULL;
	info->nr_threads = 0;
}

int cidk_trace_parse_line(const char *line, size_t len,
			  struct cidk_trace_event *ev,
			  struct cidk_trace_info *info)
{
	struct span l = { line, len }, f;
	size_t i, b, e, p, nb, ne;
	long long x, sec;
	uint64_t frac, scale;

	while (l.n && (l.s[l.n - 1] == '\n' || l.s[l.n - 1] == '\r'))
		l.n--;
	for (i = 0; i < l.n && l.s[i] == ' '; i++)
		;
	if (i == l.n)
		return 0;
	if (l.s[i] == '#') {
		struct span h = { l.s + i, l.n - i };

		return parse_header(h, info);
	}
	/* trace-cmd report's first line: "cpus=N" */
	if (l.n - i > 5 && !memcmp(l.s + i, "cpus=", 5)) {
		if (parse_int(l.s + i + 5, l.n - i - 5, 1, CIDK_TRACE_MAX_CPUS, &x))
			return -EINVAL;
		if (info)
			info->nr_cpus = (unsigned int)x;
		return 0;
	}
	memset(ev, 0, sizeof(*ev));
	ev->tgid = -1;
	/* the CPU column: the first " [digits]" */
	for (b = i; b + 3 < l.n; b++) {
		if (l.s[b] != ' ' || l.s[b + 1] != '[' || !is_digit(l.s[b + 2]))
			continue;
		for (e = b + 2; e < l.n && is_digit(l.s[e]); e++)
			;
		if (e < l.n && l.s[e] == ']')
			break;
	}
	if (b + 3 >= l.n)
		return -EINVAL;
	if (parse_int(l.s + b + 2, e - b - 2, 0, CIDK_TRACE_MAX_CPUS - 1, &x))
		return -EINVAL;
	ev->cpu = (unsigned int)x;
	/* before it: COMM-PID, then an optional "(TGID)" */
	p = b;
	while (p > i && l.s[p - 1] == ' ')
		p--;
	if (p > i && l.s[p - 1] == ')') {
		size_t q = p - 1;

		while (q > i && l.s[q - 1] != '(')
			q--;
		if (q == i)
			return -EINVAL;
		nb = q;
		ne = p - 1;
		while (nb < ne && l.s[nb] == ' ')
			nb++;
		if (nb < ne && l.s[nb] == '-') {
			for (size_t k = nb; k < ne; k++)
				if (l.s[k] != '-')
					return -EINVAL;
		} else if (parse_int(l.s + nb, ne - nb, 0, INT_MAX, &x)) {
			return -EINVAL;
		} else {
			ev->tgid = (int)x;
		}
		p = q - 1;
		while (p > i && l.s[p - 1] == ' ')
			p--;
	}
	for (nb = p; nb > i && is_digit(l.s[nb - 1]); nb--)
		;
	if (nb == p || nb == i || l.s[nb - 1] != '-' ||
	    parse_int(l.s + nb, p - nb, 0, INT_MAX, &x))
		return -EINVAL;
	ev->pid = (int)x;
	/* after it: [FLAGS] SECONDS.FRACTION: */
	p = e + 1;
	while (p < l.n && l.s[p] == ' ')
		p++;
	nb = p;
	while (nb < l.n && l.s[nb] != ' ' && l.s[nb] != ':')
		nb++;
	if (nb < l.n && l.s[nb] == ' ') { /* that was the flags */
		p = nb;
		while (p < l.n && l.s[p] == ' ')
			p++;
	}
	for (nb = p; nb < l.n && is_digit(l.s[nb]); nb++)
		;
	if (nb == p || nb >= l.n || l.s[nb] != '.' ||
	    parse_int(l.s + p, nb - p, 0, 1000000000ll * 1000, &sec))
		return -EINVAL;
	frac = 0;
	scale = 1000000000ull;
	for (ne = nb + 1; ne < l.n && is_digit(l.s[ne]); ne++) {
		if (ne - nb > 9)
			return -EINVAL;
		frac = frac * 10 + (uint64_t)(l.s[ne] - '0');
		scale /= 10;
	}
	if (ne == nb + 1 || ne >= l.n || l.s[ne] != ':')
		return -EINVAL;
	ev->ts_ns = (uint64_t)sec * 1000000000ull + frac * scale;
	/* " EVENT: FIELDS" */
	p = ne + 1;
	while (p < l.n && l.s[p] == ' ')
		p++;
	for (nb = p; nb < l.n && l.s[nb] != ':' && l.s[nb] != ' '; nb++)
		;
	if (nb == p || nb >= l.n || l.s[nb] != ':')
		return -EINVAL;
	f.s = l.s + nb + 1;
	f.n = l.n - nb - 1;
	while (f.n && f.s[0] == ' ') {
		f.s++;
		f.n--;
	}
	return parse_fields(l.s + p, nb - p, f, ev);
}
