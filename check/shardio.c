/* SPDX-License-Identifier: MIT */
/*
 * check/shardio.c - a sharded search's files (see shardio.h).  A file is
 * the --json array of one part: one item per scenario, each with its
 * scenario's text, so that --merge needs nothing but the files (on the
 * machine that merges, scenario files and the library may differ).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include <jansson.h>
#include "shardio.h"

#define MAX_MERGE_FILE (1024ul * 1024 * 1024)

/* The text @s was parsed from: @arg's file, or the library's (malloc'd). */
static char *scenario_text(const char *arg, const struct scenario *s)
{
	struct scenario t;
	char why[200], *buf = NULL;
	size_t len = 0;
	FILE *f;

	for (unsigned int i = 0; scn_library[i]; i++)
		if (!scn_parse(scn_library[i], &t, why, sizeof(why)) &&
		    !strcmp(t.name, s->name) && (!arg || !strcmp(arg, s->name)))
			return strdup(scn_library[i]);
	f = arg ? fopen(arg, "r") : NULL;
	if (!f)
		return NULL;
	buf = malloc(64 * 1024 + 1);
	if (buf) {
		len = fread(buf, 1, 64 * 1024, f);
		buf[len] = '\0';
	}
	fclose(f);
	return buf;
}

void shardio_json(struct jw *w, const char *arg, const struct scenario *s,
		  const struct chk_opts *o, const struct shard_spec *sp,
		  const struct chk_result *r)
{
	char opts[256], spec[32];
	char *text = scenario_text(arg, s);

	snprintf(spec, sizeof(spec), "%u/%u", sp->k, sp->n);
	shard_options(o, opts, sizeof(opts));
	jw_kstr(w, "shard", spec);
	jw_kstr(w, "scenario_text", text ? text : "");
	jw_kstr(w, "options", opts);
	shard_write_part(w, r, sp);
	free(text);
}

/* ---- --merge ------------------------------------------------------------------------ */

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f) {
		cli_error("check: --merge: %s: %s", cli_q(path), strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t got;

		if (n + 65536 > cap) {
			char *b;

			cap = cap ? 2 * cap : 1u << 20;
			b = cap > MAX_MERGE_FILE ? NULL : realloc(buf, cap + 1);
			if (!b) {
				cli_error("check: --merge: %s: too large",
					  cli_q(path));
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (!got)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static const char *str_of(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* One file's items into @set (the first file sets the shape). */
static int load_one(const char *path, const json_t *top,
		    struct merge_set *set, char *const *files, unsigned int *who)
{
	struct shard_part p;
	char why[200];

	size_t nitems = json_array_size(top);

	if (!json_is_array(top) || !nitems)
		return cli_error("check: --merge: %s: not the --json of cidkit "
				 "check --shard", cli_q(path));
	if (!set->item) {
		set->nitems = (unsigned int)nitems;
		set->item = calloc(nitems, sizeof(*set->item));
		if (!set->item)
			return cli_error("check: out of memory");
	} else if (nitems != set->nitems) {
		return cli_error("check: --merge: %s: %zu scenario(s), %s has %u: "
				 "parts of different searches", cli_q(path),
				 nitems, cli_q(files[0]), set->nitems);
	}
	for (size_t i = 0; i < nitems; i++) {
		const json_t *it = json_array_get(top, i);
		const char *text = str_of(it, "scenario_text"),
			   *pol = str_of(it, "policy"), *opt = str_of(it, "options");
		struct merge_item *m = &set->item[i];

		if (!text || !pol || !opt ||
		    shard_read_part(it, &p, why, sizeof(why)))
			return cli_error("check: --merge: %s: item %zu: %s",
					 cli_q(path), i + 1,
					 text ? why : "not the --json of cidkit check --shard");
		if (!set->n) {
			set->n = p.sp.n;
		} else if (p.sp.n != set->n) {
			shard_part_free(&p);
			return cli_error("check: --merge: %s: a part of %u, %s is "
					 "a part of %u", cli_q(path), p.sp.n,
					 cli_q(files[0]), set->n);
		}
		if (!m->text) {
			m->text = strdup(text);
			m->policy = strdup(pol);
			m->options = strdup(opt);
			m->parts = calloc(set->n, sizeof(*m->parts));
			m->own_policy = json_is_true(json_object_get(it, "expect_applies"));
			if (!m->text || !m->policy || !m->options || !m->parts) {
				shard_part_free(&p);
				return cli_error("check: out of memory");
			}
		} else if (strcmp(m->text, text) || strcmp(m->policy, pol) ||
			   strcmp(m->options, opt)) {
			shard_part_free(&p);
			return cli_error("check: --merge: %s: item %zu is of another "
					 "search than in %s (%s)", cli_q(path),
					 i + 1, cli_q(files[0]),
					 strcmp(m->text, text) ? "the scenario differs" :
					 strcmp(m->policy, pol) ? "the policy differs" :
								  "the options differ");
		}
		if (m->parts[p.sp.k - 1].sp.k) {
			unsigned int k = p.sp.k;

			shard_part_free(&p);
			return cli_error("check: --merge: %s: part %u/%u is there "
					 "twice (also in %s)", cli_q(path), k,
					 set->n, cli_q(files[who[k - 1]]));
		}
		m->parts[p.sp.k - 1] = p;
	}
	return 0;
}

int merge_load(char *const *files, unsigned int nfiles, struct merge_set *set)
{
	unsigned int *who = NULL;
	int rc = 0;

	memset(set, 0, sizeof(*set));
	who = calloc(100000, sizeof(*who)); /* the file of each part */
	if (!who)
		return cli_error("check: out of memory");
	for (unsigned int f = 0; f < nfiles && !rc; f++) {
		json_t *top;
		char why[200];
		size_t len;
		char *buf = read_file(files[f], &len);

		if (!buf) {
			rc = CLI_EXIT_USAGE;
			break;
		}
		top = shard_parse(buf, len, why, sizeof(why));
		if (!top) {
			free(buf);
			rc = cli_error("check: --merge: %s: not JSON (%s)",
				       cli_q(files[f]), why);
			break;
		}
		free(buf);
		rc = load_one(files[f], top, set, files, who);
		for (unsigned int i = 0; !rc && i < set->n; i++)
			if (set->item[0].parts[i].sp.k && !who[i] && f)
				who[i] = f; /* (0: the first file) */
		json_decref(top);
	}
	if (!rc) {
		for (unsigned int i = 0; i < set->n && !rc; i++)
			if (!set->item[0].parts[i].sp.k)
				rc = cli_error("check: --merge: part %u/%u is missing "
					       "(%u file(s) given)", i + 1, set->n,
					       nfiles);
	}
	free(who);
	if (rc)
		merge_free(set);
	return rc;
}

void merge_free(struct merge_set *set)
{
	for (unsigned int i = 0; i < set->nitems && set->item; i++) {
		struct merge_item *m = &set->item[i];

		for (unsigned int k = 0; m->parts && k < set->n; k++)
			shard_part_free(&m->parts[k]);
		free(m->parts);
		free(m->text);
		free(m->policy);
		free(m->options);
	}
	free(set->item);
	memset(set, 0, sizeof(*set));
}
