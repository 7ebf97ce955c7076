/* SPDX-License-Identifier: MIT */
/*
 * The resctrl sampler's domain readers (domain-affine calls) while groups
 * come and go: a fake mount with 4 domains (L3 0 on CPU 0, L3 1 on CPU 1,
 * 2 and 3 on CPUs this machine lacks, read unbound) and 40 groups; a churn
 * thread makes groups appear and disappear (atomically, by rename) while
 * the main thread samples as fast as it can.  Every value read must be the
 * number its file holds (never a torn or stale-group value), no sample may
 * fail, and under TSan the readers' writes and the sampler's reads of the
 * counters must be ordered by the calls.
 */
#include <limits.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cidkit/resctrl.h>

#include "tap.h"
#include "fake_tree.h"

#define NDOM 4
#define NSTATIC 24
#define NCHURN 16
#define SAMPLES 150

static char root[PATH_MAX], sys[PATH_MAX];
static atomic_int stop;

/* The value of group g's counter in domain d for event e. */
static unsigned long long value_of(unsigned int g, unsigned int d, int e)
{
	return 1000000ull * (g + 1) + 1000ull * d + (unsigned int)e;
}

/* Build group g in the staging dir @dir (complete before it appears). */
static void build_group(const char *dir, unsigned int g)
{
	char rel[128];

	for (unsigned int d = 0; d < NDOM; d++)
		for (int e = 0; e < CIDK_RC_NR_EVENTS; e++) {
			snprintf(rel, sizeof(rel), "mon_data/mon_L3_%02u/%s", d,
				 cidk_resctrl_event_name(e));
			fake_write(dir, rel, "%llu\n", value_of(g, d, e));
		}
}

static void group_path(char *buf, size_t size, unsigned int g)
{
	snprintf(buf, size, "%s/mon_groups/g%02u", root, g);
}

static void *churn(void *arg)
{
	char stage[PATH_MAX + 64], live[PATH_MAX + 64], trash[PATH_MAX + 64];
	unsigned int i = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		unsigned int g = NSTATIC + i % NCHURN;

		group_path(live, sizeof(live), g);
		snprintf(trash, sizeof(trash), "%s/trash%u", sys, i);
		if (!access(live, F_OK)) {
			/* disappear atomically, then clean up */
			if (!rename(live, trash))
				fake_rm(trash, "");
		} else {
			snprintf(stage, sizeof(stage), "%s/stage%u", sys, i);
			fake_mkdir(stage, "");
			build_group(stage, g);
			rename(stage, live);
		}
		i++;
	}
	return NULL;
}

static unsigned int group_index(const char *name)
{
	unsigned int g;

	if (!strcmp(name, "/"))
		return 99;
	if (sscanf(name, "mon_groups/g%u", &g) == 1)
		return g;
	return 1000;
}

int main(void)
{
	static const int l3[4] = { 0, 1, 2, 3 };
	struct cidk_resctrl_opts o = { 0 };
	struct cidk_resctrl_err err;
	struct cidk_resctrl *rc;
	struct cidk_resctrl_stats st;
	char path[PATH_MAX + 64];
	unsigned long rows = 0, wrong = 0, failed = 0, min_rows = ~0ul,
		      max_rows = 0;
	pthread_t th;
	int ret;

	fake_tmpdir(root, sizeof(root), "stress-resctrl", 0);
	fake_tmpdir(sys, sizeof(sys), "stress-sysfs", 0);
	fake_sysfs(sys, 4, l3);
	build_group(root, 99);
	for (unsigned int g = 0; g < NSTATIC; g++) {
		group_path(path, sizeof(path), g);
		fake_mkdir(path, "");
		build_group(path, g);
	}
	o.root = root;
	o.sysfs_root = sys;
	ret = cidk_resctrl_open(&o, &rc, &err);
	ok(ret == 0, "open (%d)", ret);
	if (ret)
		return done_testing();

	pthread_create(&th, NULL, churn, NULL);
	for (unsigned int s = 0; s < SAMPLES; s++) {
		size_t n;

		ret = cidk_resctrl_sample(rc, 1000000ull * (s + 1));
		if (ret) {
			failed++;
			continue;
		}
		n = cidk_resctrl_nr_rows(rc);
		rows += n;
		min_rows = n < min_rows ? n : min_rows;
		max_rows = n > max_rows ? n : max_rows;
		for (size_t i = 0; i < n; i++) {
			const struct cidk_resctrl_row *r =
				cidk_resctrl_row(rc, i);
			unsigned int g = group_index(r->group);

			for (int e = 0; e < CIDK_RC_NR_EVENTS; e++) {
				const struct cidk_rc_value *v = &r->value[e];

				/* A churning group removed during the rescan
				 * or before the read may miss events or fail
				 * to read; a static group never; anything
				 * read must be its exact value. */
				if (g >= NSTATIC && g < NSTATIC + NCHURN &&
				    (v->state == CIDK_RC_READ_FAILED ||
				     v->state == CIDK_RC_ABSENT))
					continue;
				if (v->state != CIDK_RC_OK ||
				    v->v != value_of(g, r->domain, e)) {
					if (wrong++ < 5)
						diag("sample %u %s d%u %s: %s %llu",
						     s, r->group, r->domain,
						     cidk_resctrl_event_name(e),
						     cidk_resctrl_state_name(
							     v->state),
						     (unsigned long long)v->v);
				}
				if (e != CIDK_RC_LLC_OCCUPANCY &&
				    r->rate[e].state == CIDK_RC_RATE_OK &&
				    r->rate[e].bytes_per_s != 0)
					wrong++;
			}
		}
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	cidk_resctrl_stats(rc, &st);
	ok(failed == 0, "%u samples, none failed", SAMPLES);
	ok(wrong == 0, "every value read was its file's number (%lu wrong)",
	   wrong);
	ok(min_rows >= (NSTATIC + 1) * NDOM &&
		   max_rows <= (NSTATIC + 1 + NCHURN) * NDOM,
	   "rows between %lu and %lu (static groups always there)", min_rows,
	   max_rows);
	diag("%lu rows over %u samples; last sample %u domains, %u bound",
	     rows, SAMPLES, st.domains, st.domains_bound);
	ok(st.domains == NDOM, "all %u domains sampled", NDOM);
	cidk_resctrl_close(rc);
	fake_rm(root, "");
	fake_rm(sys, "");
	return done_testing();
}
