/* SPDX-License-Identifier: MIT */
/*
 * bench/mask_modes.c - what the time of one union fold depends on
 * (docs/mask.md, "The two modes"): a full mask A folded into a full union
 * B (327,680 bits, nothing new), timed after each of a set of preceding
 * steps, 41 times each, for the check before issue 28 (relaxed scalar
 * loads: cidk__mask_union_count_isa(SCALAR), the same code as then) and
 * for the public function.  Then the same fold with B placed at chosen
 * distances from A (4K aliasing).
 *
 * usage: build/bench/mask_modes      (no arguments; one table on stdout)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include <cidkit/mask.h>

#include "cidkit_lab.h"
#include "stats.h"

#define BITS 327680u
#define REPS 41

static struct cidk_mask *a, *b, *c1, *c2;
static char *big;
static size_t bytes;

static void flush(const void *p, size_t n)
{
#if defined(__x86_64__)
	for (size_t i = 0; i < n; i += 64)
		_mm_clflush((const char *)p + i);
	_mm_mfence();
#else
	(void)p;
	(void)n;
#endif
}

static void before(int step)
{
	unsigned int bit, x = 0;
	uint64_t end;

	switch (step) {
	case 1: /* the way itself, just before */
		x += cidk__mask_union_count_isa(b, a, CIDK__UNION_SCALAR);
		break;
	case 2:
		x += (unsigned int)memcmp(a->bits, b->bits, bytes);
		break;
	case 3: /* the old bench's untimed comparison: other Bs against B */
		x += (unsigned int)memcmp(c1->bits, b->bits, bytes);
		x += (unsigned int)memcmp(c2->bits, b->bits, bytes);
		break;
	case 4: /* the old bench's per-bit way on another B: 2 ms of RMWs */
		cidk_mask_for_each(bit, a)
			x += !cidk_mask_test_and_set_atomic(c1, bit);
		break;
	case 5:
		flush(a->bits, bytes);
		flush(b->bits, bytes);
		break;
	case 6: /* 2 ms on the CPU touching no data */
		end = cidk__now_ns() + 2000000;
		while (cidk__now_ns() < end)
			;
		break;
	case 7: {
		struct timespec ts = { 0, 2000000 };

		nanosleep(&ts, NULL);
		break;
	}
	case 8: /* 8 MB of other data read */
		for (size_t i = 0; i < (8u << 20); i += 64)
			x += (unsigned char)big[i];
		break;
	case 9: /* a kernel entry: PTI without PCID flushes the TLB */
		x += (unsigned int)syscall(SYS_getppid);
		break;
	default:
		break;
	}
	cidk__keep(&x);
}

static double timed(int way)
{
	uint64_t t0 = cidk__now_ns();
	unsigned int n = way ? cidk_mask_union_count(b, a)
			     : cidk__mask_union_count_isa(b, a, CIDK__UNION_SCALAR);
	uint64_t t1 = cidk__now_ns();

	cidk__keep(&n);
	return (double)(t1 - t0);
}

int main(void)
{
	static const char *const steps[] = {
		"nothing (the previous repetition's fold)",
		"the same fold",
		"memcmp(A, B)",
		"memcmp of two other Bs against B",
		"per-bit atomics on another B (2 ms)",
		"A and B flushed (clflush)",
		"2 ms spin on the clock, no data",
		"2 ms nanosleep",
		"8 MB of other data read",
		"one system call (getppid)",
	};
	static const long offs[] = { 64, 128, 2048, 4032, 4096, 8192, 65536 };
	struct cidk__summary s;
	double v[2][REPS];
	char *buf;

	a = cidk_mask_alloc(BITS);
	b = cidk_mask_alloc(BITS);
	c1 = cidk_mask_alloc(BITS);
	c2 = cidk_mask_alloc(BITS);
	big = malloc(8u << 20);
	buf = aligned_alloc(4096, 1u << 20);
	if (!a || !b || !c1 || !c2 || !big || !buf)
		return 1;
	memset(big, 1, 8u << 20);
	bytes = a->nwords * sizeof(long);
	cidk_mask_fill(a);
	cidk_mask_fill(b);
	cidk_mask_fill(c1);
	cidk_mask_fill(c2);

	printf("one fold of %u full bits into a full union, %d reps, median "
	       "(min-max) ns\n%-42s %-26s %s\n", BITS, REPS, "just before it",
	       "scalar check (before)", "public (now)");
	for (int k = 0; k < (int)(sizeof(steps) / sizeof(steps[0])); k++) {
		for (int r = 0; r < REPS; r++)
			for (int w = 0; w < 2; w++) {
				before(k);
				v[w][r] = timed(w);
			}
		printf("%-42s", steps[k]);
		for (int w = 0; w < 2; w++) {
			char cell[64];

			cidk__summarize(v[w], REPS, &s);
			snprintf(cell, sizeof(cell), "%.0f (%.0f-%.0f)", s.median,
				 s.min, s.max);
			printf(" %-26s", cell);
		}
		printf("\n");
	}

	printf("\nB at a distance from A (the same fold back to back)\n");
	for (int k = 0; k < (int)(sizeof(offs) / sizeof(offs[0])); k++) {
		size_t sz = sizeof(struct cidk_mask) + bytes;
		struct cidk_mask *pa = (struct cidk_mask *)(void *)buf;
		struct cidk_mask *pb = (struct cidk_mask *)(void *)
			(buf + (sz + 4095) / 4096 * 4096 + (size_t)offs[k]);

		pa->nbits = pb->nbits = BITS;
		pa->nwords = pb->nwords = a->nwords;
		cidk_mask_fill(pa);
		cidk_mask_fill(pb);
		for (int r = 0; r < REPS; r++) {
			uint64_t t0 = cidk__now_ns();
			unsigned int n = cidk__mask_union_count_isa(pb, pa,
							CIDK__UNION_SCALAR);
			uint64_t t1 = cidk__now_ns();

			cidk__keep(&n);
			v[0][r] = (double)(t1 - t0);
		}
		cidk__summarize(v[0], REPS, &s);
		printf("B - A = %6ld bytes (%4ld mod 4096): scalar %.0f (%.0f-%.0f)\n",
		       (long)((char *)pb - (char *)pa),
		       (long)(((char *)pb - (char *)pa) % 4096), s.median, s.min,
		       s.max);
	}
	return 0;
}
