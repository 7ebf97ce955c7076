/* SPDX-License-Identifier: MIT */
/*
 * Synthetic machines from a short spec (grammar in docs/topo.md):
 *
 *   spec   := preset | shape { ":" option }
 *   shape  := [ N "s" ] N "c" [ N "t" ]      sockets, cores per socket, threads per core
 *   option := "llc=" N        cores per LLC (default: all cores of a socket)
 *           | "cluster=" N    cores per cluster (default: no cluster level)
 *           | "die=" N        cores per die (default: no die level)
 *           | "numa=" N       NUMA nodes per socket, 0 = no NUMA level (default 1)
 *           | "number=" ("spread" | "packed")
 *           | "offline=" CPULIST
 *
 * Numbering: "spread" (default) is the Linux x86 order - thread 0 of every
 * core first, socket-major, then thread 1 of every core: CPU n and
 * n + sockets*cores are SMT siblings.  "packed" numbers a core's threads
 * consecutively (POWER, arm64).  Each level nests in the next: cluster
 * divides llc, llc divides die, die and numa nodes divide the socket.
 * As in discovery, cluster=1 (a cluster is one core) and a die of the
 * whole socket add no level.
 *
 * Workload: built once per run; 8192 CPUs x 6 levels costs a few ms.
 * Cost: O(N log N) time and O(N) memory for N CPUs, whatever the number
 * of groups: each group is stored once, sparsely (topo_internal.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_internal.h"

static const struct {
	const char *name, *spec;
} presets[] = {
	/* 2 x 96 Zen 4 cores, 12 CCDs of one 8-core CCX (L3) each. */
	{ "epyc-9654-2s", "2s96c2t:llc=8" },
	/* SGI UV: 16 sockets x 60 cores x 2 threads, an L3 per socket. */
	{ "uv-1920", "16s60c2t" },
	/* 2 x 45 POWER SMT8 cores; L3 per core; threads numbered together. */
	{ "power-360", "2s45c8t:llc=1:number=packed" },
	/* A big machine for benchmarks: 64 sockets x 64 cores x 2 threads. */
	{ "big-8192", "64s64c2t" },
	{ "host", "(this machine, from /sys)" },
};

#define NR_PRESETS (sizeof(presets) / sizeof(presets[0]))

const char *const *cidk_topo_presets(void)
{
	static const char *const names[NR_PRESETS + 1] = {
		"epyc-9654-2s", "uv-1920", "power-360", "big-8192", "host", NULL,
	};

	return names;
}

const char *cidk_topo_preset_spec(const char *name)
{
	for (unsigned int i = 0; i < NR_PRESETS; i++)
		if (!strcmp(presets[i].name, name))
			return presets[i].spec;
	return NULL;
}

struct shape {
	uint64_t sockets, cores, threads;
	uint64_t llc, cluster, die, numa; /* cores per group; numa: nodes */
	bool packed;
	const char *offline; /* cpulist, NUL or ':' ends it */
	size_t offline_len;
};

/*
 * A decimal number at *p (no sign, no leading '+'); advances *p.  Returns
 * 1, 0 (no digit there) or -1 (more than CIDK_TOPO_MAX_CPUS: no count in a
 * spec can be, and the error quotes the digits as written, never a
 * saturated value).
 */
static int number(const char **p, uint64_t *out)
{
	uint64_t v = 0;
	const char *s = *p;
	bool big = false;

	if (*s < '0' || *s > '9')
		return 0;
	while (*s >= '0' && *s <= '9') {
		if (!big)
			v = v * 10 + (uint64_t)(*s - '0');
		big |= v > CIDK_TOPO_MAX_CPUS;
		s++;
	}
	*p = s;
	*out = v;
	return big ? -1 : 1;
}

static void too_large(struct cidk_topo_err *err, const char *spec,
		      const char *at, const char *end)
{
	int len = (int)(end - at);

	cidk__topo_err(err, spec, "%.*s%s at offset %zu is larger than %u",
		       len > 24 ? 24 : len, at, len > 24 ? "..." : "",
		       (size_t)(at - spec), CIDK_TOPO_MAX_CPUS);
}

static int parse_shape(const char *spec, struct shape *sh,
		       struct cidk_topo_err *err)
{
	const char *p = spec;
	bool have_s = false, have_c = false, have_t = false;

	while (*p && *p != ':') {
		const char *at = p;
		uint64_t v;
		int got = number(&p, &v);

		if (got < 0) {
			too_large(err, spec, at, p);
			return -ERANGE;
		}
		if (!got) {
			cidk__topo_err(err, spec,
				       "expected a number at offset %zu",
				       (size_t)(at - spec));
			return -EINVAL;
		}
		if (v == 0) {
			cidk__topo_err(err, spec, "zero count at offset %zu",
				       (size_t)(at - spec));
			return -EINVAL;
		}
		if (*p == 's' && !have_s && !have_c && !have_t) {
			sh->sockets = v;
			have_s = true;
		} else if (*p == 'c' && !have_c && !have_t) {
			sh->cores = v;
			have_c = true;
		} else if (*p == 't' && have_c && !have_t) {
			sh->threads = v;
			have_t = true;
		} else {
			cidk__topo_err(err, spec,
				       "expected 's', 'c' or 't' in that order after the number at offset %zu",
				       (size_t)(at - spec));
			return -EINVAL;
		}
		p++;
	}
	if (!have_c) {
		cidk__topo_err(err, spec,
			       "no core count: expected a preset or a shape like 2s96c2t");
		return -EINVAL;
	}
	return (int)(p - spec);
}

static int parse_option(const char *spec, const char *opt, size_t len,
			struct shape *sh, unsigned int *seen,
			struct cidk_topo_err *err)
{
	static const char *const keys[] = { "llc",    "cluster", "die",
					    "numa",   "number",  "offline" };
	const char *eq = memchr(opt, '=', len);
	size_t off = (size_t)(opt - spec), klen;
	unsigned int k;
	const char *v;
	uint64_t n = 0;

	if (!eq) {
		cidk__topo_err(err, spec, "option at offset %zu: expected key=value",
			       off);
		return -EINVAL;
	}
	klen = (size_t)(eq - opt);
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (strlen(keys[k]) == klen && !memcmp(keys[k], opt, klen))
			break;
	if (k == sizeof(keys) / sizeof(keys[0])) {
		cidk__topo_err(err, spec,
			       "unknown option '%.*s' at offset %zu (llc, cluster, die, numa, number, offline)",
			       (int)(klen > 20 ? 20 : klen), opt, off);
		return -EINVAL;
	}
	if (*seen & (1u << k)) {
		cidk__topo_err(err, spec, "option '%s' given twice", keys[k]);
		return -EINVAL;
	}
	*seen |= 1u << k;
	v = eq + 1;
	if (k == 4) { /* number= */
		size_t vl = len - klen - 1;

		if (vl == 6 && !memcmp(v, "spread", 6))
			sh->packed = false;
		else if (vl == 6 && !memcmp(v, "packed", 6))
			sh->packed = true;
		else {
			cidk__topo_err(err, spec,
				       "number= must be spread or packed (offset %zu)",
				       (size_t)(v - spec));
			return -EINVAL;
		}
		return 0;
	}
	if (k == 5) { /* offline= */
		sh->offline = v;
		sh->offline_len = len - klen - 1;
		return 0;
	}
	{
		const char *q = v;
		int got = number(&q, &n);

		if (got < 0) {
			too_large(err, spec, v, q);
			return -ERANGE;
		}
		if (!got || q != opt + len) {
			cidk__topo_err(err, spec,
				       "%s= needs a number (offset %zu)", keys[k],
				       (size_t)(v - spec));
			return -EINVAL;
		}
	}
	if (n == 0 && k != 3) {
		cidk__topo_err(err, spec, "%s=0: must be at least 1", keys[k]);
		return -EINVAL;
	}
	switch (k) {
	case 0: sh->llc = n; break;
	case 1: sh->cluster = n; break;
	case 2: sh->die = n; break;
	default: sh->numa = n; break;
	}
	return 0;
}

static int check_nesting(const char *spec, const struct shape *sh,
			 struct cidk_topo_err *err)
{
	uint64_t c = sh->cores;

	if (c % sh->llc) {
		cidk__topo_err(err, spec,
			       "llc=%llu does not divide %llu cores per socket",
			       (unsigned long long)sh->llc, (unsigned long long)c);
		return -EINVAL;
	}
	if (sh->die && (c % sh->die || sh->die % sh->llc)) {
		cidk__topo_err(err, spec,
			       "die=%llu must divide %llu cores per socket and be a multiple of llc=%llu",
			       (unsigned long long)sh->die, (unsigned long long)c,
			       (unsigned long long)sh->llc);
		return -EINVAL;
	}
	if (sh->cluster && sh->llc % sh->cluster) {
		cidk__topo_err(err, spec,
			       "cluster=%llu does not divide llc=%llu cores",
			       (unsigned long long)sh->cluster,
			       (unsigned long long)sh->llc);
		return -EINVAL;
	}
	if (sh->numa && c % sh->numa) {
		cidk__topo_err(err, spec,
			       "numa=%llu nodes do not divide %llu cores per socket",
			       (unsigned long long)sh->numa, (unsigned long long)c);
		return -EINVAL;
	}
	return 0;
}

static unsigned int cpu_of(const struct shape *sh, uint64_t s, uint64_t c,
			   uint64_t th)
{
	uint64_t core = s * sh->cores + c;

	if (sh->packed)
		return (unsigned int)(core * sh->threads + th);
	return (unsigned int)(th * sh->sockets * sh->cores + core);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * One level: groups of @per cores within each socket (per == 0: the whole
 * socket).  Every online CPU of a group gets the group's online CPUs.
 * Each group is built once from its CPU list (@buf, room for N): O(N log N)
 * over the level, never a full-width mask per group or per CPU.
 */
static int build_level(struct cidk_topo *t, const struct shape *sh,
		       enum cidk_topo_level level, uint64_t per, uint32_t *buf)
{
	if (!per)
		per = sh->cores;
	for (uint64_t s = 0; s < sh->sockets; s++)
		for (uint64_t c0 = 0; c0 < sh->cores; c0 += per) {
			unsigned int n = 0;
			int rc;

			for (uint64_t c = c0; c < c0 + per; c++)
				for (uint64_t th = 0; th < sh->threads; th++) {
					unsigned int cpu = cpu_of(sh, s, c, th);

					if (cidk_mask_test(t->online, cpu))
						buf[n++] = cpu;
				}
			if (!n)
				continue;
			qsort(buf, n, sizeof(*buf), cmp_u32);
			if ((rc = cidk__topo_add_group(t, level, buf, n)))
				return rc;
		}
	return 0;
}

static int build(const char *spec, const struct shape *sh,
		 struct cidk_topo **out, struct cidk_topo_err *err)
{
	uint64_t nr = sh->sockets * sh->cores * sh->threads;
	struct cidk_mask *m = NULL, *off = NULL;
	uint32_t *buf = NULL;
	struct cidk_topo *t;
	int rc = -ENOMEM;

	t = cidk_topo_alloc((unsigned int)nr);
	if (!t)
		goto fail;
	m = cidk_mask_alloc((unsigned int)nr);
	off = cidk_mask_alloc((unsigned int)nr);
	buf = malloc(nr * sizeof(*buf));
	if (!m || !off || !buf)
		goto fail;
	if (sh->offline) {
		char *list = strndup(sh->offline, sh->offline_len);
		size_t pos = 0;

		if (!list)
			goto fail;
		rc = cidk_mask_parse_list(off, list, &pos);
		free(list);
		if (rc) {
			cidk__topo_err(err, spec,
				       "offline=: %s cpulist at offset %zu",
				       rc == -ERANGE ? "CPU out of range in"
						     : "malformed",
				       (size_t)(sh->offline - spec) + pos);
			rc = -EINVAL;
			goto fail;
		}
	}
	cidk_mask_complement(m, off);
	if (cidk_mask_empty(m)) {
		cidk__topo_err(err, spec, "offline= leaves no CPU online");
		rc = -EINVAL;
		goto fail;
	}
	cidk_topo_set_online(t, m);
	rc = build_level(t, sh, CIDK_TOPO_SMT, 1, buf);
	/* as discovery does: a cluster of one core or a die of the whole
	 * socket is no level */
	if (!rc && sh->cluster > 1)
		rc = build_level(t, sh, CIDK_TOPO_CLUSTER, sh->cluster, buf);
	if (!rc)
		rc = build_level(t, sh, CIDK_TOPO_LLC, sh->llc, buf);
	if (!rc && sh->die && sh->die < sh->cores)
		rc = build_level(t, sh, CIDK_TOPO_DIE, sh->die, buf);
	if (!rc)
		rc = build_level(t, sh, CIDK_TOPO_PKG, 0, buf);
	if (!rc && sh->numa)
		rc = build_level(t, sh, CIDK_TOPO_NUMA, sh->cores / sh->numa, buf);
	if (rc)
		goto fail;
	free(buf);
	cidk_mask_free(m);
	cidk_mask_free(off);
	*out = t;
	return 0;
fail:
	if (rc == -ENOMEM)
		cidk__topo_err(err, spec, "out of memory");
	free(buf);
	cidk_mask_free(m);
	cidk_mask_free(off);
	cidk_topo_free(t);
	return rc;
}

int cidk_topo_from_spec(const char *spec, struct cidk_topo **out,
			struct cidk_topo_err *err)
{
	struct shape sh = { .sockets = 1, .threads = 1, .numa = 1 };
	const char *p, *real = spec;
	unsigned int seen = 0;
	uint64_t nr;
	int rc;

	if (!spec || !out) {
		cidk__topo_err(err, "", "no spec");
		return -EINVAL;
	}
	if (!strcmp(spec, "host"))
		return cidk_topo_from_sysfs("/sys", out, err);
	for (unsigned int i = 0; i < NR_PRESETS; i++)
		if (!strcmp(presets[i].name, spec))
			real = presets[i].spec;
	if (!*real) {
		cidk__topo_err(err, spec, "empty spec");
		return -EINVAL;
	}
	if (!((*real >= '0' && *real <= '9'))) {
		cidk__topo_err(err, spec,
			       "unknown preset (epyc-9654-2s, uv-1920, power-360, big-8192, host) and not a shape like 2s96c2t");
		return -EINVAL;
	}
	rc = parse_shape(real, &sh, err);
	if (rc < 0)
		return rc;
	p = real + rc;
	while (*p == ':') {
		const char *opt = ++p;
		size_t len = strcspn(opt, ":");

		if ((rc = parse_option(real, opt, len, &sh, &seen, err)))
			return rc;
		p = opt + len;
	}
	nr = sh.sockets * sh.cores * sh.threads; /* each <= 2^16: no overflow */
	if (nr > CIDK_TOPO_MAX_CPUS) {
		cidk__topo_err(err, spec, "%llu CPUs: more than the %u supported",
			       (unsigned long long)nr, CIDK_TOPO_MAX_CPUS);
		return -ERANGE;
	}
	if (!sh.llc)
		sh.llc = sh.cores;
	if ((rc = check_nesting(real, &sh, err)))
		return rc;
	return build(real, &sh, out, err);
}
