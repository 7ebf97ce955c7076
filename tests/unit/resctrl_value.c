/* SPDX-License-Identifier: MIT */
/*
 * resctrl values, rates, event lists and the sysfs domain map: tables of
 * inputs and their expected results, plus an injected fault (a wrong
 * expectation must be caught by the same comparison).
 */
#include <limits.h>
#include <errno.h>
#include <string.h>

#include <cidkit/resctrl.h>

#include "fake_tree.h"
#include "tap.h"

static const struct {
	const char *in;
	enum cidk_rc_state state;
	uint64_t v;
} values[] = {
	{ "0\n", CIDK_RC_OK, 0 },
	{ "123\n", CIDK_RC_OK, 123 },
	{ "123", CIDK_RC_OK, 123 },
	{ "18446744073709551615\n", CIDK_RC_OK, UINT64_MAX },
	{ "18446744073709551616\n", CIDK_RC_GARBLED, 0 },
	{ "99999999999999999999999\n", CIDK_RC_GARBLED, 0 },
	{ "Unavailable\n", CIDK_RC_UNAVAILABLE, 0 },
	{ "Error\n", CIDK_RC_ERROR, 0 },
	{ "Unassigned\n", CIDK_RC_UNASSIGNED, 0 },
	{ "unavailable\n", CIDK_RC_GARBLED, 0 },
	{ "Unavailable\n\n", CIDK_RC_GARBLED, 0 },
	{ "", CIDK_RC_GARBLED, 0 },
	{ "\n", CIDK_RC_GARBLED, 0 },
	{ "-1\n", CIDK_RC_GARBLED, 0 },
	{ "12 \n", CIDK_RC_GARBLED, 0 },
	{ " 12\n", CIDK_RC_GARBLED, 0 },
	{ "1.5\n", CIDK_RC_GARBLED, 0 },
	{ "12a\n", CIDK_RC_GARBLED, 0 },
};

static bool value_is(const char *in, enum cidk_rc_state state, uint64_t v)
{
	struct cidk_rc_value got;

	cidk_resctrl_parse_value(in, strlen(in), &got);
	return got.state == state && got.v == v && got.err == 0;
}

static void test_values(void)
{
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		ok(value_is(values[i].in, values[i].state, values[i].v),
		   "value '%s' -> %s %llu", values[i].in,
		   cidk_resctrl_state_name(values[i].state),
		   (unsigned long long)values[i].v);
	/* Injected fault: the same check must reject a wrong expectation. */
	ok(!value_is("Unavailable\n", CIDK_RC_OK, 0),
	   "fault: Unavailable is never read as 0");
	ok(!value_is("124\n", CIDK_RC_OK, 123), "fault: 124 is not 123");
}

static void test_rates(void)
{
	struct cidk_rc_value a = { CIDK_RC_OK, 0, 1000 },
			     b = { CIDK_RC_OK, 0, 3000 },
			     un = { CIDK_RC_UNAVAILABLE, 0, 0 },
			     er = { CIDK_RC_ERROR, 0, 0 };
	struct cidk_rc_rate r;

	cidk_resctrl_rate(&a, &b, 1000000, &r); /* 2000 B in 1 ms */
	ok(r.state == CIDK_RC_RATE_OK && r.delta == 2000 &&
		   r.bytes_per_s == 2000000.0,
	   "2000 bytes in 1 ms = 2e6 B/s exactly (got %.17g)", r.bytes_per_s);
	cidk_resctrl_rate(&a, &b, 3, &r);
	ok(r.state == CIDK_RC_RATE_OK && r.bytes_per_s == 2000e9 / 3,
	   "2000 bytes in 3 ns");
	cidk_resctrl_rate(&a, &a, 1000, &r);
	ok(r.state == CIDK_RC_RATE_OK && r.delta == 0 && r.bytes_per_s == 0,
	   "unchanged counter: rate 0");
	cidk_resctrl_rate(&b, &a, 1000, &r);
	ok(r.state == CIDK_RC_RATE_BACKWARDS && r.bytes_per_s == 0 &&
		   r.delta == 0,
	   "backwards: no rate, never negative");
	cidk_resctrl_rate(NULL, &b, 1000, &r);
	ok(r.state == CIDK_RC_RATE_NOBASE, "no previous: no base");
	cidk_resctrl_rate(&un, &b, 1000, &r);
	ok(r.state == CIDK_RC_RATE_NOBASE, "previous Unavailable: no base");
	cidk_resctrl_rate(&a, &un, 1000, &r);
	ok(r.state == CIDK_RC_RATE_NOVALUE, "now Unavailable: no value");
	cidk_resctrl_rate(&a, &er, 1000, &r);
	ok(r.state == CIDK_RC_RATE_NOVALUE, "now Error: no value");
	cidk_resctrl_rate(&a, &b, 0, &r);
	ok(r.state == CIDK_RC_RATE_NOTIME, "elapsed 0: no time");
	a.v = UINT64_MAX - 10;
	b.v = UINT64_MAX;
	cidk_resctrl_rate(&a, &b, 1000000000, &r);
	ok(r.state == CIDK_RC_RATE_OK && r.delta == 10 && r.bytes_per_s == 10,
	   "near the top of u64: delta 10");
}

static void test_events(void)
{
	unsigned int m = 99;
	size_t pos = 99;

	ok(!cidk_resctrl_parse_events("total,local", &m, NULL) && m == 3,
	   "total,local");
	ok(!cidk_resctrl_parse_events("llc_occupancy", &m, NULL) && m == 4,
	   "llc_occupancy");
	ok(!cidk_resctrl_parse_events("mbm_local_bytes,occupancy,total", &m,
				      NULL) &&
		   m == 7,
	   "all three, mixed names");
	ok(cidk_resctrl_parse_events("", &m, &pos) == -EINVAL && pos == 0,
	   "empty list: EINVAL at 0");
	ok(cidk_resctrl_parse_events("total,bogus", &m, &pos) == -EINVAL &&
		   pos == 6,
	   "unknown name: EINVAL at 6");
	ok(cidk_resctrl_parse_events("total,", &m, &pos) == -EINVAL &&
		   pos == 6,
	   "trailing comma: EINVAL at 6");
	ok(!strcmp(cidk_resctrl_event_name(CIDK_RC_MBM_LOCAL),
		   "mbm_local_bytes") &&
		   !cidk_resctrl_event_name(CIDK_RC_NR_EVENTS),
	   "event names");
}

static bool domain_is(const char *sys, const char *res, unsigned int id,
		      const char *want)
{
	struct cidk_mask *m = NULL;
	char buf[64];
	bool good;

	if (cidk_resctrl_domain_cpus(sys, res, id, &m, NULL))
		return false;
	cidk_mask_format_list(m, buf, sizeof(buf));
	good = !strcmp(buf, want);
	if (!good)
		diag("%s %u: got '%s' want '%s'", res, id, buf, want);
	cidk_mask_free(m);
	return good;
}

static void test_domains(void)
{
	static const int l3[6] = { 0, 0, 0, 1, 1, -1 };
	struct cidk_resctrl_err err;
	struct cidk_mask *m = NULL;
	char dir[PATH_MAX];

	fake_tmpdir(dir, sizeof(dir), "sysfs", 0);
	fake_sysfs(dir, 6, l3);
	ok(domain_is(dir, "L3", 0, "0-2"), "L3 0 = CPUs 0-2");
	ok(domain_is(dir, "L3", 1, "3-4"), "L3 1 = CPUs 3-4");
	ok(domain_is(dir, "L3", 2, ""), "L3 2 = nobody");
	ok(domain_is(dir, "MB", 1, "3-4"), "MB maps like L3 (assumption)");
	ok(domain_is(dir, "L2", 5, "5"), "L2 5 = CPU 5");
	ok(domain_is(dir, "PERF_PKG", 1, "2-3"), "PERF_PKG 1 = CPUs 2-3");
	ok(!domain_is(dir, "L3", 0, "0-3"), "fault: a wrong mask is caught");

	/* CPU 4 goes offline: it leaves its domain. */
	fake_write(dir, "devices/system/cpu/online", "0-3,5\n");
	ok(domain_is(dir, "L3", 1, "3"), "offline CPU leaves its domain");

	fake_write(dir, "devices/system/cpu/online", "0-x\n");
	ok(cidk_resctrl_domain_cpus(dir, "L3", 0, &m, &err) == -EINVAL &&
		   strstr(err.path, "online") && strstr(err.msg, "cpulist"),
	   "garbled online: EINVAL naming the file (%s: %s)", err.path,
	   err.msg);
	fake_rm(dir, "devices/system/cpu/online");
	ok(cidk_resctrl_domain_cpus(dir, "L3", 0, &m, &err) == -ENOENT &&
		   strstr(err.path, "online"),
	   "missing online: ENOENT naming the file");
	fake_rm(dir, "");
}

int main(void)
{
	test_values();
	test_rates();
	test_events();
	test_domains();
	return done_testing();
}
