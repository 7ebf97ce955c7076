// SPDX-License-Identifier: MIT
// cxx_call.cc - libcidkit from C++: the headers' inline functions (mask
// atomics, rseq reads, per-CPU add) and exported calls (cpulist parse and
// format, pool, percpu sum, a domain-affine call whose request struct
// holds the C side's _Atomic field), and the C++ layout of every public
// struct against cxx_abi.c's C layout.  Exit 0 when all hold.
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "layout.h"

extern "C" const size_t layout_c[];
extern "C" const size_t layout_c_n;

static int failures;

static void check(bool cond, const char *what)
{
	std::printf("%s - %s\n", cond ? "ok" : "FAILED", what);
	failures += !cond;
}

static void bump(void *arg)
{
	++*static_cast<int *>(arg);
}

int main()
{
	const size_t cxx[] = { LAYOUT_VALUES };
	bool same = sizeof(cxx) / sizeof(cxx[0]) == layout_c_n &&
		    std::memcmp(cxx, layout_c, sizeof(cxx)) == 0;
	check(same, "every public struct: same size, alignment, field offsets as C");

	cidk_mask *m = cidk_mask_alloc(130);
	check(m && cidk_mask_parse_list(m, "1-3,64,129", nullptr) == 0,
	      "cidk_mask_parse_list");
	check(!cidk_mask_test_and_set_atomic(m, 100) &&
		      cidk_mask_test_and_set_atomic(m, 100) &&
		      cidk_mask_test_atomic(m, 100) &&
		      cidk_mask_test_and_clear_atomic(m, 100) &&
		      !cidk_mask_test_atomic(m, 100),
	      "inline atomic test_and_set / test_and_clear / test");
	cidk_mask_set_atomic(m, 5);
	cidk_mask_clear_atomic(m, 2);
	char buf[64];
	cidk_mask_format_list(m, buf, sizeof(buf));
	check(std::strcmp(buf, "1,3,5,64,129") == 0, "set_atomic, clear_atomic, format_list");
	check(cidk_mask_weight(m) == 5, "cidk_mask_weight (an ifunc)");

	check(cidk_rseq_cpu_id() >= 0, "cidk_rseq_cpu_id");

	// The per-CPU counter from C++ threads: the inline rseq add.
	cidk_pool *pool = cidk_pool_create(cidk_percpu_nr_copies(), CIDK_POOL_LINE);
	cidk_pool_handle h = pool ? cidk_pool_alloc(pool, sizeof(intptr_t),
						    sizeof(intptr_t), nullptr) : -1;
	std::vector<std::thread> ts;
	for (int t = 0; t < 3; t++)
		ts.emplace_back([&] {
			for (int i = 0; i < 50000; i++)
				cidk_percpu_add(pool, h, 2);
		});
	for (auto &t : ts)
		t.join();
	check(h >= 0 && cidk_percpu_sum(pool, h) == 300000,
	      "cidk_percpu_add from 3 C++ threads sums to 300000");
	cidk_pool_destroy(pool);

	// A domain-affine call through a request on the C++ stack.
	cidk_call_req req;
	int ran = 0;
	cidk_mask_fill(m);
	cidk_call_domain *d = cidk_call_domain_create(m);
	bool started = d && cidk_call_start(d, &req, bump, &ran, true) == 0;
	if (started)
		cidk_call_wait(&req);
	check(started && ran == 1, "cidk_call_start/wait (handoff) with a C++-side request");
	cidk_call_domain_destroy(d);
	cidk_mask_free(m);

	return failures ? 1 : 0;
}
