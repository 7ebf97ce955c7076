/* SPDX-License-Identifier: MIT */
/*
 * taskset's mask form (util-linux taskset -p prints it): one word of hex
 * digits, most significant first, "0x" optional.  Used by cidkit cpulist
 * (--from/--to taskset); docs/mask.md describes how it differs from the
 * kernel's comma-separated hex.
 */
#ifndef CIDKIT_TOOLS_TASKSET_H
#define CIDKIT_TOOLS_TASKSET_H

#include <stddef.h>

#include <cidkit/mask.h>

/*
 * taskset_parse - parse @s ([0x|0X] hex digits, one word, one trailing
 * newline allowed and nothing after it) into @m, which is cleared first.
 * Leading zero digits may go beyond @m's width, a set bit may not.
 * Returns 0, -EINVAL (malformed: no digit, a byte that is not a hex
 * digit, text after the newline) or -ERANGE (a set bit >= @m->nbits),
 * with *@errpos the offset of the byte at fault.  O(length of @s).
 */
int taskset_parse(struct cidk_mask *m, const char *s, size_t *errpos);

/*
 * taskset_format - "0x" and the hex digits of @m without leading zeros
 * ("0x0" when empty), in a new string the caller frees; NULL when out of
 * memory.  O(@m->nbits).
 */
char *taskset_format(const struct cidk_mask *m);

#endif /* CIDKIT_TOOLS_TASKSET_H */
