/* SPDX-License-Identifier: MIT */
/*
 * lib/topo/possible.c - this machine's possible CPUs, read once: the one
 * value the library sizes per-CPU things by (possible.h).  The rule
 * itself (the last CPU of devices/system/cpu/possible plus one, or the
 * cpuN folders before 2.6.27) is sysfs.c's, cidk_topo_read_nr_cpu_ids().
 * Called at most a few times per process (pool sizing, domain creation,
 * one check): cold.
 */
#include <pthread.h>
#include <unistd.h>

#include <cidkit/topo.h>

#include "topo/possible.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned int nr_possible = 1;

static void find(void)
{
	int nr = cidk_topo_read_nr_cpu_ids(NULL, NULL);
	long conf;

	if (nr > 0) {
		nr_possible = (unsigned int)nr;
		return;
	}
	conf = sysconf(_SC_NPROCESSORS_CONF);
	if (conf > 0 && conf <= (long)CIDK_TOPO_MAX_CPUS)
		nr_possible = (unsigned int)conf;
}

unsigned int cidk__topo_nr_possible(void)
{
	pthread_once(&once, find);
	return nr_possible;
}
