/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench burst [--cpus LIST] [--rounds R] [--delay-ms D] [--modes LIST]
 *                    [--bytes N] [--seed S] [--json]
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cidkit/mask.h>

#include "bench_burst.h"
#include "cli.h"
#include "cmds.h"
#include "json.h"
#include "opt.h"
#include "cpus_opt.h"

#define BURST_MAX_ROUNDS 100000u
#define BURST_MAX_DELAY_MS 10000.0
#define BURST_MIN_BYTES 1u
#define BURST_MAX_BYTES (16u << 20)
#define BURST_MAX_SAMPLES 1000000ull   /* rounds x threads, per mode */
#define BURST_MAX_SLEEP_S 3600.0        /* rounds x modes x threads x delay */
#define BURST_BUDGET_S 40.0             /* what the default rounds aim at */
#define BURST_DEFAULT_ROUNDS 200u
#define BURST_MIN_DEFAULT_ROUNDS 5u

static const char about[] =
	"The cache-locality experiment on real threads: one thread pinned to\n"
	"each CPU of LIST; exactly one runs at a time, in a random order\n"
	"reshuffled every round, and sleeps D ms after its burst before waking\n"
	"the next (the other CPUs idle meanwhile).  A burst increments every\n"
	"byte of an N-byte area from a per-CID pool, chosen by the mode:\n"
	"  cpu           the area of the thread's CPU (rseq cpu_id)\n"
	"  kernel-cid    the area of the kernel's mm_cid for the thread (rseq)\n"
	"  lease:POLICY  the CID of a cidkit lease (enter before, exit after);\n"
	"                POLICY: bitmap lazy lazy-batched cache-local inherit\n"
	"                ownership\n"
	"Modes are interleaved round by round.  Prints per mode the ns per\n"
	"burst (median, min-max), the ratio to cpu, the CIDs used (all threads\n"
	"and per thread), the largest one and the bound it should stay below.\n";

/* --modes LIST: the option's callback. */
static int parse_modes(void *ctx, const char *arg, const char *what)
{
	struct bench_burst_config *cfg = ctx;
	char *copy = strdup(arg), *save = NULL, *tok;
	int rc = 0;

	if (!copy)
		return cli_error("bench burst: %s", strerror(ENOMEM));
	cfg->nr_modes = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		struct bench_burst_mode m;
		char ex[40];

		cli_excerpt(tok, ex, sizeof(ex));
		if (bench_burst_mode_parse(tok, &m)) {
			rc = cli_error("%s: unknown mode '%s' "
				       "(cpu, kernel-cid, lease:POLICY; see --help)",
				       what, ex);
			break;
		}
		for (unsigned int i = 0; i < cfg->nr_modes; i++)
			if (cfg->modes[i].index == m.index &&
			    (m.index != BENCH_BURST_LEASE ||
			     cfg->modes[i].policy == m.policy)) {
				rc = cli_error("%s: '%s' given twice", what, ex);
				goto out;
			}
		cfg->modes[cfg->nr_modes++] = m;
	}
	if (!rc && !cfg->nr_modes)
		rc = cli_error("%s: no mode given", what);
out:
	free(copy);
	return rc;
}

static void progress(void *arg, uint64_t done, uint64_t total)
{
	(void)arg;
	fprintf(stderr, "\rbench burst: %llu/%llu bursts",
		(unsigned long long)done, (unsigned long long)total);
	if (done == total)
		fprintf(stderr, "\r%60s\r", "");
	fflush(stderr);
}

static void print_mask(const struct cidk_mask *m, int width)
{
	char *s = cidk_mask_list_alloc(m);

	printf("%-*s", width, s && *s ? s : "-");
	free(s);
}

/* A mask as a JSON string, its cpulist. */
static void mask_json(struct jw *j, const char *key, const struct cidk_mask *m)
{
	char *s = cidk_mask_list_alloc(m);

	jw_kstr(j, key, s ? s : "");
	free(s);
}

static const struct bench_burst_mode_result *
find_cpu(const struct bench_burst_result *r)
{
	for (unsigned int m = 0; m < r->nr_modes; m++)
		if (r->mode[m].mode.index == BENCH_BURST_CPU && r->mode[m].bursts)
			return &r->mode[m];
	return NULL;
}

static const char *kernel_release(void)
{
	static struct utsname u;

	return uname(&u) ? "?" : u.release;
}

static void print_json(const struct bench_burst_result *r,
		       const struct cidk_mask *cpus)
{
	const struct bench_burst_mode_result *cpu = find_cpu(r);

	struct jw j;

	jw_init(&j, stdout);
	jw_obj(&j);
	jw_kstr(&j, "kernel", kernel_release());
	jw_kuint(&j, "threads", r->nr_threads);
	mask_json(&j, "cpus", cpus);
	jw_kuint(&j, "rounds", r->rounds);
	jw_knum(&j, "delay_ms", (double)r->delay_ns / 1e6, -1);
	jw_kuint(&j, "bytes", r->bytes);
	jw_kuint(&j, "seed", r->seed);
	jw_kuint(&j, "pool_cids", r->pool_cids);
	jw_knum(&j, "wall_s", (double)r->wall_ns / 1e9, 2);
	jw_break(&j, "\n ");
	jw_knum(&j, "line_rtt_before_ns", r->line_rtt_before_ns, 0);
	jw_knum(&j, "line_rtt_after_ns", r->line_rtt_after_ns, 0);
	jw_break(&j, "\n ");
	jw_key(&j, "modes");
	jw_arr(&j);
	for (unsigned int m = 0; m < r->nr_modes; m++) {
		const struct bench_burst_mode_result *mr = &r->mode[m];
		char name[BENCH_BURST_NAME_MAX];

		bench_burst_mode_name(&mr->mode, name);
		jw_break(&j, "\n  ");
		jw_obj(&j);
		jw_kstr(&j, "mode", name);
		jw_kbool(&j, "available", mr->available);
		jw_kuint(&j, "bursts", mr->bursts);
		if (!mr->bursts) {
			jw_obj_end(&j);
			continue;
		}
		jw_knum(&j, "median_ns", mr->ns.median, 0);
		jw_knum(&j, "min_ns", mr->ns.min, 0);
		jw_knum(&j, "max_ns", mr->ns.max, 0);
		jw_knum(&j, "hot_median_ns", mr->hot_ns.median, 0);
		if (cpu && cpu->ns.median > 0)
			jw_knum(&j, "ratio_to_cpu", mr->ns.median / cpu->ns.median, 3);
		else
			jw_knull(&j, "ratio_to_cpu");
		if (r->have_cycles)
			jw_knum(&j, "median_cycles", mr->cycles_median, 0);
		mask_json(&j, "cids", mr->used);
		jw_kuint(&j, "distinct_cids", mr->distinct);
		jw_kint(&j, "max_cid", mr->max_index);
		jw_kuint(&j, "bound", mr->bound);
		jw_kuint(&j, "out_of_bounds", mr->out_of_bounds);
		jw_kuint(&j, "skipped", mr->skipped);
		jw_kuint(&j, "changes", mr->changes);
		jw_key(&j, "per_thread");
		jw_arr(&j);
		for (unsigned int i = 0; i < r->nr_threads; i++) {
			jw_obj(&j);
			jw_kuint(&j, "cpu", r->thread_cpu[i]);
			mask_json(&j, "cids", mr->thread_used[i]);
			jw_obj_end(&j);
		}
		jw_arr_end(&j);
		jw_obj_end(&j);
	}
	jw_break(&j, "\n");
	jw_arr_end(&j);
	jw_obj_end(&j);
	jw_end(&j);
}

static void print_human(const struct bench_burst_result *r,
			const struct cidk_mask *cpus)
{
	const struct bench_burst_mode_result *cpu = find_cpu(r);

	printf("burst: %u threads pinned to CPUs ", r->nr_threads);
	print_mask(cpus, 0);
	printf(", one at a time; %zu-byte areas; %u rounds (+1 warm-up); "
	       "delay %g ms; seed %llu\n",
	       r->bytes, r->rounds, (double)r->delay_ns / 1e6,
	       (unsigned long long)r->seed);
	printf("kernel %s; %.1f s in all\n", kernel_release(),
	       (double)r->wall_ns / 1e9);
	if (r->nr_threads >= 2)
		printf("one cache line between CPUs %u and %u: %.0f ns per round "
		       "trip before the run, %.0f after (0: no result)\n",
		       r->thread_cpu[0], r->thread_cpu[1], r->line_rtt_before_ns,
		       r->line_rtt_after_ns);
	printf("\n");
	printf("%-18s %6s %9s %15s %5s %6s %7s %-6s %3s %5s %7s  %s\n", "mode",
	       "bursts", "median ns", "min-max ns", "ratio", "hot ns",
	       r->have_cycles ? "cycles" : "", "CIDs", "max", "bound",
	       "changes", "cpu:CIDs");
	for (unsigned int m = 0; m < r->nr_modes; m++) {
		const struct bench_burst_mode_result *mr = &r->mode[m];
		char name[BENCH_BURST_NAME_MAX];

		bench_burst_mode_name(&mr->mode, name);
		printf("%-18s ", name);
		if (!mr->available) {
			printf("unavailable (the kernel provides no mm_cid)\n");
			continue;
		}
		printf("%6llu ", (unsigned long long)mr->bursts);
		if (mr->bursts) {
			char range[40];

			snprintf(range, sizeof(range), "%.0f-%.0f", mr->ns.min,
				 mr->ns.max);
			printf("%9.0f %15s ", mr->ns.median, range);
			if (cpu && cpu->ns.median > 0)
				printf("%5.2f ", mr->ns.median / cpu->ns.median);
			else
				printf("%5s ", "-");
			printf("%6.0f ", mr->hot_ns.median);
		} else {
			printf("%9s %15s %5s %6s ", "-", "-", "-", "-");
		}
		if (r->have_cycles && mr->bursts)
			printf("%7.0f ", mr->cycles_median);
		else
			printf("%7s ", "");
		print_mask(mr->used, 6);
		printf(" %3d %5u %7llu ", mr->max_index, mr->bound,
		       (unsigned long long)mr->changes);
		for (unsigned int i = 0; i < r->nr_threads; i++) {
			printf(" %u:", r->thread_cpu[i]);
			print_mask(mr->thread_used[i], 0);
		}
		printf("\n");
	}
	printf("\nratio: median / cpu's median; hot: median of the same burst "
	       "repeated at once (the floor);\ncycles: TSC ticks, median; CIDs: "
	       "the areas used, overall and per thread (cpu:CIDs);\nbound: "
	       "what the index should stay below (lease: min(capacity, threads); "
	       "kernel-cid: min(allowed CPUs, threads + main));\nchanges: "
	       "bursts whose CID differed from the same thread's previous one\n");
	for (unsigned int m = 0; m < r->nr_modes; m++) {
		const struct bench_burst_mode_result *mr = &r->mode[m];
		char name[BENCH_BURST_NAME_MAX];

		if (!mr->out_of_bounds && !mr->skipped)
			continue;
		bench_burst_mode_name(&mr->mode, name);
		printf("%s: %llu bursts at or above the bound, %llu beyond the "
		       "pool (not run)\n",
		       name, (unsigned long long)mr->out_of_bounds,
		       (unsigned long long)mr->skipped);
	}
}

/* The lease modes must keep their CIDs below the bound. */
static bool leases_in_bounds(const struct bench_burst_result *r)
{
	for (unsigned int m = 0; m < r->nr_modes; m++)
		if (r->mode[m].mode.index == BENCH_BURST_LEASE &&
		    (r->mode[m].out_of_bounds || r->mode[m].skipped))
			return false;
	return true;
}

int cmd_bench_burst(int argc, char **argv)
{
	struct bench_burst_config cfg = { .bytes = 16384, .seed = 1 };
	struct cidk_mask *allowed = NULL, *cpus = NULL;
	const char *cpus_arg = NULL;
	struct bench_burst_result res;
	double per_round_s, sleep_s, delay_ms = 10;
	unsigned int threads, bytes = 16384;
	bool json = false;
	struct opt opts[] = {
		{ OPT_STRING("cpus", 0, &cpus_arg, "LIST",
			     "cpulist of allowed CPUs"),
		  .def = "all allowed" },
		{ OPT_UINT("rounds", 0, &cfg.rounds, 1, BURST_MAX_ROUNDS, "R",
			   "rounds after the warm-up"),
		  .def = "200, fewer if that would sleep more than 40 s: rounds x "
			 "modes x threads x delay" },
		{ OPT_DOUBLE("delay-ms", 0, &delay_ms, 0, BURST_MAX_DELAY_MS, "D",
			     "sleep after each burst") },
		{ OPT_CALLBACK("modes", 0, parse_modes, &cfg, "LIST",
			       "comma-separated modes"),
		  .def = "all of them" },
		{ OPT_UINT("bytes", 0, &bytes, BURST_MIN_BYTES, BURST_MAX_BYTES,
			   "N", "area size") },
		{ OPT_U64("seed", 0, &cfg.seed, 0, UINT64_MAX, "S", "thread order") },
		{ OPT_FLAG("json", 0, &json, "one JSON object instead of the table") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = {
		"bench burst", about,
		"Exit status 1 if a lease handed out a CID at or above its bound.\n",
		NULL, 0, 0, opts,
	};
	int rc, first;

	cfg.nr_modes = bench_burst_all_modes(cfg.modes);
	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	cfg.bytes = bytes;

	rc = CLI_EXIT_USAGE;
	allowed = cpus_opt_allowed("bench burst");
	if (!allowed)
		goto out;
	if (cpus_arg) {
		cpus = cpus_opt_parse("bench burst: --cpus", cpus_arg, allowed);
		if (!cpus)
			goto out;
	} else {
		cpus = allowed;
	}
	threads = cidk_mask_weight(cpus);
	per_round_s = (double)cfg.nr_modes * threads * delay_ms / 1000.0;
	if (!opt_given(&cmd, "rounds")) {
		double fit = per_round_s > 0 ? BURST_BUDGET_S / per_round_s
					     : BURST_DEFAULT_ROUNDS;

		cfg.rounds = fit < BURST_DEFAULT_ROUNDS ? (unsigned int)fit
							  : BURST_DEFAULT_ROUNDS;
		if (cfg.rounds < BURST_MIN_DEFAULT_ROUNDS)
			cfg.rounds = BURST_MIN_DEFAULT_ROUNDS;
	}
	if ((unsigned long long)cfg.rounds * threads > BURST_MAX_SAMPLES) {
		rc = cli_error("bench burst: --rounds %u x %u threads is too many "
			       "bursts per mode (at most %llu)",
			       cfg.rounds, threads, BURST_MAX_SAMPLES);
		goto out;
	}
	sleep_s = per_round_s * (cfg.rounds + 1);
	if (sleep_s > BURST_MAX_SLEEP_S) {
		rc = cli_error("bench burst: this would sleep %.0f s (rounds x "
			       "modes x threads x delay); at most %.0f",
			       sleep_s, BURST_MAX_SLEEP_S);
		goto out;
	}
	cfg.cpus = cpus;
	cfg.delay_ns = (uint64_t)(delay_ms * 1e6 + 0.5);
	if (isatty(STDERR_FILENO))
		cfg.progress = progress;

	rc = bench_burst_run(&cfg, &res);
	if (rc) {
		rc = cli_fail("bench burst: %s", strerror(-rc));
		goto out;
	}
	if (json)
		print_json(&res, cpus);
	else
		print_human(&res, cpus);
	rc = leases_in_bounds(&res) ? CLI_EXIT_OK : CLI_EXIT_FAIL;
	bench_burst_result_free(&res);
out:
	if (cpus != allowed)
		cidk_mask_free(cpus);
	cidk_mask_free(allowed);
	return rc;
}
