/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <cidkit/topo.h>

#include "bench_topo.h"
#include "cidkit_lab.h"

const char *const bench_topo_way_name[BENCH_TOPO_NR] = {
	[BENCH_TOPO_PAIRWISE] = "pairwise",
	[BENCH_TOPO_LINEAR] = "linear",
	[BENCH_TOPO_REBUILD] = "rebuild",
};

/*
 * The kernel's hotplug path in miniature: a new topology whose online set
 * lacks @cpu, every level rebuilt from the old masks minus @cpu, then the
 * linear check (span and nesting).  Returns the new topology (NULL on
 * ENOMEM) and its verdict.
 */
static struct cidk_topo *rebuild_without(const struct cidk_topo *t,
					 unsigned int cpu,
					 struct cidk_mask *m, bool *sane)
{
	struct cidk_topo *nt = cidk_topo_alloc(cidk_topo_nr_cpu_ids(t));
	unsigned int c;

	if (!nt)
		return NULL;
	cidk_mask_copy(m, cidk_topo_online(t));
	cidk_mask_clear(m, cpu);
	cidk_topo_set_online(nt, m);
	for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++) {
		if (!cidk_topo_has_level(t, l))
			continue;
		cidk_mask_for_each(c, cidk_topo_online(nt)) {
			const struct cidk_mask *g = cidk_topo_mask(t, l, c);

			if (!g)
				continue;
			cidk_mask_copy(m, g);
			cidk_mask_clear(m, cpu);
			if (cidk_topo_set_mask(nt, l, c, m)) {
				cidk_topo_free(nt);
				return NULL;
			}
		}
	}
	*sane = cidk_topo_sane(nt, NULL);
	return nt;
}

int bench_topo_run(const char *spec, unsigned int reps,
		   struct bench_topo_result *res, char *errmsg, size_t errsize)
{
	double *samples[BENCH_TOPO_NR] = { NULL };
	struct cidk_topo_err err = { "", "" };
	struct cidk_topo *t = NULL;
	struct cidk_mask *m = NULL;
	unsigned int nr, nr_online;
	int rc;

	if (!reps) {
		if (errmsg)
			snprintf(errmsg, errsize, "reps must be at least 1");
		return -EINVAL;
	}
	rc = cidk_topo_from_spec(spec, &t, &err);
	if (rc) {
		if (errmsg)
			snprintf(errmsg, errsize, "%s", err.msg);
		return rc == -ENOMEM ? -ENOMEM : -EINVAL;
	}
	rc = -ENOMEM;
	nr = cidk_topo_nr_cpu_ids(t);
	nr_online = cidk_topo_nr_online(t);
	if (!(m = cidk_mask_alloc(nr)))
		goto out;
	for (int w = 0; w < BENCH_TOPO_NR; w++)
		if (!(samples[w] = calloc(reps, sizeof(double))))
			goto out;

	res->nr_cpus = nr_online;
	res->reps = reps;
	res->sane = true;
	for (unsigned int r = 0; r < reps; r++) {
		/* a different CPU each time, spread over the machine */
		unsigned int cpu = cidk_mask_nth(cidk_topo_online(t),
						 (unsigned int)((r * 2654435761u) %
								nr_online));
		struct cidk_topo *nt;
		uint64_t t0, t1;
		bool sane;

		t0 = cidk__now_ns();
		sane = cidk_topo_sane_pairwise(t, NULL);
		t1 = cidk__now_ns();
		samples[BENCH_TOPO_PAIRWISE][r] = (double)(t1 - t0);
		res->sane &= sane;

		t0 = cidk__now_ns();
		sane = cidk_topo_sane(t, NULL);
		t1 = cidk__now_ns();
		samples[BENCH_TOPO_LINEAR][r] = (double)(t1 - t0);
		res->sane &= sane;

		t0 = cidk__now_ns();
		nt = rebuild_without(t, cpu, m, &sane);
		t1 = cidk__now_ns();
		if (!nt)
			goto out;
		samples[BENCH_TOPO_REBUILD][r] = (double)(t1 - t0);
		res->sane &= sane;
		cidk_topo_free(nt);
	}
	for (int w = 0; w < BENCH_TOPO_NR; w++)
		cidk__summarize(samples[w], reps, &res->ns[w]);
	rc = 0;
out:
	for (int w = 0; w < BENCH_TOPO_NR; w++)
		free(samples[w]);
	cidk_mask_free(m);
	cidk_topo_free(t);
	return rc;
}
