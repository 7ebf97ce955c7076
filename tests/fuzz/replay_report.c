/* SPDX-License-Identifier: MIT */
/*
 * A harness for the replay itself: it silences fd 2, as fuzz_cli and
 * fuzz_opt do around the code they test, then overflows a signed int.
 * tests/fuzz/replay_report.py runs it in the UBSan build and requires the
 * sanitizer's report on standard error (replay.c points every runtime at
 * a copy of the original).
 */
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	volatile int big = INT_MAX;
	volatile int x;

	(void)data;
	dup2(null_fd, 2);
	x = big + (int)(size > 0); /* UB for any non-empty input */
	(void)x;
	return 0;
}
