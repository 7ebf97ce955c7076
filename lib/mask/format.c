/* SPDX-License-Identifier: MIT */
/*
 * Formatting masks as the kernel prints them: "%*pbl" (cpulist) and "%*pb"
 * (hex).  Both are snprintf-like: they return the full length and truncate
 * safely, so a caller can size a buffer with a first call on (NULL, 0).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <cidkit/mask.h>

struct out {
	char *buf;
	size_t size, len;
};

static void out_str(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, o->len++)
		if (o->len + 1 < o->size)
			o->buf[o->len] = s[i];
}

static void out_fmt_uint(struct out *o, unsigned int v)
{
	char tmp[16];
	int n = snprintf(tmp, sizeof(tmp), "%u", v);

	out_str(o, tmp, (size_t)n);
}

static size_t out_end(struct out *o)
{
	if (o->size)
		o->buf[o->len < o->size ? o->len : o->size - 1] = '\0';
	return o->len;
}

size_t cidk_mask_format_list(const struct cidk_mask *m, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };
	unsigned int a = cidk_mask_first(m);

	while (a < m->nbits) {
		unsigned int b = cidk_mask_next_zero(m, a + 1);

		if (o.len)
			out_str(&o, ",", 1);
		out_fmt_uint(&o, a);
		if (b - 1 > a) {
			out_str(&o, "-", 1);
			out_fmt_uint(&o, b - 1);
		}
		a = b < m->nbits ? cidk_mask_next(m, b + 1) : m->nbits;
	}
	return out_end(&o);
}

size_t cidk_mask_format_hex(const struct cidk_mask *m, char *buf, size_t size)
{
	static const char digits[] = "0123456789abcdef";
	struct out o = { buf, size, 0 };
	unsigned int nchunks = (m->nbits + 31) / 32;
	unsigned int width = m->nbits % 32 ? m->nbits % 32 : 32;

	for (unsigned int c = nchunks; c-- > 0;) {
		unsigned int bit = c * 32;
		unsigned long w = m->bits[bit / CIDK_BITS_PER_LONG];
		unsigned int val = (unsigned int)(w >> (bit % CIDK_BITS_PER_LONG)) &
				   0xffffffffu;
		unsigned int nd = (width + 3) / 4;

		if (c != nchunks - 1)
			out_str(&o, ",", 1);
		for (unsigned int d = nd; d-- > 0;)
			out_str(&o, &digits[(val >> (4 * d)) & 0xf], 1);
		width = 32;
	}
	return out_end(&o);
}

char *cidk_mask_list_alloc(const struct cidk_mask *m)
{
	size_t n = cidk_mask_format_list(m, NULL, 0);
	char *s = malloc(n + 1);

	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	cidk_mask_format_list(m, s, n + 1);
	return s;
}
