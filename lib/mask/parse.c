/* SPDX-License-Identifier: MIT */
/*
 * Parsing the kernel's two mask formats, following lib/bitmap-str.c:
 *   cpulist: bitmap_parselist() - "0-3,8-11", "0-15:2/4", "all", "N";
 *   hex:     bitmap_parse()     - "ffffffff,00000003", parsed from the end.
 * Separators are commas or white space (several in a row are one); a
 * newline or the NUL ends the input.  Every malformed or out-of-range input
 * is an error return; nothing here can overflow or read past the string.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include <cidkit/mask.h>

static bool end_of_str(char c)
{
	return c == '\0' || c == '\n';
}

static bool is_separator(char c)
{
	return isspace((unsigned char)c) || c == ',';
}

static bool end_of_region(char c)
{
	return is_separator(c) || end_of_str(c);
}

struct region {
	unsigned int start, end, off, group_len;
};

/* A decimal number, or 'N' for the last bit.  Returns the end or NULL. */
static const char *get_num(const char *s, unsigned int *num,
			   unsigned int lastbit, int *err)
{
	uint64_t n = 0;
	const char *p = s;

	if (*s == 'N') {
		*num = lastbit;
		return s + 1;
	}
	while (*p >= '0' && *p <= '9') {
		if (n <= UINT32_MAX)
			n = n * 10 + (uint64_t)(*p - '0');
		p++;
	}
	if (p == s) {
		*err = -EINVAL;
		return NULL;
	}
	if (n > UINT_MAX) {
		*err = -ERANGE;
		return NULL;
	}
	*num = (unsigned int)n;
	return p;
}

/*
 * One region.  Returns where parsing goes on, or NULL with *err set.  *last
 * is set when the kernel would stop after this region: a region without a
 * stride pattern that ends right at the end of the string or at a newline.
 * (After a pattern the kernel goes on, so "0-3:1/2\n5" includes 5 but
 * "1\n5" does not: we keep that quirk to agree with it.)
 */
static const char *parse_region(const char *s, struct region *r,
				unsigned int nbits, bool *last, int *err)
{
	unsigned int lastbit = nbits ? nbits - 1 : 0;

	if (!strncasecmp(s, "all", 3)) {
		r->start = 0;
		r->end = lastbit;
		s += 3;
		if (!nbits) {
			*err = -ERANGE;
			return NULL;
		}
	} else {
		s = get_num(s, &r->start, lastbit, err);
		if (!s)
			return NULL;
		if (end_of_region(*s)) {
			r->end = r->start;
			goto no_pattern;
		}
		if (*s != '-') {
			*err = -EINVAL;
			return NULL;
		}
		s = get_num(s + 1, &r->end, lastbit, err);
		if (!s)
			return NULL;
	}
	if (end_of_region(*s))
		goto no_pattern;
	if (*s != ':') {
		*err = -EINVAL;
		return NULL;
	}
	s = get_num(s + 1, &r->off, lastbit, err);
	if (!s)
		return NULL;
	if (*s != '/') {
		*err = -EINVAL;
		return NULL;
	}
	/*
	 * Like the kernel, no separator is required after the group length:
	 * whatever follows is parsed as the next region.
	 */
	return get_num(s + 1, &r->group_len, lastbit, err);

no_pattern:
	r->off = r->end - r->start + 1;
	r->group_len = r->off;
	*last = end_of_str(*s);
	return s;
}

static int check_region(const struct region *r, unsigned int nbits)
{
	if (r->start > r->end || r->group_len == 0 || r->off > r->group_len)
		return -EINVAL;
	if (r->end >= nbits)
		return -ERANGE;
	return 0;
}

/*
 * Set the bits of one region at word speed, whatever its pattern:
 *   - USED == GROUP (plain ranges, and "0-N:1/1"): one range;
 *   - GROUP >= BITS_PER_LONG: one range per group, at most one group
 *     starts in each word;
 *   - GROUP < BITS_PER_LONG: each word is a shifted copy of a 2-word
 *     pattern (the groups repeat with period GROUP).
 * Cost: O(1 + (end - start) / BITS_PER_LONG) word operations, never one
 * step per group of a small stride.
 */
static void set_region(struct cidk_mask *m, const struct region *r)
{
	const unsigned int bpl = CIDK_BITS_PER_LONG;
	unsigned long pat[2] = { 0, 0 };
	unsigned int g = r->group_len, used = r->off;
	uint64_t rot; /* (first bit of the word - start) mod GROUP */

	if (used == 0)
		return;
	if (used >= g || r->start == r->end) {
		uint64_t len = (uint64_t)r->end - r->start + 1;

		if (used < g && len > used)
			len = used;
		cidk_mask_set_range(m, r->start, (unsigned int)len);
		return;
	}
	if (g >= bpl) {
		/* start <= end < nbits <= 2^24: start + GROUP cannot wrap */
		for (uint64_t s = r->start; s <= r->end; s += g) {
			uint64_t len = r->end - s + 1;

			cidk_mask_set_range(m, (unsigned int)s,
					    (unsigned int)(len > used ? used : len));
		}
		return;
	}
	/* pat bit i (0 <= i < 2 * bpl) is set when i mod GROUP < USED */
	for (unsigned int i = 0; i < 2 * bpl; i++)
		if (i % g < used)
			pat[i / bpl] |= 1UL << (i % bpl);
	rot = 0;
	for (unsigned int w = r->start / bpl; w <= r->end / bpl; w++) {
		uint64_t lo = (uint64_t)w * bpl, hi = lo + bpl - 1;
		unsigned long bits;

		if (lo < r->start) { /* the first word: align the pattern */
			bits = pat[0] << (r->start - lo);
			rot = (bpl - (r->start - lo)) % g;
		} else {
			/* bit j of the word is pattern bit rot + j (< 2 bpl) */
			bits = rot ? (pat[0] >> rot) | (pat[1] << (bpl - rot))
				   : pat[0];
			rot = (rot + bpl) % g;
		}
		if (hi > r->end)
			bits &= ~0UL >> (hi - r->end);
		m->bits[w] |= bits;
	}
}

int cidk_mask_parse_list(struct cidk_mask *m, const char *s, size_t *errpos)
{
	const char *base = s;
	int err = 0;

	cidk_mask_zero(m);
	for (;;) {
		struct region r;
		const char *region;
		bool last = false;

		while (is_separator(*s))
			s++;
		if (end_of_str(*s))
			return 0;
		region = s;
		s = parse_region(s, &r, m->nbits, &last, &err);
		if (!s || (err = check_region(&r, m->nbits)) != 0) {
			if (errpos)
				*errpos = (size_t)(region - base);
			return err;
		}
		set_region(m, &r);
		if (last)
			return 0;
	}
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int cidk_mask_parse_hex(struct cidk_mask *m, const char *s, size_t *errpos)
{
	size_t len = strcspn(s, "\n");
	unsigned int nchunks = (m->nbits + 31) / 32;
	unsigned int chunk = 0;
	size_t end = len; /* one past the character to look at */
	int err = 0;

	cidk_mask_zero(m);
	for (;;) {
		uint32_t val = 0;
		unsigned int digits = 0;

		while (end > 0 && is_separator(s[end - 1]))
			end--;
		if (end == 0)
			break;
		while (end > 0 && !is_separator(s[end - 1])) {
			int d = hex_digit(s[end - 1]);

			if (d < 0) {
				err = -EINVAL;
				goto fail;
			}
			if (digits == 8) {
				err = -ERANGE;
				goto fail;
			}
			val |= (uint32_t)d << (4 * digits++);
			end--;
		}
		if (chunk >= nchunks) { /* the kernel refuses even a zero chunk */
			err = -ERANGE;
			goto fail;
		}
		for (unsigned int b = 0; b < 32; b++) {
			unsigned int bit = chunk * 32 + b;

			if (!(val & (UINT32_C(1) << b)))
				continue;
			if (bit >= m->nbits) {
				err = -ERANGE;
				goto fail;
			}
			cidk_mask_set(m, bit);
		}
		chunk++;
	}
	return 0;
fail:
	if (errpos)
		*errpos = end ? end - 1 : 0;
	return err;
}
