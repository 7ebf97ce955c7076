/* SPDX-License-Identifier: MIT */
/*
 * The event engine: events come out in (time, insertion) order, against a
 * sorted reference; the clock only moves forward; scheduling in the past
 * is refused.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim_engine.h"
#include "tap.h"
#include "prng.h"

struct ref {
	uint64_t time, seq;
};

static int cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int main(void)
{
	enum { N = 20000 };
	struct sim_engine e;
	struct sim_event ev;
	struct ref *want = calloc(N, sizeof(*want));
	struct cidk__prng rng;
	unsigned int bad = 0, n = 0;

	cidk__prng_seed(&rng, 3);
	ok(sim_engine_init(&e, 1) == 0, "init with a tiny heap (it grows)");
	for (unsigned int i = 0; i < N; i++) {
		/* few distinct times: many ties, which must keep insertion order */
		want[i].time = cidk__prng_below(&rng, 500);
		want[i].seq = i;
		bad += sim_engine_at(&e, want[i].time, 7, i, 0) != 0;
	}
	ok(!bad, "%d events scheduled", N);
	qsort(want, N, sizeof(*want), cmp);
	while (sim_engine_next(&e, &ev)) {
		bad += ev.time != want[n].time || ev.arg != want[n].seq ||
		       e.now != ev.time || ev.kind != 7;
		n++;
	}
	ok(n == N && !bad, "popped in (time, insertion) order: %u events, %u out of place",
	   n, bad);
	ok(e.processed == N, "processed counts pops (%llu)",
	   (unsigned long long)e.processed);
	ok(sim_engine_at(&e, e.now - 1, 0, 0, 0) == -EINVAL,
	   "scheduling before now is refused");
	ok(sim_engine_at(&e, e.now, 1, 42, 9) == 0 && sim_engine_next(&e, &ev) &&
		   ev.arg == 42 && ev.gen == 9 && !sim_engine_next(&e, &ev),
	   "an event at now runs; then the queue is empty");
	sim_engine_fini(&e);
	free(want);
	return done_testing();
}
