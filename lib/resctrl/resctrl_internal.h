/* SPDX-License-Identifier: MIT */
/* Internal: what the files of lib/resctrl/ share.  Not exported. */
#ifndef CIDKIT_RESCTRL_INTERNAL_H
#define CIDKIT_RESCTRL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <cidkit/resctrl.h>

/* The event whose file name (or short name) is name[0..len), or -1. */
int cidk__rc_event_from_name(const char *name, size_t len);

/*
 * Read at most size-1 bytes of a small file into buf, NUL-terminated.
 * Returns the length or a negative errno.
 */
long cidk__rc_read_small(const char *path, char *buf, size_t size);

/* snprintf into a path buffer; false when it did not fit. */
__attribute__((format(printf, 3, 4))) bool
cidk__rc_path_fmt(char *buf, size_t size, const char *fmt, ...);

/* ---- sysfs: which CPUs are in which domain (cpumap.c) ---- */

struct cidk__rc_cpumap {
	unsigned int nbits;	  /* highest online CPU + 1 */
	struct cidk_mask *online; /* nbits wide */
	long *l3, *l2, *pkg;	  /* per CPU; -1: unknown */
};

int cidk__rc_cpumap_load(const char *sysfs_root, struct cidk__rc_cpumap **out,
			 struct cidk_resctrl_err *err);
/* The CPUs of (resource, id): a new mask (maybe empty), NULL on ENOMEM. */
struct cidk_mask *cidk__rc_cpumap_domain(const struct cidk__rc_cpumap *m,
					 const char *resource, unsigned int id);
void cidk__rc_cpumap_free(struct cidk__rc_cpumap *m);

/* ---- the directory walk (scan.c) ---- */

/* One counter file found by a scan. */
struct cidk__rc_found {
	char *group;	/* "/", "mon_groups/M", "C", "C/mon_groups/M" */
	char *resource; /* "L3" */
	unsigned int domain;
	int event; /* enum cidk_rc_event */
	char *path;
};

/*
 * Walk @root for every counter of the @events mask.  On success *@out is a
 * malloc'd array of *@n entries sorted by cidk__rc_found_cmp (each with
 * malloc'd strings; free with cidk__rc_found_free) and the number of
 * groups seen goes to *@groups.  Returns 0, -ENOENT (ROOT/mon_data gone),
 * -ENOMEM.  Directories that vanish during the walk are skipped.
 */
int cidk__rc_scan(const char *root, unsigned int events,
		  struct cidk__rc_found **out, size_t *n, unsigned int *groups);
int cidk__rc_found_cmp(const struct cidk__rc_found *a,
		       const struct cidk__rc_found *b);
void cidk__rc_found_free(struct cidk__rc_found *f, size_t n);

#endif /* CIDKIT_RESCTRL_INTERNAL_H */
