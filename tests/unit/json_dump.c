/* SPDX-License-Identifier: MIT */
/*
 * The JSON writer's (tools/cli/json.c) half of the cli_json test:
 *   json_dump strings HEX...  {"strings": [each argument, hex-decoded]}
 *   json_dump shape           one document using every call of the writer
 * cli_json.py reads the output back with Python's json module.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int strings(int n, char **hex)
{
	struct jw j;

	jw_init(&j, stdout);
	jw_obj(&j);
	jw_key(&j, "strings");
	jw_arr(&j);
	for (int i = 0; i < n; i++) {
		size_t len = strlen(hex[i]) / 2;
		char *s = malloc(len + 1);

		if (!s)
			return 1;
		for (size_t k = 0; k < len; k++) {
			int hi = hexval(hex[i][2 * k]), lo = hexval(hex[i][2 * k + 1]);

			if (hi < 0 || lo < 0)
				return 1;
			s[k] = (char)(hi << 4 | lo);
		}
		s[len] = '\0';
		jw_str(&j, s);
		free(s);
	}
	jw_arr_end(&j);
	jw_obj_end(&j);
	jw_end(&j);
	return 0;
}

static void shape(void)
{
	struct jw j;

	jw_init(&j, stdout);
	jw_obj(&j);
	jw_kuint(&j, "u", UINT64_MAX);
	jw_kint(&j, "i", INT64_MIN);
	jw_knum(&j, "fixed", 2.0 / 3.0, 3);
	jw_knum(&j, "g", 1e300, -1);
	jw_knum(&j, "inf", INFINITY, 2);
	jw_knum(&j, "nan", NAN, -1);
	jw_kbool(&j, "t", true);
	jw_kbool(&j, "f", false);
	jw_knull(&j, "null");
	jw_break(&j, "\n ");
	jw_key(&j, "rows");
	jw_arr(&j);
	for (int r = 0; r < 3; r++) {
		jw_break(&j, "\n  ");
		jw_obj(&j);
		jw_kint(&j, "r", r);
		jw_key(&j, "empty");
		jw_arr(&j);
		jw_arr_end(&j);
		jw_key(&j, "nested");
		jw_arr(&j);
		jw_arr(&j);
		jw_obj(&j);
		jw_obj_end(&j);
		jw_arr_end(&j);
		jw_str(&j, "x");
		jw_arr_end(&j);
		jw_obj_end(&j);
	}
	jw_break(&j, "\n");
	jw_arr_end(&j);
	jw_kstr(&j, "key \"quoted\"\\", "last");
	jw_obj_end(&j);
	jw_end(&j);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "strings"))
		return strings(argc - 2, argv + 2);
	if (argc == 2 && !strcmp(argv[1], "shape")) {
		shape();
		return 0;
	}
	fputs("usage: json_dump strings HEX... | shape\n", stderr);
	return 2;
}
