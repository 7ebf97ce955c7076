/* SPDX-License-Identifier: MIT */
/* tests/support/test_cpu.c - the tests' own kernel questions (test_cpu.h). */
#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "test_cpu.h"

#define TEST_RSEQ_FLAG_UNREGISTER 1 /* linux/rseq.h's RSEQ_FLAG_UNREGISTER */

int test_pin_one_cpu(int highest)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int i = 0; i < CPU_SETSIZE; i++) {
		int c = highest ? CPU_SETSIZE - 1 - i : i;

		if (CPU_ISSET(c, &set)) {
			CPU_ZERO(&set);
			CPU_SET(c, &set);
			return sched_setaffinity(0, sizeof(set), &set) ? -1 : c;
		}
	}
	return -1;
}

int test_kernel_has_rseq(void)
{
#ifdef SYS_rseq
	return syscall(SYS_rseq, NULL, 0u, TEST_RSEQ_FLAG_UNREGISTER, 0u) == -1 &&
	       errno == EINVAL;
#else
	return 0;
#endif
}
