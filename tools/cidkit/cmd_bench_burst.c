/* SPDX-License-Identifier: MIT */
/*
 * cidkit bench burst [--cpus LIST] [--rounds R] [--delay-ms D] [--modes LIST]
 *                    [--bytes N] [--seed S] [--json]
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cidkit/mask.h>

#include "bench_burst.h"
#include "cli.h"
#include "cmds.h"
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

static const char usage[] =
	"usage: cidkit bench burst [--cpus LIST] [--rounds R] [--delay-ms D]\n"
	"                          [--modes LIST] [--bytes N] [--seed S] [--json]\n"
	"\n"
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
	"and per thread), the largest one and the bound it should stay below.\n"
	"\n"
	"  --cpus LIST     cpulist of allowed CPUs (default: all allowed)\n"
	"  --rounds R      1..100000 (default: 200, fewer if that would sleep\n"
	"                  more than 40 s: rounds x modes x threads x delay)\n"
	"  --delay-ms D    sleep after each burst, 0..10000, may be fractional\n"
	"                  (default 10)\n"
	"  --modes LIST    comma-separated modes (default: all of them)\n"
	"  --bytes N       area size, 1..16777216 (default 16384)\n"
	"  --seed S        thread order (default 1)\n"
	"  --json          one JSON object instead of the table\n"
	"Exit status 1 if a lease handed out a CID at or above its bound.\n";

struct opts {
	struct bench_burst_config cfg;
	bool json, rounds_given;
	double delay_ms;
};

static int parse_modes(const char *arg, struct bench_burst_config *cfg)
{
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
			rc = cli_error("bench burst: --modes: unknown mode '%s' "
				       "(cpu, kernel-cid, lease:POLICY; see --help)",
				       ex);
			break;
		}
		for (unsigned int i = 0; i < cfg->nr_modes; i++)
			if (cfg->modes[i].index == m.index &&
			    (m.index != BENCH_BURST_LEASE ||
			     cfg->modes[i].policy == m.policy)) {
				rc = cli_error("bench burst: --modes: '%s' given twice",
					       ex);
				goto out;
			}
		cfg->modes[cfg->nr_modes++] = m;
	}
	if (!rc && !cfg->nr_modes)
		rc = cli_error("bench burst: --modes: no mode given");
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

static void print_mask(const struct cidk_mask *m, bool json, int width)
{
	char *s = cidk_mask_list_alloc(m);

	if (json)
		cli_json_str(stdout, s ? s : "");
	else
		printf("%-*s", width, s && *s ? s : "-");
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

	printf("{\"kernel\": ");
	cli_json_str(stdout, kernel_release());
	printf(", \"threads\": %u, \"cpus\": ", r->nr_threads);
	print_mask(cpus, true, 0);
	printf(", \"rounds\": %u, \"delay_ms\": %g, \"bytes\": %zu, "
	       "\"seed\": %llu, \"pool_cids\": %u, \"wall_s\": %.2f,\n"
	       " \"line_rtt_before_ns\": %.0f, \"line_rtt_after_ns\": %.0f,\n"
	       " \"modes\": [",
	       r->rounds, (double)r->delay_ns / 1e6, r->bytes,
	       (unsigned long long)r->seed, r->pool_cids,
	       (double)r->wall_ns / 1e9, r->line_rtt_before_ns,
	       r->line_rtt_after_ns);
	for (unsigned int m = 0; m < r->nr_modes; m++) {
		const struct bench_burst_mode_result *mr = &r->mode[m];
		char name[BENCH_BURST_NAME_MAX];

		bench_burst_mode_name(&mr->mode, name);
		printf("%s\n  {\"mode\": \"%s\", \"available\": %s, "
		       "\"bursts\": %llu",
		       m ? "," : "", name, mr->available ? "true" : "false",
		       (unsigned long long)mr->bursts);
		if (!mr->bursts) {
			printf("}");
			continue;
		}
		printf(", \"median_ns\": %.0f, \"min_ns\": %.0f, "
		       "\"max_ns\": %.0f, \"hot_median_ns\": %.0f, "
		       "\"ratio_to_cpu\": ",
		       mr->ns.median, mr->ns.min, mr->ns.max, mr->hot_ns.median);
		if (cpu && cpu->ns.median > 0)
			printf("%.3f", mr->ns.median / cpu->ns.median);
		else
			printf("null");
		if (r->have_cycles)
			printf(", \"median_cycles\": %.0f", mr->cycles_median);
		printf(", \"cids\": ");
		print_mask(mr->used, true, 0);
		printf(", \"distinct_cids\": %u, \"max_cid\": %d, "
		       "\"bound\": %u, \"out_of_bounds\": %llu, "
		       "\"skipped\": %llu, \"changes\": %llu, \"per_thread\": [",
		       mr->distinct, mr->max_index, mr->bound,
		       (unsigned long long)mr->out_of_bounds,
		       (unsigned long long)mr->skipped,
		       (unsigned long long)mr->changes);
		for (unsigned int i = 0; i < r->nr_threads; i++) {
			printf("%s{\"cpu\": %u, \"cids\": ", i ? ", " : "",
			       r->thread_cpu[i]);
			print_mask(mr->thread_used[i], true, 0);
			printf("}");
		}
		printf("]}");
	}
	printf("\n]}\n");
}

static void print_human(const struct bench_burst_result *r,
			const struct cidk_mask *cpus)
{
	const struct bench_burst_mode_result *cpu = find_cpu(r);

	printf("burst: %u threads pinned to CPUs ", r->nr_threads);
	print_mask(cpus, false, 0);
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
		print_mask(mr->used, false, 6);
		printf(" %3d %5u %7llu ", mr->max_index, mr->bound,
		       (unsigned long long)mr->changes);
		for (unsigned int i = 0; i < r->nr_threads; i++) {
			printf(" %u:", r->thread_cpu[i]);
			print_mask(mr->thread_used[i], false, 0);
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

static int parse_args(int argc, char **argv, struct opts *o,
		      const char **cpus_arg)
{
	static const struct option lopts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "delay-ms", required_argument, NULL, 'd' },
		{ "modes", required_argument, NULL, 'm' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int bytes;
	int c;

	while ((c = getopt_long(argc, argv, "+:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			*cpus_arg = optarg;
			break;
		case 'r':
			if (cli_parse_uint("bench burst: --rounds", optarg, 1,
					   BURST_MAX_ROUNDS, &o->cfg.rounds))
				return CLI_EXIT_USAGE;
			o->rounds_given = true;
			break;
		case 'd':
			if (cli_parse_double("bench burst: --delay-ms", optarg, 0,
					     BURST_MAX_DELAY_MS, &o->delay_ms))
				return CLI_EXIT_USAGE;
			break;
		case 'm':
			if (parse_modes(optarg, &o->cfg))
				return CLI_EXIT_USAGE;
			break;
		case 'b':
			if (cli_parse_uint("bench burst: --bytes", optarg,
					   BURST_MIN_BYTES, BURST_MAX_BYTES,
					   &bytes))
				return CLI_EXIT_USAGE;
			o->cfg.bytes = bytes;
			break;
		case 's':
			if (cli_parse_u64("bench burst: --seed", optarg, 0,
					  UINT64_MAX, &o->cfg.seed))
				return CLI_EXIT_USAGE;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			return cli_bad_option("bench burst", argv, c);
		}
	}
	if (optind != argc)
		return cli_extra_arg("bench burst", argv[optind]);
	return 0;
}

int cmd_bench_burst(int argc, char **argv)
{
	struct opts o = { .cfg = { .bytes = 16384, .seed = 1 },
			  .delay_ms = 10 };
	struct cidk_mask *allowed = NULL, *cpus = NULL;
	const char *cpus_arg = NULL;
	struct bench_burst_result res;
	double per_round_s, sleep_s;
	unsigned int threads;
	int rc;

	o.cfg.nr_modes = bench_burst_all_modes(o.cfg.modes);
	rc = parse_args(argc, argv, &o, &cpus_arg);
	if (rc)
		return rc < 0 ? CLI_EXIT_OK : rc;

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
	per_round_s = (double)o.cfg.nr_modes * threads * o.delay_ms / 1000.0;
	if (!o.rounds_given) {
		double fit = per_round_s > 0 ? BURST_BUDGET_S / per_round_s
					     : BURST_DEFAULT_ROUNDS;

		o.cfg.rounds = fit < BURST_DEFAULT_ROUNDS ? (unsigned int)fit
							  : BURST_DEFAULT_ROUNDS;
		if (o.cfg.rounds < BURST_MIN_DEFAULT_ROUNDS)
			o.cfg.rounds = BURST_MIN_DEFAULT_ROUNDS;
	}
	if ((unsigned long long)o.cfg.rounds * threads > BURST_MAX_SAMPLES) {
		rc = cli_error("bench burst: --rounds %u x %u threads is too many "
			       "bursts per mode (at most %llu)",
			       o.cfg.rounds, threads, BURST_MAX_SAMPLES);
		goto out;
	}
	sleep_s = per_round_s * (o.cfg.rounds + 1);
	if (sleep_s > BURST_MAX_SLEEP_S) {
		rc = cli_error("bench burst: this would sleep %.0f s (rounds x "
			       "modes x threads x delay); at most %.0f",
			       sleep_s, BURST_MAX_SLEEP_S);
		goto out;
	}
	o.cfg.cpus = cpus;
	o.cfg.delay_ns = (uint64_t)(o.delay_ms * 1e6 + 0.5);
	if (isatty(STDERR_FILENO))
		o.cfg.progress = progress;

	rc = bench_burst_run(&o.cfg, &res);
	if (rc) {
		fflush(stdout);
		fprintf(stderr, "cidkit: bench burst: %s\n", strerror(-rc));
		rc = CLI_EXIT_FAIL;
		goto out;
	}
	if (o.json)
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
