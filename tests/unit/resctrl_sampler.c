/* SPDX-License-Identifier: MIT */
/*
 * The resctrl sampler on fake trees, against a plain model.
 *
 * A fake resctrl mount with 3 L3 domains (0: CPUs 0-1, 1: CPUs 2-3, 2: no
 * CPU) and 48 monitoring groups (root, 20 mon_groups, 3 control groups
 * with 8 mon_groups each); each sample the test writes every counter from
 * a model, then checks every row of the sampler exactly: values, states,
 * rates (the clock is the test's: 250 ms between samples, so a rate is the
 * step times 4, exactly).  Along the way: Unavailable, Error (one sample),
 * Unassigned, a garbled value, a counter that goes backwards, an event file
 * that cannot be read (a directory), an absent event, a group removed, a
 * group added, a control group removed with its mon_groups.  The whole run
 * is done with domain readers and again with everything read by the caller;
 * both must match the model.
 */
#include <limits.h>
#include <errno.h>
#include <sched.h>
#include <string.h>

#include <cidkit/resctrl.h>

#include "fake_tree.h"
#include "tap.h"

#define NDOM 3
#define NSAMPLES 5
#define STEP_NS 250000000ull
#define T0_NS 1000000000000ull

static char root[PATH_MAX], sys[PATH_MAX];
static const char *groups[64];
static unsigned int ngroups;
static char names[64][64];

static void make_groups(void)
{
	unsigned int n = 0;

	snprintf(names[n++], 64, "/");
	for (int i = 0; i < 20; i++)
		snprintf(names[n++], 64, "mon_groups/m%02d", i);
	for (int c = 0; c < 3; c++) {
		snprintf(names[n++], 64, "c%d", c);
		for (int j = 0; j < 8; j++)
			snprintf(names[n++], 64, "c%d/mon_groups/x%d", c, j);
	}
	snprintf(names[n], 64, "mon_groups/new"); /* added at sample 3 */
	for (unsigned int i = 0; i <= n; i++)
		groups[i] = names[i];
	ngroups = n + 1;
}

/* Whether group @g exists at sample @k. */
static bool alive(unsigned int g, unsigned int k)
{
	const char *name = groups[g];

	if (!strcmp(name, "mon_groups/m07"))
		return k <= 2;
	if (!strcmp(name, "mon_groups/new"))
		return k >= 3;
	if (!strncmp(name, "c2", 2))
		return k <= 3;
	return true;
}

struct expect {
	enum cidk_rc_state state;
	uint64_t v;
	enum cidk_rc_rate_state rstate;
	double rate;
	char content[64]; /* what the file holds; "" = absent, "/" = a dir */
};

static uint64_t step(unsigned int g, unsigned int d, int e)
{
	return e == CIDK_RC_MBM_TOTAL ? (g + 1) * (d + 1) * 1009ull
				      : (g + 1) * (d + 1) * 71ull;
}

/* The model: what group g, domain d, event e holds at sample k. */
static void model(unsigned int g, unsigned int d, int e, unsigned int k,
		  struct expect *x)
{
	const char *name = groups[g];
	unsigned int born = !strcmp(name, "mon_groups/new") ? 3 : 0;
	uint64_t v;

	memset(x, 0, sizeof(*x));
	if (e == CIDK_RC_LLC_OCCUPANCY) {
		if (!strcmp(name, "c2") && d == 1) {
			x->state = CIDK_RC_ABSENT;
			x->rstate = CIDK_RC_RATE_NOVALUE;
			return;
		}
		x->rstate = CIDK_RC_RATE_NOVALUE; /* not a rate */
		if (!strcmp(name, "c0/mon_groups/x2") && d == 1) {
			x->state = CIDK_RC_GARBLED;
			snprintf(x->content, sizeof(x->content), "12a\n");
			return;
		}
		x->v = (g * 3 + d) * 65536ull + k;
		snprintf(x->content, sizeof(x->content), "%llu\n",
			 (unsigned long long)x->v);
		return;
	}
	if (!strcmp(name, "c0") && d == 2 && e == CIDK_RC_MBM_LOCAL) {
		x->state = CIDK_RC_READ_FAILED;
		x->rstate = CIDK_RC_RATE_NOVALUE;
		snprintf(x->content, sizeof(x->content), "/");
		return;
	}
	if ((!strcmp(name, "mon_groups/m03") && d == 1 &&
	     e == CIDK_RC_MBM_LOCAL) ||
	    !strcmp(name, "c2/mon_groups/x1")) {
		bool un = !strcmp(name, "mon_groups/m03");

		x->state = un ? CIDK_RC_UNAVAILABLE : CIDK_RC_UNASSIGNED;
		x->rstate = CIDK_RC_RATE_NOVALUE;
		snprintf(x->content, sizeof(x->content), "%s\n",
			 un ? "Unavailable" : "Unassigned");
		return;
	}
	if (!strcmp(name, "c1") && d == 0 && e == CIDK_RC_MBM_TOTAL &&
	    k == 2) {
		x->state = CIDK_RC_ERROR;
		x->rstate = CIDK_RC_RATE_NOVALUE;
		snprintf(x->content, sizeof(x->content), "Error\n");
		return;
	}
	if (!strcmp(name, "mon_groups/m05") && d == 2 &&
	    e == CIDK_RC_MBM_TOTAL && k >= 3) {
		/* reset at sample 3: 5, then counting again */
		v = 5 + (k - 3) * step(g, d, e);
		x->rstate = k == 3 ? CIDK_RC_RATE_BACKWARDS : CIDK_RC_RATE_OK;
	} else {
		v = 1000000ull * (g + 1) + (k - born) * step(g, d, e);
		x->rstate = k == born ? CIDK_RC_RATE_NOBASE : CIDK_RC_RATE_OK;
	}
	if (!strcmp(name, "c1") && d == 0 && e == CIDK_RC_MBM_TOTAL &&
	    k == 3)
		x->rstate = CIDK_RC_RATE_NOBASE; /* previous was Error */
	x->state = CIDK_RC_OK;
	x->v = v;
	if (x->rstate == CIDK_RC_RATE_OK)
		x->rate = (double)step(g, d, e) * 4.0;
	snprintf(x->content, sizeof(x->content), "%llu\n",
		 (unsigned long long)v);
}

static void file_rel(char *buf, size_t size, unsigned int g, unsigned int d,
		     int e)
{
	snprintf(buf, size, "%s%smon_data/mon_L3_%02u/%s",
		 strcmp(groups[g], "/") ? groups[g] : "",
		 strcmp(groups[g], "/") ? "/" : "", d,
		 cidk_resctrl_event_name(e));
}

static void write_sample(unsigned int k)
{
	char rel[PATH_MAX];
	struct expect x;

	for (unsigned int g = 0; g < ngroups; g++) {
		if (!alive(g, k)) {
			if (k && alive(g, k - 1))
				fake_rm(root, groups[g]);
			continue;
		}
		for (unsigned int d = 0; d < NDOM; d++)
			for (int e = 0; e < CIDK_RC_NR_EVENTS; e++) {
				model(g, d, e, k, &x);
				file_rel(rel, sizeof(rel), g, d, e);
				if (!x.content[0])
					continue;
				if (!strcmp(x.content, "/"))
					fake_mkdir(root, rel);
				else
					fake_write(root, rel, "%s", x.content);
			}
	}
}

static int cmp_groups(const void *a, const void *b)
{
	return strcmp(groups[*(const unsigned int *)a],
		      groups[*(const unsigned int *)b]);
}

static bool row_matches(const struct cidk_resctrl_row *r, unsigned int g,
			unsigned int d, unsigned int k, bool want_bound)
{
	struct expect x;

	if (!r || strcmp(r->group, groups[g]) || strcmp(r->resource, "L3") ||
	    r->domain != d) {
		diag("sample %u: row %s L3 %u expected, got %s %s %u", k,
		     groups[g], d, r ? r->group : "-", r ? r->resource : "-",
		     r ? r->domain : 0);
		return false;
	}
	if (r->bound != want_bound) {
		diag("sample %u: %s %u bound %d", k, groups[g], d, r->bound);
		return false;
	}
	for (int e = 0; e < CIDK_RC_NR_EVENTS; e++) {
		const struct cidk_rc_value *v = &r->value[e];
		const struct cidk_rc_rate *rt = &r->rate[e];

		model(g, d, e, k, &x);
		if (k == 0 && x.rstate == CIDK_RC_RATE_OK)
			x.rstate = CIDK_RC_RATE_NOBASE;
		if (v->state != x.state || v->v != x.v ||
		    (x.state == CIDK_RC_READ_FAILED && v->err != EISDIR) ||
		    rt->state != x.rstate ||
		    (x.rstate == CIDK_RC_RATE_OK && rt->bytes_per_s != x.rate)) {
			diag("sample %u %s d%u %s: got %s %llu rate %s %.17g, "
			     "want %s %llu rate %s %.17g",
			     k, groups[g], d, cidk_resctrl_event_name(e),
			     cidk_resctrl_state_name(v->state),
			     (unsigned long long)v->v,
			     cidk_resctrl_rate_state_name(rt->state),
			     rt->bytes_per_s, cidk_resctrl_state_name(x.state),
			     (unsigned long long)x.v,
			     cidk_resctrl_rate_state_name(x.rstate), x.rate);
			return false;
		}
	}
	return true;
}

/* Whether this process may run on CPU 0 or 1 (domain 0 of the fake). */
static bool domain0_bindable(void)
{
	cpu_set_t set;

	return !sched_getaffinity(0, sizeof(set), &set) &&
	       (CPU_ISSET(0, &set) || CPU_ISSET(1, &set));
}

static void run(bool no_bind)
{
	struct cidk_resctrl_opts o = { .root = root, .sysfs_root = sys,
				       .no_bind = no_bind };
	struct cidk_resctrl_stats st;
	struct cidk_resctrl_err err;
	struct cidk_resctrl *rc = NULL;
	const char *how = no_bind ? "caller reads" : "domain readers";
	unsigned int order[64];
	int ret;

	fake_rm(root, "");
	fake_mkdir(root, "info");
	fake_write(root, "tasks", "1\n");
	fake_write(root, "schemata", "L3:0=fff\n");
	ret = cidk_resctrl_open(&o, &rc, &err);
	ok(ret == -ENOENT && strstr(err.path, "mon_data"),
	   "%s: no mon_data yet: ENOENT (%s: %s)", how, err.path, err.msg);
	write_sample(0);
	fake_write(root, "c0/schemata", "L3:0=f\n"); /* files are not groups */
	fake_mkdir(root, "c9");			     /* no mon_data: skipped */
	ret = cidk_resctrl_open(&o, &rc, &err);
	ok(ret == 0, "%s: open (%d)", how, ret);
	if (ret)
		return;

	for (unsigned int k = 0; k < NSAMPLES; k++) {
		unsigned int n = 0, bad = 0;
		size_t i = 0;

		if (k)
			write_sample(k);
		ret = cidk_resctrl_sample(rc, T0_NS + k * STEP_NS);
		ok(ret == 0, "%s: sample %u (%d)", how, k, ret);
		for (unsigned int g = 0; g < ngroups; g++)
			if (alive(g, k))
				order[n++] = g;
		qsort(order, n, sizeof(order[0]), cmp_groups);
		for (unsigned int j = 0; j < n; j++)
			for (unsigned int d = 0; d < NDOM; d++)
				bad += !row_matches(
					cidk_resctrl_row(rc, i++), order[j], d,
					k,
					!no_bind && d == 0 &&
						domain0_bindable());
		ok(bad == 0 && cidk_resctrl_nr_rows(rc) == i,
		   "%s: sample %u: %zu rows, every value, state and rate "
		   "exact (%u wrong)",
		   how, k, cidk_resctrl_nr_rows(rc), bad);
		cidk_resctrl_stats(rc, &st);
		ok(st.sample == k + 1 && st.groups == n &&
			   st.elapsed_ns == (k ? STEP_NS : 0) &&
			   st.domains == NDOM,
		   "%s: sample %u stats: %u groups, elapsed %llu", how, k,
		   st.groups, (unsigned long long)st.elapsed_ns);
		if (k == 0)
			ok(st.opened == n * 9 - 1 && st.closed == 0 &&
				   st.counters == n * 9 - 1,
			   "%s: first sample opens %u files", how, st.opened);
		if (k == 3) /* m07 gone (9), new (9) */
			ok(st.opened == 9 && st.closed == 9,
			   "%s: sample 3 opened %u closed %u", how, st.opened,
			   st.closed);
		if (k == 4) /* c2 and its 8 mon_groups gone: 9 groups */
			ok(st.opened == 0 && st.closed == 9 * 9 - 1,
			   "%s: sample 4 opened %u closed %u", how, st.opened,
			   st.closed);
		if (!no_bind && k == 0)
			ok(st.domains_bound == (domain0_bindable() ? 1u : 0u),
			   "%s: %u domain(s) bound", how, st.domains_bound);
	}

	/* Same clock again: no time, no rate. */
	ret = cidk_resctrl_sample(rc, T0_NS + (NSAMPLES - 1) * STEP_NS);
	ok(!ret && cidk_resctrl_row(rc, 0)->rate[CIDK_RC_MBM_TOTAL].state ==
			   CIDK_RC_RATE_NOTIME,
	   "%s: zero elapsed time: no rate", how);

	/* Unmounted under our feet: ENOENT, the last rows stay valid. */
	fake_rm(root, "mon_data");
	ret = cidk_resctrl_sample(rc, T0_NS + NSAMPLES * STEP_NS);
	ok(ret == -ENOENT && cidk_resctrl_nr_rows(rc) > 0 &&
		   !strcmp(cidk_resctrl_row(rc, 0)->group, "/"),
	   "%s: mon_data gone: ENOENT, previous rows kept", how);
	cidk_resctrl_close(rc);
}

static void test_open_errors(void)
{
	struct cidk_resctrl_opts o = { .sysfs_root = sys };
	struct cidk_resctrl_err err;
	struct cidk_resctrl *rc = NULL;
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/nonexistent", root);
	o.root = path;
	ok(cidk_resctrl_open(&o, &rc, &err) == -ENOENT &&
		   !strcmp(err.path, path),
	   "missing root: ENOENT naming it");
	snprintf(path, sizeof(path), "%s/tasks", root);
	fake_write(root, "tasks", "1\n");
	ok(cidk_resctrl_open(&o, &rc, &err) == -ENOTDIR,
	   "root is a file: ENOTDIR");
	o.root = root;
	fake_mkdir(root, "mon_data");
	snprintf(path, sizeof(path), "%s/nonexistent", sys);
	o.sysfs_root = path;
	ok(cidk_resctrl_open(&o, &rc, &err) == -ENOENT &&
		   strstr(err.path, "devices/system/cpu/online"),
	   "missing sysfs: ENOENT naming the online file");
}

/*
 * Domain directories named other than the kernel's "mon_%s_%02d" are not
 * domains: mon_L3_0 and mon_L3_000 next to mon_L3_00 would otherwise be
 * domain 0 three times, one of them chosen by the sort.
 */
static void test_domain_names(void)
{
	struct cidk_resctrl_opts o = { .root = root, .sysfs_root = sys,
				       .no_bind = true };
	struct cidk_resctrl *rc = NULL;
	const struct cidk_resctrl_row *r;
	struct cidk_resctrl_stats st;
	int e = CIDK_RC_LLC_OCCUPANCY;

	fake_rm(root, "");
	fake_mkdir(root, "");
	fake_write(root, "mon_data/mon_L3_00/llc_occupancy", "100\n");
	fake_write(root, "mon_data/mon_L3_0/llc_occupancy", "200\n");
	fake_write(root, "mon_data/mon_L3_000/llc_occupancy", "300\n");
	fake_write(root, "mon_data/mon_L3_07/llc_occupancy", "700\n");
	fake_write(root, "mon_data/mon_L3_123/llc_occupancy", "123\n");
	fake_write(root, "mon_data/mon_L3_0123/llc_occupancy", "9\n");
	ok(cidk_resctrl_open(&o, &rc, NULL) == 0 &&
		   cidk_resctrl_sample(rc, 1000) == 0,
	   "domain names: open and sample");
	if (!rc)
		return;
	cidk_resctrl_stats(rc, &st);
	ok(cidk_resctrl_nr_rows(rc) == 3 && st.counters == 3 && st.opened == 3,
	   "domain names: 3 domains (00, 07, 123) and 3 files read, not 6 "
	   "(%zu rows, %u counters, %u opened)",
	   cidk_resctrl_nr_rows(rc), st.counters, st.opened);
	for (size_t i = 0; i < cidk_resctrl_nr_rows(rc); i++) {
		r = cidk_resctrl_row(rc, i);
		ok(r->value[e].state == CIDK_RC_OK &&
			   r->value[e].v == (r->domain == 0	? 100 :
					     r->domain == 7	? 700 :
					     r->domain == 123 ? 123 :
								0),
		   "domain names: domain %u read from its kernel-named "
		   "directory (%llu)",
		   r->domain, (unsigned long long)r->value[e].v);
	}
	cidk_resctrl_close(rc);
}

int main(void)
{
	static const int l3[4] = { 0, 0, 1, 1 };

	make_groups();
	fake_tmpdir(root, sizeof(root), "resctrl", 0);
	fake_tmpdir(sys, sizeof(sys), "sysfs", 0);
	fake_sysfs(sys, 4, l3);
	/* domain 2 has no CPU in sysfs: read unbound */
	run(false);
	run(true);
	fake_rm(root, "");
	fake_mkdir(root, "");
	test_open_errors();
	test_domain_names();
	fake_rm(root, "");
	fake_rm(sys, "");
	return done_testing();
}
