/* SPDX-License-Identifier: MIT */
/*
 * check/explore_shard.c - the parts of a sharded search (chk_opts.shard;
 * see chk.h): subtree estimates, units, which choices a part counts.
 */
#include <errno.h>
#include <stdlib.h>

#include "explore_int.h"

/*
 * The estimated size of the subtree below node @d of the execution just
 * run, for each fresh node d (from X.target on), into @est: its free
 * branchings (switches where the last thread cannot go on: every
 * available thread) times the ways to place at most the preemptions left
 * at d among its preemption points (the elementary symmetric sums, up to
 * that degree, of the other threads available there).
 */
static void estimates(double *est)
{
	double e[CHK_MAX_BOUND + 1] = { 1 }, free_ = 1;

	est[X.nnodes] = 1;
	for (unsigned long d = X.nnodes; d-- > X.target;) {
		const struct node *nd = &X.nodes[d];
		unsigned int k = (unsigned int)__builtin_popcount(
			nd->enabled & (uint8_t)~(X.o->sleep_sets ? nd->sleep : 0));
		unsigned int left = nd->preempts < X.bound ? X.bound - nd->preempts : 0;
		double sum = 0;

		if (nd->prev != NO_THREAD && (nd->enabled & (1u << nd->prev))) {
			for (unsigned int j = X.bound; j > 0; j--)
				e[j] += e[j - 1] * (k ? k - 1 : 0);
		} else if (k) {
			free_ *= k;
		}
		for (unsigned int j = 0; j <= left; j++)
			sum += e[j];
		est[d] = free_ * sum;
	}
}

/*
 * The execution just run starts a new unit: its root is the first fresh
 * node whose subtree is estimated at most X.thresh (a 1/units of the
 * bound's whole tree, estimated at its first execution), or its end.
 * Ours: it counts, and the search goes on below its root; not ours: the
 * search backs up above it.
 */
int chk_xp_shard_unit(bool *mine)
{
	double *est = malloc((X.nnodes + 1) * sizeof(*est));
	unsigned long c;

	if (!est)
		return -ENOMEM;
	estimates(est);
	if (!X.thresh) {
		X.thresh = est[0] / (double)X.o->shard->units;
		if (X.thresh < 1)
			X.thresh = 1;
	}
	for (c = X.target; c < X.nnodes && est[c] > X.thresh; c++)
		;
	X.unit_root = c;
	X.cur_unit = X.unit++;
	*mine = X.o->shard->mine(X.o->shard->arg, X.bound, X.cur_unit, est[c]);
	free(est);
	X.admitted = *mine;
	if (!*mine)
		X.nnodes = c; /* back up above the unit's root */
	return 0;
}

/*
 * Does a choice the bound refused at node @i count here?  Unsharded,
 * always; in a part, when the node is inside the part's current unit, or
 * above every unit (walked alike by each part) in the one part that
 * counts those: the parts' cuts then add up to one search's.
 */
bool chk_xp_cut_counts(unsigned long i)
{
	if (!X.o->shard)
		return true;
	if (X.admitted && i >= X.unit_root)
		return true;
	return X.o->shard->count_top;
}
