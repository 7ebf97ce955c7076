/* SPDX-License-Identifier: MIT */
/*
 * check/cid_model.h - a scenario of lib/cid as a model for the explorer:
 * each task a thread running its script against one mm of a policy, with
 * the CID properties checked (cid_model.c says which, and when).
 */
#ifndef CIDKIT_CHECK_CID_MODEL_H
#define CIDKIT_CHECK_CID_MODEL_H

#include <cidkit/cid.h>

#include "chk.h"
#include "scenario.h"

struct cid_model; /* opaque */

/*
 * A model of @s under @p, filling @m.  Returns 0, -EINVAL (params the
 * scenario's machine cannot have) or -ENOMEM.
 */
int cid_model_new(const struct scenario *s, const struct cidk_cid_params *p,
		  struct chk_model *m, struct cid_model **out);
void cid_model_free(struct cid_model *cm);

/* lib/cid/cache_local.c's shrink bound in the checker build (4, the
 * library's; --cl-shrink-tries lowers it; lib/cid/cid_internal.h) */
extern unsigned int cidk__chk_cl_shrink_tries;
/* and its claim loop's lost races (--cl-claim-races; default: as many
 * as claims, the library's 2 * max iterations in all) */
extern unsigned int cidk__chk_cl_claim_races;

#endif /* CIDKIT_CHECK_CID_MODEL_H */
