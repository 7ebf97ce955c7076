/* SPDX-License-Identifier: MIT */
/*
 * The options of the benchmarks that run N threads through a loop of
 * operations (bench lease, bench percpu): --threads, --iters, --reps and
 * --json, one table for both.
 */
#ifndef CIDKIT_TOOLS_BENCH_ARGS_H
#define CIDKIT_TOOLS_BENCH_ARGS_H

#include <stdbool.h>

struct bench_loop_args {
	unsigned int threads; /* default: online CPUs */
	unsigned int iters;   /* the caller's default */
	unsigned int reps;    /* default 11 */
	bool json;
};

/* What differs between the benchmarks: the name, texts, the default iters. */
struct bench_loop_cmd {
	const char *name;       /* "bench lease" */
	const char *about;
	const char *threads_help;
	const char *iters_help; /* "pairs per thread per repetition" */
	const char *json_help;
	unsigned int iters;
};

/*
 * Parse @argv into @a with the loop benchmarks' table (opt.h).  Returns 0,
 * OPT_HELP after the help, or 2 after one error line.
 */
int bench_loop_args(const struct bench_loop_cmd *c, int argc, char **argv,
		    struct bench_loop_args *a);

/*
 * Their JSON: {"results": [one object per row]}.  _begin opens it on
 * stdout up to the array; each row is then an object; _end closes it.
 */
struct jw;
void bench_loop_json_begin(struct jw *j);
void bench_loop_json_end(struct jw *j);

#endif /* CIDKIT_TOOLS_BENCH_ARGS_H */
