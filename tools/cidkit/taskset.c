/* SPDX-License-Identifier: MIT */
/*
 * taskset's mask form (taskset.h): parsed from the last digit to the
 * first, so that digit i holds bits 4i..4i+3.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "taskset.h"

int taskset_parse(struct cidk_mask *m, const char *s, size_t *errpos)
{
	size_t start = (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 2 : 0;
	size_t len = strcspn(s, "\n");

	cidk_mask_zero(m);
	if (s[len] == '\n' && s[len + 1]) {
		*errpos = len;
		return -EINVAL;
	}
	if (len == start) {
		*errpos = len;
		return -EINVAL;
	}
	for (size_t i = len; i-- > start;) {
		char c = s[i];
		unsigned int d, digit = (unsigned int)(len - 1 - i);

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else {
			*errpos = i;
			return -EINVAL;
		}
		for (unsigned int b = 0; b < 4; b++) {
			if (!(d & (1u << b)))
				continue;
			if (digit >= (m->nbits + 3) / 4 ||
			    4 * digit + b >= m->nbits) {
				*errpos = i;
				return -ERANGE;
			}
			cidk_mask_set(m, 4 * digit + b);
		}
	}
	return 0;
}

char *taskset_format(const struct cidk_mask *m)
{
	unsigned int last = cidk_mask_last(m);
	unsigned int digits = last >= m->nbits ? 1 : last / 4 + 1;
	char *out = malloc(digits + 3);

	if (!out)
		return NULL;
	out[0] = '0';
	out[1] = 'x';
	for (unsigned int i = 0; i < digits; i++) {
		unsigned int d = 0, digit = digits - 1 - i;

		for (unsigned int b = 0; b < 4; b++)
			if (4 * digit + b < m->nbits && cidk_mask_test(m, 4 * digit + b))
				d |= 1u << b;
		out[2 + i] = "0123456789abcdef"[d];
	}
	out[2 + digits] = '\0';
	return out;
}
