/* SPDX-License-Identifier: MIT */
/*
 * check/kmodel.h - the `kernel` policy: scenarios on the kernel's own
 * mm_cid code, built at run time (check/kmodel.c, docs/check-kernel.md).
 */
#ifndef CIDKIT_CHECK_KMODEL_H
#define CIDKIT_CHECK_KMODEL_H

#include <stddef.h>

#include "chk.h"
#include "scenario.h"

struct kmodel; /* opaque */
struct kops;   /* check/kernel/kops.h */

/* What to build: a tree or a Debian version, patches ("-FILE": reversed,
 * comma-separated), a planted one-line change (FILE:OLD=>NEW). */
struct kbuild {
	const char *tree, *source, *patch, *plant;
	bool plain; /* every plain access a point (check/kernel/ktsan.c) */
};

/*
 * Build (scripts/kernel-source, once per input: cached) and load the
 * kernel code.  0; 2 when the build said why on stderr (one 'cidkit:'
 * line); -EINVAL with @why otherwise.  Runs a child process; prints
 * nothing itself.
 */
int kmodel_build(const struct kbuild *b, char *why, size_t len);
/* Load a built object (kmodel_build does): 0, or -EINVAL and @why. */
int kmodel_load(const char *so, char *why, size_t len);
/* The loaded tree's version ("7.2.13"), or NULL: nothing loaded. */
const char *kmodel_version(void);
/* The loaded object's operations (check/kernel/kops.h), or NULL: for a
 * driver of its own (check/kreplay.c). */
const struct kops *kmodel_ops(void);

/* A model of @s on the loaded kernel code, filling @m: 0, -ENOENT
 * (nothing loaded), -EINVAL (too many tasks or CPUs), -ENOMEM. */
int kmodel_new(const struct scenario *s, struct chk_model *m,
	       struct kmodel **out);
void kmodel_free(struct kmodel *km);

#endif /* CIDKIT_CHECK_KMODEL_H */
