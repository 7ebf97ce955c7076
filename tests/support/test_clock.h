/* SPDX-License-Identifier: MIT */
/*
 * tests/support/test_clock.h - the tests' clocks: nanoseconds, and
 * milliseconds for cost limits.  CLOCK_MONOTONIC for deadlines and wall
 * time, CLOCK_PROCESS_CPUTIME_ID where other jobs on a shared machine
 * must not stretch what is measured.
 */
#ifndef CIDKIT_TESTS_TEST_CLOCK_H
#define CIDKIT_TESTS_TEST_CLOCK_H

#include <stdint.h>
#include <time.h>

/* @clk's time in nanoseconds (0 if @clk cannot be read). */
uint64_t test_ns(clockid_t clk);

/* @clk's time in milliseconds (fractions kept). */
double test_ms(clockid_t clk);

#endif /* CIDKIT_TESTS_TEST_CLOCK_H */
