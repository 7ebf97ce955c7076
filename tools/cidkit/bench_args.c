/* SPDX-License-Identifier: MIT */
#include <unistd.h>

#include "bench_args.h"
#include "json.h"
#include "opt.h"

int bench_loop_args(const struct bench_loop_cmd *c, int argc, char **argv,
		    struct bench_loop_args *a)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	struct opt opts[] = {
		{ OPT_UINT("threads", 0, &a->threads, 1, 1024, "N", c->threads_help),
		  .def = "online CPUs" },
		{ OPT_UINT("iters", 0, &a->iters, 1, 1000000000, "N", c->iters_help) },
		{ OPT_UINT("reps", 0, &a->reps, 1, 10000, "R", "repetitions") },
		{ OPT_FLAG("json", 0, &a->json, c->json_help) },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = { c->name, c->about, NULL, NULL, 0, 0, opts };
	int first;

	*a = (struct bench_loop_args){
		.threads = online > 0 ? (unsigned int)online : 1,
		.iters = c->iters,
		.reps = 11,
	};
	return opt_parse(&cmd, argc, argv, &first);
}

void bench_loop_json_begin(struct jw *j)
{
	jw_init(j, stdout);
	jw_obj(j);
	jw_key(j, "results");
	jw_arr(j);
}

void bench_loop_json_end(struct jw *j)
{
	jw_arr_end(j);
	jw_obj_end(j);
	jw_end(j);
}
