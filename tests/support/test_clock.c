/* SPDX-License-Identifier: MIT */
/* tests/support/test_clock.c - the tests' clocks (test_clock.h). */
#include "test_clock.h"

uint64_t test_ns(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double test_ms(clockid_t clk)
{
	return (double)test_ns(clk) / 1e6;
}
