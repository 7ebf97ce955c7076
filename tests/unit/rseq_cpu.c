/* SPDX-License-Identifier: MIT */
/*
 * The kernel's cpu_id and node_id through cidkit's rseq readers agree with
 * getcpu(2) while the thread is pinned to each allowed CPU in turn, in the
 * main thread and in a new thread (which, without glibc's registration,
 * registers its own area lazily).  CIDK_EXPECT_OWNER=glibc|cidkit|none makes
 * the test also check who registered (meson sets it per variant; the
 * "cidkit" variant runs under GLIBC_TUNABLES=glibc.pthread.rseq=0).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cidkit/rseq.h>

#include "tap.h"
#include "cidkit_lab.h"

static void check_pinned(const char *who)
{
	cpu_set_t orig, one;
	unsigned int agree = 0, tried = 0, node_agree = 0;

	if (sched_getaffinity(0, sizeof(orig), &orig)) {
		ok(0, "%s: sched_getaffinity: %s", who, strerror(errno));
		return;
	}
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		unsigned int gcpu = 0, gnode = 0;
		int r, n;

		if (!CPU_ISSET(cpu, &orig))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		tried++;
		sched_yield(); /* make sure we run there */
		r = cidk_rseq_cpu_id();
		n = cidk_rseq_node_id();
		if (getcpu(&gcpu, &gnode))
			continue;
		agree += r == cpu && (unsigned int)r == gcpu;
		node_agree += n >= 0 && (unsigned int)n == gnode;
		if (r != cpu)
			diag("%s: pinned to %d, cidk_rseq_cpu_id() = %d", who,
			     cpu, r);
	}
	sched_setaffinity(0, sizeof(orig), &orig);
	ok(tried > 0, "%s: pinned to %u allowed CPUs", who, tried);
	ok(agree == tried, "%s: cpu_id == sched_getcpu() == pinned CPU on %u/%u",
	   who, agree, tried);
	ok(node_agree == tried, "%s: node_id == getcpu() node on %u/%u", who,
	   node_agree, tried);
}

static void *thread_main(void *arg)
{
	struct cidk_rseq_info *info = arg;

	check_pinned("new thread");
	cidk_rseq_info(info);
	return NULL;
}

/*
 * The last resort: another library registered an area cidkit cannot see,
 * so our registration fails (the kernel says -EINVAL) and the readers fall back to getcpu().
 */
static struct cidk_rseq_abi foreign __attribute__((aligned(32)));

static void *fallback_main(void *arg)
{
	struct cidk_rseq_info info;
	int *result = arg;

	foreign.cpu_id = (uint32_t)-1;
	if (syscall(__NR_rseq, &foreign, (unsigned int)sizeof(foreign), 0,
		    0x53053053u)) {
		*result = -errno;
		return NULL;
	}
	int rc = cidk_rseq_register_current_thread();

	ok((rc == -EINVAL || rc == -EBUSY) && rc == cidk_rseq_register_current_thread(),
	   "foreign area registered: our registration fails (%d)", rc);
	cidk_rseq_info(&info);
	ok(info.owner == CIDK_RSEQ_NONE && info.register_error == -rc &&
		   !info.has_mm_cid && !info.has_node_id && !info.area_size,
	   "fallback: owner none, error %d, no mm_cid/node_id", info.register_error);
	ok(cidk_rseq_mm_cid() == -ENOSYS, "fallback: mm_cid is -ENOSYS");
	check_pinned("fallback thread");
	ok(cidk_rseq_unregister_current_thread() == 0,
	   "fallback: unregister is a no-op");
	syscall(__NR_rseq, &foreign, (unsigned int)sizeof(foreign), 1,
		0x53053053u);
	*result = 1;
	return NULL;
}

static void check_owner(const struct cidk_rseq_info *info, const char *who)
{
	const char *want = getenv("CIDK_EXPECT_OWNER");
	const char *got = cidk_rseq_owner_name(info->owner);

	if (want)
		ok(!strcmp(want, got), "%s: registered by %s (expected %s)",
		   who, got, want);
	if (info->owner == CIDK_RSEQ_OWN)
		ok(info->glibc_size == 0 && info->area_size == 32,
		   "%s: own area of 32 bytes only when glibc registered none",
		   who);
	if (info->owner == CIDK_RSEQ_NONE)
		ok(cidk_rseq_mm_cid() == -ENOSYS,
		   "%s: no area: mm_cid is -ENOSYS", who);
}

int main(void)
{
	struct cidk_rseq_info info, tinfo;
	pthread_t t;
	uint64_t t0, t1, t2;
	int sink = 0;
	const unsigned int n = 1000000;

	ok(cidk_rseq_info(NULL) == -EINVAL, "info(NULL) is -EINVAL");
	ok(cidk_rseq_info(&info) == 0, "info");
	diag("registered by %s, feature size %u, align %u, glibc __rseq_size %u, area %u, node_id %d, mm_cid %d",
	     cidk_rseq_owner_name(info.owner), info.feature_size, info.align,
	     info.glibc_size, info.area_size, info.has_node_id,
	     info.has_mm_cid);
	check_owner(&info, "main");
	ok(!strcmp(cidk_rseq_owner_name((enum cidk_rseq_owner)42), "none"),
	   "unknown owner is named none");

	check_pinned("main thread");
	memset(&tinfo, 0, sizeof(tinfo));
	ok(pthread_create(&t, NULL, thread_main, &tinfo) == 0, "thread");
	pthread_join(t, NULL);
	check_owner(&tinfo, "new thread");
	ok(tinfo.owner == info.owner, "same owner in every thread");

	if (info.owner == CIDK_RSEQ_OWN) {
		ok(cidk_rseq_unregister_current_thread() == 0, "unregister");
		ok(cidk_rseq_unregister_current_thread() == 0,
		   "unregister again is a no-op");
		ok(cidk_rseq_register_current_thread() == 0, "register again");
		ok(cidk_rseq_register_current_thread() == 0,
		   "register is idempotent");
		ok(cidk_rseq_cpu_id() == sched_getcpu(),
		   "cpu_id after re-registration");
	}

	if (!__rseq_size) {
		int result = 0;

		pthread_create(&t, NULL, fallback_main, &result);
		pthread_join(t, NULL);
		ok(result == 1, "fallback thread ran (%d)", result);
	}

	/* Not an assertion: what the fast path costs next to getcpu(). */
	t0 = cidk__now_ns();
	for (unsigned int i = 0; i < n; i++)
		sink += cidk_rseq_cpu_id();
	t1 = cidk__now_ns();
	for (unsigned int i = 0; i < n; i++)
		sink += sched_getcpu();
	t2 = cidk__now_ns();
	cidk__keep(&sink);
	diag("ns per read: cidk_rseq_cpu_id %.2f, sched_getcpu %.2f",
	     (double)(t1 - t0) / n, (double)(t2 - t1) / n);
	return done_testing();
}
