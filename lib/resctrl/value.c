/* SPDX-License-Identifier: MIT */
/*
 * resctrl counter values: event names, what a counter file contains, and
 * the rate between two reads.  Pure functions, no I/O.
 */
#include <errno.h>
#include <string.h>

#include <cidkit/resctrl.h>

#include "resctrl/resctrl_internal.h"

static const char *const event_names[CIDK_RC_NR_EVENTS] = {
	[CIDK_RC_MBM_TOTAL] = "mbm_total_bytes",
	[CIDK_RC_MBM_LOCAL] = "mbm_local_bytes",
	[CIDK_RC_LLC_OCCUPANCY] = "llc_occupancy",
};

static const char *const event_short[CIDK_RC_NR_EVENTS] = {
	[CIDK_RC_MBM_TOTAL] = "total",
	[CIDK_RC_MBM_LOCAL] = "local",
	[CIDK_RC_LLC_OCCUPANCY] = "occupancy",
};

static const char *const state_names[CIDK_RC_NR_STATES] = {
	[CIDK_RC_OK] = "ok",
	[CIDK_RC_UNAVAILABLE] = "Unavailable",
	[CIDK_RC_ERROR] = "Error",
	[CIDK_RC_UNASSIGNED] = "Unassigned",
	[CIDK_RC_GARBLED] = "garbled",
	[CIDK_RC_READ_FAILED] = "read failed",
	[CIDK_RC_ABSENT] = "absent",
};

static const char *const rate_state_names[CIDK_RC_NR_RATE_STATES] = {
	[CIDK_RC_RATE_OK] = "ok",
	[CIDK_RC_RATE_NOBASE] = "no base",
	[CIDK_RC_RATE_NOVALUE] = "no value",
	[CIDK_RC_RATE_BACKWARDS] = "backwards",
	[CIDK_RC_RATE_NOTIME] = "no time",
};

const char *cidk_resctrl_event_name(enum cidk_rc_event e)
{
	return (unsigned int)e < CIDK_RC_NR_EVENTS ? event_names[e] : NULL;
}

const char *cidk_resctrl_state_name(enum cidk_rc_state s)
{
	return (unsigned int)s < CIDK_RC_NR_STATES ? state_names[s] : "?";
}

const char *cidk_resctrl_rate_state_name(enum cidk_rc_rate_state s)
{
	return (unsigned int)s < CIDK_RC_NR_RATE_STATES ? rate_state_names[s]
							  : "?";
}

int cidk__rc_event_from_name(const char *name, size_t len)
{
	for (int e = 0; e < CIDK_RC_NR_EVENTS; e++)
		if ((strlen(event_names[e]) == len &&
		     !memcmp(name, event_names[e], len)) ||
		    (strlen(event_short[e]) == len &&
		     !memcmp(name, event_short[e], len)))
			return e;
	return -1;
}

int cidk_resctrl_parse_events(const char *list, unsigned int *mask,
			      size_t *errpos)
{
	const char *p = list;
	unsigned int m = 0;

	if (!list || !mask)
		return -EINVAL;
	for (;;) {
		size_t len = strcspn(p, ",");
		int e = cidk__rc_event_from_name(p, len);

		if (e < 0) {
			if (errpos)
				*errpos = (size_t)(p - list);
			return -EINVAL;
		}
		m |= 1u << e;
		if (!p[len])
			break;
		p += len + 1;
	}
	*mask = m;
	return 0;
}

static bool is_word(const char *buf, size_t len, const char *w)
{
	return strlen(w) == len && !memcmp(buf, w, len);
}

void cidk_resctrl_parse_value(const char *buf, size_t len,
			      struct cidk_rc_value *out)
{
	uint64_t v = 0;

	out->err = 0;
	out->v = 0;
	if (len && buf[len - 1] == '\n')
		len--;
	if (is_word(buf, len, "Unavailable")) {
		out->state = CIDK_RC_UNAVAILABLE;
		return;
	}
	if (is_word(buf, len, "Error")) {
		out->state = CIDK_RC_ERROR;
		return;
	}
	if (is_word(buf, len, "Unassigned")) {
		out->state = CIDK_RC_UNASSIGNED;
		return;
	}
	out->state = CIDK_RC_GARBLED;
	if (!len || len > 20)
		return;
	for (size_t i = 0; i < len; i++) {
		unsigned int d = (unsigned char)buf[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return;
		v = v * 10 + d;
	}
	out->state = CIDK_RC_OK;
	out->v = v;
}

void cidk_resctrl_rate(const struct cidk_rc_value *prev,
		       const struct cidk_rc_value *cur, uint64_t elapsed_ns,
		       struct cidk_rc_rate *out)
{
	out->delta = 0;
	out->bytes_per_s = 0;
	if (cur->state != CIDK_RC_OK)
		out->state = CIDK_RC_RATE_NOVALUE;
	else if (!prev || prev->state != CIDK_RC_OK)
		out->state = CIDK_RC_RATE_NOBASE;
	else if (cur->v < prev->v)
		out->state = CIDK_RC_RATE_BACKWARDS;
	else if (!elapsed_ns)
		out->state = CIDK_RC_RATE_NOTIME;
	else {
		out->state = CIDK_RC_RATE_OK;
		out->delta = cur->v - prev->v;
		out->bytes_per_s = (double)out->delta * 1e9 / (double)elapsed_ns;
	}
}
