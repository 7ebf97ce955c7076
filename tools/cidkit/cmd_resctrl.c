/* SPDX-License-Identifier: MIT */
/*
 * cidkit resctrl [--root DIR] [--sysfs-root DIR] [--interval MS]
 *                [--samples N] [--events LIST] [--no-bind] [--json|--csv]
 *
 * The memory-bandwidth sampler: the library (lib/resctrl/) finds, reads
 * and computes; this file only prints.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <cidkit/resctrl.h>

#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"

static const char about[] =
	"Sample resctrl monitoring counters: every monitoring group (the root,\n"
	"mon_groups/*, every control group and its mon_groups/*) in every\n"
	"domain (mon_data/mon_<RES>_<ID>).  One reader per domain, bound to the\n"
	"domain's CPUs (from sysfs: the L3 cache id of each online CPU), reads\n"
	"every counter through a file descriptor opened once, with pread().\n"
	"Groups are rescanned every interval.  Bandwidth is the delta of the\n"
	"cumulative byte counters over the interval; occupancy is as read.\n";

static const char epilog[] =
	"Cells that are not numbers say why: Unavailable, Error, Unassigned\n"
	"(what the kernel wrote), garbled, read-failed, reset (the counter went\n"
	"backwards: no rate), new (no previous value), '-' (event absent).\n"
	"A '*' after a domain: no CPU of it is usable here, read unbound.\n"
	"Each sample reports its own cost: the time to read every counter.\n";

enum fmt { FMT_TABLE, FMT_JSON, FMT_CSV };

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000u),
			       (long)(t % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/* A cell of the table: a value in @scale units, or why there is none. */
static const char *value_cell(char *buf, size_t size,
			      const struct cidk_rc_value *v, double scale)
{
	if (v->state == CIDK_RC_ABSENT)
		return "-";
	if (v->state == CIDK_RC_READ_FAILED)
		return "read-failed";
	if (v->state != CIDK_RC_OK)
		return cidk_resctrl_state_name(v->state);
	snprintf(buf, size, "%.1f", (double)v->v / scale);
	return buf;
}

static const char *rate_cell(char *buf, size_t size,
			     const struct cidk_rc_value *v,
			     const struct cidk_rc_rate *r)
{
	switch (r->state) {
	case CIDK_RC_RATE_OK:
		snprintf(buf, size, "%.2f", r->bytes_per_s / 1e6);
		return buf;
	case CIDK_RC_RATE_NOBASE:
		return "new";
	case CIDK_RC_RATE_BACKWARDS:
		return "reset";
	case CIDK_RC_RATE_NOTIME:
		return "-";
	default:
		return value_cell(buf, size, v, 1);
	}
}

static void print_table(struct cidk_resctrl *rc,
			const struct cidk_resctrl_stats *st)
{
	char b1[32], b2[32], b3[32], dom[48];

	printf("# sample %llu: +%.3f s, %u groups, %u domains (%u bound), "
	       "%u counters, read %.1f us (%.2f us/counter), rescan %.1f us\n",
	       (unsigned long long)st->sample - 1, st->elapsed_ns / 1e9,
	       st->groups, st->domains, st->domains_bound, st->counters,
	       st->read_ns / 1e3,
	       st->counters ? st->read_ns / 1e3 / st->counters : 0,
	       st->scan_ns / 1e3);
	printf("%-32s %-10s %12s %12s %14s\n", "group", "domain", "total MB/s",
	       "local MB/s", "occupancy KiB");
	for (size_t i = 0; i < cidk_resctrl_nr_rows(rc); i++) {
		const struct cidk_resctrl_row *r = cidk_resctrl_row(rc, i);

		snprintf(dom, sizeof(dom), "%s_%02u%s", r->resource, r->domain,
			 r->bound ? "" : "*");
		printf("%-32s %-10s %12s %12s %14s\n", r->group, dom,
		       rate_cell(b1, sizeof(b1), &r->value[CIDK_RC_MBM_TOTAL],
				 &r->rate[CIDK_RC_MBM_TOTAL]),
		       rate_cell(b2, sizeof(b2), &r->value[CIDK_RC_MBM_LOCAL],
				 &r->rate[CIDK_RC_MBM_LOCAL]),
		       value_cell(b3, sizeof(b3),
				  &r->value[CIDK_RC_LLC_OCCUPANCY], 1024.0));
	}
	fflush(stdout);
}

static void json_event(struct jw *j, const struct cidk_resctrl_row *r, int e)
{
	const struct cidk_rc_value *v = &r->value[e];
	const struct cidk_rc_rate *rt = &r->rate[e];

	jw_key(j, cidk_resctrl_event_name(e));
	jw_obj(j);
	jw_kstr(j, "state", cidk_resctrl_state_name(v->state));
	if (v->state == CIDK_RC_OK)
		jw_kuint(j, "value", v->v);
	if (v->state == CIDK_RC_READ_FAILED)
		jw_kstr(j, "error", strerror(v->err));
	if (e != CIDK_RC_LLC_OCCUPANCY && v->state == CIDK_RC_OK) {
		jw_kstr(j, "rate", cidk_resctrl_rate_state_name(rt->state));
		if (rt->state == CIDK_RC_RATE_OK)
			jw_knum(j, "bytes_per_s", rt->bytes_per_s, 1);
	}
	jw_obj_end(j);
}

static void print_json(struct cidk_resctrl *rc,
		       const struct cidk_resctrl_stats *st)
{
	struct jw j;

	jw_init(&j, stdout);
	jw_obj(&j);
	jw_kuint(&j, "sample", st->sample - 1);
	jw_kuint(&j, "elapsed_ns", st->elapsed_ns);
	jw_kuint(&j, "read_ns", st->read_ns);
	jw_kuint(&j, "scan_ns", st->scan_ns);
	jw_kuint(&j, "groups", st->groups);
	jw_kuint(&j, "domains", st->domains);
	jw_kuint(&j, "domains_bound", st->domains_bound);
	jw_kuint(&j, "counters", st->counters);
	jw_key(&j, "rows");
	jw_arr(&j);
	for (size_t i = 0; i < cidk_resctrl_nr_rows(rc); i++) {
		const struct cidk_resctrl_row *r = cidk_resctrl_row(rc, i);

		jw_obj(&j);
		jw_kstr(&j, "group", r->group);
		jw_kstr(&j, "resource", r->resource);
		jw_kuint(&j, "domain", r->domain);
		jw_kbool(&j, "bound", r->bound);
		for (int e = 0; e < CIDK_RC_NR_EVENTS; e++)
			json_event(&j, r, e);
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_obj_end(&j);
	jw_end(&j);
}

static void csv_str(const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void print_csv(struct cidk_resctrl *rc,
		      const struct cidk_resctrl_stats *st)
{
	char b[32];

	for (size_t i = 0; i < cidk_resctrl_nr_rows(rc); i++) {
		const struct cidk_resctrl_row *r = cidk_resctrl_row(rc, i);

		printf("%llu,%llu,", (unsigned long long)st->sample - 1,
		       (unsigned long long)st->elapsed_ns);
		csv_str(r->group);
		putchar(',');
		csv_str(r->resource);
		printf(",%u,%d", r->domain, r->bound);
		for (int e = 0; e < CIDK_RC_NR_EVENTS; e++) {
			const struct cidk_rc_value *v = &r->value[e];
			const struct cidk_rc_rate *rt = &r->rate[e];

			if (v->state == CIDK_RC_OK)
				printf(",%llu", (unsigned long long)v->v);
			else
				printf(",%s", value_cell(b, sizeof(b), v, 1));
			if (e == CIDK_RC_LLC_OCCUPANCY)
				continue;
			if (rt->state == CIDK_RC_RATE_OK)
				printf(",%.1f", rt->bytes_per_s);
			else
				printf(",%s", rate_cell(b, sizeof(b), v, rt));
		}
		printf(",%llu\n", (unsigned long long)st->read_ns);
	}
	fflush(stdout);
}

/* --events LIST: the option's callback. */
static int parse_events(void *ctx, const char *arg, const char *what)
{
	size_t pos = 0;
	char ex[40];

	if (!cidk_resctrl_parse_events(arg, ctx, &pos))
		return 0;
	cli_excerpt(arg + pos, ex, sizeof(ex));
	return cli_error("%s: unknown event '%s' (see --help)", what, ex);
}

int cmd_resctrl(int argc, char **argv)
{
	struct cidk_resctrl_opts o = { 0 };
	struct cidk_resctrl_err err = { { 0 }, { 0 } };
	struct cidk_resctrl_stats st;
	struct cidk_resctrl *rc = NULL;
	unsigned int interval_ms = 1000, samples = 10;
	bool json = false, csv = false;
	uint64_t next;
	int ret, first;
	struct opt opts[] = {
		{ OPT_STRING("root", 0, &o.root, "DIR", "the resctrl mount"),
		  .def = "/sys/fs/resctrl" },
		{ OPT_STRING("sysfs-root", 0, &o.sysfs_root, "DIR",
			     "sysfs for the domain -> CPUs map"),
		  .def = "/sys" },
		{ OPT_UINT("interval", 0, &interval_ms, 0, 3600000, "MS",
			   "milliseconds between samples") },
		{ OPT_UINT("samples", 0, &samples, 1, 100000000, "N",
			   "intervals to print; the first read is the baseline, "
			   "so N+1 reads in all") },
		{ OPT_CALLBACK("events", 0, parse_events, &o.events, "LIST",
			       "comma-separated: mbm_total_bytes (total), "
			       "mbm_local_bytes (local), llc_occupancy (occupancy)"),
		  .def = "all" },
		{ OPT_FLAG("no-bind", 0, &o.no_bind,
			   "read every domain from this thread (to compare)") },
		{ OPT_FLAG("json", 0, &json, "one JSON object per sample"),
		  .group = 1 },
		{ OPT_FLAG("csv", 0, &csv,
			   "one CSV row per group and domain per sample"),
		  .group = 1 },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { "resctrl", about, epilog, NULL, 0, 0, opts };
	enum fmt fmt;

	ret = opt_parse(&cmd, argc, argv, &first);
	if (ret)
		return opt_status(ret);
	fmt = json ? FMT_JSON : csv ? FMT_CSV : FMT_TABLE;

	ret = cidk_resctrl_open(&o, &rc, &err);
	if (ret) {
		if (!o.root && (ret == -ENOENT || ret == -ENOTDIR))
			return cli_error("resctrl: %s: %s (resctrl is not "
					 "mounted here: mount -t resctrl "
					 "resctrl /sys/fs/resctrl, or use "
					 "--root)",
					 err.path, err.msg);
		if (!err.path[0])
			return cli_error("resctrl: %s",
					 err.msg[0] ? err.msg : strerror(-ret));
		return cli_error("resctrl: %s: %s", err.path,
				 err.msg[0] ? err.msg : strerror(-ret));
	}
	next = mono_ns();
	if (fmt == FMT_CSV)
		puts("sample,elapsed_ns,group,resource,domain,bound,"
		     "mbm_total_bytes,total_bytes_per_s,mbm_local_bytes,"
		     "local_bytes_per_s,llc_occupancy,read_ns");
	for (unsigned int s = 0; s <= samples; s++) {
		if (s) {
			next += (uint64_t)interval_ms * 1000000u;
			sleep_until(next);
		}
		ret = cidk_resctrl_sample(rc, mono_ns());
		if (ret) {
			cidk_resctrl_close(rc);
			cli_error("resctrl: sample %u: %s%s", s, strerror(-ret),
				  ret == -ENOENT ? " (mon_data vanished: "
						   "resctrl unmounted?)"
						 : "");
			return CLI_EXIT_FAIL;
		}
		if (!s)
			continue; /* the baseline */
		cidk_resctrl_stats(rc, &st);
		if (fmt == FMT_JSON)
			print_json(rc, &st);
		else if (fmt == FMT_CSV)
			print_csv(rc, &st);
		else
			print_table(rc, &st);
	}
	cidk_resctrl_close(rc);
	return CLI_EXIT_OK;
}
