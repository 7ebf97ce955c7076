/* SPDX-License-Identifier: MIT */
/*
 * Per-CID pools: alignment of every copy, no cache line shared by two CIDs
 * (checked on the addresses, and the checker is shown to catch an injected
 * bad layout), initial values in every copy, independence of copies,
 * exhaustion and bad arguments.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <cidkit/pool.h>

#include "tap.h"

/* 1 if bytes [a, a+n) and [b, b+m) touch a common CIDK_POOL_LINE line. */
static int share_line(uintptr_t a, size_t n, uintptr_t b, size_t m)
{
	uintptr_t a0 = a / CIDK_POOL_LINE, a1 = (a + n - 1) / CIDK_POOL_LINE;
	uintptr_t b0 = b / CIDK_POOL_LINE, b1 = (b + m - 1) / CIDK_POOL_LINE;

	return a0 <= b1 && b0 <= a1;
}

/* Number of (cid, cid') pairs whose regions share a line. */
static unsigned int shared_lines(const unsigned char *base, size_t stride,
				 size_t span, unsigned int ncids)
{
	unsigned int bad = 0;

	for (unsigned int i = 0; i < ncids; i++)
		for (unsigned int j = i + 1; j < ncids; j++)
			bad += share_line((uintptr_t)(base + i * stride), span,
					  (uintptr_t)(base + j * stride), span);
	return bad;
}

static void layout_cases(void)
{
	static const size_t strides[] = { 1, 8, 63, 64, 65, 100, 128, 4095, 4097 };
	static const unsigned int cids[] = { 1, 2, 3, 23, 65 };

	for (size_t s = 0; s < sizeof(strides) / sizeof(strides[0]); s++) {
		for (size_t c = 0; c < sizeof(cids) / sizeof(cids[0]); c++) {
			struct cidk_pool *p = cidk_pool_create(cids[c], strides[s]);
			unsigned int bad;

			if (!ok(p != NULL, "create(%u, %zu)", cids[c], strides[s]))
				continue;
			bad = shared_lines(p->base, p->stride, p->stride, cids[c]);
			ok(p->stride >= strides[s] &&
				   p->stride % CIDK_POOL_LINE == 0 &&
				   p->stride < strides[s] + CIDK_POOL_LINE &&
				   ((uintptr_t)p->base % CIDK_POOL_LINE) == 0 &&
				   bad == 0,
			   "create(%u, %zu): stride %zu, line aligned, %u shared lines",
			   cids[c], strides[s], p->stride, bad);
			cidk_pool_destroy(p);
		}
	}
	/* Fault injection: the checker must see a stride of 100 bytes. */
	{
		static unsigned char buf[100 * 4 + 64];
		ok(shared_lines(buf, 100, 100, 4) > 0,
		   "injected layout (stride 100) is caught by the checker");
	}
}

static void alloc_cases(void)
{
	const unsigned int ncids = 7;
	struct cidk_pool *p = cidk_pool_create(ncids, 256);
	const uint64_t v64 = 0x0123456789abcdefull;
	const unsigned char pat[13] = "hello, pools";
	cidk_pool_handle h8, h1, hz, h64, hbig;
	unsigned int good;

	if (!ok(p != NULL, "create(7, 256)"))
		return;
	h1 = cidk_pool_alloc(p, sizeof(pat), 1, pat);
	h8 = cidk_pool_alloc(p, sizeof(v64), 8, &v64);
	hz = cidk_pool_alloc(p, 20, 4, NULL);
	h64 = cidk_pool_alloc(p, 64, 64, NULL);
	ok(h1 == 0, "first object at offset 0 (%td)", h1);
	ok(h8 >= 13 && h8 % 8 == 0, "8-aligned handle %td", h8);
	ok(hz >= h8 + 8 && hz % 4 == 0, "4-aligned handle %td after it", hz);
	ok(h64 >= hz + 20 && h64 % 64 == 0, "64-aligned handle %td", h64);
	ok(cidk_pool_used(p) == (size_t)h64 + 64, "used %zu", cidk_pool_used(p));

	good = 0;
	for (unsigned int c = 0; c < ncids; c++) {
		unsigned char *b = cidk_pool_ptr(p, h1, c);
		uint64_t *q = cidk_pool_ptr(p, h8, c);
		unsigned char *z = cidk_pool_ptr(p, hz, c);
		unsigned char *l = cidk_pool_ptr(p, h64, c);
		int zero = 1;

		for (int i = 0; i < 20; i++)
			zero &= z[i] == 0;
		good += !memcmp(b, pat, sizeof(pat)) && *q == v64 && zero &&
			((uintptr_t)q % 8) == 0 && ((uintptr_t)l % 64) == 0 &&
			b == p->base + (size_t)c * p->stride;
	}
	ok(good == ncids, "init values and alignment in all %u copies (%u good)",
	   ncids, good);

	/* Copies are independent. */
	for (unsigned int c = 0; c < ncids; c++)
		*(uint64_t *)cidk_pool_ptr(p, h8, c) = c * 1000u;
	good = 0;
	for (unsigned int c = 0; c < ncids; c++)
		good += *(uint64_t *)cidk_pool_ptr(p, h8, c) == c * 1000u;
	ok(good == ncids, "each CID's copy holds its own value");

	/* Exhaustion: the region is 256 bytes. */
	hbig = cidk_pool_alloc(p, 256, 1, NULL);
	ok(hbig == -ENOSPC, "too big for what is left: -ENOSPC (%td)", hbig);
	ok(cidk_pool_used(p) == (size_t)h64 + 64, "state unchanged on failure");
	hbig = cidk_pool_alloc(p, 256 - (size_t)h64 - 64, 1, NULL);
	ok(hbig == h64 + 64, "exactly what is left fits (%td)", hbig);
	ok(cidk_pool_alloc(p, 1, 1, NULL) == -ENOSPC, "full: -ENOSPC");
	ok(cidk_pool_alloc(p, SIZE_MAX, 1, NULL) == -ENOSPC,
	   "SIZE_MAX: -ENOSPC");

	/* Bad arguments. */
	ok(cidk_pool_alloc(NULL, 8, 8, NULL) == -EINVAL, "NULL pool: -EINVAL");
	ok(cidk_pool_alloc(p, 0, 8, NULL) == -EINVAL, "size 0: -EINVAL");
	ok(cidk_pool_alloc(p, 8, 0, NULL) == -EINVAL, "align 0: -EINVAL");
	ok(cidk_pool_alloc(p, 8, 24, NULL) == -EINVAL, "align 24: -EINVAL");
	ok(cidk_pool_alloc(p, 8, 8192, NULL) == -EINVAL,
	   "align 8192 > max: -EINVAL");
	ok(cidk_pool_alloc(p, 8, 512, NULL) == -EINVAL,
	   "align 512 with stride 256: -EINVAL");
	cidk_pool_destroy(p);

	p = cidk_pool_create(3, 1024);
	if (p) {
		cidk_pool_handle h = cidk_pool_alloc(p, 8, 1, NULL);
		cidk_pool_handle h512 = cidk_pool_alloc(p, 8, 512, NULL);

		ok(h == 0 && h512 == 512 &&
			   (uintptr_t)cidk_pool_ptr(p, h512, 2) % 512 == 0,
		   "align 512 with stride 1024: every copy aligned");
		cidk_pool_destroy(p);
	}

	errno = 0;
	ok(cidk_pool_create(0, 64) == NULL && errno == EINVAL,
	   "create(0 cids): EINVAL");
	errno = 0;
	ok(cidk_pool_create(4, 0) == NULL && errno == EINVAL,
	   "create(stride 0): EINVAL");
	errno = 0;
	ok(cidk_pool_create(1u << 20, SIZE_MAX / 1024) == NULL &&
		   errno == EOVERFLOW,
	   "create(too large): EOVERFLOW");
	errno = 0;
	ok(cidk_pool_create(2, SIZE_MAX) == NULL && errno == EOVERFLOW,
	   "create(stride SIZE_MAX): EOVERFLOW");
	cidk_pool_destroy(NULL);
	ok(cidk_pool_used(NULL) == 0, "used(NULL) is 0");
}

int main(void)
{
	layout_cases();
	alloc_cases();
	return done_testing();
}
