/* SPDX-License-Identifier: MIT */
/*
 * What the fuzz harnesses share.  Each harness defines
 * LLVMFuzzerTestOneInput(); linked with -fsanitize=fuzzer it is a libFuzzer
 * target (scripts/fuzz.sh), linked with replay.c it replays a corpus in
 * the normal test run (any compiler).  A broken property calls
 * fuzz_fail(), which aborts: libFuzzer saves the input, replay names it.
 */
#ifndef CIDKIT_TESTS_FUZZ_H
#define CIDKIT_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

__attribute__((noreturn)) static inline void fuzz_fail(const char *what)
{
	fprintf(stderr, "fuzz: property broken: %s\n", what);
	abort();
}

#define FUZZ_CHECK(cond)                                                   \
	do {                                                               \
		if (!(cond))                                               \
			fuzz_fail(#cond);                                  \
	} while (0)

/* @data as a NUL-terminated string (the caller frees it). */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif /* CIDKIT_TESTS_FUZZ_H */
