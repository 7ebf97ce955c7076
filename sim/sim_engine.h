/* SPDX-License-Identifier: MIT */
/*
 * sim/sim_engine.h - the discrete-event core: a virtual nanosecond clock and a
 * priority queue of events.
 *
 * Determinism: events are ordered by (time, seq), seq increasing with every
 * schedule, so events at the same time run in the order they were
 * scheduled (libuv's timer heap does the same).  Nothing here reads a real
 * clock or a global random source.
 *
 * Workload: schedule and pop are the hot path (millions per second); the
 * heap is an array of 24-byte events, a binary heap with the hole method.
 */
#ifndef CIDKIT_SIM_ENGINE_H
#define CIDKIT_SIM_ENGINE_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

struct sim_event {
	uint64_t time;
	uint64_t seq;
	uint32_t kind; /* scenario-defined */
	uint32_t arg;  /* scenario-defined (a task, a CPU) */
	uint64_t gen;  /* scenario-defined (generation, to drop stale events) */
};

struct sim_engine {
	struct sim_event *heap;
	uint32_t size, cap;
	uint64_t now;
	uint64_t seq;
	uint64_t processed; /* events popped */
};

/* Returns 0 or -ENOMEM. */
int sim_engine_init(struct sim_engine *e, uint32_t initial_cap);
void sim_engine_fini(struct sim_engine *e);

/* Double the heap's capacity: 0 or -ENOMEM (the heap unchanged). */
int sim_engine_grow(struct sim_engine *e);

/*
 * The hot pair, inline (each runs once per event; a call's prologue and
 * epilogue were a third of them): ordering by (time, seq).
 */
static inline bool sim_event_before(const struct sim_event *a,
				    const struct sim_event *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

/*
 * Schedule an event at @time (>= now).  Returns 0, -EINVAL (time in the
 * past) or -ENOMEM.
 */
static inline int sim_engine_at(struct sim_engine *e, uint64_t time,
				uint32_t kind, uint32_t arg, uint64_t gen)
{
	struct sim_event ev = { time, e->seq++, kind, arg, gen };
	uint32_t i;

	if (time < e->now)
		return -EINVAL;
	if (e->size == e->cap && sim_engine_grow(e))
		return -ENOMEM;
	/* sift up: move parents down into the hole */
	for (i = e->size++; i > 0; ) {
		uint32_t parent = (i - 1) / 2;

		if (!sim_event_before(&ev, &e->heap[parent]))
			break;
		e->heap[i] = e->heap[parent];
		i = parent;
	}
	e->heap[i] = ev;
	return 0;
}

/* Pop the earliest event into @out and advance the clock; false if none. */
static inline bool sim_engine_next(struct sim_engine *e, struct sim_event *out)
{
	struct sim_event last;
	uint32_t i = 0, n;

	if (!e->size)
		return false;
	*out = e->heap[0];
	last = e->heap[--e->size];
	n = e->size;
	/* sift down: move the smaller child up into the hole */
	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && sim_event_before(&e->heap[c + 1], &e->heap[c]))
			c++;
		if (!sim_event_before(&e->heap[c], &last))
			break;
		e->heap[i] = e->heap[c];
		i = c;
	}
	if (n)
		e->heap[i] = last;
	e->now = out->time;
	e->processed++;
	return true;
}

#endif /* CIDKIT_SIM_ENGINE_H */
