/* SPDX-License-Identifier: MIT */
/*
 * tests/check/litmus.c - the explorer's memory models (check/memory.c)
 * against the known answers of the litmus tests (check/litmus.c).
 *
 * The expected answers are the literature's, not the tool's:
 *   sc    every outcome below needs a cycle of program order and
 *         communication, which sequential consistency forbids (Lamport
 *         1979; Alglave et al., "Herding cats", TOPLAS 2014, SC row);
 *   tso   x86-TSO (Sewell, Sarkar, Owens, Zappa Nardelli, Myreen,
 *         "x86-TSO", CACM 53(7) 2010; Intel SDM vol. 3 §8.2.3): only a
 *         store followed by a load may be reordered (SB allowed, 8.2.3.4),
 *         loads with loads and stores with stores are not (MP forbidden,
 *         8.2.3.2), stores not with earlier loads (LB forbidden, 8.2.3.3),
 *         stores are seen in one order by all (IRIW forbidden, 8.2.3.7;
 *         2+2W forbidden: the buffers drain in order into one memory),
 *         MFENCE restores SB (8.2.3.9);
 *   rc11  RC11 (Lahav, Vafeiadis, Kang, Hur, Dreyer, "Repairing
 *         sequential consistency in C/C++11", PLDI 2017): relaxed
 *         accesses allow SB, MP, IRIW and 2+2W (only per-word coherence
 *         holds); LB is forbidden (RC11 forbids po u rf cycles, where
 *         ARMv8 allows it); release/acquire forbids MP; seq_cst fences
 *         between each thread's accesses forbid all five (the psc
 *         condition; "Herding cats" table for the C11 fenced shapes).
 * Also hand-worked: SB needs one weak choice (P0 runs first and reads
 * y = 0, the initial store, the newest then; P1's load of x then reads
 * the older store), so --weak-bound 0 forbids it under tso and rc11 and
 * --weak-bound 1 allows it; --weak-bound 0 gives sc's answers.  Every
 * outcome found replays from its trace's directives (tid, one step, way).
 */
#include <stdlib.h>
#include <string.h>

#include "chk.h"
#include "litmus.h"
#include "memory.h"
#include "tap.h"

#define A 1 /* allowed */
#define F 0 /* forbidden */

static const struct {
	const char *name;
	int sc, tso, rc11;
} expect[] = {
	{ "SB", F, A, A },
	{ "SB+fences", F, F, F },
	{ "MP", F, F, A },
	{ "MP+fences", F, F, F },
	{ "MP+rel+acq", F, F, F },
	{ "LB", F, F, F },
	{ "LB+fences", F, F, F },
	{ "IRIW", F, F, A },
	{ "IRIW+fences", F, F, F },
	{ "2+2W", F, F, A },
	{ "2+2W+fences", F, F, F },
};
#define NEXPECT (sizeof(expect) / sizeof(expect[0]))

static unsigned int find(const char *name)
{
	for (unsigned int i = 0; litmus_name(i); i++)
		if (!strcmp(litmus_name(i), name))
			return i;
	return ~0u;
}

/* Run the trace of @r again, step by step, under @memory: the same
 * violation? */
static bool replays(unsigned int i, unsigned int memory,
		    const struct chk_result *r)
{
	struct chk_replay *d = calloc(r->trace_len + 1, sizeof(*d));
	struct chk_result rr;
	bool allowed = false, same;
	int rc;

	if (!d)
		return false;
	for (unsigned int k = 0; k < r->trace_len; k++) {
		d[k].tid = r->trace[k].tid;
		d[k].steps = 1;
		d[k].way = r->trace[k].way;
	}
	rc = litmus_replay(i, memory, d, r->trace_len, &rr, &allowed);
	same = !rc && allowed && !strcmp(rr.why, r->why);
	chk_result_free(&rr);
	free(d);
	return same;
}

int main(void)
{
	unsigned int n = 0;

	while (litmus_name(n))
		n++;
	ok(n == NEXPECT, "%u litmus tests, %zu expected", n, NEXPECT);
	for (unsigned int e = 0; e < NEXPECT; e++) {
		unsigned int i = find(expect[e].name);
		int want[CHK_MEM_NR] = { expect[e].sc, expect[e].tso,
					 expect[e].rc11 };

		for (unsigned int m = 0; m < CHK_MEM_NR; m++) {
			struct chk_result r;
			bool allowed = false;
			int rc = i == ~0u ? -1 : litmus_run(i, m, 4, &r, &allowed);

			ok(!rc && allowed == (bool)want[m], "%s under %s: %s",
			   expect[e].name, chk_memory_name(m),
			   want[m] ? "allowed" : "forbidden");
			ok(!rc && (!allowed || replays(i, m, &r)),
			   "%s under %s: %s", expect[e].name,
			   chk_memory_name(m), allowed ?
			   "the outcome replays from its directives" :
			   "(nothing to replay)");
			if (!rc)
				chk_result_free(&r);
		}
	}
	{
		struct chk_result r;
		bool allowed;

		litmus_run(find("SB"), CHK_MEM_RC11, 0, &r, &allowed);
		ok(!allowed, "SB under rc11, --weak-bound 0: forbidden (it needs one)");
		chk_result_free(&r);
		litmus_run(find("SB"), CHK_MEM_TSO, 0, &r, &allowed);
		ok(!allowed, "SB under tso, --weak-bound 0: forbidden (it needs one)");
		chk_result_free(&r);
		litmus_run(find("SB"), CHK_MEM_RC11, 1, &r, &allowed);
		ok(allowed, "SB under rc11, --weak-bound 1: allowed");
		chk_result_free(&r);
		litmus_run(find("2+2W"), CHK_MEM_RC11, 0, &r, &allowed);
		ok(!allowed, "2+2W under rc11, --weak-bound 0: forbidden (sc's answer)");
		chk_result_free(&r);
	}
	return done_testing();
}
