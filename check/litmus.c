/* SPDX-License-Identifier: MIT */
/*
 * check/litmus.c - the litmus tests of litmus.h, written as C threads of
 * the checker build: every access is a step of cid_atomic.h (relaxed
 * cidk__ld/cidk__st, acquire cidk__ldp, release cidk__stp), a fence is
 * chk_fence() (seq_cst: x86 MFENCE, ARMv8 DMB ISH).
 *
 * The tests are the classic shapes of the litmus literature (Alglave,
 * Maranget, Tautschnig, "Herding cats", TOPLAS 2014; x86-TSO, Sewell et
 * al., CACM 2010): store buffering (SB), message passing (MP), load
 * buffering (LB), independent reads of independent writes (IRIW), two
 * writers of two words (2+2W), each bare and with a seq_cst fence between
 * each thread's two accesses; MP also with a release store and an
 * acquire load.  What each model must answer is tests/check/litmus.c's
 * (from that literature), not this file's.
 */
#include <errno.h>
#include <string.h>

#include "litmus.h"
#include "memory.h"

struct lit {
	_Atomic unsigned int x, y;
	unsigned int py;	/* y for the release/acquire variant */
	unsigned int r[4];
	unsigned int test;
};

static struct lit L;

enum { T_SB, T_SBF, T_MP, T_MPF, T_MPRA, T_LB, T_LBF, T_IRIW, T_IRIWF,
       T_2W, T_2WF, T_NR };

static const struct {
	const char *name, *outcome, *code;
	unsigned int nthreads;
} tests[T_NR] = {
	[T_SB] = { "SB", "r0=0 r1=0", "P0: x=1; r0=y | P1: y=1; r1=x", 2 },
	[T_SBF] = { "SB+fences", "r0=0 r1=0",
		    "P0: x=1; fence; r0=y | P1: y=1; fence; r1=x", 2 },
	[T_MP] = { "MP", "r0=1 r1=0", "P0: x=1; y=1 | P1: r0=y; r1=x", 2 },
	[T_MPF] = { "MP+fences", "r0=1 r1=0",
		    "P0: x=1; fence; y=1 | P1: r0=y; fence; r1=x", 2 },
	[T_MPRA] = { "MP+rel+acq", "r0=1 r1=0",
		     "P0: x=1; y=1 (release) | P1: r0=y (acquire); r1=x", 2 },
	[T_LB] = { "LB", "r0=1 r1=1", "P0: r0=x; y=1 | P1: r1=y; x=1", 2 },
	[T_LBF] = { "LB+fences", "r0=1 r1=1",
		    "P0: r0=x; fence; y=1 | P1: r1=y; fence; x=1", 2 },
	[T_IRIW] = { "IRIW", "r0=1 r1=0 r2=1 r3=0",
		     "P0: x=1 | P1: y=1 | P2: r0=x; r1=y | P3: r2=y; r3=x", 4 },
	[T_IRIWF] = { "IRIW+fences", "r0=1 r1=0 r2=1 r3=0",
		      "P0: x=1 | P1: y=1 | P2: r0=x; fence; r1=y | "
		      "P3: r2=y; fence; r3=x", 4 },
	[T_2W] = { "2+2W", "x=1 y=1 at the end", "P0: x=1; y=2 | P1: y=1; x=2",
		   2 },
	[T_2WF] = { "2+2W+fences", "x=1 y=1 at the end",
		    "P0: x=1; fence; y=2 | P1: y=1; fence; x=2", 2 },
};

const char *litmus_name(unsigned int i)
{
	return i < T_NR ? tests[i].name : NULL;
}

const char *litmus_outcome(unsigned int i)
{
	return i < T_NR ? tests[i].outcome : NULL;
}

const char *litmus_code(unsigned int i)
{
	return i < T_NR ? tests[i].code : NULL;
}

static void reset(void *ctx)
{
	unsigned int t = L.test;

	(void)ctx;
	memset(&L, 0, sizeof(L));
	L.test = t;
}

static void fence_if(bool f)
{
	if (f)
		chk_fence();
}

/* Two stores, one to each word, @a first (0: x, 1: y), values @va, @vb. */
static void two_stores(bool yfirst, unsigned int va, unsigned int vb, bool f)
{
	cidk__st(yfirst ? &L.y : &L.x, va);
	fence_if(f);
	cidk__st(yfirst ? &L.x : &L.y, vb);
}

static void thread(void *ctx, unsigned int tid)
{
	unsigned int t = L.test;
	bool f = t == T_SBF || t == T_MPF || t == T_LBF || t == T_IRIWF ||
		 t == T_2WF;

	(void)ctx;
	switch (t) {
	case T_SB:
	case T_SBF:
		cidk__st(tid ? &L.y : &L.x, 1);
		fence_if(f);
		L.r[tid] = cidk__ld(tid ? &L.x : &L.y);
		break;
	case T_MP:
	case T_MPF:
		if (!tid) {
			two_stores(false, 1, 1, f);
		} else {
			L.r[0] = cidk__ld(&L.y);
			fence_if(f);
			L.r[1] = cidk__ld(&L.x);
		}
		break;
	case T_MPRA:
		if (!tid) {
			cidk__st(&L.x, 1);
			cidk__stp(&L.py, 1);
		} else {
			L.r[0] = cidk__ldp(&L.py);
			L.r[1] = cidk__ld(&L.x);
		}
		break;
	case T_LB:
	case T_LBF:
		L.r[tid] = cidk__ld(tid ? &L.y : &L.x);
		fence_if(f);
		cidk__st(tid ? &L.x : &L.y, 1);
		break;
	case T_IRIW:
	case T_IRIWF:
		if (tid < 2) {
			cidk__st(tid ? &L.y : &L.x, 1);
		} else {
			unsigned int b = 2 * (tid - 2);

			L.r[b] = cidk__ld(tid == 2 ? &L.x : &L.y);
			fence_if(f);
			L.r[b + 1] = cidk__ld(tid == 2 ? &L.y : &L.x);
		}
		break;
	case T_2W:
	case T_2WF:
		two_stores(tid == 1, 1, 2, f);
		break;
	}
}

static int check_final(void *ctx, char *why, size_t len)
{
	unsigned int t = L.test;
	bool hit;

	(void)ctx;
	switch (t) {
	case T_SB: case T_SBF:
		hit = !L.r[0] && !L.r[1];
		break;
	case T_MP: case T_MPF: case T_MPRA:
		hit = L.r[0] == 1 && !L.r[1];
		break;
	case T_LB: case T_LBF:
		hit = L.r[0] == 1 && L.r[1] == 1;
		break;
	case T_IRIW: case T_IRIWF:
		hit = L.r[0] == 1 && !L.r[1] && L.r[2] == 1 && !L.r[3];
		break;
	default:
		hit = atomic_load(&L.x) == 1 && atomic_load(&L.y) == 1;
		break;
	}
	if (!hit)
		return 0;
	snprintf(why, len, "%s: outcome %s reached", tests[t].name,
		 tests[t].outcome);
	return -1;
}

static const char *thread_name(void *ctx, unsigned int tid)
{
	static const char *const n[] = { "P0", "P1", "P2", "P3" };

	(void)ctx;
	return tid < 4 ? n[tid] : "?";
}

static const char *addr_name(void *ctx, const void *addr, char *buf,
			     size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	return addr == &L.x ? "x" : addr == &L.y || addr == &L.py ? "y" : NULL;
}

static void dump(void *ctx, FILE *f)
{
	(void)ctx;
	fprintf(f, "x %u, y %u; r0 %u r1 %u r2 %u r3 %u\n", atomic_load(&L.x),
		atomic_load(&L.y) | L.py, L.r[0], L.r[1], L.r[2], L.r[3]);
}

static int explore(unsigned int i, unsigned int memory,
		   unsigned int weak_bound, const struct chk_replay *d,
		   unsigned int nd, struct chk_result *r, bool *allowed)
{
	struct chk_model m = {
		.nthreads = i < T_NR ? tests[i].nthreads : 0,
		.reset = reset,
		.thread = thread,
		.check_final = check_final,
		.thread_name = thread_name,
		.addr_name = addr_name,
		.dump = dump,
	};
	struct chk_opts o = {
		.preemptions = CHK_MAX_BOUND, /* more than any test's steps */
		.max_steps = 100,
		.memory = memory,
		.weak_bound = weak_bound,
		.replay = d,
		.nreplay = nd,
	};
	int rc;

	if (i >= T_NR)
		return -EINVAL;
	L.test = i;
	rc = chk_explore(&m, &o, r);
	*allowed = r->verdict == CHK_VIOLATION;
	return rc;
}

int litmus_run(unsigned int i, unsigned int memory, unsigned int weak_bound,
	       struct chk_result *r, bool *allowed)
{
	return explore(i, memory, weak_bound, NULL, 0, r, allowed);
}

int litmus_replay(unsigned int i, unsigned int memory,
		  const struct chk_replay *d, unsigned int nd,
		  struct chk_result *r, bool *allowed)
{
	return explore(i, memory, 0, d, nd, r, allowed);
}

int litmus_table(FILE *f, unsigned int weak_bound)
{
	fprintf(f, "%-12s %-20s", "test", "outcome");
	for (unsigned int k = 0; k < CHK_MEM_NR; k++)
		fprintf(f, k + 1 < CHK_MEM_NR ? " %-20s" : " %s",
			chk_memory_name(k));
	fputc('\n', f);
	for (unsigned int i = 0; i < T_NR; i++) {
		fprintf(f, "%-12s %-20s", tests[i].name, tests[i].outcome);
		for (unsigned int k = 0; k < CHK_MEM_NR; k++) {
			struct chk_result r;
			bool allowed;
			char cell[40];
			int rc = litmus_run(i, k, weak_bound, &r, &allowed);

			if (rc) {
				chk_result_free(&r);
				return rc;
			}
			snprintf(cell, sizeof(cell), "%s (%lu)",
				 allowed ? "allowed" : "forbidden", r.schedules);
			fprintf(f, k + 1 < CHK_MEM_NR ? " %-20s" : " %s", cell);
			chk_result_free(&r);
		}
		fputc('\n', f);
	}
	return 0;
}
