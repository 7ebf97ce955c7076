/* SPDX-License-Identifier: MIT */
/*
 * tests/support/percpu_oracle.h - what <cidkit/percpu.h> documents,
 * worked out from outside the library (never by asking it), for the
 * per-CPU tests (tests/unit/percpu_*.c, tests/stress/percpu_*.c):
 *
 *   TEST_ARCH_RSEQ            1 on the architectures percpu.h documents
 *                             critical sections for
 *   RSEQ_SIG                  glibc's, with the kernel selftests' riscv
 *                             value where glibc 2.36 has none
 *   struct rseq_cs_desc       the kernel ABI's critical-section descriptor
 *   test_rseq_desc_ok(d, max) the descriptor is well formed: version 0, no
 *                             flags, 32-byte aligned, 0 < length < max,
 *                             RSEQ_SIG just before abort_ip, abort_ip
 *                             outside the section
 *   test_documented_path(idx) the path percpu.h documents for this process
 *
 * Header only: it reads <cidkit/percpu.h>'s enums (the support library
 * itself is libc only).  Needs test_cpu.c (tests_support_dep).
 */
#ifndef CIDKIT_TESTS_PERCPU_ORACLE_H
#define CIDKIT_TESTS_PERCPU_ORACLE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/rseq.h>

#include <cidkit/percpu.h>
#include <cidkit/rseq.h>

#include "test_cpu.h"
#include "tsan.h"

/* glibc 2.36 has no riscv RSEQ_SIG: the kernel selftests' rseq-riscv.h value. */
#if !defined(RSEQ_SIG) && defined(__riscv)
#define RSEQ_SIG 0xf1401073
#endif

#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#endif

/* The architectures percpu.h documents critical sections for. */
#if defined(__GNUC__) &&                                                      \
	(defined(__x86_64__) || (defined(__aarch64__) && !defined(__AARCH64EB__)) || \
	 (defined(__riscv) && __riscv_xlen == 64) ||                          \
	 (defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)) ||            \
	 defined(__s390x__))
#define TEST_ARCH_RSEQ 1
#else
#define TEST_ARCH_RSEQ 0
#endif

struct rseq_cs_desc {
	uint32_t version, flags;
	uint64_t start_ip, post_commit_offset, abort_ip;
};

#ifdef RSEQ_SIG
static inline int test_rseq_desc_ok(const struct rseq_cs_desc *d,
				    uint64_t max_len)
{
	uint32_t sig;

	memcpy(&sig, (const char *)(uintptr_t)d->abort_ip - 4, 4);
	return d->version == 0 && d->flags == 0 && ((uintptr_t)d & 31) == 0 &&
	       d->post_commit_offset > 0 && d->post_commit_offset < max_len &&
	       sig == RSEQ_SIG &&
	       (d->abort_ip < d->start_ip ||
		d->abort_ip >= d->start_ip + d->post_commit_offset);
}
#endif

/*
 * The path percpu.h documents for this process: rseq on an architecture
 * it has sections for, outside ThreadSanitizer, when CIDK_PERCPU is not
 * "atomic", the kernel keeps the abort promise (CIDK_EXPECT_PATH, from the
 * kernel lab's matrix, is not "atomic"; the host is assumed to) and there
 * is an rseq area -- glibc's (__rseq_size > 0) or, when glibc registered
 * none, cidkit's own, which needs the kernel's rseq(2); mm_cid also needs
 * a kernel that fills mm_cid.
 */
static inline enum cidk_percpu_path
test_documented_path(enum cidk_percpu_index idx)
{
	const char *e = getenv("CIDK_PERCPU");
	const char *x = getenv("CIDK_EXPECT_PATH");
	int forced = (e && !strcmp(e, "atomic")) || (x && !strcmp(x, "atomic"));

	if (!TEST_ARCH_RSEQ || TEST_TSAN || forced ||
	    (__rseq_size == 0 && !test_kernel_has_rseq()))
		return CIDK_PERCPU_ATOMIC;
	if (idx == CIDK_PERCPU_MM_CID &&
	    getauxval(AT_RSEQ_FEATURE_SIZE) < CIDK_RSEQ_FEATURE_MM_CID)
		return CIDK_PERCPU_ATOMIC;
	return CIDK_PERCPU_RSEQ;
}

#endif /* CIDKIT_TESTS_PERCPU_ORACLE_H */
