/* SPDX-License-Identifier: MIT */
/*
 * cidk_mask_parse_list, cidk_mask_parse_hex and cidkit cpulist's taskset
 * form (tools/cidkit/taskset.c) on any string, at a width chosen by the
 * first byte.  Properties: whatever parses prints in all three formats
 * and parses back to the same mask (round trip); taskset's form agrees
 * with a reference decoding of the digits (accepted exactly when the
 * reference accepts, the same bits, printed as the digits without
 * leading zeros, an error offset at the byte at fault); no input costs
 * more than its size (libFuzzer's -timeout catches a slow one).
 */
#include <errno.h>

#include <cidkit/mask.h>

#include "fuzz.h"
#include "taskset.h"

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
	s = taskset_format(m);
	if (!s)
		abort();
	FUZZ_CHECK(taskset_parse(back, s, &pos) == 0);
	FUZZ_CHECK(cidk_mask_equal(m, back));
	free(s);
}

/* The value of the hex digit @c, -1 if it is none. */
static int hex_value(char c)
{
	static const char digits[] = "0123456789abcdefABCDEF";
	const char *p = c ? strchr(digits, c) : NULL;

	if (!p)
		return -1;
	return p - digits < 16 ? (int)(p - digits) : (int)(p - digits) - 6;
}

/*
 * taskset's form against the reference: the word without its "0x" and
 * its one trailing newline must be hex digits only, at least one; digit
 * k from the right holds bits 4k..4k+3, each below @m's width.
 */
static int check_taskset(struct cidk_mask *m, const char *s)
{
	size_t len = strlen(s), start = 0, end = len, pos = len + 1;
	bool syntax = true, range = true;
	int rc = taskset_parse(m, s, &pos);
	char *out, *want, *w;

	if (end && s[end - 1] == '\n')
		end--;
	if (end >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		start = 2;
	syntax = end > start;
	for (size_t i = start; i < end; i++) {
		int v = hex_value(s[i]);

		if (v < 0) {
			syntax = false;
			continue;
		}
		for (unsigned int b = 0; b < 4; b++)
			if ((v >> b & 1) && 4 * (end - 1 - i) + b >= m->nbits)
				range = false;
	}
	if (syntax && range) {
		FUZZ_CHECK(rc == 0);
		for (size_t i = start; i < end; i++)
			for (unsigned int b = 0; b < 4; b++) {
				size_t bit = 4 * (end - 1 - i) + b;

				FUZZ_CHECK(bit >= m->nbits ||
					   cidk_mask_test(m, (unsigned int)bit) ==
						   (bool)(hex_value(s[i]) >> b & 1));
			}
		FUZZ_CHECK(cidk_mask_weight(m) <= 4 * (end - start));
		/* printed: the digits in lower case without leading zeros */
		out = taskset_format(m);
		want = malloc(end - start + 3);
		if (!out || !want)
			abort();
		w = want + sprintf(want, "0x");
		for (size_t i = start; i < end; i++)
			if (w > want + 2 || hex_value(s[i]) || i + 1 == end)
				*w++ = "0123456789abcdef"[hex_value(s[i])];
		*w = '\0';
		FUZZ_CHECK(!strcmp(out, want));
		free(out);
		free(want);
		return 0;
	}
	/* both wrong: the parser may meet either first */
	FUZZ_CHECK(rc == (syntax ? -ERANGE : range ? -EINVAL : rc));
	FUZZ_CHECK(rc == -EINVAL || rc == -ERANGE);
	FUZZ_CHECK(pos <= len);
	if (rc == -ERANGE)
		FUZZ_CHECK(hex_value(s[pos]) > 0);
	else if (pos < end)
		FUZZ_CHECK(hex_value(s[pos]) < 0);
	return rc;
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
	if (check_taskset(m, s) == 0)
		round_trip(m, back);
	cidk_mask_free(m);
	cidk_mask_free(back);
	free(s);
	return 0;
}
