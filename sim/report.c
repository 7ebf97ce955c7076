/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "sim_report.h"

const char *sim_policy_label(int policy)
{
	if (policy == CIDK_SIM_PER_CPU)
		return "per-cpu";
	return cidk_cid_policy_name((enum cidk_cid_policy_kind)policy);
}

/* Reference: AMD EPYC 9654, 2 sockets, 384 threads, 24 L3; mean of 5 runs. */
static const struct {
	unsigned int delay_ms;
	const char *config;
	double per_cpu, lazy, cache_local;
} published[] = {
	{ 200, "8c1l3", 1374, 19289, 1336 },
	{ 200, "24c24l3", 2423, 26721, 1594 },
	{ 200, "192c24l3", 2291, 15826, 2153 },
	{ 200, "384t24l3", 1874, 13234, 1907 },
	{ 10, "8c1l3", 662, 756, 686 },
	{ 10, "24c24l3", 1378, 3648, 1035 },
	{ 10, "192c24l3", 1439, 10833, 1482 },
	{ 10, "384t24l3", 1503, 10570, 1556 },
};

bool sim_locality_reference(const char *config, unsigned int delay_ms,
			    double out[3])
{
	for (size_t i = 0; i < sizeof(published) / sizeof(published[0]); i++)
		if (published[i].delay_ms == delay_ms &&
		    !strcmp(published[i].config, config)) {
			out[0] = published[i].per_cpu;
			out[1] = published[i].lazy;
			out[2] = published[i].cache_local;
			return true;
		}
	return false;
}

/* Index of the reference column for a policy, or -1. */
static int reference_column(int policy)
{
	switch (policy) {
	case CIDK_SIM_PER_CPU:
		return 0;
	case CIDK_CID_LAZY:
		return 1;
	case CIDK_CID_CACHE_LOCAL:
		return 2;
	default:
		return -1;
	}
}

static const struct sim_locality_cell *
find(const struct sim_locality_cell *c, unsigned int n, const char *config,
     unsigned int delay_ms, int policy)
{
	for (unsigned int i = 0; i < n; i++)
		if (c[i].delay_ms == delay_ms && c[i].policy == policy &&
		    !strcmp(c[i].config, config))
			return &c[i];
	return NULL;
}

void sim_report_locality_table(FILE *f, const struct sim_locality_cell *cells,
			       unsigned int ncells,
			       const struct sim_locality_axes *ax,
			       bool reference)
{
	const unsigned int *delays = ax->delays_ms, nd = ax->ndelays;
	char *const *configs = ax->configs;
	const unsigned int nc = ax->nconfigs, np = ax->npolicies;
	const int *pol = ax->policies;
	bool has_lazy = false, has_cl = false, speedup;

	for (unsigned int p = 0; p < np; p++) {
		has_lazy |= pol[p] == CIDK_CID_LAZY;
		has_cl |= pol[p] == CIDK_CID_CACHE_LOCAL;
	}
	speedup = has_lazy && has_cl;

	for (unsigned int d = 0; d < nd; d++) {
		fprintf(f, "\ndelay %u ms: ns per burst\n%-12s", delays[d],
			"config");
		for (unsigned int p = 0; p < np; p++)
			fprintf(f, " %12s", sim_policy_label(pol[p]));
		if (speedup)
			fprintf(f, " %18s", "lazy/cache-local");
		fputc('\n', f);
		for (unsigned int c = 0; c < nc; c++) {
			const struct sim_locality_cell *lz, *cl;
			double ref[3];
			bool have_ref;

			fprintf(f, "%-12s", configs[c]);
			for (unsigned int p = 0; p < np; p++) {
				const struct sim_locality_cell *x =
					find(cells, ncells, configs[c], delays[d], pol[p]);

				fprintf(f, " %12.0f", x ? x->res.ns_per_burst : 0.0);
			}
			lz = find(cells, ncells, configs[c], delays[d], CIDK_CID_LAZY);
			cl = find(cells, ncells, configs[c], delays[d],
				  CIDK_CID_CACHE_LOCAL);
			if (speedup && lz && cl)
				fprintf(f, " %17.1fx", lz->res.ns_per_burst /
							       cl->res.ns_per_burst);
			fputc('\n', f);

			have_ref = reference &&
				   sim_locality_reference(configs[c], delays[d], ref);
			if (!have_ref)
				continue;
			fprintf(f, "%-12s", "  reference");
			for (unsigned int p = 0; p < np; p++) {
				int col = reference_column(pol[p]);

				if (col < 0)
					fprintf(f, " %12s", "-");
				else
					fprintf(f, " %12.0f", ref[col]);
			}
			if (speedup)
				fprintf(f, " %17.1fx", ref[1] / ref[2]);
			fprintf(f, "\n%-12s", "  sim/ref");
			for (unsigned int p = 0; p < np; p++) {
				const struct sim_locality_cell *x =
					find(cells, ncells, configs[c], delays[d], pol[p]);
				int col = reference_column(pol[p]);

				if (col < 0 || !x)
					fprintf(f, " %12s", "-");
				else
					fprintf(f, " %11.2fx",
						x->res.ns_per_burst / ref[col]);
			}
			fputc('\n', f);
		}
	}
}

void sim_report_locality_json(FILE *f, const struct sim_locality_cell *cells,
			      unsigned int ncells, bool reference)
{
	fputc('[', f);
	for (unsigned int i = 0; i < ncells; i++) {
		const struct sim_locality_cell *c = &cells[i];
		double ref[3];
		int col = reference_column(c->policy);

		fprintf(f,
			"%s\n  {\"config\": \"%s\", \"delay_ms\": %u, \"policy\": \"%s\", "
			"\"ns_per_burst\": %.1f, \"max_cid\": %u, \"cid_changes\": %llu",
			i ? "," : "", c->config, c->delay_ms,
			sim_policy_label(c->policy), c->res.ns_per_burst,
			c->res.max_cid, (unsigned long long)c->res.cid_changes);
		if (reference && col >= 0 &&
		    sim_locality_reference(c->config, c->delay_ms, ref))
			fprintf(f, ", \"reference_ns_per_burst\": %.0f", ref[col]);
		fputc('}', f);
	}
	fputs("\n]\n", f);
}
