/* SPDX-License-Identifier: MIT */
/*
 * cidk_topo_from_spec on any string (except "host", which reads /sys).
 * Properties: a built machine is span-sane (a shape nests by
 * construction), the linear check agrees with the pairwise one (on
 * machines small enough for the quadratic check), every online CPU's
 * group weight at each present level is what its mask says, and a
 * refused spec has a message.
 */
#include <cidkit/topo.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cidk_topo_err err = { "", "" };
	struct cidk_topo *t = NULL;
	char *s;
	int rc;

	if (size > 256)
		return 0;
	s = fuzz_str(data, size);
	if (!strcmp(s, "host")) {
		free(s);
		return 0;
	}
	rc = cidk_topo_from_spec(s, &t, &err);
	if (rc) {
		FUZZ_CHECK(!t || rc == 0);
		FUZZ_CHECK(err.msg[0] != '\0');
	} else {
		struct cidk_topo_insane why;
		unsigned int n = cidk_topo_nr_cpu_ids(t), cpu;
		bool sane = cidk_topo_span_sane(t, &why);

		FUZZ_CHECK(sane);
		if (n <= 1024)
			FUZZ_CHECK(cidk_topo_span_sane_pairwise(t, &why) == sane);
		/* weights agree with the masks, for a few CPUs */
		for (cpu = 0; cpu < n; cpu += 1 + n / 8) {
			for (int l = 0; l < CIDK_TOPO_NR_LEVELS; l++) {
				const struct cidk_mask *m;

				if (!cidk_topo_has_level(t, l))
					continue;
				m = cidk_topo_mask(t, l, cpu);
				if (!m)
					continue;
				FUZZ_CHECK(cidk_topo_group_weight(t, l, cpu) ==
					   cidk_mask_weight_and(m, cidk_topo_online(t)));
				FUZZ_CHECK(cidk_topo_group_id(t, l, cpu) ==
					   cidk_mask_first(m));
			}
		}
		cidk_topo_free(t);
	}
	free(s);
	return 0;
}
