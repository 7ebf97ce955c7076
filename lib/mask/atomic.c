/* SPDX-License-Identifier: MIT */
/*
 * cidk_mask_union_count(): the mm's allowed-CPUs union.
 *
 * Workload: called whenever a task's affinity is set; in the common case
 * the union already holds every allowed CPU and nothing changes, so the
 * pass must cost no more than reading both masks once (docs/mask.md: within
 * 2x of memcmp() over the same two masks).  It works in blocks of 16 words
 * (two cache lines of each mask):
 *
 *   check  the bits of @src that @dst lacks in the block, OR-ed together,
 *          read with vector loads of @dst (x86-64: 32 bytes with AVX2,
 *          16 with SSE2) or, elsewhere, relaxed atomic loads one word at
 *          a time; the check changes nothing and decides nothing alone;
 *   fold   only for a block whose check found a missing bit: per word, a
 *          relaxed load of @dst and, where @src has bits it lacks, one
 *          fetch_or, counting the bits that the fetch_or, and not a
 *          concurrent caller, turned on.
 *
 * Why the check may read @dst with plain vector loads while other threads
 * fetch_or (or test_and_set / test_and_clear) its words -- the memory-model
 * argument, bit by bit (nothing here relates two different bits):
 *
 *  1. The count is exact: a bit is counted only from the value a fetch_or
 *     of this call returned (add & ~old).  A read-modify-write reads the
 *     last value in the word's modification order, so of all the RMWs that
 *     set a given bit, exactly one sees it clear: concurrent callers' counts
 *     add up to the weight gained.  The check plays no part in this.
 *  2. No bit is lost: when the check of a block comes out empty, every bit
 *     of @src in it was read as set in @dst, so it was set at some time before
 *     the read (3), and a fold, a
 *     test_and_set or a set only ever turns bits on: the bit stays set
 *     until someone clears it, and a clear that runs concurrently with the
 *     fold may as well have come after it (the fold took effect at the
 *     read).  This is the same guarantee the relaxed loads gave, and the one
 *     the fold's own relaxed load relies on for the bits it does not fetch_or.
 *     A stale read that shows a bit clear which is already set costs only a
 *     fold of the block, whose fetch_or then counts nothing for that bit.
 *  3. What the check needs from a read is only that each bit it shows as
 *     set held that value at some time before the read: no value out of
 *     thin air.  The vector load is an asm statement, so the compiler sees
 *     no access it could tear, repeat, fuse or treat as a data race (C11's
 *     races are between the accesses it sees; this is what READ_ONCE() is
 *     to the kernel's bitmap readers, whose bitmap_subset() reads plain
 *     words); it is volatile, so it is neither dropped nor merged nor moved
 *     across the fold's atomics.  The hardware gives the rest: a load
 *     returns, byte by byte, what some store wrote (coherence), and an
 *     8-byte aligned quadword is read at once (Intel SDM vol. 3A
 *     "Guaranteed atomic operations", AMD APM vol. 2 "Access atomicity";
 *     the manuals let a wider SSE/AVX load be several accesses, which (2)
 *     does not mind: it reasons per bit).  x86 loads are not reordered
 *     with older loads, so the check is, if anything, stronger than the
 *     relaxed loads it replaces.
 *
 * ThreadSanitizer does not see the asm loads (it instruments the C
 * accesses only); it sees, and checks, every atomic of the fold.  The
 * checker build (cidkit-check) takes the whole call as one step on word 0.
 */
#include <limits.h>
#include <stdatomic.h>

#include <cidkit/mask.h>

#include "mask_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define UNION_X86 1
#include <immintrin.h>
#else
#define UNION_X86 0
#endif

_Static_assert(sizeof(_Atomic unsigned long) == sizeof(unsigned long),
	       "atomic view of mask words must have the same size");
_Static_assert(ATOMIC_LONG_LOCK_FREE == 2, "atomic long must be lock-free");
_Static_assert(sizeof(unsigned long) == 8 || !UNION_X86,
	       "the x86-64 check reads 8-byte words");

/* Words per check: 128 bytes, two cache lines of each mask. */
enum { BLOCK = 16 };

/* Load word @j of @dst: relaxed, other callers may be setting bits. */
static inline unsigned long dst_word(struct cidk_mask *dst, unsigned int j)
{
	return atomic_load_explicit(cidk__mask_aword(dst, j),
				    memory_order_relaxed);
}

/*
 * The portable check: bits of src that dst lacks in words [i, end), OR-ed
 * together, with relaxed atomic loads (never vectorised; four independent
 * accumulators so that the loads are not one dependency chain).
 */
static inline unsigned long block_missing(struct cidk_mask *dst,
					  const struct cidk_mask *src,
					  unsigned int i, unsigned int end)
{
	const unsigned long *s = src->bits;
	unsigned long m0 = 0, m1 = 0, m2 = 0, m3 = 0;
	unsigned int j = i;

	for (; j + 4 <= end; j += 4) {
		m0 |= s[j] & ~dst_word(dst, j);
		m1 |= s[j + 1] & ~dst_word(dst, j + 1);
		m2 |= s[j + 2] & ~dst_word(dst, j + 2);
		m3 |= s[j + 3] & ~dst_word(dst, j + 3);
	}
	for (; j < end; j++)
		m0 |= s[j] & ~dst_word(dst, j);
	return m0 | m1 | m2 | m3;
}

/* The fold of words [i, end): the only writes, and the only counting. */
static unsigned int block_fold(struct cidk_mask *dst,
			       const struct cidk_mask *src, unsigned int i,
			       unsigned int end)
{
	unsigned int count = 0;

	for (unsigned int j = i; j < end; j++) {
		unsigned long add, old;

		add = src->bits[j] & ~dst_word(dst, j);
		if (!add)
			continue;
		old = atomic_fetch_or(cidk__mask_aword(dst, j), add);
		count += (unsigned int)__builtin_popcountl(add & ~old);
	}
	return count;
}

/* The words past the last full block: portable check, then fold. */
static unsigned int tail(struct cidk_mask *dst, const struct cidk_mask *src,
			 unsigned int full)
{
	if (full < dst->nwords && block_missing(dst, src, full, dst->nwords))
		return block_fold(dst, src, full, dst->nwords);
	return 0;
}

static unsigned int union_scalar(struct cidk_mask *dst,
				 const struct cidk_mask *src)
{
	unsigned int full = dst->nwords - dst->nwords % BLOCK, count = 0;

	/* Full blocks have a constant trip count: the check unrolls. */
	for (unsigned int i = 0; i < full; i += BLOCK)
		if (block_missing(dst, src, i, i + BLOCK))
			count += block_fold(dst, src, i, i + BLOCK);
	return count + tail(dst, src, full);
}

#if UNION_X86
/* 16 bytes of @dst (words p[0], p[1]) in one load the compiler cannot see. */
static inline __m128i dst_load16(const unsigned long *p)
{
	__m128i v;

	__asm__ volatile("movdqu %1, %0"
			 : "=x"(v)
			 : "m"(*(const unsigned long(*)[2])p));
	return v;
}

/* Whether @src has a bit @dst lacks in the block at word @i (SSE2). */
static inline int block_missing_sse2(const struct cidk_mask *dst,
				     const struct cidk_mask *src,
				     unsigned int i)
{
	const unsigned long *d = dst->bits + i, *s = src->bits + i;
	__m128i m0 = _mm_setzero_si128(), m1 = _mm_setzero_si128();

	for (unsigned int j = 0; j < BLOCK; j += 4) {
		m0 = _mm_or_si128(m0, _mm_andnot_si128(dst_load16(d + j),
				      _mm_loadu_si128((const __m128i *)(s + j))));
		m1 = _mm_or_si128(m1, _mm_andnot_si128(dst_load16(d + j + 2),
				      _mm_loadu_si128((const __m128i *)(s + j + 2))));
	}
	m0 = _mm_or_si128(m0, m1);
	return _mm_movemask_epi8(_mm_cmpeq_epi8(m0, _mm_setzero_si128())) !=
	       0xffff;
}

static unsigned int union_sse2(struct cidk_mask *dst,
			       const struct cidk_mask *src)
{
	unsigned int full = dst->nwords - dst->nwords % BLOCK, count = 0;

	for (unsigned int i = 0; i < full; i += BLOCK)
		if (block_missing_sse2(dst, src, i))
			count += block_fold(dst, src, i, i + BLOCK);
	return count + tail(dst, src, full);
}

#define UNION_AVX2 __attribute__((target("avx2")))

/* 32 bytes of @dst (words p[0..3]) in one load the compiler cannot see. */
UNION_AVX2 static inline __m256i dst_load32(const unsigned long *p)
{
	__m256i v;

	__asm__ volatile("vmovdqu %1, %0"
			 : "=x"(v)
			 : "m"(*(const unsigned long(*)[4])p));
	return v;
}

/* Whether @src has a bit @dst lacks in the block at word @i (AVX2). */
UNION_AVX2 static inline int block_missing_avx2(const struct cidk_mask *dst,
						const struct cidk_mask *src,
						unsigned int i)
{
	const unsigned long *d = dst->bits + i, *s = src->bits + i;
	__m256i m0 = _mm256_setzero_si256(), m1 = _mm256_setzero_si256();

	for (unsigned int j = 0; j < BLOCK; j += 8) {
		m0 = _mm256_or_si256(m0, _mm256_andnot_si256(dst_load32(d + j),
			_mm256_loadu_si256((const __m256i *)(s + j))));
		m1 = _mm256_or_si256(m1, _mm256_andnot_si256(dst_load32(d + j + 4),
			_mm256_loadu_si256((const __m256i *)(s + j + 4))));
	}
	m0 = _mm256_or_si256(m0, m1);
	return !_mm256_testz_si256(m0, m0);
}

UNION_AVX2 static unsigned int union_avx2(struct cidk_mask *dst,
					  const struct cidk_mask *src)
{
	unsigned int full = dst->nwords - dst->nwords % BLOCK, count = 0;

	for (unsigned int i = 0; i < full; i += BLOCK)
		if (block_missing_avx2(dst, src, i))
			count += block_fold(dst, src, i, i + BLOCK);
	return count + tail(dst, src, full);
}
#endif /* UNION_X86 */

bool cidk__mask_union_isa_available(enum cidk__union_isa isa)
{
	switch (isa) {
	case CIDK__UNION_SCALAR:
		return true;
#if UNION_X86
	case CIDK__UNION_SSE2:
		return true; /* the x86-64 baseline */
	case CIDK__UNION_AVX2:
		return __builtin_cpu_supports("avx2");
#endif
	default:
		return false;
	}
}

unsigned int cidk__mask_union_count_isa(struct cidk_mask *dst,
					const struct cidk_mask *src,
					enum cidk__union_isa isa)
{
	switch (isa) {
	case CIDK__UNION_SCALAR:
		return union_scalar(dst, src);
#if UNION_X86
	case CIDK__UNION_SSE2:
		return union_sse2(dst, src);
	case CIDK__UNION_AVX2:
		return union_avx2(dst, src);
#endif
	default:
		return UINT_MAX;
	}
}

unsigned int cidk_mask_union_count(struct cidk_mask *dst,
				   const struct cidk_mask *src)
{
#if UNION_X86
	/* libgcc / compiler-rt set the flags (CPUID and XCR0) at start-up */
	if (__builtin_cpu_supports("avx2"))
		return union_avx2(dst, src);
	return union_sse2(dst, src);
#else
	return union_scalar(dst, src);
#endif
}
