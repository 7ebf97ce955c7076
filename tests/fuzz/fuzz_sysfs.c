/* SPDX-License-Identifier: MIT */
/*
 * cidk_topo_from_sysfs over a temporary tree built from the input.  The
 * input is records separated by NUL bytes; a record is a path under
 * devices/system/ (bytes outside [a-z0-9_/] become '_', no "..", at most
 * 8 levels), the byte 0x01, and the file's content.  A content of exactly
 * "\x02fifo" makes a FIFO, "\x02dir" a directory.  Properties: no hang (a
 * FIFO is refused at once), a refused tree has a message naming a file or
 * the root, and on a built topology the linear span check and the linear
 * span + nesting check (same level, same kind) agree with the pairwise
 * ones; the fallbacks' notes are bounded.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nftw */
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cidkit/topo.h>

#include "cidkit_lab.h" /* the library's lab-only interface */

#include "fuzz.h"
#include "fuzz_tree.h"

static char root[64];

/* mkdir -p the parents of @path (absolute, under root) */
static void parents(char *path)
{
	for (char *p = path + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
}

static void make_entry(const char *rel, size_t rlen, const uint8_t *body,
		       size_t blen)
{
	char path[PATH_MAX];
	size_t n = (size_t)snprintf(path, sizeof(path), "%s/devices/system/", root);
	unsigned int depth = 0;

	if (!rlen || rlen > 200)
		return;
	for (size_t i = 0; i < rlen; i++) {
		char c = rel[i];

		if (c == '/') {
			if (++depth > 8 || (i && rel[i - 1] == '/'))
				return;
		} else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			     c == '_')) {
			c = '_';
		}
		path[n++] = c;
	}
	path[n] = '\0';
	if (path[n - 1] == '/')
		return;
	parents(path);
	fuzz_tree_make(path, body, blen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cidk_topo_err err = { "", "" };
	struct cidk_topo *t = NULL;
	const uint8_t *p = data, *end = data + size;
	unsigned int records = 0;
	int rc;

	if (size > 16384)
		return 0;
	fuzz_tree_clear(root, sizeof(root), "sysfs");
	while (p < end && records++ < 256) {
		const uint8_t *rec_end = memchr(p, '\0', (size_t)(end - p));
		const uint8_t *sep;

		if (!rec_end)
			rec_end = end;
		sep = memchr(p, 0x01, (size_t)(rec_end - p));
		if (sep)
			make_entry((const char *)p, (size_t)(sep - p), sep + 1,
				   (size_t)(rec_end - sep - 1));
		p = rec_end + 1;
	}
	rc = cidk_topo_from_sysfs(root, &t, &err);
	if (rc) {
		FUZZ_CHECK(!t);
		FUZZ_CHECK(err.msg[0] != '\0');
	} else {
		struct cidk_topo_insane a, b;
		bool sane = cidk_topo_span_sane(t, &a);
		bool nested = cidk_topo_sane(t, &a);

		if (cidk_topo_nr_cpu_ids(t) <= 1024) {
			FUZZ_CHECK(cidk_topo_span_sane_pairwise(t, &b) == sane);
			FUZZ_CHECK(cidk_topo_sane_pairwise(t, &b) == nested);
			FUZZ_CHECK(nested || (a.level == b.level && a.kind == b.kind));
		}
		FUZZ_CHECK(sane || !nested);
		for (unsigned int i = 0; i < cidk_topo_nr_notes(t); i++)
			FUZZ_CHECK(strlen(cidk_topo_note(t, i)) <= 200);
		cidk_topo_free(t);
	}
	return 0;
}
