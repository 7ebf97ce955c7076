/* SPDX-License-Identifier: MIT */
/*
 * sim/engine.h - the discrete-event core: a virtual nanosecond clock and a
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

/*
 * Schedule an event at @time (>= now).  Returns 0, -EINVAL (time in the
 * past) or -ENOMEM.
 */
int sim_engine_at(struct sim_engine *e, uint64_t time, uint32_t kind,
		  uint32_t arg, uint64_t gen);

/* Pop the earliest event into @ev and advance the clock; false if none. */
bool sim_engine_next(struct sim_engine *e, struct sim_event *ev);

#endif /* CIDKIT_SIM_ENGINE_H */
