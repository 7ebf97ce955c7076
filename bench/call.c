/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include <cidkit/call.h>

#include "bench_call.h"
#include "cidkit_lab.h"

const char *const bench_call_way_name[BENCH_CALL_NR] = {
	[BENCH_CALL_PLAIN] = "plain_call",
	[BENCH_CALL_DIRECT] = "call_on_local",
	[BENCH_CALL_HANDOFF_SAME] = "handoff_same_cpu",
	[BENCH_CALL_HANDOFF_OTHER] = "handoff_other_cpu",
};

static void bump(void *arg)
{
	unsigned long *n = arg;

	(*n)++;
	cidk__keep(n);
}

/* A no-inline indirect call, the floor. */
static void (*volatile plain_fn)(void *) = bump;

static int one_way(int way, struct cidk_call_domain *da,
		   struct cidk_call_domain *db, unsigned int calls,
		   unsigned long *ran, double *ns)
{
	uint64_t t0, t1;
	int rc = 0;

	t0 = cidk__now_ns();
	for (unsigned int i = 0; i < calls && !rc; i++) {
		switch (way) {
		case BENCH_CALL_PLAIN:
			plain_fn(ran);
			break;
		case BENCH_CALL_DIRECT:
			rc = cidk_call_on(da, bump, ran);
			break;
		case BENCH_CALL_HANDOFF_SAME:
			rc = cidk_call_handoff(da, bump, ran);
			break;
		default:
			rc = cidk_call_on(db, bump, ran);
			break;
		}
	}
	t1 = cidk__now_ns();
	*ns = (double)(t1 - t0) / calls;
	return rc;
}

int bench_call_run(unsigned int calls, unsigned int reps,
		   struct bench_call_result *res)
{
	struct cidk_call_domain *da = NULL, *db = NULL;
	struct cidk_mask *ma = NULL, *mb = NULL;
	double *samples[BENCH_CALL_NR] = { NULL };
	cpu_set_t saved, one;
	unsigned long ran = 0;
	int nways, rc = -ENOMEM;

	if (!calls || !reps)
		return -EINVAL;
	if (sched_getaffinity(0, sizeof(saved), &saved))
		return -errno;
	res->cpu_a = res->cpu_b = -1;
	res->ncpus = (unsigned int)CPU_COUNT(&saved);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &saved)) {
			if (res->cpu_a < 0)
				res->cpu_a = c;
			else if (res->cpu_b < 0)
				res->cpu_b = c;
		}
	nways = res->cpu_b >= 0 ? BENCH_CALL_NR : BENCH_CALL_NR - 1;
	ma = cidk_mask_alloc(CPU_SETSIZE);
	mb = cidk_mask_alloc(CPU_SETSIZE);
	if (!ma || !mb)
		goto out;
	cidk_mask_set(ma, (unsigned int)res->cpu_a);
	if (res->cpu_b >= 0)
		cidk_mask_set(mb, (unsigned int)res->cpu_b);
	da = cidk_call_domain_create(ma);
	db = res->cpu_b >= 0 ? cidk_call_domain_create(mb) : NULL;
	if (!da || (res->cpu_b >= 0 && !db))
		goto out;
	for (int w = 0; w < BENCH_CALL_NR; w++)
		if (!(samples[w] = calloc(reps, sizeof(double))))
			goto out;

	CPU_ZERO(&one);
	CPU_SET(res->cpu_a, &one);
	if (sched_setaffinity(0, sizeof(one), &one)) {
		rc = -errno;
		goto out;
	}
	/* Warm up: start the workers, fault in the stacks. */
	for (int w = 0; w < nways; w++) {
		double ns;

		rc = one_way(w, da, db, 16, &ran, &ns);
		if (rc)
			goto restore;
	}
	for (unsigned int r = 0; r < reps; r++)
		for (int k = 0; k < nways; k++) {
			int w = (int)((r + (unsigned int)k) % (unsigned int)nways);

			rc = one_way(w, da, db, calls, &ran, &samples[w][r]);
			if (rc)
				goto restore;
		}
	res->calls = calls;
	res->reps = reps;
	res->ran = ran;
	for (int w = 0; w < BENCH_CALL_NR; w++)
		cidk__summarize(samples[w], w < nways ? reps : 0, &res->ns[w]);
	rc = 0;
restore:
	sched_setaffinity(0, sizeof(saved), &saved);
out:
	cidk_call_domain_destroy(da);
	cidk_call_domain_destroy(db);
	cidk_mask_free(ma);
	cidk_mask_free(mb);
	for (int w = 0; w < BENCH_CALL_NR; w++)
		free(samples[w]);
	return rc;
}
