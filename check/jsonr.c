/* SPDX-License-Identifier: MIT */
/*
 * check/jsonr.c - the JSON reader of jsonr.h: recursive descent over the
 * whole text, depth at most 64.  Inputs are a few files of up to some
 * tens of MB (the shards' state hashes); speed is not a concern.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonr.h"

#define MAX_DEPTH 64

struct rd {
	const char *p, *end, *start;
	char *why;
	size_t wlen;
	int err;
};

static int fail(struct rd *r, const char *what)
{
	if (!r->err)
		snprintf(r->why, r->wlen, "%s at byte %zu",
			 r->p >= r->end ? "truncated" : what,
			 (size_t)(r->p - r->start));
	r->err = -1;
	return -1;
}

static void ws(struct rd *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' ||
				 *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static struct jr *node(enum jr_type t)
{
	struct jr *v = calloc(1, sizeof(*v));

	if (v)
		v->type = t;
	return v;
}

static int hex4(const char *p, unsigned int *u)
{
	*u = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];

		*u <<= 4;
		if (c >= '0' && c <= '9')
			*u |= (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*u |= (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*u |= (unsigned int)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

/* A string at r->p (on its opening quote), decoded into *@out. */
static int string(struct rd *r, char **out, size_t *olen)
{
	const char *q;
	char *d;
	size_t n = 0;

	r->p++;
	for (q = r->p; q < r->end && *q != '"'; q++)
		if (*q == '\\')
			q++;
	if (q >= r->end) {
		r->p = r->end;
		return fail(r, "");
	}
	d = malloc((size_t)(q - r->p) + 1);
	if (!d)
		return fail(r, "out of memory");
	while (*r->p != '"') {
		unsigned char c = (unsigned char)*r->p++;
		unsigned int u;

		if (c < 0x20) {
			free(d);
			return fail(r, "a control character in a string");
		}
		if (c != '\\') {
			d[n++] = (char)c;
			continue;
		}
		c = (unsigned char)*r->p++;
		switch (c) {
		case '"': case '\\': case '/': d[n++] = (char)c; break;
		case 'b': d[n++] = '\b'; break;
		case 'f': d[n++] = '\f'; break;
		case 'n': d[n++] = '\n'; break;
		case 'r': d[n++] = '\r'; break;
		case 't': d[n++] = '\t'; break;
		case 'u':
			if (r->end - r->p < 4 || hex4(r->p, &u) || !u) {
				free(d);
				return fail(r, "a bad \\u escape");
			}
			r->p += 4;
			if (u < 0x80) {
				d[n++] = (char)u;
			} else if (u < 0x800) {
				d[n++] = (char)(0xc0 | u >> 6);
				d[n++] = (char)(0x80 | (u & 0x3f));
			} else {
				d[n++] = (char)(0xe0 | u >> 12);
				d[n++] = (char)(0x80 | (u >> 6 & 0x3f));
				d[n++] = (char)(0x80 | (u & 0x3f));
			}
			break;
		default:
			free(d);
			return fail(r, "a bad escape");
		}
	}
	r->p++;
	d[n] = '\0';
	*out = d;
	*olen = n;
	return 0;
}

static struct jr *value(struct rd *r, unsigned int depth);

static int push(struct jr *c, struct jr *item, char *key)
{
	struct jr **v = realloc(c->v, (c->n + 1) * sizeof(*v));
	char **k;

	if (!v)
		return -1;
	c->v = v;
	if (c->type == JR_OBJ) {
		k = realloc(c->k, (c->n + 1) * sizeof(*k));
		if (!k)
			return -1;
		c->k = k;
		c->k[c->n] = key;
	}
	c->v[c->n++] = item;
	return 0;
}

static struct jr *container(struct rd *r, unsigned int depth, bool obj)
{
	struct jr *c = node(obj ? JR_OBJ : JR_ARR);
	char close = obj ? '}' : ']';

	if (!c) {
		fail(r, "out of memory");
		return NULL;
	}
	r->p++;
	ws(r);
	if (r->p < r->end && *r->p == close) {
		r->p++;
		return c;
	}
	for (;;) {
		char *key = NULL;
		size_t klen;
		struct jr *item;

		ws(r);
		if (obj) {
			if (r->p >= r->end || *r->p != '"' ||
			    string(r, &key, &klen)) {
				fail(r, "a key expected");
				break;
			}
			ws(r);
			if (r->p >= r->end || *r->p != ':') {
				free(key);
				fail(r, "':' expected");
				break;
			}
			r->p++;
		}
		item = value(r, depth + 1);
		if (!item || push(c, item, key)) {
			free(key);
			jr_free(item);
			fail(r, "out of memory");
			break;
		}
		ws(r);
		if (r->p < r->end && *r->p == ',') {
			r->p++;
			continue;
		}
		if (r->p < r->end && *r->p == close) {
			r->p++;
			return c;
		}
		fail(r, obj ? "',' or '}' expected" : "',' or ']' expected");
		break;
	}
	jr_free(c);
	return NULL;
}

static bool word(struct rd *r, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n))
		return false;
	r->p += n;
	return true;
}

static struct jr *number(struct rd *r)
{
	const char *q = r->p;
	struct jr *v;

	if (q < r->end && *q == '-')
		q++;
	if (q >= r->end || *q < '0' || *q > '9') {
		fail(r, "a value expected");
		return NULL;
	}
	while (q < r->end && ((*q >= '0' && *q <= '9') || *q == '.' ||
			      *q == 'e' || *q == 'E' || *q == '+' || *q == '-'))
		q++;
	v = node(JR_NUM);
	if (!v || !(v->s = strndup(r->p, (size_t)(q - r->p)))) {
		free(v);
		fail(r, "out of memory");
		return NULL;
	}
	r->p = q;
	return v;
}

static struct jr *value(struct rd *r, unsigned int depth)
{
	struct jr *v;

	ws(r);
	if (depth > MAX_DEPTH) {
		fail(r, "nested too deep");
		return NULL;
	}
	if (r->p >= r->end) {
		fail(r, "");
		return NULL;
	}
	switch (*r->p) {
	case '{': return container(r, depth, true);
	case '[': return container(r, depth, false);
	case '"':
		v = node(JR_STR);
		if (!v) {
			fail(r, "out of memory");
			return NULL;
		}
		if (string(r, &v->s, &v->len)) {
			free(v);
			return NULL;
		}
		return v;
	case 't': case 'f': case 'n':
		if (word(r, "true") || word(r, "false")) {
			v = node(JR_BOOL);
			if (v)
				v->b = r->p[-1] == 'e' && r->p[-2] == 'u';
		} else if (word(r, "null")) {
			v = node(JR_NULL);
		} else {
			if ((size_t)(r->end - r->p) < 5)
				r->p = r->end; /* a word cut short */
			fail(r, "a value expected");
			return NULL;
		}
		if (!v)
			fail(r, "out of memory");
		return v;
	default:
		return number(r);
	}
}

int jr_parse(const char *text, size_t len, struct jr **out, char *why,
	     size_t wlen)
{
	struct rd r = { text, text + len, text, why, wlen, 0 };
	struct jr *v = value(&r, 0);

	if (v) {
		ws(&r);
		if (r.p < r.end) {
			jr_free(v);
			v = NULL;
			fail(&r, "text after the value");
		}
	}
	*out = v;
	return v ? 0 : -1;
}

void jr_free(struct jr *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		jr_free(v->v[i]);
		if (v->k)
			free(v->k[i]);
	}
	free(v->v);
	free(v->k);
	free(v->s);
	free(v);
}

const struct jr *jr_get(const struct jr *o, const char *key)
{
	if (!o || o->type != JR_OBJ)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->k[i], key))
			return o->v[i];
	return NULL;
}

int jr_u64(const struct jr *v, uint64_t *out)
{
	char *end;

	if (!v || v->type != JR_NUM || v->s[0] < '0' || v->s[0] > '9')
		return -1;
	errno = 0;
	*out = strtoull(v->s, &end, 10);
	return *end || errno ? -1 : 0;
}
