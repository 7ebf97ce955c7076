/* SPDX-License-Identifier: MIT */
/*
 * cpulist and hex parse/format, table-driven: expectations are strings,
 * the way the kernel's bitmap selftests write them.  Then a round trip of
 * random masks through both formats, checked against a reference.
 */
#include <errno.h>
#include <string.h>

#include <cidkit/mask.h>

#include "tap.h"
#include "prng.h"

struct list_case {
	unsigned int nbits;
	const char *in;
	int err;	  /* expected return */
	const char *list; /* canonical cpulist when err == 0 */
	const char *hex;  /* kernel hex when err == 0 */
};

static const struct list_case list_cases[] = {
	{ 8, "", 0, "", "00" },
	{ 8, "\n", 0, "", "00" },
	{ 2, "0-1", 0, "0-1", "3" },
	{ 32, "0-3,8-11", 0, "0-3,8-11", "00000f0f" },
	{ 64, "0-3,8-11", 0, "0-3,8-11", "00000000,00000f0f" },
	{ 16, "0-15:2/4", 0, "0-1,4-5,8-9,12-13", "3333" },
	{ 16, "1-14:3/5", 0, "1-3,6-8,11-13", "39ce" },
	{ 16, "0-15:1/16", 0, "0", "0001" },
	{ 16, "0-15:0/4", 0, "", "0000" },
	{ 16, "0-15:4/4", 0, "0-15", "ffff" },
	{ 8, " 3 , 1,2 \n", 0, "1-3", "0e" },
	{ 8, "1,,3", 0, "1,3", "0a" },
	{ 8, "7,0", 0, "0,7", "81" },
	{ 8, "5,3-6,0", 0, "0,3-6", "79" },
	{ 8, "1 3", 0, "1,3", "0a" },
	{ 8, "all", 0, "0-7", "ff" },
	{ 8, "ALL", 0, "0-7", "ff" },
	{ 8, "all:1/2", 0, "0,2,4,6", "55" },
	{ 8, "N", 0, "7", "80" },
	{ 8, "2-N", 0, "2-7", "fc" },
	{ 8, "0-N:1/3", 0, "0,3,6", "49" },
	{ 8, "1\n5", 0, "1", "02" },
	{ 8, "1 \n5", 0, "1,5", "22" },
	{ 8, "0-3:1/2\n5", 0, "0,2,5", "25" },
	{ 65, "64", 0, "64", "1,00000000,00000000" },
	{ 109, "0-108", 0, "0-108", "1fff,ffffffff,ffffffff,ffffffff" },
	{ 35, "32-34,0", 0, "0,32-34", "7,00000001" },
	{ 8, "0-7:2/4x", -EINVAL, NULL, NULL },
	{ 8, "8", -ERANGE, NULL, NULL },
	{ 8, "0-8", -ERANGE, NULL, NULL },
	{ 8, "4294967296", -ERANGE, NULL, NULL },
	{ 8, "99999999999999999999999", -ERANGE, NULL, NULL },
	{ 8, "3-1", -EINVAL, NULL, NULL },
	{ 8, "-1", -EINVAL, NULL, NULL },
	{ 8, "1-", -EINVAL, NULL, NULL },
	{ 8, "a", -EINVAL, NULL, NULL },
	{ 8, "0x3", -EINVAL, NULL, NULL },
	{ 8, "1.5", -EINVAL, NULL, NULL },
	{ 8, "0-7:3/2", -EINVAL, NULL, NULL },
	{ 8, "0-7:0/0", -EINVAL, NULL, NULL },
	{ 8, "0-7:1", -EINVAL, NULL, NULL },
	{ 8, "0-7:/2", -EINVAL, NULL, NULL },
	{ 8, "0:1/2", -EINVAL, NULL, NULL },
	{ 8, "1-2-3", -EINVAL, NULL, NULL },
	{ 8, "+1", -EINVAL, NULL, NULL },
	{ 8, "al", -EINVAL, NULL, NULL },
	{ 8, "allx", -EINVAL, NULL, NULL },
};

struct hex_case {
	unsigned int nbits;
	const char *in;
	int err;
	const char *list;
};

static const struct hex_case hex_cases[] = {
	{ 8, "", 0, "" },
	{ 8, "ff", 0, "0-7" },
	{ 8, "FF\n", 0, "0-7" },
	{ 8, "0000000f", 0, "0-3" },
	{ 64, "ffffffff,00000003", 0, "0-1,32-63" },
	{ 64, "3", 0, "0-1" },
	{ 64, "1,0", 0, "32" },
	{ 64, "1 0", 0, "32" },
	{ 64, "1,,0", 0, "32" },
	{ 2, "3", 0, "0-1" },
	{ 96, "80000000,00000000,00000001", 0, "0,95" },
	{ 8, "100", -ERANGE, NULL },
	{ 8, "1,00000000", -ERANGE, NULL },
	{ 64, "1,0,0", -ERANGE, NULL },
	{ 64, "123456789", -ERANGE, NULL },
	{ 8, "0x1", -EINVAL, NULL },
	{ 8, "g", -EINVAL, NULL },
	{ 8, "-1", -EINVAL, NULL },
};

static void list_table(void)
{
	for (size_t i = 0; i < sizeof(list_cases) / sizeof(list_cases[0]); i++) {
		const struct list_case *c = &list_cases[i];
		struct cidk_mask *m = cidk_mask_alloc(c->nbits);
		char list[256], hex[256];
		size_t pos = 999;
		int rc = cidk_mask_parse_list(m, c->in, &pos);

		if (c->err) {
			ok(rc == c->err && pos <= strlen(c->in),
			   "list nbits=%u '%s' fails with %d (got %d)", c->nbits,
			   c->in, c->err, rc);
		} else {
			cidk_mask_format_list(m, list, sizeof(list));
			cidk_mask_format_hex(m, hex, sizeof(hex));
			ok(rc == 0 && !strcmp(list, c->list) &&
				   !strcmp(hex, c->hex),
			   "list nbits=%u '%s' -> '%s' / '%s' (got %d '%s' '%s')",
			   c->nbits, c->in, c->list, c->hex, rc, list, hex);
		}
		cidk_mask_free(m);
	}
}

static void hex_table(void)
{
	for (size_t i = 0; i < sizeof(hex_cases) / sizeof(hex_cases[0]); i++) {
		const struct hex_case *c = &hex_cases[i];
		struct cidk_mask *m = cidk_mask_alloc(c->nbits);
		char list[256];
		int rc = cidk_mask_parse_hex(m, c->in, NULL);

		if (c->err) {
			ok(rc == c->err, "hex nbits=%u '%s' fails with %d (got %d)",
			   c->nbits, c->in, c->err, rc);
		} else {
			cidk_mask_format_list(m, list, sizeof(list));
			ok(rc == 0 && !strcmp(list, c->list),
			   "hex nbits=%u '%s' -> '%s' (got %d '%s')", c->nbits,
			   c->in, c->list, rc, list);
		}
		cidk_mask_free(m);
	}
}

/* Format truncation is snprintf-like and never overflows. */
static void truncation(void)
{
	struct cidk_mask *m = cidk_mask_alloc(64);
	char buf[6];
	size_t n;

	cidk_mask_parse_list(m, "0,2,4,6,8,10", NULL);
	memset(buf, 'x', sizeof(buf));
	n = cidk_mask_format_list(m, buf, sizeof(buf));
	ok(n == strlen("0,2,4,6,8,10") && !strcmp(buf, "0,2,4"),
	   "format_list truncates like snprintf (%zu, '%s')", n, buf);
	n = cidk_mask_format_hex(m, NULL, 0);
	ok(n == 17, "format_hex with size 0 returns the length (%zu)", n);
	cidk_mask_free(m);
}

/* Random masks: list and hex round trips agree with a bool reference. */
static void round_trips(void)
{
	static const unsigned int sizes[] = { 1, 23, 32, 35, 64, 65, 109, 4097 };
	struct cidk__prng rng;
	unsigned int bad = 0, cases = 0;

	cidk__prng_seed(&rng, 7);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		unsigned int n = sizes[s];

		for (int rep = 0; rep < 50; rep++, cases++) {
			struct cidk_mask *a = cidk_mask_alloc(n);
			struct cidk_mask *b = cidk_mask_alloc(n);
			unsigned int pct = (unsigned int)cidk__prng_below(&rng, 101);
			char *l, *h;

			for (unsigned int i = 0; i < n; i++)
				if (cidk__prng_below(&rng, 100) < pct)
					cidk_mask_set(a, i);
			l = cidk_mask_list_alloc(a);
			bad += cidk_mask_parse_list(b, l, NULL) != 0 ||
			       !cidk_mask_equal(a, b);
			h = malloc(cidk_mask_format_hex(a, NULL, 0) + 1);
			cidk_mask_format_hex(a, h, (size_t)-1);
			bad += cidk_mask_parse_hex(b, h, NULL) != 0 ||
			       !cidk_mask_equal(a, b);
			bad += strlen(h) != (n + 31) / 32 * 9 - 1 -
						    (n % 32 ? 8 - (n % 32 + 3) / 4 : 0);
			free(l);
			free(h);
			cidk_mask_free(a);
			cidk_mask_free(b);
		}
	}
	ok(!bad, "%u random masks round-trip through list and hex", cases);
}

int main(void)
{
	list_table();
	hex_table();
	truncation();
	round_trips();
	return done_testing();
}
