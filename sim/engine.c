/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "sim_engine.h"

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

int sim_engine_grow(struct sim_engine *e)
{
	struct sim_event *h = realloc(e->heap, sizeof(*h) * e->cap * 2);

	if (!h)
		return -ENOMEM;
	e->heap = h;
	e->cap *= 2;
	return 0;
}
