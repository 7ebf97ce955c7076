/* SPDX-License-Identifier: MIT */
/*
 * lib/rseq/rseq.c - detection, own registration and the slow paths of the
 * rseq readers (include/cidkit/rseq.h).
 *
 * Invariants:
 *  - cidk_rseq_fast is written once, by the constructor, before main() and
 *    before any thread of the program exists; afterwards it is read-only.
 *  - A successful rseq(2) registration is at least 32 bytes long (the
 *    kernel accepts exactly 32, or at least its feature size), so any
 *    registered area holds node_id and mm_cid; whether the kernel fills
 *    them is told by the auxiliary vector's feature size alone.
 *  - own_state is per thread: 0 never tried, 1 our area is registered,
 *    negative errno: registration failed (readers do not retry; an explicit
 *    cidk_rseq_register_current_thread() does).
 * Workload: everything here runs at most once per thread, except the
 * fallback readers of a process where rseq is unavailable.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cidkit/percpu.h>
#include <cidkit/rseq.h>

#include "rseq/rseq_own.h"

/*
 * The signature the kernel checks before an abort: the per-CPU sections'
 * (CIDK__RSEQ_SIG_DEFAULT, cidkit/arch/select.h: the one home of each
 * architecture's value, the one glibc registers with).
 */
#define OWN_RSEQ_SIG CIDK__RSEQ_SIG_DEFAULT

#define ORIG_FEATURE_SIZE 20u /* offsetof(struct rseq, node_id) */
#define ORIG_AREA_SIZE 32u    /* the original registration size */
#define RSEQ_UNREGISTER 1

unsigned int cidk_rseq_fast;

static unsigned int feature_size = ORIG_FEATURE_SIZE;
static unsigned int feature_align;

/*
 * Initial-exec, so that its offset from the thread pointer is the same in
 * every thread, as the per-CPU critical sections need (lib/percpu); its
 * initial image says "not registered" in the fields they read (an index
 * of all ones is out of every pool: they register the thread then).
 */
static _Thread_local struct cidk_rseq_abi own_area
	__attribute__((tls_model("initial-exec"))) = {
		.cpu_id = (uint32_t)-1, /* RSEQ_CPU_ID_UNINITIALIZED */
		.node_id = (uint32_t)-1,
		.mm_cid = (uint32_t)-1,
	};
static _Thread_local int own_state;

static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t exit_key;
static int key_error;

static unsigned int glibc_area_size(void)
{
	if (!__rseq_size)
		return 0;
	return __rseq_size < ORIG_AREA_SIZE ? ORIG_AREA_SIZE : __rseq_size;
}

static unsigned int usable_size(unsigned int area)
{
	return area < feature_size ? area : feature_size;
}

__attribute__((constructor)) static void rseq_detect(void)
{
	unsigned long fs = getauxval(AT_RSEQ_FEATURE_SIZE);
	unsigned int fast = 0, use;

	feature_size = fs ? (unsigned int)fs : ORIG_FEATURE_SIZE;
	feature_align = (unsigned int)getauxval(AT_RSEQ_ALIGN);
	if (__rseq_size) {
		use = usable_size(glibc_area_size());
		fast |= CIDK_RSEQ_FAST_CPU_ID;
		if (use >= CIDK_RSEQ_FEATURE_NODE_ID)
			fast |= CIDK_RSEQ_FAST_NODE_ID;
		if (use >= CIDK_RSEQ_FEATURE_MM_CID)
			fast |= CIDK_RSEQ_FAST_MM_CID;
	}
	cidk_rseq_fast = fast;
}

static int sys_rseq(struct cidk_rseq_abi *area, int flags)
{
	if (syscall(__NR_rseq, area, (unsigned int)sizeof(*area), flags,
		    OWN_RSEQ_SIG))
		return -errno;
	return 0;
}

/*
 * After an unregistration the kernel no longer writes the area; its reset
 * left mm_cid 0, a valid index: mark the fields unregistered again.
 */
static void own_forget(void)
{
	own_area.cpu_id = (uint32_t)-1;
	own_area.node_id = (uint32_t)-1;
	own_area.mm_cid = (uint32_t)-1;
	own_state = 0;
}

static void own_exit(void *arg)
{
	(void)arg;
	if (own_state == 1 && !sys_rseq(&own_area, RSEQ_UNREGISTER))
		own_forget();
}

static void make_key(void)
{
	key_error = -pthread_key_create(&exit_key, own_exit);
}

int cidk_rseq_register_current_thread(void)
{
	int rc;

	if (__rseq_size || own_state == 1)
		return 0;
	pthread_once(&key_once, make_key);
	if (key_error) {
		rc = key_error;
		goto out;
	}
	memset(&own_area, 0, sizeof(own_area));
	own_area.cpu_id = (uint32_t)-1; /* RSEQ_CPU_ID_UNINITIALIZED */
	own_area.node_id = (uint32_t)-1;
	own_area.mm_cid = (uint32_t)-1;
	rc = sys_rseq(&own_area, 0);
	if (rc)
		goto out;
	/* The destructor runs only for a non-NULL value. */
	rc = -pthread_setspecific(exit_key, &own_area);
	if (rc) {
		sys_rseq(&own_area, RSEQ_UNREGISTER);
		goto out;
	}
	own_state = 1;
	return 0;
out:
	own_state = rc;
	return rc;
}

int cidk_rseq_unregister_current_thread(void)
{
	int rc;

	if (__rseq_size || own_state != 1)
		return 0;
	rc = sys_rseq(&own_area, RSEQ_UNREGISTER);
	if (rc)
		return rc;
	own_forget();
	pthread_setspecific(exit_key, NULL);
	return 0;
}

int cidk__rseq_probe(void)
{
	if (!syscall(__NR_rseq, NULL, 0u, RSEQ_UNREGISTER, OWN_RSEQ_SIG))
		return -EINVAL; /* (cannot happen: nothing to unregister) */
	return errno == EINVAL ? 0 : -errno;
}

int cidk__rseq_own_registered(void)
{
	return own_state == 1;
}

ptrdiff_t cidk__rseq_own_offset(void)
{
	return (const char *)&own_area - (const char *)cidk__thread_pointer();
}

/* 1 if the calling thread reads its own area, 0 if it must fall back. */
static int own_ready(void)
{
	if (own_state == 0)
		cidk_rseq_register_current_thread();
	return own_state == 1;
}

static int fallback(int want_node)
{
	unsigned int cpu, node;

	if (getcpu(&cpu, &node))
		return -errno;
	return (int)(want_node ? node : cpu);
}

int cidk_rseq_cpu_id_slow(void)
{
	if (!__rseq_size && own_ready())
		return (int)((volatile struct cidk_rseq_abi *)&own_area)->cpu_id;
	return fallback(0);
}

int cidk_rseq_node_id_slow(void)
{
	if (!__rseq_size && feature_size >= CIDK_RSEQ_FEATURE_NODE_ID &&
	    own_ready())
		return (int)((volatile struct cidk_rseq_abi *)&own_area)->node_id;
	return fallback(1);
}

int cidk_rseq_mm_cid_slow(void)
{
	if (!__rseq_size && feature_size >= CIDK_RSEQ_FEATURE_MM_CID &&
	    own_ready())
		return (int)((volatile struct cidk_rseq_abi *)&own_area)->mm_cid;
	return -ENOSYS;
}

int cidk_rseq_info(struct cidk_rseq_info *out)
{
	unsigned int use = 0;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->feature_size = feature_size;
	out->align = feature_align;
	out->glibc_size = __rseq_size;
	if (__rseq_size) {
		out->owner = CIDK_RSEQ_GLIBC;
		out->area_size = glibc_area_size();
	} else if (own_ready()) {
		out->owner = CIDK_RSEQ_OWN;
		out->area_size = (unsigned int)sizeof(own_area);
	} else {
		out->owner = CIDK_RSEQ_NONE;
		out->register_error = -own_state;
	}
	if (out->owner != CIDK_RSEQ_NONE)
		use = usable_size(out->area_size);
	out->has_node_id = use >= CIDK_RSEQ_FEATURE_NODE_ID;
	out->has_mm_cid = use >= CIDK_RSEQ_FEATURE_MM_CID;
	return 0;
}

const char *cidk_rseq_owner_name(enum cidk_rseq_owner owner)
{
	switch (owner) {
	case CIDK_RSEQ_GLIBC:
		return "glibc";
	case CIDK_RSEQ_OWN:
		return "cidkit";
	case CIDK_RSEQ_NONE:
		break;
	}
	return "none";
}
