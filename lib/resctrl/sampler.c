/* SPDX-License-Identifier: MIT */
/*
 * The resctrl sampler: counters opened once, read each interval with
 * pread() by one reader per domain bound inside it, rates from the
 * caller's clock.
 *
 * Invariants:
 *   - counters (c[0..nc)) are sorted by (group, resource, domain, event),
 *     the order of cidk__rc_found_cmp, and each holds its open fd (or -1
 *     with open_err) until the rescan no longer finds its file;
 *   - every counter points to the domain of its (resource, domain); domains
 *     are never removed before close (a domain that empties just has no
 *     counters to read), so their workers live as long as the sampler;
 *   - during the read phase the counters array does not change; each
 *     domain's reader writes only its own counters' cur values and the
 *     main thread reads them after cidk_call_wait() (which orders them).
 *
 * Workload: one rescan + one read of every counter per interval; a large
 * machine has ~32 domains x 256 groups x 2-3 events.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cidkit/call.h>
#include <cidkit/resctrl.h>

#include "resctrl/resctrl_internal.h"
#include "util/file.h"
#include "util/clock.h"

struct counter {
	struct cidk__rc_found key; /* strings owned */
	int fd, open_err;
	struct domain *dom;
	struct cidk_rc_value cur, prev;
	bool has_prev, was_read;
};

struct domain {
	char *resource;
	unsigned int id;
	struct cidk_call_domain *call; /* NULL: read from the caller */
	struct cidk_resctrl *rc;
	size_t *idx, nidx, cap; /* indices of this domain's counters */
	struct cidk_call_req req;
	unsigned int not_ok;
};

struct cidk_resctrl {
	char *root;
	unsigned int events;
	bool no_bind;
	struct cidk__rc_cpumap *map;
	struct cidk_mask *allowed; /* this process's CPUs, map->nbits wide */
	struct counter *c;
	size_t nc;
	struct domain **d;
	size_t nd;
	struct cidk_resctrl_row *rows;
	size_t nrows;
	uint64_t prev_now;
	struct cidk_resctrl_stats st;
};

static void set_err(struct cidk_resctrl_err *err, const char *path,
		    const char *msg)
{
	if (!err)
		return;
	snprintf(err->path, sizeof(err->path), "%s", path);
	snprintf(err->msg, sizeof(err->msg), "%s", msg);
}

/* The CPUs this process may run on, as a mask @nbits wide. */
static struct cidk_mask *process_cpus(unsigned int nbits)
{
	struct cidk_mask *m = cidk_mask_alloc(nbits);
	cpu_set_t *set;
	size_t size;

	if (!m)
		return NULL;
	set = CPU_ALLOC(nbits);
	size = CPU_ALLOC_SIZE(nbits);
	if (set && !sched_getaffinity(0, size, set))
		for (unsigned int cpu = 0; cpu < nbits; cpu++)
			if (CPU_ISSET_S(cpu, size, set))
				cidk_mask_set(m, cpu);
	if (set)
		CPU_FREE(set);
	return m;
}

int cidk_resctrl_open(const struct cidk_resctrl_opts *o,
		      struct cidk_resctrl **out, struct cidk_resctrl_err *err)
{
	const char *root = o && o->root ? o->root : "/sys/fs/resctrl";
	struct cidk_resctrl *rc;
	char path[PATH_MAX];
	struct stat st;
	int ret;

	/* room for ROOT/C/mon_groups/M/mon_data/mon_L3_NN/mbm_local_bytes */
	if (strlen(root) + 192 >= sizeof(path)) {
		set_err(err, "", "resctrl root path too long");
		return -ENAMETOOLONG;
	}
	if (stat(root, &st)) {
		ret = -errno;
		set_err(err, root, strerror(errno));
		return ret;
	}
	if (!S_ISDIR(st.st_mode)) {
		set_err(err, root, strerror(ENOTDIR));
		return -ENOTDIR;
	}
	snprintf(path, sizeof(path), "%s/mon_data", root);
	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		set_err(err, path,
			"no monitoring data (resctrl not mounted here, or no "
			"monitoring support)");
		return -ENOENT;
	}
	rc = calloc(1, sizeof(*rc));
	if (!rc)
		return -ENOMEM;
	rc->events = o && o->events ? o->events & CIDK_RC_ALL_EVENTS
				    : CIDK_RC_ALL_EVENTS;
	rc->no_bind = o && o->no_bind;
	rc->root = strdup(root);
	ret = -ENOMEM;
	if (!rc->root)
		goto fail;
	ret = cidk__rc_cpumap_load(o ? o->sysfs_root : NULL, &rc->map, err);
	if (ret)
		goto fail;
	ret = -ENOMEM;
	rc->allowed = process_cpus(rc->map->nbits);
	if (!rc->allowed)
		goto fail;
	*out = rc;
	return 0;
fail:
	cidk_resctrl_close(rc);
	return ret;
}

static struct domain *find_domain(struct cidk_resctrl *rc, const char *res,
				  unsigned int id)
{
	for (size_t i = 0; i < rc->nd; i++)
		if (rc->d[i]->id == id && !strcmp(rc->d[i]->resource, res))
			return rc->d[i];
	return NULL;
}

static struct domain *add_domain(struct cidk_resctrl *rc, const char *res,
				 unsigned int id)
{
	struct domain *d, **v;
	struct cidk_mask *cpus;

	v = realloc(rc->d, (rc->nd + 1) * sizeof(*v));
	if (!v)
		return NULL;
	rc->d = v;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->resource = strdup(res);
	if (!d->resource) {
		free(d);
		return NULL;
	}
	d->id = id;
	d->rc = rc;
	cpus = cidk__rc_cpumap_domain(rc->map, res, id);
	if (cpus && !rc->no_bind && cidk_mask_and(cpus, cpus, rc->allowed))
		d->call = cidk_call_domain_create(cpus); /* NULL: unbound */
	cidk_mask_free(cpus);
	rc->d[rc->nd++] = d;
	return d;
}

static void read_domain(void *arg)
{
	struct domain *d = arg;
	struct counter *c;
	char buf[64];
	ssize_t n;

	d->not_ok = 0;
	for (size_t i = 0; i < d->nidx; i++) {
		c = &d->rc->c[d->idx[i]];
		if (c->fd < 0) {
			c->cur.state = CIDK_RC_READ_FAILED;
			c->cur.err = c->open_err;
			c->cur.v = 0;
		} else if ((n = pread(c->fd, buf, sizeof(buf) - 1, 0)) < 0) {
			c->cur.state = CIDK_RC_READ_FAILED;
			c->cur.err = errno;
			c->cur.v = 0;
		} else {
			cidk_resctrl_parse_value(buf, (size_t)n, &c->cur);
		}
		d->not_ok += c->cur.state != CIDK_RC_OK;
	}
}

static void close_counter(struct counter *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->key.group);
	free(c->key.resource);
	free(c->key.path);
}

/* Merge the scan into the counters; cannot fail (arrays preallocated). */
static void merge(struct cidk_resctrl *rc, struct cidk__rc_found *f, size_t nf,
		  struct counter *nc)
{
	size_t i = 0, j = 0, k = 0;

	rc->st.opened = rc->st.closed = 0;
	while (i < rc->nc || j < nf) {
		int cmp = i == rc->nc ? 1
			: j == nf     ? -1
				      : cidk__rc_found_cmp(&rc->c[i].key, &f[j]);

		if (cmp < 0) { /* vanished */
			close_counter(&rc->c[i++]);
			rc->st.closed++;
		} else if (cmp > 0) { /* new */
			struct counter *c = &nc[k++];

			memset(c, 0, sizeof(*c));
			c->key = f[j++];
			/* a FIFO or device here is an error, never a hang */
			c->fd = cidk__open_regular(c->key.path);
			c->open_err = c->fd < 0 ? -c->fd : 0;
			if (c->fd < 0)
				c->fd = -1;
			c->dom = find_domain(rc, c->key.resource,
					     c->key.domain);
			rc->st.opened++;
		} else { /* still there */
			nc[k] = rc->c[i++];
			nc[k].prev = nc[k].cur;
			nc[k].has_prev = nc[k].was_read;
			k++;
			free(f[j].group);
			free(f[j].resource);
			free(f[j].path);
			j++;
		}
	}
	free(rc->c);
	rc->c = nc;
	rc->nc = k;
}

/* Give each domain the indices of its counters. */
static int assign(struct cidk_resctrl *rc)
{
	for (size_t i = 0; i < rc->nd; i++)
		rc->d[i]->nidx = 0;
	for (size_t i = 0; i < rc->nc; i++) {
		struct domain *d = rc->c[i].dom;

		if (d->nidx == d->cap) {
			size_t cap = d->cap ? d->cap * 2 : 16;
			size_t *v = realloc(d->idx, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			d->idx = v;
			d->cap = cap;
		}
		d->idx[d->nidx++] = i;
	}
	return 0;
}

static void read_all(struct cidk_resctrl *rc)
{
	bool *started = calloc(rc->nd ? rc->nd : 1, sizeof(bool));

	rc->st.domains_bound = 0;
	for (size_t i = 0; i < rc->nd; i++) {
		struct domain *d = rc->d[i];

		if (!d->nidx)
			continue;
		if (started && d->call &&
		    !cidk_call_start(d->call, &d->req, read_domain, d, false)) {
			started[i] = true;
			rc->st.domains_bound++;
			continue;
		}
		if (started && d->call) { /* no worker: unbound from now on */
			cidk_call_domain_destroy(d->call);
			d->call = NULL;
		}
		read_domain(d); /* read here */
	}
	for (size_t i = 0; i < rc->nd; i++)
		if (started && started[i])
			cidk_call_wait(&rc->d[i]->req);
	free(started);
}

static void build_rows(struct cidk_resctrl *rc, uint64_t elapsed)
{
	struct cidk_resctrl_row *row = NULL;

	rc->nrows = 0;
	rc->st.not_ok = 0;
	for (size_t i = 0; i < rc->nc; i++) {
		struct counter *c = &rc->c[i];
		int e = c->key.event;

		if (!row || strcmp(row->group, c->key.group) ||
		    strcmp(row->resource, c->key.resource) ||
		    row->domain != c->key.domain) {
			row = &rc->rows[rc->nrows++];
			row->group = c->key.group;
			row->resource = c->key.resource;
			row->domain = c->key.domain;
			row->bound = c->dom->call != NULL;
			for (int k = 0; k < CIDK_RC_NR_EVENTS; k++) {
				row->value[k] = (struct cidk_rc_value){
					.state = CIDK_RC_ABSENT
				};
				row->rate[k] = (struct cidk_rc_rate){
					.state = CIDK_RC_RATE_NOVALUE
				};
			}
		}
		c->was_read = true;
		row->value[e] = c->cur;
		rc->st.not_ok += c->cur.state != CIDK_RC_OK;
		if (e != CIDK_RC_LLC_OCCUPANCY)
			cidk_resctrl_rate(c->has_prev ? &c->prev : NULL,
					  &c->cur, elapsed, &row->rate[e]);
	}
}

int cidk_resctrl_sample(struct cidk_resctrl *rc, uint64_t now_ns)
{
	struct cidk__rc_found *f = NULL;
	struct cidk_resctrl_row *rows;
	struct counter *nc;
	unsigned int groups;
	uint64_t t0, t1, t2;
	size_t nf;
	int ret;

	t0 = cidk__now_ns();
	ret = cidk__rc_scan(rc->root, rc->events, &f, &nf, &groups);
	if (ret)
		return ret;
	/* Everything that can fail happens before the merge. */
	for (size_t j = 0; j < nf; j++)
		if (!find_domain(rc, f[j].resource, f[j].domain) &&
		    !add_domain(rc, f[j].resource, f[j].domain))
			goto nomem;
	nc = malloc((nf ? nf : 1) * sizeof(*nc));
	if (!nc)
		goto nomem;
	rows = realloc(rc->rows, (nf ? nf : 1) * sizeof(*rows));
	if (!rows) {
		free(nc);
		goto nomem;
	}
	rc->rows = rows;
	merge(rc, f, nf, nc);
	free(f); /* the strings moved into counters or were freed */
	if (assign(rc)) {
		rc->nrows = 0;
		return -ENOMEM;
	}
	t1 = cidk__now_ns();
	read_all(rc);
	t2 = cidk__now_ns();

	rc->st.elapsed_ns = rc->st.sample ? now_ns - rc->prev_now : 0;
	build_rows(rc, rc->st.elapsed_ns);
	rc->st.sample++;
	rc->st.scan_ns = t1 - t0;
	rc->st.read_ns = t2 - t1;
	rc->st.groups = groups;
	rc->st.counters = (unsigned int)rc->nc;
	rc->st.domains = 0;
	for (size_t i = 0; i < rc->nd; i++)
		rc->st.domains += rc->d[i]->nidx > 0;
	rc->prev_now = now_ns;
	return 0;
nomem:
	cidk__rc_found_free(f, nf);
	return -ENOMEM;
}

size_t cidk_resctrl_nr_rows(const struct cidk_resctrl *rc)
{
	return rc->nrows;
}

const struct cidk_resctrl_row *cidk_resctrl_row(const struct cidk_resctrl *rc,
						size_t i)
{
	return i < rc->nrows ? &rc->rows[i] : NULL;
}

void cidk_resctrl_stats(const struct cidk_resctrl *rc,
			struct cidk_resctrl_stats *s)
{
	*s = rc->st;
}

void cidk_resctrl_close(struct cidk_resctrl *rc)
{
	if (!rc)
		return;
	for (size_t i = 0; i < rc->nd; i++) {
		cidk_call_domain_destroy(rc->d[i]->call);
		free(rc->d[i]->resource);
		free(rc->d[i]->idx);
		free(rc->d[i]);
	}
	for (size_t i = 0; i < rc->nc; i++)
		close_counter(&rc->c[i]);
	free(rc->c);
	free(rc->d);
	free(rc->rows);
	cidk_mask_free(rc->allowed);
	cidk__rc_cpumap_free(rc->map);
	free(rc->root);
	free(rc);
}
