/* SPDX-License-Identifier: MIT */
/*
 * cidk_mask_parse_list and cidk_mask_parse_hex on any string, at a width
 * chosen by the first byte.  Properties: whatever parses prints in both
 * formats and parses back to the same mask (round trip); no input costs
 * more than its size (libFuzzer's -timeout catches a slow one).
 */
#include <cidkit/mask.h>

#include "fuzz.h"

static const unsigned int widths[] = { 1,  8,   23,	 32,  35,   63,
				       64, 65,	109, 200, 4097, 65536 };

static void round_trip(const struct cidk_mask *m, struct cidk_mask *back)
{
	size_t n = cidk_mask_format_list(m, NULL, 0);
	char *s = malloc(n + 1);
	size_t pos;

	if (!s)
		abort();
	FUZZ_CHECK(cidk_mask_format_list(m, s, n + 1) == n);
	FUZZ_CHECK(cidk_mask_parse_list(back, s, &pos) == 0);
	FUZZ_CHECK(cidk_mask_equal(m, back));
	free(s);
	n = cidk_mask_format_hex(m, NULL, 0);
	s = malloc(n + 1);
	if (!s)
		abort();
	FUZZ_CHECK(cidk_mask_format_hex(m, s, n + 1) == n);
	FUZZ_CHECK(cidk_mask_parse_hex(back, s, &pos) == 0);
	FUZZ_CHECK(cidk_mask_equal(m, back));
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int nbits;
	struct cidk_mask *m, *back;
	size_t pos = 0;
	char *s;

	if (size < 1 || size > 4096)
		return 0;
	nbits = widths[data[0] % (sizeof(widths) / sizeof(widths[0]))];
	s = fuzz_str(data + 1, size - 1);
	m = cidk_mask_alloc(nbits);
	back = cidk_mask_alloc(nbits);
	if (!m || !back)
		abort();
	if (cidk_mask_parse_list(m, s, &pos) == 0)
		round_trip(m, back);
	else
		FUZZ_CHECK(pos <= size - 1);
	pos = 0;
	if (cidk_mask_parse_hex(m, s, &pos) == 0)
		round_trip(m, back);
	else
		FUZZ_CHECK(pos <= size - 1);
	cidk_mask_free(m);
	cidk_mask_free(back);
	free(s);
	return 0;
}
