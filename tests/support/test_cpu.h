/* SPDX-License-Identifier: MIT */
/*
 * tests/support/test_cpu.h - what the tests ask the kernel directly, not
 * through libcidkit: pin to one CPU, whether rseq(2) exists.
 */
#ifndef CIDKIT_TESTS_TEST_CPU_H
#define CIDKIT_TESTS_TEST_CPU_H

/*
 * Pin the calling thread to one CPU of its affinity mask: the highest
 * when @highest, else the lowest.  Returns that CPU, or -1.
 */
int test_pin_one_cpu(int highest);

/*
 * Whether the kernel has rseq(2), asked directly: unregistering an area
 * that is not registered fails with EINVAL where the call exists (ENOSYS
 * on an old kernel or under valgrind, EPERM under a seccomp filter).
 */
int test_kernel_has_rseq(void);

#endif /* CIDKIT_TESTS_TEST_CPU_H */
