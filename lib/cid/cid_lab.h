/* SPDX-License-Identifier: MIT */
/*
 * lib/cid/cid_lab.h - what a policy offers the lab (trace/replay.c) beyond
 * cid.h: narrow questions about its state, so that the lab never reads a
 * policy's slots itself.  Internal (cidk__, not CIDK_EXPORT: never in
 * libcidkit.so's symbols); for the lab only, until the internal header of
 * issue 40 takes these declarations over.
 */
#ifndef CIDKIT_LIB_CID_LAB_H
#define CIDKIT_LIB_CID_LAB_H

#include <stdbool.h>

#include <cidkit/cid.h>

/*
 * cidk__cid_cpu_has_cid - whether the lazy family's per-CPU slot of @cpu
 * in @mm holds a CID now (idle there, or in use by a task running on
 * @cpu): what 6.4-6.18's sched_mm_cid_migrate_to() tests of its
 * destination.  False for a policy outside the lazy family (lazy,
 * lazy-batched, cache-local) and for @cpu at or above @mm's CPUs.  Reads
 * only; MT-safe (one relaxed load), the answer as of the load.
 */
bool cidk__cid_cpu_has_cid(const struct cidk_cid_mm *mm, unsigned int cpu);

#endif
