/* SPDX-License-Identifier: MIT */
/*
 * cidkit/mask.h - bitmaps sized at creation, with the kernel's vocabulary.
 *
 * A struct cidk_mask holds nbits bits in an array of unsigned long words.
 * Invariants every operation keeps:
 *   - bits at index >= nbits are always zero (so weight, equal and find
 *     never need to mask the last word on the read side);
 *   - a binary operation takes masks of the same nbits (the contract of
 *     every cpumask in a process: they are all nr_cpu_ids wide).
 *
 * Workload assumptions: test, find and weight are hot; set/clear are common;
 * allocation and parse/format are rare.  "Not found" returns nbits, as the
 * kernel's find_next_bit() does, and the for_each iterators finish with the
 * index >= nbits.
 *
 * Concurrency: the plain operations are not atomic; two threads may use one
 * mask only for reading.  The *_atomic operations and cidk_mask_union_count()
 * may run concurrently with each other (and with cidk_mask_test_atomic()) on
 * the same mask:
 *
 *   | op \ concurrent with     | plain read | plain write | *_atomic |
 *   |--------------------------|------------|-------------|----------|
 *   | plain read (test, find)  | yes        | no          | no       |
 *   | plain write (set, and..) | no         | no          | no       |
 *   | *_atomic, union_count    | no         | no          | yes      |
 */
#ifndef CIDKIT_MASK_H
#define CIDKIT_MASK_H

#include <limits.h>
#ifndef __cplusplus
#include <stdatomic.h> /* the library's C files rely on it; C++ has none */
#endif
#include <stdbool.h>
#include <stddef.h>

#include <cidkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CIDK_BITS_PER_LONG ((unsigned int)(CHAR_BIT * sizeof(unsigned long)))
#define CIDK_BITS_TO_LONGS(n) \
	(((n) + CIDK_BITS_PER_LONG - 1) / CIDK_BITS_PER_LONG)

/* Largest mask: far above any machine (the kernel's NR_CPUS is <= 8192). */
#define CIDK_MASK_MAX_BITS (1u << 24)

/* A flexible array member: ISO C, an extension of every C++ compiler. */
CIDK__CXX_FLEX_BEGIN
struct cidk_mask {
	unsigned int nbits;  /* number of valid bits */
	unsigned int nwords; /* CIDK_BITS_TO_LONGS(nbits) */
	unsigned long bits[];
};
CIDK__CXX_FLEX_END

/* ---- life cycle ---------------------------------------------------------- */

/*
 * cidk_mask_alloc - allocate an empty mask of @nbits bits.
 * Returns the mask, or NULL with errno EINVAL (nbits > CIDK_MASK_MAX_BITS)
 * or ENOMEM.  The words are cache-line aligned.  MT-safe.
 */
CIDK_EXPORT struct cidk_mask *cidk_mask_alloc(unsigned int nbits);

/* cidk_mask_free - free a mask from cidk_mask_alloc(); NULL is a no-op. */
CIDK_EXPORT void cidk_mask_free(struct cidk_mask *m);

/*
 * cidk_mask_dup - allocate a copy of @m.  NULL with errno ENOMEM on failure.
 */
CIDK_EXPORT struct cidk_mask *cidk_mask_dup(const struct cidk_mask *m);

/* ---- single bits (inline: these are the hot ones) ------------------------ */

/* Contract for all of these: bit < m->nbits. */

static inline unsigned long cidk__bit_mask(unsigned int bit)
{
	return 1UL << (bit % CIDK_BITS_PER_LONG);
}

static inline unsigned int cidk__bit_word(unsigned int bit)
{
	return bit / CIDK_BITS_PER_LONG;
}

static inline void cidk_mask_set(struct cidk_mask *m, unsigned int bit)
{
	m->bits[cidk__bit_word(bit)] |= cidk__bit_mask(bit);
}

static inline void cidk_mask_clear(struct cidk_mask *m, unsigned int bit)
{
	m->bits[cidk__bit_word(bit)] &= ~cidk__bit_mask(bit);
}

static inline bool cidk_mask_test(const struct cidk_mask *m, unsigned int bit)
{
	return (m->bits[cidk__bit_word(bit)] & cidk__bit_mask(bit)) != 0;
}

static inline void cidk_mask_assign(struct cidk_mask *m, unsigned int bit,
				    bool value)
{
	if (value)
		cidk_mask_set(m, bit);
	else
		cidk_mask_clear(m, bit);
}

/* Non-atomic test-and-set / test-and-clear: return the old value. */
static inline bool cidk_mask_test_and_set(struct cidk_mask *m,
					  unsigned int bit)
{
	bool old = cidk_mask_test(m, bit);

	cidk_mask_set(m, bit);
	return old;
}

static inline bool cidk_mask_test_and_clear(struct cidk_mask *m,
					    unsigned int bit)
{
	bool old = cidk_mask_test(m, bit);

	cidk_mask_clear(m, bit);
	return old;
}

/*
 * Atomic variants.  The words are plain unsigned long; atomic access goes
 * through the compilers' __atomic builtins on that storage (GCC and Clang,
 * in C and in C++ alike: C++ has no _Atomic).  They compile to the same
 * instructions as C11's atomic_fetch_or() on an _Atomic view of the word
 * (tests/install/headers.sh compares the disassembly with atomic_ref.c).
 * test_and_set/test_and_clear are sequentially consistent RMWs, so the
 * winner of a bit acquires whatever the previous owner released.
 */
static inline unsigned long cidk__mask_fetch_or(struct cidk_mask *m,
						unsigned int word,
						unsigned long v)
{
	return __atomic_fetch_or(&m->bits[word], v, __ATOMIC_SEQ_CST);
}

static inline unsigned long cidk__mask_fetch_and(struct cidk_mask *m,
						 unsigned int word,
						 unsigned long v)
{
	return __atomic_fetch_and(&m->bits[word], v, __ATOMIC_SEQ_CST);
}

static inline void cidk_mask_set_atomic(struct cidk_mask *m, unsigned int bit)
{
	cidk__mask_fetch_or(m, cidk__bit_word(bit), cidk__bit_mask(bit));
}

static inline void cidk_mask_clear_atomic(struct cidk_mask *m,
					  unsigned int bit)
{
	cidk__mask_fetch_and(m, cidk__bit_word(bit), ~cidk__bit_mask(bit));
}

static inline bool cidk_mask_test_atomic(const struct cidk_mask *m,
					 unsigned int bit)
{
	return (__atomic_load_n(&m->bits[cidk__bit_word(bit)],
				__ATOMIC_ACQUIRE) &
		cidk__bit_mask(bit)) != 0;
}

static inline bool cidk_mask_test_and_set_atomic(struct cidk_mask *m,
						 unsigned int bit)
{
	unsigned long b = cidk__bit_mask(bit);

	return (cidk__mask_fetch_or(m, cidk__bit_word(bit), b) & b) != 0;
}

static inline bool cidk_mask_test_and_clear_atomic(struct cidk_mask *m,
						   unsigned int bit)
{
	unsigned long b = cidk__bit_mask(bit);

	return (cidk__mask_fetch_and(m, cidk__bit_word(bit), ~b) & b) != 0;
}

#ifndef __cplusplus
/*
 * The _Atomic view of word @word, for the library's own C11 code
 * (lib/mask/atomic.c); same size and representation as unsigned long on
 * every compiler cidkit supports (checked there).  Not in C++.
 */
static inline _Atomic unsigned long *cidk__mask_aword(struct cidk_mask *m,
						      unsigned int word)
{
	return (_Atomic unsigned long *)&m->bits[word];
}
#endif

/* ---- ranges --------------------------------------------------------------- */

/* Set / clear bits [start, start + len).  Contract: start + len <= nbits. */
CIDK_EXPORT void cidk_mask_set_range(struct cidk_mask *m, unsigned int start,
				     unsigned int len);
CIDK_EXPORT void cidk_mask_clear_range(struct cidk_mask *m, unsigned int start,
				       unsigned int len);

/* ---- whole-mask operations ---------------------------------------------- */

/*
 * All binary operations take masks of equal nbits.  dst may alias a source.
 * cidk_mask_and() and cidk_mask_andnot() return whether the result is
 * non-empty, as the kernel's cpumask_and() does.
 */
CIDK_EXPORT void cidk_mask_zero(struct cidk_mask *m);
CIDK_EXPORT void cidk_mask_fill(struct cidk_mask *m);
CIDK_EXPORT void cidk_mask_copy(struct cidk_mask *dst,
				const struct cidk_mask *src);
CIDK_EXPORT bool cidk_mask_and(struct cidk_mask *dst, const struct cidk_mask *a,
			       const struct cidk_mask *b);
CIDK_EXPORT void cidk_mask_or(struct cidk_mask *dst, const struct cidk_mask *a,
			      const struct cidk_mask *b);
CIDK_EXPORT bool cidk_mask_andnot(struct cidk_mask *dst,
				  const struct cidk_mask *a,
				  const struct cidk_mask *b);
CIDK_EXPORT void cidk_mask_xor(struct cidk_mask *dst, const struct cidk_mask *a,
			       const struct cidk_mask *b);
CIDK_EXPORT void cidk_mask_complement(struct cidk_mask *dst,
				      const struct cidk_mask *src);

CIDK_EXPORT bool cidk_mask_equal(const struct cidk_mask *a,
				 const struct cidk_mask *b);
CIDK_EXPORT bool cidk_mask_intersects(const struct cidk_mask *a,
				      const struct cidk_mask *b);
/* cidk_mask_subset - whether every bit of @a is in @b. */
CIDK_EXPORT bool cidk_mask_subset(const struct cidk_mask *a,
				  const struct cidk_mask *b);
CIDK_EXPORT bool cidk_mask_empty(const struct cidk_mask *m);
CIDK_EXPORT bool cidk_mask_full(const struct cidk_mask *m);

CIDK_EXPORT unsigned int cidk_mask_weight(const struct cidk_mask *m);
CIDK_EXPORT unsigned int cidk_mask_weight_and(const struct cidk_mask *a,
					      const struct cidk_mask *b);
CIDK_EXPORT unsigned int cidk_mask_weight_andnot(const struct cidk_mask *a,
						 const struct cidk_mask *b);

/* ---- search --------------------------------------------------------------- */

/*
 * All return the index found, or m->nbits when there is none.  @start may be
 * any value (start >= nbits finds nothing).
 */
CIDK_EXPORT unsigned int cidk_mask_next(const struct cidk_mask *m,
					unsigned int start);
CIDK_EXPORT unsigned int cidk_mask_next_zero(const struct cidk_mask *m,
					     unsigned int start);
/* next bit >= start set in a and in b / set in a and not in b */
CIDK_EXPORT unsigned int cidk_mask_next_and(const struct cidk_mask *a,
					    const struct cidk_mask *b,
					    unsigned int start);
CIDK_EXPORT unsigned int cidk_mask_next_andnot(const struct cidk_mask *a,
					       const struct cidk_mask *b,
					       unsigned int start);
/* last set bit */
CIDK_EXPORT unsigned int cidk_mask_last(const struct cidk_mask *m);
/* the n-th set bit, counting from 0 */
CIDK_EXPORT unsigned int cidk_mask_nth(const struct cidk_mask *m,
				       unsigned int n);

static inline unsigned int cidk_mask_first(const struct cidk_mask *m)
{
	return cidk_mask_next(m, 0);
}

static inline unsigned int cidk_mask_first_zero(const struct cidk_mask *m)
{
	return cidk_mask_next_zero(m, 0);
}

#define cidk_mask_for_each(bit, m)                                     \
	for ((bit) = cidk_mask_next((m), 0); (bit) < (m)->nbits; \
	     (bit) = cidk_mask_next((m), (bit) + 1))

#define cidk_mask_for_each_and(bit, a, b)                                  \
	for ((bit) = cidk_mask_next_and((a), (b), 0); (bit) < (a)->nbits; \
	     (bit) = cidk_mask_next_and((a), (b), (bit) + 1))

#define cidk_mask_for_each_andnot(bit, a, b)                                  \
	for ((bit) = cidk_mask_next_andnot((a), (b), 0); (bit) < (a)->nbits; \
	     (bit) = cidk_mask_next_andnot((a), (b), (bit) + 1))

/* ---- the allowed-CPUs union ---------------------------------------------- */

/*
 * cidk_mask_union_count - atomically set in @dst every bit of @src that
 * @dst lacks, and return how many bits this call turned from 0 to 1.
 *
 * Only the words where @src has bits @dst lacks see an atomic RMW (one
 * fetch_or per such word); the common case, where nothing changes, is a
 * read-only pass over both masks.  Lock-free and MT-safe against concurrent
 * callers on the same @dst and against the *_atomic bit operations: when
 * several callers race to set the same bit, exactly one of them counts it,
 * so the counts of all callers add up to the weight gained.  @src must not
 * change during the call.
 */
CIDK_EXPORT unsigned int cidk_mask_union_count(struct cidk_mask *dst,
					       const struct cidk_mask *src);

/* ---- cpulist and hex masks ------------------------------------------------ */

/*
 * cidk_mask_parse_list - parse the kernel's cpulist format into @m.
 *
 * Grammar (the kernel's bitmap_parselist()): regions separated by commas or
 * white space; a region is N, N-M, or N-M:USED/GROUP (in each group of GROUP
 * bits starting at N, set the first USED, up to M); "all" means 0-(nbits-1)
 * and the letter N in place of a number means nbits-1.  Parsing stops at the
 * end of the string or at a newline; an empty string is the empty mask.
 *
 * @errpos, when not NULL, receives the byte offset of the offending region
 * on failure.
 * Returns 0, -EINVAL (malformed: bad number, start > end, GROUP 0,
 * USED > GROUP), or -ERANGE (a bit >= nbits, a number that overflows).
 * On failure @m's content is unspecified (it may hold a prefix).  MT-safe
 * for distinct masks.
 * Cost: O(strlen(s) + regions * nbits / BITS_PER_LONG) word operations,
 * whatever the stride: a region "0-N:1/1" (USED == GROUP) is one range and
 * a small GROUP is set a word at a time, never a group at a time.
 */
CIDK_EXPORT int cidk_mask_parse_list(struct cidk_mask *m, const char *s,
				     size_t *errpos);

/*
 * cidk_mask_parse_hex - parse the kernel's hex mask format into @m.
 *
 * Grammar (the kernel's bitmap_parse()): 32-bit chunks of at most 8 hex
 * digits, most significant first, separated by commas or white space; a
 * newline ends the input.  Fewer chunks than ceil(nbits/32) leave the
 * higher bits zero.
 * Returns 0, -EINVAL (a character that is not a hex digit) or -ERANGE (a
 * chunk of more than 8 digits, more chunks than the mask has, or a bit set
 * at or above nbits).  @errpos as above.
 */
CIDK_EXPORT int cidk_mask_parse_hex(struct cidk_mask *m, const char *s,
				    size_t *errpos);

/*
 * cidk_mask_format_list - write the canonical cpulist of @m into @buf.
 *
 * Ascending; runs of two or more bits as "a-b", single bits as "a",
 * comma-separated, no spaces, no newline; the empty mask is "".
 * Returns the length of the full string (not counting the NUL), like
 * snprintf(): the output was truncated when the return is >= @size.
 * MT-safe for read-only @m.
 */
CIDK_EXPORT size_t cidk_mask_format_list(const struct cidk_mask *m, char *buf,
					 size_t size);

/*
 * cidk_mask_format_hex - write @m in the kernel's hex mask format, as the
 * kernel's "%*pb" prints it: 32-bit chunks, most significant first, comma
 * separated; each chunk 8 zero-padded digits except the most significant,
 * which has ceil((nbits mod 32)/4) digits when nbits is not a multiple of
 * 32 (a 2-CPU machine's core_siblings reads "3").  Returns as
 * cidk_mask_format_list().
 */
CIDK_EXPORT size_t cidk_mask_format_hex(const struct cidk_mask *m, char *buf,
					size_t size);

/*
 * cidk_mask_list_alloc - convenience: the cpulist of @m in a malloc'd
 * string, or NULL with errno ENOMEM.
 */
CIDK_EXPORT char *cidk_mask_list_alloc(const struct cidk_mask *m);

#ifdef __cplusplus
}
#endif

#endif /* CIDKIT_MASK_H */
