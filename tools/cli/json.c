/* SPDX-License-Identifier: MIT */
#include <math.h>

#include "cli.h"
#include "json.h"

void jw_init(struct jw *w, FILE *f)
{
	*w = (struct jw){ .f = f };
}

/* What goes before an item: the comma and the space (or the break). */
static void item(struct jw *w)
{
	if (w->key) {
		w->key = false;
		return;
	}
	if (w->more[w->depth])
		fputc(',', w->f);
	if (w->brk)
		fputs(w->brk, w->f);
	else if (w->more[w->depth])
		fputc(' ', w->f);
	w->brk = NULL;
	w->more[w->depth] = true;
}

static void begin(struct jw *w, char c)
{
	item(w);
	fputc(c, w->f);
	if (w->depth + 1 < JW_DEPTH)
		w->depth++;
	w->more[w->depth] = false;
}

static void finish(struct jw *w, char c)
{
	if (w->brk)
		fputs(w->brk, w->f);
	w->brk = NULL;
	fputc(c, w->f);
	if (w->depth)
		w->depth--;
}

void jw_obj(struct jw *w)
{
	begin(w, '{');
}

void jw_obj_end(struct jw *w)
{
	finish(w, '}');
}

void jw_arr(struct jw *w)
{
	begin(w, '[');
}

void jw_arr_end(struct jw *w)
{
	finish(w, ']');
}

void jw_key(struct jw *w, const char *key)
{
	item(w);
	cli_json_str(w->f, key);
	fputs(": ", w->f);
	w->key = true;
}

void jw_str(struct jw *w, const char *s)
{
	item(w);
	cli_json_str(w->f, s ? s : "");
}

void jw_uint(struct jw *w, uint64_t v)
{
	item(w);
	fprintf(w->f, "%llu", (unsigned long long)v);
}

void jw_int(struct jw *w, int64_t v)
{
	item(w);
	fprintf(w->f, "%lld", (long long)v);
}

void jw_num(struct jw *w, double v, int decimals)
{
	item(w);
	if (!isfinite(v))
		fputs("null", w->f); /* JSON has no inf or nan */
	else if (decimals < 0)
		fprintf(w->f, "%g", v);
	else
		fprintf(w->f, "%.*f", decimals, v);
}

void jw_bool(struct jw *w, bool v)
{
	item(w);
	fputs(v ? "true" : "false", w->f);
}

void jw_null(struct jw *w)
{
	item(w);
	fputs("null", w->f);
}

void jw_break(struct jw *w, const char *s)
{
	w->brk = s;
}

void jw_end(struct jw *w)
{
	fputc('\n', w->f);
	fflush(w->f);
}

void jw_kstr(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_str(w, s);
}

void jw_kuint(struct jw *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	jw_uint(w, v);
}

void jw_kint(struct jw *w, const char *key, int64_t v)
{
	jw_key(w, key);
	jw_int(w, v);
}

void jw_knum(struct jw *w, const char *key, double v, int decimals)
{
	jw_key(w, key);
	jw_num(w, v, decimals);
}

void jw_kbool(struct jw *w, const char *key, bool v)
{
	jw_key(w, key);
	jw_bool(w, v);
}

void jw_knull(struct jw *w, const char *key)
{
	jw_key(w, key);
	jw_null(w);
}
