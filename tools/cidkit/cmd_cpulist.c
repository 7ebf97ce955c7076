/* SPDX-License-Identifier: MIT */
/*
 * cidkit cpulist --nbits N [--from list|hex] [--to list|hex] STRING
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/mask.h>

#include "cli.h"
#include "cmds.h"

static const char usage[] =
	"usage: cidkit cpulist --nbits N [--from list|hex] [--to list|hex] STRING\n"
	"\n"
	"Convert a CPU mask between the kernel's cpulist format (0-3,8-11,\n"
	"0-15:2/4) and its hex format (ffffffff,0000000f).  Prints the canonical\n"
	"form; exit status 2 and one line on stderr for malformed input or a bit\n"
	">= N.\n"
	"\n"
	"  --nbits N     width of the mask in bits (1..16777216)\n"
	"  --from FMT    input format, list (default) or hex\n"
	"  --to FMT      output format, list (default) or hex\n";

static int parse_fmt(const char *what, const char *s, bool *hex)
{
	if (!strcmp(s, "list"))
		*hex = false;
	else if (!strcmp(s, "hex"))
		*hex = true;
	else
		return cli_error("cpulist: %s: unknown format '%s' (list or hex)",
				 what, cli_q(s));
	return 0;
}

int cmd_cpulist(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nbits", required_argument, NULL, 'n' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool from_hex = false, to_hex = false, have_nbits = false;
	unsigned int nbits = 0;
	struct cidk_mask *m;
	size_t errpos = 0, len;
	char *out;
	int c, rc;

	while ((c = getopt_long(argc, argv, "+:n:f:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (cli_parse_uint("cpulist: --nbits", optarg, 1,
					   CIDK_MASK_MAX_BITS, &nbits))
				return CLI_EXIT_USAGE;
			have_nbits = true;
			break;
		case 'f':
			if (parse_fmt("--from", optarg, &from_hex))
				return CLI_EXIT_USAGE;
			break;
		case 't':
			if (parse_fmt("--to", optarg, &to_hex))
				return CLI_EXIT_USAGE;
			break;
		case 'h':
			fputs(usage, stdout);
			return CLI_EXIT_OK;
		default:
			return cli_bad_option("cpulist", argv, c);
		}
	}
	if (!have_nbits)
		return cli_error("cpulist: --nbits N is required (see --help)");
	if (argc - optind != 1)
		return cli_error("cpulist: expected one STRING, got %d (see --help)",
				 argc - optind);

	m = cidk_mask_alloc(nbits);
	if (!m)
		return cli_error("cpulist: %s", strerror(errno));
	rc = from_hex ? cidk_mask_parse_hex(m, argv[optind], &errpos)
		      : cidk_mask_parse_list(m, argv[optind], &errpos);
	if (rc) {
		char where[40];

		cidk_mask_free(m);
		cli_excerpt(argv[optind] + errpos, where, sizeof(where));
		if (rc == -ERANGE)
			return cli_error("cpulist: '%s' at offset %zu: bit or number out of range for --nbits %u",
					 where, errpos, nbits);
		return cli_error("cpulist: '%s' at offset %zu: malformed %s",
				 where, errpos, from_hex ? "hex mask" : "cpulist");
	}
	len = to_hex ? cidk_mask_format_hex(m, NULL, 0)
		     : cidk_mask_format_list(m, NULL, 0);
	out = malloc(len + 1);
	if (!out) {
		cidk_mask_free(m);
		return cli_error("cpulist: %s", strerror(ENOMEM));
	}
	if (to_hex)
		cidk_mask_format_hex(m, out, len + 1);
	else
		cidk_mask_format_list(m, out, len + 1);
	puts(out);
	free(out);
	cidk_mask_free(m);
	return CLI_EXIT_OK;
}
