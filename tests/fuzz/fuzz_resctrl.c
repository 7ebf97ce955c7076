/* SPDX-License-Identifier: MIT */
/*
 * resctrl's two parsers on any bytes: counter values (the first byte
 * picks how many of the rest are "read") and event lists.  Properties:
 * a value is classified, never out of the enum; an OK value prints back
 * as the same decimal; an event list either gives a mask within the
 * events or an error offset inside the string.
 */
#include <inttypes.h>

#include <cidkit/resctrl.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cidk_rc_value v, prev = { CIDK_RC_OK, 0, 0 };
	struct cidk_rc_rate r;
	unsigned int mask = 0;
	size_t pos = 0;
	char *s;

	if (size > 4096)
		return 0;
	cidk_resctrl_parse_value((const char *)data, size, &v);
	FUZZ_CHECK((unsigned int)v.state < CIDK_RC_NR_STATES);
	if (v.state == CIDK_RC_OK) {
		size_t len = size && data[size - 1] == '\n' ? size - 1 : size;
		char back[32];
		int n;

		/* the digits read are the number, zero-padded as written */
		FUZZ_CHECK(len >= 1 && len <= 20);
		n = snprintf(back, sizeof(back), "%0*" PRIu64, (int)len, v.v);
		FUZZ_CHECK((size_t)n == len && !memcmp(back, data, len));
	}
	cidk_resctrl_rate(&prev, &v, size, &r);
	FUZZ_CHECK((unsigned int)r.state < CIDK_RC_NR_RATE_STATES);
	FUZZ_CHECK(r.state != CIDK_RC_RATE_OK || r.bytes_per_s >= 0);

	s = fuzz_str(data, size);
	if (cidk_resctrl_parse_events(s, &mask, &pos) == 0)
		FUZZ_CHECK(mask && !(mask & ~CIDK_RC_ALL_EVENTS));
	else
		FUZZ_CHECK(pos <= size);
	free(s);
	return 0;
}
