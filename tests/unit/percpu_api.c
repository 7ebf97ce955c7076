/* SPDX-License-Identifier: MIT */
/*
 * The contract of cidkit/percpu.h on one thread: the path query, the
 * copies' size, add (exact values, negative deltas, wrap-around, one copy
 * touched), sum, -ERANGE with a pool too small (nothing changed),
 * cmpeqv_storev's three outcomes, list push/pop order and the empty list;
 * and, on the rseq path, the ABI of every rseq_cs descriptor linked into
 * this program (version 0, glibc's RSEQ_SIG for this architecture --
 * 0x53053053 on x86-64, 0xd428bc00 on aarch64 -- in the 4 bytes before
 * abort_ip, abort_ip outside [start_ip, start_ip + post_commit_offset)).
 * The path expected is worked out from the compiler's architecture
 * macros, not from the library's CIDK_PERCPU_HAVE_RSEQ.
 * Pinned to one CPU so that the index cannot change under the checks.
 * When glibc registered no rseq area (meson's percpu_api_own run), the
 * rseq path on cidkit's own area: a new thread's index reads all ones
 * until its first operation registers the area, and again after an
 * unregistration, whose next operation registers it again.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/rseq.h>

#include <cidkit/percpu.h>

#include "percpu_oracle.h"
#include "tap.h"
#include "test_cpu.h"
#include "tsan.h"

#if CIDK_PERCPU_HAVE_RSEQ
extern const struct rseq_cs_desc __start___rseq_cs[] __attribute__((weak));
extern const struct rseq_cs_desc __stop___rseq_cs[] __attribute__((weak));

/* What the kernel requires of a descriptor, and what we promise. */
/* percpu.h's own signature is glibc's too */
static int desc_ok(const struct rseq_cs_desc *d)
{
	return test_rseq_desc_ok(d, 64) && CIDK_PERCPU_RSEQ_SIG == RSEQ_SIG;
}

static void check_descriptors(void)
{
	unsigned int n = 0, good = 0;
	/* glibc's signature at 3..6, a byte off by one at 11..14 */
	unsigned char code[16] = { 0 };
	uint32_t sig = RSEQ_SIG, bad = RSEQ_SIG + 1;
	_Alignas(32) struct rseq_cs_desc fake = {
		0, 0, (uintptr_t)&code[0], 7, (uintptr_t)&code[7]
	};
	int fake_ok, bad_sig, inside, bad_version;

	memcpy(&code[3], &sig, 4);
	memcpy(&code[11], &bad, 4);

	for (const struct rseq_cs_desc *d = __start___rseq_cs;
	     d && d < __stop___rseq_cs; d++) {
		n++;
		good += desc_ok(d);
	}
	/* The check itself, on a made-up descriptor and three faults. */
	fake_ok = desc_ok(&fake);
	fake.abort_ip = (uintptr_t)&code[15]; /* preceded by RSEQ_SIG + 1 */
	bad_sig = desc_ok(&fake);
	fake.abort_ip = (uintptr_t)&code[7];
	fake.post_commit_offset = 9; /* abort_ip inside the section */
	inside = desc_ok(&fake);
	fake.post_commit_offset = 7;
	fake.version = 1;
	bad_version = desc_ok(&fake);
	ok(fake_ok && !bad_sig && !inside && !bad_version,
	   "the descriptor check accepts a good one and rejects a wrong "
	   "signature, abort_ip inside the section, version 1");
	ok(n > 0 && good == n,
	   "%u rseq_cs descriptors, %u with version 0, 32-byte alignment, "
	   "signature before abort_ip, abort_ip outside the section",
	   n, good);
}
#endif

/* The checks on one index kind; returns the index they used. */
static int check_index(enum cidk_percpu_index idx, const char *name)
{
	unsigned int nr = cidk_percpu_nr_copies();
	struct cidk_pool *pool = cidk_pool_create(nr, 64);
	cidk_pool_handle h = cidk_pool_alloc(pool, sizeof(intptr_t),
					     sizeof(intptr_t), NULL);
	int i = cidk_percpu_index_now(idx), touched = 0;
	intptr_t *mine;
	struct cidk_percpu_node a, b, *n;
	struct cidk_percpu_counter ctr;

	ok(h >= 0 && i >= 0 && (unsigned int)i < nr,
	   "%s: index %d below the %u copies", name, i, nr);
	if (i < 0 || (unsigned int)i >= nr)
		return i;
	mine = cidk_pool_ptr(pool, h, (unsigned int)i);

	ok(cidk_percpu_add_index(pool, h, idx, 5) == 0 &&
		   cidk_percpu_add_index(pool, h, idx, -7) == 0 &&
		   cidk_percpu_add_index(pool, h, idx, 1000) == 0 &&
		   *mine == 998,
	   "%s: 5 - 7 + 1000 == %ld in the thread's copy", name, (long)*mine);
	ok(cidk_percpu_counter_init(&ctr, pool, h, idx) == 0 &&
		   cidk_percpu_counter_add(&ctr, 2) == 0 &&
		   cidk_percpu_counter_add(&ctr, -3) == 0 && *mine == 997,
	   "%s: a counter on the same object: 998 + 2 - 3 == %ld", name,
	   (long)*mine);
	for (unsigned int c = 0; c < nr; c++)
		touched += *(intptr_t *)cidk_pool_ptr(pool, h, c) != 0;
	ok(touched == 1, "%s: only one copy touched (%d)", name, touched);
	*mine = INTPTR_MAX;
	ok(cidk_percpu_add_index(pool, h, idx, 1) == 0 && *mine == INTPTR_MIN,
	   "%s: INTPTR_MAX + 1 wraps to INTPTR_MIN", name);
	*(intptr_t *)cidk_pool_ptr(pool, h, nr - 1) += 3;
	*mine = 10;
	ok(cidk_percpu_sum(pool, h) == 13 + (i == (int)nr - 1 ? 0 : 0) ||
		   (i == (int)nr - 1 && cidk_percpu_sum(pool, h) == 10),
	   "%s: sum over the copies", name);

	*(intptr_t *)cidk_pool_ptr(pool, h, nr - 1) = 0;
	*mine = 40;
	ok(cidk_percpu_cmpeqv_storev(pool, h, idx, (unsigned int)i, 41, 1) == 1 &&
		   *mine == 40,
	   "%s: cmpeqv_storev with the wrong value: 1, nothing stored", name);
	ok(cidk_percpu_cmpeqv_storev(pool, h, idx, (unsigned int)i, 40, 2) == 0 &&
		   *mine == 2,
	   "%s: cmpeqv_storev with the right value: 0, stored", name);
	if (nr > 1)
		ok(cidk_percpu_cmpeqv_storev(pool, h, idx,
					     (unsigned int)(i ? 0 : 1), 0,
					     9) == -EAGAIN &&
			   *(intptr_t *)cidk_pool_ptr(pool, h, i ? 0u : 1u) == 0,
		   "%s: cmpeqv_storev for another index: -EAGAIN, nothing stored",
		   name);
	ok(cidk_percpu_cmpeqv_storev(pool, h, idx, nr, 0, 9) == -ERANGE,
	   "%s: cmpeqv_storev beyond the pool: -ERANGE", name);

	*mine = 0;
	errno = 0;
	ok(cidk_percpu_list_pop(pool, h, idx) == NULL && errno == ENOENT,
	   "%s: pop from an empty list: NULL, ENOENT", name);
	ok(cidk_percpu_list_push(pool, h, idx, &a) == 0 &&
		   cidk_percpu_list_push(pool, h, idx, &b) == 0 &&
		   *mine == (intptr_t)&b && b.next == &a && a.next == NULL,
	   "%s: push a, push b: head b -> a", name);
	n = cidk_percpu_list_pop(pool, h, idx);
	ok(n == &b && *mine == (intptr_t)&a, "%s: pop gives b, head a", name);
	n = cidk_percpu_list_pop(pool, h, idx);
	ok(n == &a && *mine == 0, "%s: pop gives a, list empty", name);
	cidk_pool_destroy(pool);

	/* A pool with fewer copies than the index: -ERANGE, nothing added. */
	if (i > 0) {
		pool = cidk_pool_create((unsigned int)i, 64);
		h = cidk_pool_alloc(pool, sizeof(intptr_t), sizeof(intptr_t),
				    NULL);
		errno = 0;
		ok(cidk_percpu_add_index(pool, h, idx, 1) == -ERANGE &&
			   cidk_percpu_counter_init(&ctr, pool, h, idx) == 0 &&
			   cidk_percpu_counter_add(&ctr, 1) == -ERANGE &&
			   cidk_percpu_sum(pool, h) == 0 &&
			   cidk_percpu_list_push(pool, h, idx, &a) == -ERANGE &&
			   cidk_percpu_list_pop(pool, h, idx) == NULL &&
			   errno == ERANGE,
		   "%s: index %d in a pool of %d copies: -ERANGE, nothing changed",
		   name, i, i);
		cidk_pool_destroy(pool);
	}
	return i;
}

/*
 * check_index() for a kind whose index may move while the checks run (a
 * kernel compacting a lone thread's mm_cid moved it from 1 to 0 in one
 * run on s390x 6.12.107): they assume one index throughout, so a run at
 * whose end the thread's index is not the one it started with is
 * discarded -- its TAP lines were buffered -- and run again, up to five
 * times; the last run counts whatever happened.
 */
static void check_index_settled(enum cidk_percpu_index idx, const char *name)
{
	for (int attempt = 1;; attempt++) {
		unsigned int count = tap_count, failed = tap_failed;
		char *buf = NULL;
		size_t len = 0;
		FILE *out = stdout, *mem = open_memstream(&buf, &len);
		int before, after;

		if (!mem) {
			check_index(idx, name);
			return;
		}
		stdout = mem;
		before = check_index(idx, name);
		after = cidk_percpu_index_now(idx);
		stdout = out;
		fclose(mem);
		if (before == after || attempt == 5) {
			fwrite(buf, 1, len, stdout);
			free(buf);
			if (before != after)
				diag("%s: the index moved from %d to %d in each "
				     "of 5 runs", name, before, after);
			return;
		}
		free(buf);
		tap_count = count;
		tap_failed = failed;
		diag("%s: the index moved from %d to %d during the checks: "
		     "run %d discarded", name, before, after, attempt);
	}
}

/* cidk_percpu_counter_init refuses what is not an intptr_t of a pool. */
static void check_counter_init(void)
{
	struct cidk_pool *pool = cidk_pool_create(2, 128);
	struct cidk_percpu_counter c, before;
	size_t st = pool ? pool->stride : 128;
	const struct {
		struct cidk_pool *pool;
		cidk_pool_handle h;
		int idx;
		const char *what;
	} bad[] = {
		{ NULL, 0, CIDK_PERCPU_CPU_ID, "no pool" },
		{ pool, 0, 0, "index kind 0" },
		{ pool, 0, 3, "index kind 3" },
		{ pool, -8, CIDK_PERCPU_CPU_ID, "a negative handle" },
		{ pool, 4, CIDK_PERCPU_CPU_ID, "a misaligned handle" },
		{ pool, (cidk_pool_handle)st - 4, CIDK_PERCPU_CPU_ID,
		  "a handle with no room for an intptr_t" },
		{ pool, (cidk_pool_handle)st, CIDK_PERCPU_MM_CID,
		  "a handle at the stride" },
	};

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		memset(&c, 0xa5, sizeof(c));
		before = c;
		ok(cidk_percpu_counter_init(&c, bad[k].pool, bad[k].h,
					    (enum cidk_percpu_index)bad[k].idx) ==
				   -EINVAL &&
			   !memcmp(&c, &before, sizeof(c)),
		   "counter_init, %s: -EINVAL, the counter unchanged",
		   bad[k].what);
	}
	ok(cidk_percpu_counter_init(&c, pool, (cidk_pool_handle)st - 8,
				    CIDK_PERCPU_MM_CID) == 0 &&
		   c.base == pool->base + st - 8 && c.n == 2 &&
		   c.stride == st,
	   "counter_init, the last intptr_t of the region: 0");
	cidk_pool_destroy(pool);
}

#if CIDK_PERCPU_HAVE_RSEQ
/* A new thread on cidkit's own area (the main thread registered it). */
static void *own_thread(void *arg)
{
	struct cidk_pool *pool = arg;
	cidk_pool_handle h = cidk_pool_alloc(pool, sizeof(intptr_t),
					     sizeof(intptr_t), NULL);
	unsigned int before = cidk__percpu_read(CIDK_PERCPU_CPU_ID);
	unsigned int before_cid = cidk__percpu_read(CIDK_PERCPU_MM_CID);
	unsigned int n = cidk_percpu_nr_copies();
	int rc1, rc2, rc3, rc4, gone;
	unsigned int after, after_unreg, after_unreg_cid, again;

	rc1 = cidk_percpu_add(pool, h, 1);
	rc2 = cidk_percpu_add_index(pool, h, CIDK_PERCPU_CPU_ID, 1);
	after = cidk__percpu_read(CIDK_PERCPU_CPU_ID);
	gone = cidk_rseq_unregister_current_thread();
	after_unreg = cidk__percpu_read(CIDK_PERCPU_CPU_ID);
	after_unreg_cid = cidk__percpu_read(CIDK_PERCPU_MM_CID);
	rc3 = cidk_percpu_add_index(pool, h, CIDK_PERCPU_CPU_ID, 1);
	again = cidk__percpu_read(CIDK_PERCPU_CPU_ID);
	rc4 = cidk_percpu_add(pool, h, 1);
	ok(before == UINT32_MAX && before_cid == UINT32_MAX,
	   "own area: a new thread's cpu_id and mm_cid read all ones before "
	   "its first operation (%#x, %#x)", before, before_cid);
	ok(!rc1 && !rc2 && after < n,
	   "own area: its first operations register it (%d %d, cpu_id %u)",
	   rc1, rc2, after);
	ok(!gone && after_unreg == UINT32_MAX && after_unreg_cid == UINT32_MAX,
	   "own area: unregistered, both indices read all ones again, not "
	   "the kernel's reset mm_cid 0 (%#x, %#x)", after_unreg,
	   after_unreg_cid);
	ok(!rc3 && !rc4 && again < n,
	   "own area: the next operation registers it again (%d %d, cpu_id %u)",
	   rc3, rc4, again);
	ok(cidk_percpu_sum(pool, h) == 4, "own area: all four adds counted");
	return NULL;
}

static void check_own_area(void)
{
	struct cidk_pool *pool = cidk_pool_create(cidk_percpu_nr_copies(), 64);
	pthread_t t;

	if (!ok(pool != NULL, "own area: a pool"))
		return;
	if (!ok(!pthread_create(&t, NULL, own_thread, pool),
		"own area: a thread"))
		return;
	pthread_join(t, NULL);
	cidk_pool_destroy(pool);
}
#endif

int main(void)
{
	const char *p, *x;
	int cpu = test_pin_one_cpu(1);
	unsigned int nr = cidk_percpu_nr_copies();
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	diag("pinned to CPU %d; cpu_id path %s (%s); mm_cid path %s (%s)", cpu,
	     cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_CPU_ID)),
	     cidk_percpu_why(CIDK_PERCPU_CPU_ID),
	     cidk_percpu_path_name(cidk_percpu_path(CIDK_PERCPU_MM_CID)),
	     cidk_percpu_why(CIDK_PERCPU_MM_CID));
	ok(nr >= (unsigned int)online && (int)nr > cpu,
	   "copies %u >= online CPUs %ld and > pinned CPU %d", nr, online, cpu);
	ok(!strcmp(cidk_percpu_path_name(CIDK_PERCPU_RSEQ), "rseq") &&
		   !strcmp(cidk_percpu_path_name(CIDK_PERCPU_ATOMIC), "atomic"),
	   "path names");
	p = getenv("CIDK_PERCPU");
	x = getenv("CIDK_EXPECT_PATH");
	if (p && !strcmp(p, "atomic"))
		ok(cidk_percpu_path(CIDK_PERCPU_CPU_ID) == CIDK_PERCPU_ATOMIC &&
			   cidk_percpu_path(CIDK_PERCPU_MM_CID) ==
				   CIDK_PERCPU_ATOMIC &&
			   strstr(cidk_percpu_why(CIDK_PERCPU_CPU_ID),
				  "CIDK_PERCPU"),
		   "CIDK_PERCPU=atomic forces the atomic path and says so");
	else if (x && !strcmp(x, "atomic") && TEST_ARCH_RSEQ && !TEST_TSAN)
		/* the kernel lab's matrix: this kernel breaks the abort promise */
		ok(cidk_percpu_path(CIDK_PERCPU_CPU_ID) == CIDK_PERCPU_ATOMIC &&
			   cidk_percpu_path(CIDK_PERCPU_MM_CID) ==
				   CIDK_PERCPU_ATOMIC &&
			   strstr(cidk_percpu_why(CIDK_PERCPU_CPU_ID),
				  "broken abort promise"),
		   "CIDK_EXPECT_PATH=atomic (a kernel that breaks the abort "
		   "promise): the atomic path for both indexings, why() names it");
	else
		ok(cidk_percpu_path(CIDK_PERCPU_CPU_ID) ==
			   (TEST_ARCH_RSEQ && !TEST_TSAN &&
					    (__rseq_size ||
					     !cidk_rseq_register_current_thread())
				    ? CIDK_PERCPU_RSEQ
				    : CIDK_PERCPU_ATOMIC),
		   "cpu_id: rseq exactly when an architecture with sections and an rseq area is "
		   "registered (glibc's, or else cidkit's own)");
	p = getenv("CIDK_EXPECT_AREA");
	if (p)
		ok(cidk_percpu_path(CIDK_PERCPU_CPU_ID) == CIDK_PERCPU_RSEQ &&
			   !strcmp(p, "cidkit") ==
				   (strstr(cidk_percpu_why(CIDK_PERCPU_CPU_ID),
					   "cidkit's own") != NULL),
		   "the rseq path on %s's area, as expected (%s)", p,
		   cidk_percpu_why(CIDK_PERCPU_CPU_ID));
	ok(cidk_percpu_path(CIDK_PERCPU_MM_CID) != CIDK_PERCPU_RSEQ ||
		   cidk_percpu_path(CIDK_PERCPU_CPU_ID) == CIDK_PERCPU_RSEQ,
	   "mm_cid on rseq implies cpu_id on rseq");
	check_counter_init();
	check_index(CIDK_PERCPU_CPU_ID, "cpu_id");
	check_index_settled(CIDK_PERCPU_MM_CID, "mm_cid");
	ok(cidk_percpu_aborts() < 1000, "a pinned thread aborts rarely (%lu)",
	   cidk_percpu_aborts());
#if CIDK_PERCPU_HAVE_RSEQ
	check_descriptors();
	if (!__rseq_size && cidk_percpu_path(CIDK_PERCPU_CPU_ID) ==
				    CIDK_PERCPU_RSEQ)
		check_own_area();
#endif
	return done_testing();
}
