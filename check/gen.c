/* SPDX-License-Identifier: MIT */
/*
 * check/gen.c - the scenario generator (gen.h).
 *
 * Shape of a scenario: 1 to 4 CPUs (sometimes only some of them allowed),
 * 2 or 3 initial tasks and up to 1 forked one, 2 to 6 events each (an
 * `out` may be added).  Each
 * task's script is a walk over its own state (on a CPU or not, its
 * affinity): off its CPU it may switch in (`in`, or a lease's `enter`),
 * migrate, change affinity or exit; on it, switch out, tick, return to
 * user, fork a task not forked yet, change affinity (keeping its CPU) or
 * exit.  A script that ends on its CPU gets an `out`.  Small on purpose:
 * the explorer is exhaustive up to the preemption bound, and most
 * concurrency bugs need 2 or 3 threads and 1 or 2 preemptions.
 *
 * Cost: generating is microseconds; exploring is what the budget bounds.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cidkit/cid.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "cid_model.h"
#include "gen.h"
#include "scenario.h"
#include "prng.h"

static const char *const policies[] = {
	"bitmap", "lazy", "lazy-batched", "cache-local", "inherit", "ownership",
};
#define NR_POLICIES (sizeof(policies) / sizeof(policies[0]))

struct out {
	char *buf;
	size_t len, n;
};

__attribute__((format(printf, 2, 3))) static void put(struct out *o,
						       const char *fmt, ...)
{
	va_list ap;
	int k;

	if (o->n >= o->len)
		return;
	va_start(ap, fmt);
	k = vsnprintf(o->buf + o->n, o->len - o->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		o->n += (size_t)k;
	if (o->n >= o->len)
		o->n = o->len - 1;
}

static void put_cpulist(struct out *o, uint64_t m)
{
	bool first = true;

	for (unsigned int c = 0; c < 64; c++)
		if (m & (1ull << c)) {
			put(o, first ? "%u" : ",%u", c);
			first = false;
		}
}

static unsigned int below(struct cidk__prng *r, unsigned int n)
{
	return (unsigned int)cidk__prng_below(r, n);
}

/* A random CPU of @m (not empty). */
static unsigned int pick_cpu(struct cidk__prng *r, uint64_t m)
{
	unsigned int k = below(r, (unsigned int)__builtin_popcountll(m));

	for (unsigned int c = 0;; c++)
		if ((m & (1ull << c)) && !k--)
			return c;
}

/* A random non-empty subset of @all, containing @keep when it is < 64. */
static uint64_t pick_mask(struct cidk__prng *r, uint64_t all, unsigned int keep)
{
	uint64_t m;

	do
		m = cidk__prng_next(r) & all;
	while (!m);
	if (keep < 64)
		m |= 1ull << keep;
	return m;
}

void gen_text(uint64_t seed, unsigned long i, char *buf, size_t len)
{
	struct cidk__prng r;
	struct out o = { buf, len, 0 };
	unsigned int cpus, ninit, nfork, ntasks, forked = 0;
	uint64_t all, allowed;
	char ev[CHK_MAX_THREADS][SCN_MAX_EVENTS * 24];

	/* one stream per (seed, i): scenarios do not depend on each other */
	cidk__prng_seed(&r, seed * 0x9e3779b97f4a7c15ull + i + 1);
	cpus = 1 + below(&r, 4);
	all = (1ull << cpus) - 1;
	allowed = cpus > 1 && !below(&r, 4) ? pick_mask(&r, all, 64) : all;
	ninit = 2 + below(&r, 2);
	nfork = below(&r, 2);
	ntasks = ninit + nfork;
	put(&o, "# generated: seed %llu, scenario %lu\nname gen-%llu-%lu\ncpus %u\n",
	    (unsigned long long)seed, i, (unsigned long long)seed, i, cpus);
	if (allowed != all) {
		put(&o, "allowed ");
		put_cpulist(&o, allowed);
		put(&o, "\n");
	}
	for (unsigned int t = 0; t < ntasks; t++) {
		struct out e = { ev[t], sizeof(ev[t]), 0 };
		unsigned int nev = 2 + below(&r, 5), k, cpu = 64;
		uint64_t mine = allowed;
		bool done = false, lease = false;

		ev[t][0] = '\0';
		if (t >= ninit && t - ninit >= forked)
			break; /* nobody forked it: neither it nor the later ones */
		for (k = 0; k < nev && !done; k++) {
			unsigned int what = below(&r, 8), c;

			if (k)
				put(&e, "; ");
			if (cpu == 64) { /* off its CPU */
				switch (what) {
				case 0:
					c = pick_cpu(&r, mine);
					put(&e, "migrate %u", c);
					break;
				case 1:
					if (cpus == 1) {
						put(&e, "migrate 0");
						break;
					}
					mine = pick_mask(&r, allowed, 64);
					put(&e, "affinity ");
					put_cpulist(&e, mine);
					break;
				case 2:
					if (k + 1 >= nev / 2) {
						put(&e, "exit");
						done = true;
						break;
					}
					/* fall through */
				default:
					cpu = pick_cpu(&r, mine);
					lease = what == 3;
					put(&e, "%s %u", lease ? "enter" : "in", cpu);
					break;
				}
				continue;
			}
			switch (what) { /* on CPU `cpu` */
			case 0:
				put(&e, "tick");
				break;
			case 1:
				put(&e, "rtu");
				break;
			case 2:
				if (ninit + forked < ntasks && t < CHK_MAX_THREADS) {
					put(&e, "fork T%u", ninit + forked);
					forked++;
				} else {
					put(&e, "tick");
				}
				break;
			case 3:
				if (cpus == 1) {
					put(&e, "rtu");
					break;
				}
				mine = pick_mask(&r, allowed, cpu);
				put(&e, "affinity ");
				put_cpulist(&e, mine);
				break;
			case 4:
				if (k + 1 >= nev / 2) {
					put(&e, "exit");
					done = true;
					break;
				}
				/* fall through */
			default:
				put(&e, lease ? "leave" : "out");
				cpu = 64;
				break;
			}
		}
		if (!done && cpu != 64)
			put(&e, "; %s", lease ? "leave" : "out");
	}
	for (unsigned int t = 0; t < ninit + forked; t++)
		put(&o, "task T%u%s: %s\n", t, t < ninit ? " initial" : "", ev[t]);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The trace as --replay directives ("T0:19,T1:24,..."). */
static void replay_dirs(const struct chk_model *m, const struct chk_result *r,
			FILE *f)
{
	for (unsigned int i = 0, k; i < r->trace_len; i = k) {
		unsigned int tid = r->trace[i].tid;

		for (k = i; k < r->trace_len && r->trace[k].tid == tid; k++)
			;
		fprintf(f, "%s%s:%u", i ? "," : "", m->thread_name(m->ctx, tid),
			k - i);
	}
}

static void report(const char *text, const struct scenario *s,
		   const char *policy,
		   const struct chk_model *m, const struct chk_result *r)
{
	printf("%s (%s, %u CPUs, %u tasks): VIOLATION - %lu schedules, "
	       "explorer-switch bound %u\n", s->name, policy, s->cpus,
	       s->ntasks, r->schedules, r->bound);
	printf("%s: %s\n", r->property, r->why);
	printf("trace: %u steps, %u explorer switch(es) (* marks one: another "
	       "task's step while this one could go on)\n",
	       r->trace_len, r->trace_preemptions);
	chk_print_trace(stdout, m, r);
	printf("state at the violation:\n%s", r->dump ? r->dump : "");
	printf("scenario file (save as %s.scn):\n%s", s->name, text);
	printf("replay: cidkit check --scenario %s.scn --policy %s --replay ",
	       s->name, policy);
	replay_dirs(m, r, stdout);
	printf("\n\n");
}

int gen_run(const struct gen_opts *g, const struct chk_opts *copts)
{
	struct chk_opts cc = *copts, *c = &cc;
	static char text[4096];
	double t0 = now_s();
	unsigned long i, runs = 0, bad = 0;
	int rc = 0;

	for (i = 0; i < g->n; i++) {
		struct scenario s;
		char why[256];

		if (g->print) {
			gen_text(g->seed, i, text, sizeof(text));
			printf("%s%s", i ? "\n" : "", text);
			continue;
		}

		if (g->budget > 0 && now_s() - t0 > g->budget)
			break;
		gen_text(g->seed, i, text, sizeof(text));
		if (scn_parse(text, &s, why, sizeof(why))) {
			/* a bug of the generator, never of the input */
			fprintf(stderr, "cidkit: check: generated scenario %lu: %s\n%s",
				i, why, text);
			return 2;
		}
		for (size_t k = 0; k < NR_POLICIES; k++) {
			const char *pol = g->policy ? g->policy : policies[k];
			struct cidk_cid_params p;
			struct chk_model m;
			struct cid_model *cm;
			struct chk_result r;

			if (cidk_cid_params_parse(pol, &p)) {
				fprintf(stderr, "cidkit: check: unknown policy '%s'\n",
					pol);
				return 2;
			}
			if (cid_model_new(&s, &p, &m, &cm))
				continue; /* a machine the policy cannot have */
			rc = chk_explore(&m, c, &r);
			if (rc) {
				cid_model_free(cm);
				fprintf(stderr, "cidkit: check: %s\n", strerror(-rc));
				return 2;
			}
			runs++;
			if (r.verdict == CHK_VIOLATION) {
				bad++;
				report(text, &s, pol, &m, &r);
			}
			chk_result_free(&r);
			cid_model_free(cm);
			if (g->policy)
				break;
		}
	}
	if (g->print)
		return 0;
	printf("generated %lu scenarios (seed %llu), %lu runs, %lu with a "
	       "violation\n", i, (unsigned long long)g->seed, runs, bad);
	fflush(stdout);
	fprintf(stderr, "time: %.2f s\n", now_s() - t0);
	return bad ? 1 : 0;
}
