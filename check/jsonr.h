/* SPDX-License-Identifier: MIT */
/*
 * check/jsonr.h - a small JSON reader (RFC 8259) for what cidkit check
 * writes itself (--merge reads the shards' --json): the whole text parsed
 * into a tree of values, every node malloc'd, freed at once.
 *
 * Numbers keep their text (jr_u64() reads an unsigned integer exactly);
 * strings are decoded (\uXXXX escapes up to U+FFFF, as UTF-8; a NUL
 * escape is refused).  Depth is bounded (64) so that a hostile file
 * cannot exhaust the stack.  Not MT-safe per tree; trees are independent.
 */
#ifndef CIDKIT_CHECK_JSONR_H
#define CIDKIT_CHECK_JSONR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum jr_type { JR_NULL, JR_BOOL, JR_NUM, JR_STR, JR_ARR, JR_OBJ };

struct jr {
	enum jr_type type;
	bool b;			/* JR_BOOL */
	char *s;		/* JR_STR: the decoded text; JR_NUM: its text */
	size_t len;		/* JR_STR: bytes of s */
	struct jr **v;		/* JR_ARR, JR_OBJ: the items (values) */
	char **k;		/* JR_OBJ: the keys, one per item */
	size_t n;
};

/*
 * Parse the @len bytes at @text: 0 and *@out, or -1 with a reason in
 * @why (with the byte offset; "truncated" when the text ends early).
 */
int jr_parse(const char *text, size_t len, struct jr **out, char *why,
	     size_t wlen);
void jr_free(struct jr *v);

/* The value of @key in object @o, or NULL (not an object, no such key). */
const struct jr *jr_get(const struct jr *o, const char *key);
/* An unsigned integer value: 0 and *@v, or -1 (not one, or too large). */
int jr_u64(const struct jr *v, uint64_t *out);

#endif /* CIDKIT_CHECK_JSONR_H */
