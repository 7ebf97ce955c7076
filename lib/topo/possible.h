/* SPDX-License-Identifier: MIT */
/*
 * lib/topo/possible.h - this machine's possible CPUs, for the library's
 * own sizing (lib/percpu's copies, lib/lease's default capacity, lib/abi's
 * mm_cid bound).
 */
#ifndef CIDKIT_LIB_TOPO_POSSIBLE_H
#define CIDKIT_LIB_TOPO_POSSIBLE_H

/*
 * cidk__topo_nr_possible - the kernel's nr_cpu_ids on this machine: every
 * CPU number the kernel can give (cpu_id, and mm_cid, which stays below
 * it) is below it.  cidk_topo_read_nr_cpu_ids() on /sys, read once per
 * process; without a readable sysfs (not mounted, hidden by a sandbox)
 * sysconf(_SC_NPROCESSORS_CONF), else 1.  At least 1, at most
 * CIDK_TOPO_MAX_CPUS.  MT-safe; never fails.
 */
unsigned int cidk__topo_nr_possible(void);

#endif /* CIDKIT_LIB_TOPO_POSSIBLE_H */
