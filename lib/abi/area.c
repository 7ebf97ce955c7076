/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/area.c - the rseq registration the checks use: glibc's area when
 * glibc registered one (__rseq_offset, __rseq_size), else cidkit's own
 * (lib/rseq); what length the kernel holds for it; dropping it and
 * registering one of a chosen length (the cpu-id-start check does that in
 * a child process).
 *
 * The kernel's answers this relies on (kernel/rseq.c, rseq(2)): registering
 * again the area already registered, with its length and signature, is
 * EBUSY; another length or another area is EINVAL; another signature is
 * EPERM; unregistering needs the registered area, length and signature.
 */
#include <errno.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cidkit/percpu.h>

#include "abi/abi_impl.h"
#include "rseq/rseq_own.h"

#define RSEQ_FLAG_UNREGISTER 1

/*
 * glibc's and cidkit's signature: the per-CPU sections' where there are
 * some (CIDK__RSEQ_SIG_DEFAULT, cidkit/arch/select.h: the one home of
 * each architecture's value).
 */
uint32_t cidk__abi_sig(void)
{
	return CIDK__RSEQ_SIG_DEFAULT;
}

/* The look-alike of the "unregistered" break: never registered. */
static _Thread_local struct cidk_rseq_abi fake_area = {
	.cpu_id_start = (uint32_t)-1,
	.cpu_id = (uint32_t)-1,
	.node_id = (uint32_t)-1,
	.mm_cid = (uint32_t)-1,
};

int cidk__abi_area_get(struct cidk__abi_area *out, unsigned int breaks)
{
	int rc;

	if (breaks & CIDK_ABI_BREAK_UNREGISTERED) {
		out->a = &fake_area;
		out->owner = CIDK_RSEQ_NONE;
		return 0;
	}
	if (__rseq_size) {
		out->a = (volatile struct cidk_rseq_abi *)((char *)cidk__thread_pointer() +
							   __rseq_offset);
		out->owner = CIDK_RSEQ_GLIBC;
		return 0;
	}
	rc = cidk_rseq_register_current_thread();
	if (rc)
		return rc;
	out->a = (volatile struct cidk_rseq_abi *)((char *)cidk__thread_pointer() +
						   cidk__rseq_own_offset());
	out->owner = CIDK_RSEQ_OWN;
	return 0;
}

static long sys_rseq(volatile void *area, unsigned int len, int flags,
		     uint32_t sig)
{
	return syscall(__NR_rseq, area, len, flags, sig);
}

static unsigned int pow2_at_least(unsigned int v)
{
	unsigned int p = 32;

	while (p < v && p < (1u << 20))
		p <<= 1;
	return p;
}

/* The lengths a C library or cidkit may have registered, most likely first. */
static unsigned int candidates(unsigned int *len)
{
	unsigned int n = 0, fs = (unsigned int)getauxval(AT_RSEQ_FEATURE_SIZE);
	unsigned int al = (unsigned int)getauxval(AT_RSEQ_ALIGN);
	const unsigned int more[] = { 32, __rseq_size, al, pow2_at_least(fs),
				      64, 128, 256, 512, 1024 };

	for (unsigned int i = 0; i < sizeof(more) / sizeof(more[0]); i++) {
		unsigned int v = more[i], seen = 0;

		if (v < 32)
			continue;
		for (unsigned int k = 0; k < n; k++)
			seen |= len[k] == v;
		if (!seen)
			len[n++] = v;
	}
	return n;
}

int cidk__abi_area_len(volatile struct cidk_rseq_abi *a)
{
	unsigned int len[16], n = candidates(len);
	int err = -EINVAL;

	for (unsigned int i = 0; i < n; i++) {
		if (!sys_rseq(a, len[i], 0, cidk__abi_sig()))
			return -EEXIST; /* registered now: it was not before */
		if (errno == EBUSY)
			return (int)len[i];
		err = -errno;
	}
	return err;
}

int cidk__abi_area_drop(void)
{
	volatile struct cidk_rseq_abi *a;
	int len;

	if (!__rseq_size)
		return cidk_rseq_unregister_current_thread();
	a = (volatile struct cidk_rseq_abi *)((char *)cidk__thread_pointer() +
					      __rseq_offset);
	len = cidk__abi_area_len(a);
	if (len < 0)
		return len;
	if (sys_rseq(a, (unsigned int)len, RSEQ_FLAG_UNREGISTER, cidk__abi_sig()))
		return -errno;
	return 0;
}

int cidk__abi_area_register(void *mem, unsigned int len)
{
	struct cidk_rseq_abi *a = mem;

	memset(mem, 0, len);
	a->cpu_id = (uint32_t)-1;
	if (sys_rseq(mem, len, 0, cidk__abi_sig()))
		return -errno;
	return 0;
}
