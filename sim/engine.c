/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "sim_engine.h"

static inline bool before(const struct sim_event *a, const struct sim_event *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

int sim_engine_init(struct sim_engine *e, uint32_t initial_cap)
{
	e->cap = initial_cap ? initial_cap : 64;
	e->heap = malloc(sizeof(*e->heap) * e->cap);
	e->size = 0;
	e->now = 0;
	e->seq = 0;
	e->processed = 0;
	return e->heap ? 0 : -ENOMEM;
}

void sim_engine_fini(struct sim_engine *e)
{
	free(e->heap);
	e->heap = NULL;
	e->size = e->cap = 0;
}

int sim_engine_at(struct sim_engine *e, uint64_t time, uint32_t kind,
		  uint32_t arg, uint64_t gen)
{
	struct sim_event ev = { time, e->seq++, kind, arg, gen };
	uint32_t i;

	if (time < e->now)
		return -EINVAL;
	if (e->size == e->cap) {
		struct sim_event *h = realloc(e->heap, sizeof(*h) * e->cap * 2);

		if (!h)
			return -ENOMEM;
		e->heap = h;
		e->cap *= 2;
	}
	/* sift up: move parents down into the hole */
	for (i = e->size++; i > 0; ) {
		uint32_t parent = (i - 1) / 2;

		if (!before(&ev, &e->heap[parent]))
			break;
		e->heap[i] = e->heap[parent];
		i = parent;
	}
	e->heap[i] = ev;
	return 0;
}

bool sim_engine_next(struct sim_engine *e, struct sim_event *out)
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
		if (c + 1 < n && before(&e->heap[c + 1], &e->heap[c]))
			c++;
		if (!before(&e->heap[c], &last))
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
