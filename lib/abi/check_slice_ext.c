/* SPDX-License-Identifier: MIT */
/*
 * lib/abi/check_slice_ext.c - "slice-ext": the scheduler time-slice
 * extension (Linux 7.0+, Documentation/userspace-api/rseq.rst): offered
 * when prctl(PR_RSEQ_SLICE_EXTENSION, GET) answers; then a thread with a
 * registered rseq area can enable it (SET with ENABLE returns 0 and GET
 * shows it), and SET with a nonzero fourth argument is EINVAL.  EINVAL to
 * GET: no such prctl (Linux < 7.0), n/a; ENOTSUPP: the kernel has it but
 * not for us (built without CONFIG_RSEQ_SLICE_EXTENSION, or switched off
 * on the command line), n/a.
 *
 * Break "unregistered": ask from a thread whose rseq area was dropped --
 * the kernel must refuse to enable it, which the check reports as FAIL.
 */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>

#include "abi/abi_impl.h"

#define PR_RSEQ_SLICE_EXT 79
#define PR_RSEQ_SLICE_EXT_GET 1
#define PR_RSEQ_SLICE_EXT_SET 2
#define PR_RSEQ_SLICE_EXT_ENABLE 1
#define ENOTSUPP_KERNEL 524 /* the kernel's internal ENOTSUPP */

void cidk__abi_check_slice_ext(const struct cidk__abi_opts *o,
			       struct cidk__abi_result *r)
{
	int got, set, bad;

	got = prctl(PR_RSEQ_SLICE_EXT, PR_RSEQ_SLICE_EXT_GET, 0, 0, 0);
	cidk__abi_ev(r, "get", got < 0 ? -errno : got);
	if (got < 0 && (errno == EINVAL || errno == ENOTSUPP_KERNEL || errno == ENOSYS)) {
		cidk__abi_say(r, CIDK__ABI_NA,
			      errno == ENOTSUPP_KERNEL
				      ? "time-slice extension not available: kernel built without it or switched off at boot (ENOTSUPP)"
				      : "time-slice extension not offered: no such prctl (Linux < 7.0)");
		return;
	}
	if (got < 0) {
		cidk__abi_say(r, CIDK__ABI_FAIL, "prctl GET failed: %s", strerror(errno));
		return;
	}
	if (o->breaks & CIDK_ABI_BREAK_UNREGISTERED)
		cidk__abi_area_drop();
	set = prctl(PR_RSEQ_SLICE_EXT, PR_RSEQ_SLICE_EXT_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0);
	cidk__abi_ev(r, "set", set < 0 ? -errno : set);
	got = prctl(PR_RSEQ_SLICE_EXT, PR_RSEQ_SLICE_EXT_GET, 0, 0, 0);
	cidk__abi_ev(r, "get_after", got < 0 ? -errno : got);
	bad = prctl(PR_RSEQ_SLICE_EXT, PR_RSEQ_SLICE_EXT_SET, PR_RSEQ_SLICE_EXT_ENABLE, 1, 0);
	cidk__abi_ev(r, "set_bad_arg", bad < 0 ? -errno : bad);
	if (set < 0 || got < 0 || !(got & PR_RSEQ_SLICE_EXT_ENABLE)) {
		cidk__abi_say(r, CIDK__ABI_FAIL,
			      "offered, but enabling it for a thread with a registered area failed (SET %d, GET %d)",
			      set, got);
		return;
	}
	if (bad != -1 || errno != EINVAL) {
		cidk__abi_say(r, CIDK__ABI_FAIL, "SET with a nonzero fourth argument was not EINVAL");
		return;
	}
	cidk__abi_say(r, CIDK__ABI_PASS, "offered; enabled for this thread (GET %d)", got);
}
