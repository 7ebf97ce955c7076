/* SPDX-License-Identifier: MIT */
/*
 * check/merge.c - a part of a search written and read back (the "part" of
 * a --shard --json item, and what a --jobs process sends), and the merge
 * of the parts into one result (see shard.h for why it is exact).
 *
 * A part is small except for its state hashes: 16 hex digits per distinct
 * state it saw, grouped by the bound each was first seen at, sorted, so
 * that the same part is the same bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include <jansson.h>
#include "shard.h"

/* ---- writing ------------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The hashes first seen at bound @b, sorted, as hex (malloc'd). */
static char *hashes_hex(const struct chk_result *r, unsigned int b)
{
	unsigned long n = 0;
	uint64_t *v = malloc((r->nhashes ? r->nhashes : 1) * sizeof(*v));
	char *s;

	if (!v)
		return NULL;
	for (unsigned long i = 0; i < r->nhashes; i++)
		if (r->hash_bound[i] == b)
			v[n++] = r->hashes[i];
	qsort(v, n, sizeof(*v), cmp_u64);
	s = malloc(16 * n + 1);
	if (s) {
		for (unsigned long i = 0; i < n; i++)
			snprintf(s + 16 * i, 17, "%016" PRIx64, v[i]);
		s[16 * n] = '\0';
	}
	free(v);
	return s;
}

/* The trace's threads, run-length: "0:19,1:24,..." (malloc'd). */
static char *schedule_str(const struct chk_result *r)
{
	size_t cap = 16 * (size_t)r->trace_len + 1, n = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[0] = '\0';
	for (unsigned int i = 0, k; i < r->trace_len; i = k) {
		if (r->trace[i].way) { /* "T~K": one step, memory way K */
			k = i + 1;
			n += (size_t)snprintf(s + n, cap - n, "%s%u~%u",
					      i ? "," : "", r->trace[i].tid,
					      r->trace[i].way);
			continue;
		}
		for (k = i; k < r->trace_len && r->trace[k].tid == r->trace[i].tid &&
			    !r->trace[k].way; k++)
			;
		n += (size_t)snprintf(s + n, cap - n, "%s%u:%u", i ? "," : "",
				      r->trace[i].tid, k - i);
	}
	return s;
}

void shard_write_part(struct jw *w, const struct chk_result *r,
		      const struct shard_spec *sp)
{
	bool v = r->verdict == CHK_VIOLATION || r->verdict == CHK_MISTAKE;

	jw_key(w, "part");
	jw_obj(w);
	jw_kuint(w, "k", sp->k);
	jw_kuint(w, "n", sp->n);
	jw_kbool(w, "violation", v);
	jw_kuint(w, "bound", r->bound);
	jw_kuint(w, "schedules", r->schedules);
	jw_kuint(w, "steps", r->steps);
	jw_kuint(w, "cut", r->cut);
	jw_key(w, "per_bound"); /* schedules, steps, step cuts, starved */
	jw_arr(w);
	for (unsigned int b = 0; b <= r->bound; b++) {
		jw_arr(w);
		jw_uint(w, r->bound_schedules[b]);
		jw_uint(w, r->bound_steps[b]);
		jw_uint(w, r->bound_step_cuts[b]);
		jw_uint(w, r->bound_starved[b]);
		jw_arr_end(w);
	}
	jw_arr_end(w);
	if (v) {
		char *s = schedule_str(r);

		jw_kuint(w, "unit", r->unit);
		jw_kuint(w, "trace_len", r->trace_len);
		jw_kstr(w, "schedule", s ? s : "");
		free(s);
	}
	jw_key(w, "state_hashes");
	jw_arr(w);
	for (unsigned int b = 0; b <= r->bound; b++) {
		char *s = hashes_hex(r, b);

		jw_break(w, "\n   ");
		jw_str(w, s ? s : "");
		free(s);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

/* ---- reading ------------------------------------------------------------------------ */

struct json_t *shard_parse(const char *text, size_t len, char *why,
			   size_t wlen)
{
	json_error_t err;
	json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);

	if (v)
		return v;
	if (json_error_code(&err) == json_error_premature_end_of_input)
		snprintf(why, wlen, "truncated at byte %d", err.position);
	else
		snprintf(why, wlen, "%s, at byte %d", err.text, err.position);
	return NULL;
}

/* An unsigned integer (jansson's json_int_t is signed: negatives refused). */
static int get_u64(const json_t *v, uint64_t *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -1;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int get_ul(const json_t *o, const char *key, unsigned long *v)
{
	uint64_t x;

	if (get_u64(json_object_get(o, key), &x) || x > 0xffffffffffffull)
		return -1;
	*v = (unsigned long)x;
	return 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' :
	       c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int read_hashes(const json_t *a, struct shard_part *p)
{
	unsigned long n = 0;
	size_t b;
	json_t *e;

	if (!json_is_array(a) || json_array_size(a) != p->bound + 1)
		return -1;
	json_array_foreach(a, b, e) {
		if (!json_is_string(e) || json_string_length(e) % 16)
			return -1;
		n += json_string_length(e) / 16;
	}
	p->hashes = malloc((n ? n : 1) * sizeof(*p->hashes));
	p->hash_bound = malloc(n ? n : 1);
	if (!p->hashes || !p->hash_bound)
		return -1;
	json_array_foreach(a, b, e) {
		const char *s = json_string_value(e);

		for (size_t i = 0; i < json_string_length(e); i += 16) {
			uint64_t h = 0;

			for (size_t d = 0; d < 16; d++) {
				int x = hexval(s[i + d]);

				if (x < 0)
					return -1;
				h = h << 4 | (uint64_t)x;
			}
			p->hash_bound[p->nhashes] = (uint8_t)b;
			p->hashes[p->nhashes++] = h;
		}
	}
	return 0;
}

static int read_schedule(const char *s, struct shard_part *p)
{
	unsigned int n = 1;

	for (const char *q = s; *q; q++)
		n += *q == ',';
	p->sched = calloc(n, sizeof(*p->sched));
	if (!p->sched)
		return -1;
	while (*s) {
		unsigned int tid, cnt;
		int len = 0;
		char sep = 0;

		if (sscanf(s, "%u%c%u%n", &tid, &sep, &cnt, &len) != 3 ||
		    (sep != ':' && sep != '~') ||
		    tid >= CHK_MAX_THREADS || !cnt || p->nsched == n)
			return -1;
		p->sched[p->nsched].tid = tid;
		p->sched[p->nsched].way = sep == '~' ? cnt : 0;
		p->sched[p->nsched++].steps = sep == '~' ? 1 : cnt;
		s += len;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return 0;
}

int shard_read_part(const json_t *item, struct shard_part *p, char *why,
		    size_t len)
{
	const json_t *o = json_object_get(item, "part"), *pb, *v, *e;
	unsigned long k, n, b;
	size_t i;

	memset(p, 0, sizeof(*p));
	pb = json_object_get(o, "per_bound");
	v = json_object_get(o, "violation");
	if (get_ul(o, "k", &k) || get_ul(o, "n", &n) || !k || k > n ||
	    n > 100000 || get_ul(o, "bound", &b) || b > CHK_MAX_BOUND ||
	    !json_is_boolean(v) || get_ul(o, "schedules", &p->schedules) ||
	    get_ul(o, "steps", &p->steps) || get_ul(o, "cut", &p->cut) ||
	    !json_is_array(pb) || json_array_size(pb) != b + 1)
		goto bad;
	p->sp.k = (unsigned int)k;
	p->sp.n = (unsigned int)n;
	p->bound = (unsigned int)b;
	p->violation = json_is_true(v);
	json_array_foreach(pb, i, e) {
		uint64_t s, st, sc, sv;

		if (!json_is_array(e) || json_array_size(e) != 4 ||
		    get_u64(json_array_get(e, 0), &s) ||
		    get_u64(json_array_get(e, 1), &st) ||
		    get_u64(json_array_get(e, 2), &sc) ||
		    get_u64(json_array_get(e, 3), &sv))
			goto bad;
		p->bsched[i] = (unsigned long)s;
		p->bsteps[i] = (unsigned long)st;
		p->bstep_cuts[i] = (unsigned long)sc;
		p->bstarved[i] = (unsigned long)sv;
	}
	if (p->violation) {
		unsigned long tl;
		const json_t *s = json_object_get(o, "schedule");

		if (get_ul(o, "unit", &p->unit) || get_ul(o, "trace_len", &tl) ||
		    !json_is_string(s) || read_schedule(json_string_value(s), p))
			goto bad;
		p->trace_len = (unsigned int)tl;
	}
	if (read_hashes(json_object_get(o, "state_hashes"), p))
		goto bad;
	return 0;
bad:
	snprintf(why, len, "no part of a sharded search in it (or a damaged one)");
	shard_part_free(p);
	return -1;
}

void shard_part_free(struct shard_part *p)
{
	free(p->sched);
	free(p->hashes);
	free(p->hash_bound);
	memset(p, 0, sizeof(*p));
}

/* ---- the merge ----------------------------------------------------------------------- */

/* The number of distinct hashes first seen at or below @bmax. */
static int union_states(const struct shard_part *parts, unsigned int n,
			unsigned int bmax, unsigned long *states)
{
	unsigned long total = 0, k = 0, d = 0;
	uint64_t *v;

	for (unsigned int i = 0; i < n; i++)
		total += parts[i].nhashes;
	v = malloc((total ? total : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++)
		for (unsigned long j = 0; j < parts[i].nhashes; j++)
			if (parts[i].hash_bound[j] <= bmax)
				v[k++] = parts[i].hashes[j];
	qsort(v, k, sizeof(*v), cmp_u64);
	for (unsigned long j = 0; j < k; j++)
		d += !j || v[j] != v[j - 1];
	free(v);
	*states = d;
	return 0;
}

/* Run part @p's violation again on @m, into @r's trace and state. */
static int replay_violation(const struct chk_model *m, const struct chk_opts *o,
			    const struct shard_part *p, struct chk_result *r)
{
	struct chk_opts ro = *o;
	struct chk_result t;
	int rc;

	ro.shard = NULL;
	ro.export_states = false;
	ro.progress = NULL;
	ro.random = 0;
	ro.replay = p->sched;
	ro.nreplay = p->nsched;
	rc = chk_explore(m, &ro, &t);
	if (rc == 0 && ((t.verdict != CHK_VIOLATION && t.verdict != CHK_MISTAKE) ||
			t.trace_len != p->trace_len))
		rc = -EINVAL;
	if (rc) {
		snprintf(r->why, sizeof(r->why),
			 "the violation of part %u/%u does not replay (%u steps "
			 "expected)", p->sp.k, p->sp.n, p->trace_len);
		chk_result_free(&t);
		return rc;
	}
	r->verdict = t.verdict;
	memcpy(r->property, t.property, sizeof(r->property));
	memcpy(r->why, t.why, sizeof(r->why));
	r->trace = t.trace;
	r->trace_len = t.trace_len;
	r->trace_preemptions = t.trace_preemptions;
	r->dump = t.dump;
	return 0;
}

int shard_merge(const struct chk_model *m, const struct chk_opts *o,
		const struct shard_part *parts, unsigned int n,
		struct chk_result *r)
{
	const struct shard_part *win = NULL;
	unsigned int bstar = o->random ? 0 : o->preemptions;
	int rc;

	memset(r, 0, sizeof(*r));
	for (unsigned int i = 0; i < n; i++)
		if (parts[i].violation && parts[i].bound < bstar)
			bstar = parts[i].bound;
	for (unsigned int i = 0; i < n; i++) {
		const struct shard_part *p = &parts[i];

		if (o->random) {
			r->schedules += p->schedules;
			r->steps += p->steps;
			for (unsigned int b = 0; b <= p->bound; b++) {
				r->step_cuts += p->bstep_cuts[b];
				r->starved += p->bstarved[b];
			}
		} else {
			if (p->bound < bstar) {
				snprintf(r->why, sizeof(r->why),
					 "part %u/%u stopped at bound %u, below %u",
					 p->sp.k, p->sp.n, p->bound, bstar);
				return -EINVAL;
			}
			for (unsigned int b = 0; b <= bstar; b++) {
				r->schedules += p->bsched[b];
				r->steps += p->bsteps[b];
				r->bound_schedules[b] += p->bsched[b];
				r->bound_steps[b] += p->bsteps[b];
				r->step_cuts += p->bstep_cuts[b];
				r->starved += p->bstarved[b];
			}
			/* the bound's cuts count at the last bound only */
			if (bstar == o->preemptions)
				r->cut += p->cut;
		}
		/* the shortest; among equals the first in DFS order (the
		 * lowest unit), or with PCT the lowest part */
		if (p->violation && p->bound == bstar &&
		    (!win || p->trace_len < win->trace_len ||
		     (p->trace_len == win->trace_len && !o->random &&
		      p->unit < win->unit)))
			win = p;
	}
	r->bound = bstar;
	r->verdict = CHK_PASS;
	rc = union_states(parts, n, bstar, &r->states);
	if (rc) {
		snprintf(r->why, sizeof(r->why), "%s", strerror(-rc));
		return rc;
	}
	if (win)
		return replay_violation(m, o, win, r);
	if (r->step_cuts) /* as chk_explore(): nothing found, something not run */
		r->verdict = CHK_LIMIT;
	return 0;
}
