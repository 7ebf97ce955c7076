/* SPDX-License-Identifier: MIT */
/*
 * The resctrl sampler (cidk_resctrl_open/sample/close) and
 * cidk_resctrl_domain_cpus over a temporary tree built from the input.
 *
 * Input: two header bytes, then records separated by NUL bytes.  Header
 * byte 0: bits 0-2 the event mask (0: all), bits 3-4 the resource asked of
 * cidk_resctrl_domain_cpus (L3, L2, PERF_PKG, MB); byte 1 its domain id.
 * A record is a path, the byte 0x01 and the file's content.  The path
 * starts "r/" (under the resctrl root) or "s/" (under the sysfs root), or
 * is "r" or "s" itself; bytes outside [A-Za-z0-9_.-/] become '_', "." and
 * ".." components are refused, at most 16 levels.  A content of exactly
 * "\x02fifo" makes a FIFO, "\x02dir" a directory, "\x02rm" removes the
 * path (rm -rf).  A record of the single byte 0x03 ends phase 1: the
 * records after it are applied between the first and the second sample.
 *
 * The harness keeps a table of every entry it made (path, kind, each
 * content a file ever had) and checks, on every input, with
 * LeakSanitizer on at the end:
 *   - a refused open (or domain_cpus) returns a negative errno and a
 *     non-empty message and path with no control byte; open and
 *     domain_cpus agree on whether the sysfs tree is usable;
 *   - rows are strictly sorted by (group, resource, domain), each has a
 *     value, every field lies within its enum, no row is bound (no_bind),
 *     an unselected event is ABSENT, llc_occupancy has no rate, a rate is
 *     never negative and is delta * 1e9 / elapsed when OK;
 *   - soundness: every value names an entry the harness made whose path
 *     spells its (group, resource, domain, event), and its state is the
 *     reference classification of one of that file's contents (decimal
 *     digits with one optional newline, up to 2^64 - 1, are OK with
 *     exactly that value, more than 20 bytes are garbled even when zero-
 *     padded: the kernel prints %llu; "Unavailable", "Error",
 *     "Unassigned"; anything else garbled), or READ_FAILED with an errno for a FIFO or directory;
 *   - completeness: every live regular file at such a path, of a selected
 *     event and a domain id up to 10^9, appears in its row;
 *   - the counters are at most the entries made (cost bounded by input);
 *     a second sample of an unchanged tree opens and closes nothing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nftw */
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cidkit/mask.h>
#include <cidkit/resctrl.h>

#include "fuzz.h"
#include "fuzz_tree.h"

#define MAX_RECORDS 256
#define MAX_DEPTH 16
#define MAX_PATH 240
#define MAX_ENTRIES (MAX_RECORDS * (MAX_DEPTH + 1))

enum kind { K_FILE, K_DIR, K_FIFO };

struct entry {
	char path[MAX_PATH + 1]; /* relative to the tree: "r/mon_data/..." */
	enum kind kind;
	bool alive;
	const uint8_t *body; /* K_FILE: this version's content (in the input) */
	size_t blen;
};

static char root[64];
static struct entry tab[MAX_ENTRIES];
static size_t ntab;

static int rm_all(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void clear_tree(void)
{
	fuzz_tree_clear(root, sizeof(root), "rctree");
	ntab = 0;
}

static void add(const char *rel, enum kind k, const uint8_t *body, size_t blen)
{
	struct entry *e;

	if (ntab == MAX_ENTRIES)
		abort(); /* MAX_ENTRIES bounds every record's entries */
	e = &tab[ntab++];
	snprintf(e->path, sizeof(e->path), "%s", rel);
	e->kind = k;
	e->alive = true;
	e->body = body;
	e->blen = blen;
}

/* mkdir -p the parents of @path (absolute, under root) */
static void parents(char *path)
{
	size_t off = strlen(root) + 1;

	for (char *p = path + off; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (!mkdir(path, 0755))
				add(path + off, K_DIR, NULL, 0);
			*p = '/';
		}
}

static void removed(const char *rel)
{
	size_t n = strlen(rel);

	for (size_t i = 0; i < ntab; i++)
		if (!strncmp(tab[i].path, rel, n) &&
		    (tab[i].path[n] == '\0' || tab[i].path[n] == '/'))
			tab[i].alive = false;
}

static void make_entry(const char *rel, size_t rlen, const uint8_t *body,
		       size_t blen)
{
	char path[PATH_MAX];
	size_t off = (size_t)snprintf(path, sizeof(path), "%s/", root);
	size_t n = off, comp = off;
	unsigned int depth = 0;

	if (!rlen || rlen > MAX_PATH || (rel[0] != 'r' && rel[0] != 's') ||
	    (rlen > 1 && rel[1] != '/'))
		return;
	for (size_t i = 0; i <= rlen; i++) {
		char c = i < rlen ? rel[i] : '/';

		if (c == '/') {
			/* no empty, "." or ".." component */
			if (n == comp || (n - comp == 1 && path[comp] == '.') ||
			    (n - comp == 2 && path[comp] == '.' &&
			     path[comp + 1] == '.') ||
			    ++depth > MAX_DEPTH)
				return;
			if (i == rlen)
				break;
			comp = n + 1;
		} else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9') || c == '_' || c == '.' ||
			     c == '-')) {
			c = '_';
		}
		path[n++] = c;
	}
	path[n] = '\0';
	parents(path);
	if (blen == 3 && !memcmp(body, "\x02" "rm", 3)) {
		nftw(path, rm_all, 16, FTW_DEPTH | FTW_PHYS);
		removed(path + off);
		return;
	}
	switch (fuzz_tree_make(path, body, blen)) {
	case FUZZ_TREE_FIFO:
		add(path + off, K_FIFO, NULL, 0);
		break;
	case FUZZ_TREE_DIR:
		add(path + off, K_DIR, NULL, 0);
		break;
	case FUZZ_TREE_FILE:
		add(path + off, K_FILE, body, blen);
		break;
	case FUZZ_TREE_NOTHING:
		break;
	}
}

/* Apply records from @p to a 0x03 record or @end; returns where it stopped. */
static const uint8_t *apply(const uint8_t *p, const uint8_t *end,
			    unsigned int *records, bool *more)
{
	*more = false;
	while (p < end && (*records)++ < MAX_RECORDS) {
		const uint8_t *rec_end = memchr(p, '\0', (size_t)(end - p));
		const uint8_t *sep;

		if (!rec_end)
			rec_end = end;
		if (rec_end - p == 1 && *p == 0x03) {
			*more = true;
			return rec_end + 1;
		}
		sep = memchr(p, 0x01, (size_t)(rec_end - p));
		if (sep)
			make_entry((const char *)p, (size_t)(sep - p), sep + 1,
				   (size_t)(rec_end - sep - 1));
		p = rec_end + 1;
	}
	return end;
}

/* ---- the reference: what a path and a content mean ---- */

struct key {
	char group[MAX_PATH + 1];
	char res[MAX_PATH + 1];
	uint64_t domain;
	int event;
	char ctl_mon_data[MAX_PATH + 1]; /* "r/C/mon_data" for C/..., or "" */
};

static int split(char *s, char **comp, int max)
{
	int n = 0;

	for (char *tok = strtok(s, "/"); tok; tok = strtok(NULL, "/")) {
		if (n == max)
			return max + 1;
		comp[n++] = tok;
	}
	return n;
}

static bool reserved(const char *c)
{
	return c[0] == '.' || !strcmp(c, "info") || !strcmp(c, "mon_groups") ||
	       !strcmp(c, "mon_data");
}

/* @rel ("r/...") as a counter file of the documented layout, or false. */
static bool path_key(const char *rel, struct key *k)
{
	char buf[MAX_PATH + 1], *c[8], *us;
	int n, i = 1;

	snprintf(buf, sizeof(buf), "%s", rel);
	n = split(buf, c, 8);
	if (n < 4 || n > 7 || strcmp(c[0], "r"))
		return false;
	k->ctl_mon_data[0] = '\0';
	if (n == 4) { /* r/mon_data/D/E */
		snprintf(k->group, sizeof(k->group), "/");
	} else if (n == 6 && !strcmp(c[1], "mon_groups") && c[2][0] != '.') {
		snprintf(k->group, sizeof(k->group), "mon_groups/%s", c[2]);
		i = 3;
	} else if (n == 5 && !reserved(c[1])) {
		snprintf(k->group, sizeof(k->group), "%s", c[1]);
		i = 2;
	} else if (n == 7 && !reserved(c[1]) && !strcmp(c[2], "mon_groups") &&
		   c[3][0] != '.') {
		snprintf(k->group, sizeof(k->group), "%s/mon_groups/%s", c[1],
			 c[3]);
		snprintf(k->ctl_mon_data, sizeof(k->ctl_mon_data),
			 "r/%s/mon_data", c[1]);
		i = 4;
	} else {
		return false;
	}
	if (strcmp(c[i], "mon_data") || strncmp(c[i + 1], "mon_", 4))
		return false;
	us = strrchr(c[i + 1], '_');
	if (us <= c[i + 1] + 4 || !us[1] || strlen(us + 1) > 18)
		return false;
	/* the kernel's "%02d": two digits, or more with no leading zero */
	if (!us[2] || (us[3] && us[1] == '0'))
		return false;
	k->domain = 0;
	for (const char *d = us + 1; *d; d++) {
		if (*d < '0' || *d > '9')
			return false;
		k->domain = k->domain * 10 + (uint64_t)(*d - '0');
	}
	snprintf(k->res, sizeof(k->res), "%.*s", (int)(us - (c[i + 1] + 4)),
		 c[i + 1] + 4);
	for (k->event = 0; k->event < CIDK_RC_NR_EVENTS; k->event++)
		if (!strcmp(c[i + 2], cidk_resctrl_event_name(k->event)))
			return true;
	return false;
}

/* What a counter file holding @b[0..@n) reads as. */
static enum cidk_rc_state classify(const uint8_t *b, size_t n, uint64_t *v)
{
	*v = 0;
	if (n && b[n - 1] == '\n')
		n--;
	if (n == 11 && !memcmp(b, "Unavailable", 11))
		return CIDK_RC_UNAVAILABLE;
	if (n == 5 && !memcmp(b, "Error", 5))
		return CIDK_RC_ERROR;
	if (n == 10 && !memcmp(b, "Unassigned", 10))
		return CIDK_RC_UNASSIGNED;
	if (!n || n > 20) /* 2^64 - 1 has 20 digits; the kernel never pads */
		return CIDK_RC_GARBLED;
	for (size_t i = 0; i < n; i++) {
		unsigned int d = b[i] - '0';

		if (d > 9 || *v > (UINT64_MAX - d) / 10)
			return CIDK_RC_GARBLED;
		*v = *v * 10 + d;
	}
	return CIDK_RC_OK;
}

static bool key_is(const struct key *k, const struct cidk_resctrl_row *r,
		   int e)
{
	return k->event == e && k->domain == r->domain &&
	       !strcmp(k->group, r->group) && !strcmp(k->res, r->resource);
}

/* Soundness of value @e of row @r: some entry made it. */
static bool explained(const struct cidk_resctrl_row *r, int e)
{
	const struct cidk_rc_value *val = &r->value[e];

	for (size_t i = 0; i < ntab; i++) {
		struct key k;
		uint64_t v;

		if (!path_key(tab[i].path, &k) || !key_is(&k, r, e))
			continue;
		if (val->state == CIDK_RC_READ_FAILED) {
			if (tab[i].kind != K_FILE)
				return true;
		} else if (tab[i].kind == K_FILE &&
			   classify(tab[i].body, tab[i].blen, &v) == val->state &&
			   (val->state != CIDK_RC_OK || v == val->v)) {
			return true;
		}
	}
	return false;
}

static bool dir_alive(const char *rel)
{
	for (size_t i = 0; i < ntab; i++)
		if (tab[i].alive && tab[i].kind == K_DIR &&
		    !strcmp(tab[i].path, rel))
			return true;
	return false;
}

static bool no_ctl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

static void check_err(int rc, const struct cidk_resctrl_err *err)
{
	FUZZ_CHECK(rc < 0 && rc > -4096);
	FUZZ_CHECK(err->msg[0] != '\0');
	FUZZ_CHECK(no_ctl(err->msg) && no_ctl(err->path));
}

static void check_sample(struct cidk_resctrl *rc, unsigned int events,
			 uint64_t sample, uint64_t elapsed, bool changed)
{
	struct cidk_resctrl_stats st;
	size_t n = cidk_resctrl_nr_rows(rc), made = 0;
	const struct cidk_resctrl_row *prev = NULL;
	unsigned int values = 0;

	cidk_resctrl_stats(rc, &st);
	FUZZ_CHECK(st.sample == sample && st.elapsed_ns == elapsed);
	for (size_t i = 0; i < ntab; i++) {
		struct key k;

		made += path_key(tab[i].path, &k);
	}
	/* cost bounded by input: nothing counted that the input did not make */
	FUZZ_CHECK(st.counters <= made && n <= st.counters);
	FUZZ_CHECK(st.domains <= st.counters && st.not_ok <= st.counters);
	FUZZ_CHECK(st.domains_bound == 0);
	FUZZ_CHECK(st.opened <= st.counters);
	if (sample == 1)
		FUZZ_CHECK(st.opened == st.counters && st.closed == 0);
	if (!changed)
		FUZZ_CHECK(st.opened == 0 && st.closed == 0);
	FUZZ_CHECK(cidk_resctrl_row(rc, n) == NULL);
	for (size_t i = 0; i < n; i++) {
		const struct cidk_resctrl_row *r = cidk_resctrl_row(rc, i);
		bool any = false;

		FUZZ_CHECK(r && r->group && r->resource && !r->bound);
		if (prev) {
			int c = strcmp(prev->group, r->group);

			if (!c)
				c = strcmp(prev->resource, r->resource);
			FUZZ_CHECK(c < 0 || (c == 0 && prev->domain < r->domain));
		}
		prev = r;
		for (int e = 0; e < CIDK_RC_NR_EVENTS; e++) {
			const struct cidk_rc_value *v = &r->value[e];
			const struct cidk_rc_rate *rt = &r->rate[e];

			FUZZ_CHECK((unsigned int)v->state < CIDK_RC_NR_STATES);
			FUZZ_CHECK((unsigned int)rt->state <
				   CIDK_RC_NR_RATE_STATES);
			FUZZ_CHECK(v->state == CIDK_RC_OK || v->v == 0);
			FUZZ_CHECK((v->state == CIDK_RC_READ_FAILED) ==
				   (v->err > 0));
			if (v->state == CIDK_RC_ABSENT) {
				FUZZ_CHECK(rt->state == CIDK_RC_RATE_NOVALUE);
				continue;
			}
			any = true;
			values++;
			FUZZ_CHECK(events & (1u << e));
			FUZZ_CHECK(explained(r, e));
			FUZZ_CHECK(rt->bytes_per_s >= 0);
			if (e == CIDK_RC_LLC_OCCUPANCY || v->state != CIDK_RC_OK)
				FUZZ_CHECK(rt->state == CIDK_RC_RATE_NOVALUE);
			if (sample == 1)
				FUZZ_CHECK(rt->state != CIDK_RC_RATE_OK);
			if (rt->state == CIDK_RC_RATE_OK)
				FUZZ_CHECK(rt->delta <= v->v &&
					   rt->bytes_per_s ==
						   (double)rt->delta * 1e9 /
							   (double)elapsed);
			else
				FUZZ_CHECK(rt->delta == 0 &&
					   rt->bytes_per_s == 0);
		}
		FUZZ_CHECK(any);
	}
	FUZZ_CHECK(values <= st.counters);
	/* completeness: every live counter file of the layout is a row */
	for (size_t i = 0; i < ntab; i++) {
		struct key k;
		bool found = false;

		if (!tab[i].alive || tab[i].kind != K_FILE ||
		    !path_key(tab[i].path, &k) || !(events & (1u << k.event)) ||
		    k.domain > 1000000000 ||
		    (k.ctl_mon_data[0] && !dir_alive(k.ctl_mon_data)))
			continue;
		for (size_t j = 0; j < n && !found; j++) {
			const struct cidk_resctrl_row *r = cidk_resctrl_row(rc, j);

			found = key_is(&k, r, k.event) &&
				r->value[k.event].state != CIDK_RC_ABSENT;
		}
		FUZZ_CHECK(found);
	}
}

/*
 * @want: 0 when the sampler opened (its CPU map was read), the sampler's
 * refusal when that named a file under @sysfs, 1 when unknown.
 */
static void check_domain_cpus(const char *sysfs, const char *res,
			      unsigned int id, int want)
{
	struct cidk_resctrl_err err = { "", "" };
	struct cidk_mask *m = NULL;
	unsigned int cpu;
	int rc = cidk_resctrl_domain_cpus(sysfs, res, id, &m, &err);

	FUZZ_CHECK(want == 1 || rc == want);
	if (rc) {
		check_err(rc, &err);
		FUZZ_CHECK(!m);
		return;
	}
	FUZZ_CHECK(m != NULL);
	FUZZ_CHECK(cidk_mask_weight(m) <= m->nbits);
	/* a CPU in the domain has a file saying so */
	cidk_mask_for_each(cpu, m) {
		char dir[64];
		size_t n = (size_t)snprintf(dir, sizeof(dir),
					    "s/devices/system/cpu/cpu%u/", cpu);
		bool seen = false;

		for (size_t i = 0; i < ntab && !seen; i++)
			seen = tab[i].kind == K_FILE &&
			       !strncmp(tab[i].path, dir, n);
		FUZZ_CHECK(seen);
	}
	cidk_mask_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const res[] = { "L3", "L2", "PERF_PKG", "MB" };
	struct cidk_resctrl_err err = { "", "" };
	struct cidk_resctrl_opts o = { 0 };
	struct cidk_resctrl *rc = NULL;
	char rroot[80], sroot[80];
	const uint8_t *p, *end = data + size;
	unsigned int records = 0, events;
	bool more, changed;
	int ret, want;

	if (size < 2 || size > 16384)
		return 0;
	clear_tree();
	events = data[0] & CIDK_RC_ALL_EVENTS;
	p = apply(data + 2, end, &records, &more);
	snprintf(rroot, sizeof(rroot), "%s/r", root);
	snprintf(sroot, sizeof(sroot), "%s/s", root);
	o.root = rroot;
	o.sysfs_root = sroot;
	o.events = events;
	o.no_bind = true;
	if (!events)
		events = CIDK_RC_ALL_EVENTS;
	ret = cidk_resctrl_open(&o, &rc, &err);
	/*
	 * domain_cpus reads the sysfs tree the sampler just read: the same
	 * verdict (asked now, before phase 2 may change the tree).
	 */
	if (ret) {
		check_err(ret, &err);
		FUZZ_CHECK(rc == NULL);
		want = strncmp(err.path, sroot, strlen(sroot)) ? 1 : ret;
	} else {
		FUZZ_CHECK(rc != NULL);
		want = 0;
	}
	check_domain_cpus(sroot, res[(data[0] >> 3) & 3], data[1], want);
	if (ret)
		return 0;
	ret = cidk_resctrl_sample(rc, 1000);
	if (!ret) {
		check_sample(rc, events, 1, 0, true);
		changed = p < end; /* phase 2 has records */
		apply(p, end, &records, &more);
		ret = cidk_resctrl_sample(rc, 1000 + 2500000000u);
		if (!ret)
			check_sample(rc, events, 2, 2500000000u, changed);
		else
			FUZZ_CHECK(ret == -ENOENT); /* mon_data gone */
		if (changed) /* and on the changed tree, any verdict */
			check_domain_cpus(sroot, res[(data[0] >> 3) & 3],
					  data[1], 1);
	} else {
		FUZZ_CHECK(ret == -ENOENT || ret == -ENOMEM);
	}
	cidk_resctrl_close(rc);
	return 0;
}
