/* SPDX-License-Identifier: MIT */
/*
 * The command's one JSON writer: objects, arrays, keys and values written
 * straight to a FILE, with the separators, quoting and escaping done here
 * instead of in printf fragments in every command.  Strings go through
 * cli_json_str() (quotes, backslashes, control bytes, bytes that are not
 * UTF-8); a number that is not finite is written as null.
 *
 * The layout is the command's own: ", " between items, ": " after a key,
 * and jw_break() to put a line break before the next item or closing
 * bracket where a report wants one object per line.
 *
 * Why not Debian's libjansson-dev: jansson builds a tree in memory and
 * dumps it at the end; our reports are written as they are computed,
 * with a fixed, byte-stable layout (tests and docs compare it), numbers
 * with a chosen precision (jansson prints doubles with "%.17g" or a fixed
 * count of significant digits, not decimals), and file names that are not
 * UTF-8 (jansson refuses them: json_string() returns NULL).  The library
 * never prints, so this belongs to the programs; 160 lines do it without a
 * new runtime dependency for the library's users.
 *
 * Not MT-safe: one writer per FILE at a time.
 */
#ifndef CIDKIT_TOOLS_JSON_H
#define CIDKIT_TOOLS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JW_DEPTH 16

struct jw {
	FILE *f;
	unsigned int depth;
	bool more[JW_DEPTH]; /* the open container at each depth has an item */
	bool key;            /* a key was written: its value comes next */
	const char *brk;     /* jw_break(): before the next item or bracket */
};

void jw_init(struct jw *w, FILE *f);

/* Containers: { } and [ ]; nesting deeper than JW_DEPTH is not kept apart. */
void jw_obj(struct jw *w);
void jw_obj_end(struct jw *w);
void jw_arr(struct jw *w);
void jw_arr_end(struct jw *w);

/* A key of the open object; its value is the next thing written. */
void jw_key(struct jw *w, const char *key);

void jw_str(struct jw *w, const char *s);
void jw_uint(struct jw *w, uint64_t v);
void jw_int(struct jw *w, int64_t v);
/* @v with @decimals after the point ("%.*f"), or "%g" when @decimals < 0. */
void jw_num(struct jw *w, double v, int decimals);
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);

/*
 * Layout: write @s (e.g. "\n  ") instead of the space after the comma
 * before the next item, or before the next closing bracket.
 */
void jw_break(struct jw *w, const char *s);

/* After the top-level value: a newline, and flush. */
void jw_end(struct jw *w);

/* key + value in one call */
void jw_kstr(struct jw *w, const char *key, const char *s);
void jw_kuint(struct jw *w, const char *key, uint64_t v);
void jw_kint(struct jw *w, const char *key, int64_t v);
void jw_knum(struct jw *w, const char *key, double v, int decimals);
void jw_kbool(struct jw *w, const char *key, bool v);
void jw_knull(struct jw *w, const char *key);

#endif /* CIDKIT_TOOLS_JSON_H */
