/* SPDX-License-Identifier: MIT */
/*
 * tests/support/tsan.h - TEST_TSAN: 1 in a ThreadSanitizer build, by the
 * compiler's own word (gcc's __SANITIZE_THREAD__, clang's feature test),
 * not the library's.  The build's -fsanitize=thread reaches the tests as
 * it reaches the library.
 */
#ifndef CIDKIT_TESTS_TSAN_H
#define CIDKIT_TESTS_TSAN_H

#if defined(__SANITIZE_THREAD__)
#define TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TEST_TSAN 1
#endif
#endif
#ifndef TEST_TSAN
#define TEST_TSAN 0
#endif

#endif /* CIDKIT_TESTS_TSAN_H */
