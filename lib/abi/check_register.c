/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/check_register.c - "register": who registered rseq for this
 * thread, with what length, and does the kernel agree?
 *
 * Promises (rseq(2), kernel/rseq.c): a registered area holds the CPU the
 * thread runs on; registering the same area again (same length, same
 * signature) is refused with EBUSY; the same with another signature with
 * EPERM.  The length the kernel holds (found by those answers) tells the
 * mode the 2026 fix gives the thread: 32 bytes is the legacy mode (IDs
 * rewritten after every context switch and signal), more than 32 the
 * optimized "V2" mode (rewritten only when they change, read-only fields
 * enforced) -- on kernels that carry the fix; before 6.19 every length
 * behaved as legacy.
 */
#include <errno.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "abi/abi_impl.h"
#include "rseq/rseq_own.h"

void cidk__abi_check_register(const struct cidk__abi_opts *o,
			      struct cidk__abi_result *r)
{
	struct cidk__abi_area ar;
	unsigned int cpu = 0, node = 0, fs, al;
	uint32_t seen;
	int rc, len, perm;

	fs = (unsigned int)getauxval(AT_RSEQ_FEATURE_SIZE);
	al = (unsigned int)getauxval(AT_RSEQ_ALIGN);
	cidk__abi_ev(r, "feature_size", fs);
	cidk__abi_ev(r, "align", al);
	cidk__abi_ev(r, "glibc_rseq_size", __rseq_size);
	rc = cidk__abi_area_get(&ar, o->breaks);
	cidk__abi_ev(r, "owner", ar.owner);
	if (rc) {
		cidk__abi_say(r, CIDK__ABI_FAIL,
			      "glibc registered no area and rseq(2) refused cidkit's: %s",
			      strerror(-rc));
		return;
	}
	/* Where am I: pinned there, the area must say so. */
	if (cidk__abi_getcpu(&cpu, &node) || cidk__abi_pin(0, (int)cpu)) {
		cidk__abi_say(r, CIDK__ABI_NA, "cannot pin to the current CPU");
		return;
	}
	seen = ar.a->cpu_id;
	cidk__abi_ev(r, "cpu", cpu);
	cidk__abi_ev(r, "area_cpu_id", (int32_t)seen);
	len = cidk__abi_area_len(ar.a);
	cidk__abi_ev(r, "registered_len", len);
	if (seen != cpu) {
		cidk__abi_say(r, CIDK__ABI_FAIL,
			      "%s says cpu_id %d on CPU %u: the kernel does not update it",
			      ar.owner == CIDK_RSEQ_NONE ? "a never-registered look-alike area"
							 : ar.owner == CIDK_RSEQ_GLIBC ? "glibc's area" : "cidkit's area",
			      (int32_t)seen, cpu);
		return;
	}
	if (len < 0) {
		cidk__abi_say(r, CIDK__ABI_FAIL,
			      "registering the area again was never refused with EBUSY (last: %s): the kernel does not hold it",
			      strerror(-len));
		return;
	}
	perm = syscall(__NR_rseq, ar.a, (unsigned int)len, 0, cidk__abi_sig() ^ 1u)
		       ? errno : 0;
	cidk__abi_ev(r, "wrong_sig_errno", perm);
	if (perm != EPERM) {
		cidk__abi_say(r, CIDK__ABI_FAIL,
			      "registering again with another signature gave %s, not EPERM",
			      perm ? strerror(perm) : "success");
		return;
	}
	cidk__abi_say(r, CIDK__ABI_PASS,
		      "%s's area, %d bytes (feature size %u, align %u): %s",
		      cidk_rseq_owner_name(ar.owner), len, fs, al,
		      len == 32 ? "legacy mode (IDs rewritten after every switch and signal)"
				: "optimized V2 mode on kernels with the 2026 fix (IDs rewritten when they change)");
}
