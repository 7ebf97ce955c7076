/* SPDX-License-Identifier: MIT */
/*
 * cidkit cpulist [--nbits N] [--from list|hex|taskset] [--to list|hex|taskset] STRING
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/mask.h>
#include <cidkit/topo.h>

#include "cli.h"
#include "cmds.h"
#include "opt.h"
#include "taskset.h"

#define POSSIBLE "/sys/devices/system/cpu/possible"

static const char about[] =
	"Convert a CPU mask between the kernel's cpulist format (0-3,8-11,\n"
	"0-15:2/4), its hex format (ffffffff,0000000f) and taskset's single\n"
	"hex word (0xf0000000f).  Prints the canonical form; exit status 2 and\n"
	"one line on stderr for malformed input or a bit >= N.\n";

enum fmt { FMT_LIST, FMT_HEX, FMT_TASKSET };

static const struct opt_choice fmts[] = {
	{ "list", FMT_LIST },
	{ "hex", FMT_HEX },
	{ "taskset", FMT_TASKSET },
	{ NULL, 0 },
};

/*
 * This machine's possible CPUs, the last CPU of POSSIBLE + 1
 * (cidk_topo_read_nr_cpu_ids), into *@nbits.  0, or CLI_EXIT_USAGE after one
 * line.
 */
static int default_nbits(unsigned int *nbits)
{
	struct cidk_topo_err err = { "", "" };
	int nr = cidk_topo_read_nr_cpu_ids(NULL, &err);

	if (nr < 0)
		return cli_error("cpulist: no --nbits, and %s: %s", err.path,
				 err.msg);
	*nbits = (unsigned int)nr;
	return 0;
}

int cmd_cpulist(int argc, char **argv)
{
	int from = FMT_LIST, to = FMT_LIST;
	unsigned int nbits = 0;
	struct cidk_mask *m;
	size_t errpos = 0, len;
	char *out;
	struct opt opts[] = {
		{ OPT_UINT("nbits", 'n', &nbits, 1, CIDK_MASK_MAX_BITS, "N",
			   "width of the mask in bits"),
		  .def = "this machine's possible CPUs, the last CPU of " POSSIBLE
			 " + 1" },
		{ OPT_ENUM("from", 'f', &from, fmts, "FMT",
			   "input format; taskset: hex digits in one word, 0x "
			   "optional, as taskset -p prints") },
		{ OPT_ENUM("to", 't', &to, fmts, "FMT",
			   "output format; taskset: 0x and the digits without "
			   "leading zeros, 0x0 when empty") },
		{ .type = OT_END },
	};
	struct opt_cmd cmd = {
		"cpulist", about,
		"How each format treats empty words and masks wider than N: "
		"docs/mask.md.\n",
		"STRING", 1, 1, opts,
	};
	bool have_nbits;
	int rc, first;

	rc = opt_parse(&cmd, argc, argv, &first);
	if (rc)
		return opt_status(rc);
	have_nbits = opt_given(&cmd, "nbits");
	if (!have_nbits && default_nbits(&nbits))
		return CLI_EXIT_USAGE;

	m = cidk_mask_alloc(nbits);
	if (!m)
		return cli_error("cpulist: %s", strerror(errno));
	rc = from == FMT_HEX	   ? cidk_mask_parse_hex(m, argv[first], &errpos)
	     : from == FMT_TASKSET ? taskset_parse(m, argv[first], &errpos)
				   : cidk_mask_parse_list(m, argv[first], &errpos);
	if (rc) {
		char where[40];

		cidk_mask_free(m);
		cli_excerpt(argv[first] + errpos, where, sizeof(where));
		if (rc == -ERANGE)
			return cli_error("cpulist: '%s' at offset %zu: bit or number out of range for --nbits %u%s",
					 where, errpos, nbits,
					 have_nbits ? "" : " (this machine's possible CPUs)");
		return cli_error("cpulist: '%s' at offset %zu: malformed %s",
				 where, errpos,
				 from == FMT_HEX ? "hex mask"
				 : from == FMT_TASKSET ? "taskset mask (hex digits, 0x optional)"
						       : "cpulist");
	}
	if (to == FMT_TASKSET) {
		out = taskset_format(m);
	} else {
		len = to == FMT_HEX ? cidk_mask_format_hex(m, NULL, 0)
				    : cidk_mask_format_list(m, NULL, 0);
		out = malloc(len + 1);
		if (out && to == FMT_HEX)
			cidk_mask_format_hex(m, out, len + 1);
		else if (out)
			cidk_mask_format_list(m, out, len + 1);
	}
	if (!out) {
		cidk_mask_free(m);
		return cli_error("cpulist: %s", strerror(ENOMEM));
	}
	puts(out);
	free(out);
	cidk_mask_free(m);
	return CLI_EXIT_OK;
}
