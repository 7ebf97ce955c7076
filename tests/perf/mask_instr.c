/* SPDX-License-Identifier: MIT */
/*
 * tests/perf/mask_instr.c - CALLS folds of a full mask A of BITS bits into
 * a union B, one way of cidk_mask_union_count()'s check, for callgrind to
 * count (mask_instr.py).
 *
 * usage: mask_instr WAY SCENARIO BITS CALLS
 *   WAY       scalar | sse2 | avx2 (lib/mask/atomic.c) | public (the
 *             function users call: whichever of them this CPU gets)
 *   SCENARIO  steady (B full) | growing (B full less 64 bits spread over
 *             the mask, restored before every call, outside the count)
 * Exit 2 on bad arguments, 3 when this CPU or build lacks WAY.
 */
#include <stdlib.h>
#include <string.h>

#include <cidkit/mask.h>

#include "cidkit_lab.h"

static const char *const ways[] = { "scalar", "sse2", "avx2", "public" };

int main(int argc, char **argv)
{
	struct cidk_mask *a, *b, *tmpl;
	unsigned int bits, sum = 0;
	unsigned long calls;
	int way = -1, growing;

	if (argc != 5)
		return 2;
	for (int w = 0; w < 4; w++)
		if (!strcmp(argv[1], ways[w]))
			way = w;
	growing = !strcmp(argv[2], "growing");
	bits = (unsigned int)strtoul(argv[3], NULL, 10);
	calls = strtoul(argv[4], NULL, 10);
	if (way < 0 || (!growing && strcmp(argv[2], "steady")) || bits < 64 ||
	    !calls)
		return 2;
	if (way < CIDK__UNION_NR && !cidk__mask_union_isa_available(way))
		return 3;
	a = cidk_mask_alloc(bits);
	b = cidk_mask_alloc(bits);
	tmpl = cidk_mask_alloc(bits);
	if (!a || !b || !tmpl)
		return 1;
	cidk_mask_fill(a);
	cidk_mask_fill(tmpl);
	if (growing)
		for (unsigned int i = 0; i < 64; i++)
			cidk_mask_clear(tmpl, (unsigned int)((unsigned long long)i *
							     bits / 64));
	cidk_mask_copy(b, tmpl);
	for (unsigned long i = 0; i < calls; i++) {
		if (growing)
			cidk_mask_copy(b, tmpl);
		sum += way == 3 ? cidk_mask_union_count(b, a)
				: cidk__mask_union_count_isa(b, a, way);
	}
	/* every call adds the 64 missing bits, or none */
	return sum == (growing ? 64 * calls : 0) ? 0 : 1;
}
