/* SPDX-License-Identifier: MIT */
/*
 * trace/model.c - which policy models which kernel (docs/cid.md): the
 * mm_cid generations by release.
 */
#include <errno.h>

#include <cidkit/trace.h>

int cidk_trace_kernel_model(const char *release,
			    enum cidk_cid_policy_kind *kind)
{
	unsigned int maj = 0, min = 0, d = 0;
	const char *s = release;

	for (; *s >= '0' && *s <= '9' && d < 4; s++, d++)
		maj = maj * 10 + (unsigned int)(*s - '0');
	if (!d || *s != '.')
		return -EINVAL;
	s++;
	for (d = 0; *s >= '0' && *s <= '9' && d < 4; s++, d++)
		min = min * 10 + (unsigned int)(*s - '0');
	if (!d)
		return -EINVAL;
	if (maj < 6 || (maj == 6 && min < 3))
		return -ENOENT;
	if (maj == 6 && min == 3)
		*kind = CIDK_CID_BITMAP;
	else if (maj == 6 && min <= 14)
		*kind = CIDK_CID_LAZY;
	else if (maj == 6 && min <= 18)
		*kind = CIDK_CID_CACHE_LOCAL;
	else
		*kind = CIDK_CID_OWNERSHIP;
	return 0;
}
