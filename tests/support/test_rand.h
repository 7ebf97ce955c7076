/* SPDX-License-Identifier: MIT */
/*
 * tests/support/test_rand.h - the tests' own small generator: Marsaglia's
 * xorshift64 (13, 7, 17), a fixed sequence per seed and per thread (each
 * worker owns its state), with no lock and no call into the library.
 * The state must never be 0.
 */
#ifndef CIDKIT_TESTS_TEST_RAND_H
#define CIDKIT_TESTS_TEST_RAND_H

#include <stdint.h>

static inline uint64_t test_xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif /* CIDKIT_TESTS_TEST_RAND_H */
