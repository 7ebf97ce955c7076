/* SPDX-License-Identifier: MIT */
/*
 * check/gen.h - scenarios that do not know the bug: a seeded generator of
 * small scenarios (tasks, CPUs, affinities; fork, exit, migrate, affinity,
 * tick, return-to-user and lease events), each run under every policy.
 *
 * Scenario (@seed, @i) is a pure function of the two numbers: the same
 * pair gives the same text on every machine, so a violation found by
 * `cidkit check --generate N --seed S` is replayed from its printed text
 * (`--scenario FILE`) or regenerated.  The text is in the scenario file
 * grammar (scenario.h) and always parses; every task ends off its CPU, so
 * that no `in` waits forever for a CPU its script never leaves.
 */
#ifndef CIDKIT_CHECK_GEN_H
#define CIDKIT_CHECK_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chk.h"

/* The text of scenario @i of @seed, into @buf (NUL-terminated, <= @len). */
void gen_text(uint64_t seed, unsigned long i, char *buf, size_t len);

struct gen_opts {
	unsigned long n;	 /* scenarios (at most) */
	uint64_t seed;
	double budget;		 /* seconds, 0: none; checked between runs */
	const char *policy;	 /* NULL: every policy */
	bool print;		 /* print the texts only, explore nothing */
};

/*
 * Generate and explore, printing each violation (scenario text, policy,
 * property, trace, replay directives) and a summary line.  Returns 0 (no
 * violation), 1 (one or more), 2 (bad input, one line printed).
 */
int gen_run(const struct gen_opts *g, const struct chk_opts *c);

#endif /* CIDKIT_CHECK_GEN_H */
