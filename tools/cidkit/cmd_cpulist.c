/* SPDX-License-Identifier: MIT */
/*
 * cidkit cpulist [--nbits N] [--from list|hex|taskset] [--to list|hex|taskset] STRING
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/mask.h>

#include "cli.h"
#include "cmds.h"
#include "opt.h"

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
 * This machine's possible CPUs: the last CPU of POSSIBLE + 1, into *@nbits.
 * 0, or CLI_EXIT_USAGE after one line.
 */
static int default_nbits(unsigned int *nbits)
{
	char buf[4096];
	struct cidk_mask *m = cidk_mask_alloc(CIDK_MASK_MAX_BITS);
	size_t n = 0, pos = 0;
	FILE *f;
	int rc;

	if (!m)
		return cli_error("cpulist: %s", strerror(ENOMEM));
	f = fopen(POSSIBLE, "re");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	rc = f ? cidk_mask_parse_list(m, buf, &pos) : -errno;
	*nbits = cidk_mask_last(m) + 1;
	cidk_mask_free(m);
	if (!f)
		return cli_error("cpulist: no --nbits, and %s: %s", POSSIBLE,
				 strerror(-rc));
	if (rc || !*nbits || *nbits > CIDK_MASK_MAX_BITS)
		return cli_error("cpulist: no --nbits, and %s does not read as a cpulist",
				 POSSIBLE);
	return 0;
}

/*
 * taskset's form: [0x|0X] hex digits, one word, most significant first;
 * leading zeros may go beyond @m's width, a set bit may not.  Returns 0,
 * -EINVAL (malformed) or -ERANGE, with *@errpos.  O(length).
 */
static int parse_taskset(struct cidk_mask *m, const char *s, size_t *errpos)
{
	size_t start = (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 2 : 0;
	size_t len = strcspn(s, "\n");

	cidk_mask_zero(m);
	if (s[len] == '\n' && s[len + 1]) {
		*errpos = len;
		return -EINVAL;
	}
	if (len == start) {
		*errpos = len;
		return -EINVAL;
	}
	for (size_t i = len; i-- > start;) {
		char c = s[i];
		unsigned int d, digit = (unsigned int)(len - 1 - i);

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else {
			*errpos = i;
			return -EINVAL;
		}
		for (unsigned int b = 0; b < 4; b++) {
			if (!(d & (1u << b)))
				continue;
			if (digit >= (m->nbits + 3) / 4 ||
			    4 * digit + b >= m->nbits) {
				*errpos = i;
				return -ERANGE;
			}
			cidk_mask_set(m, 4 * digit + b);
		}
	}
	return 0;
}

/* "0x" and the hex digits of @m without leading zeros ("0x0": empty). */
static char *format_taskset(const struct cidk_mask *m)
{
	unsigned int last = cidk_mask_last(m);
	unsigned int digits = last >= m->nbits ? 1 : last / 4 + 1;
	char *out = malloc(digits + 3);

	if (!out)
		return NULL;
	out[0] = '0';
	out[1] = 'x';
	for (unsigned int i = 0; i < digits; i++) {
		unsigned int d = 0, digit = digits - 1 - i;

		for (unsigned int b = 0; b < 4; b++)
			if (4 * digit + b < m->nbits && cidk_mask_test(m, 4 * digit + b))
				d |= 1u << b;
		out[2 + i] = "0123456789abcdef"[d];
	}
	out[2 + digits] = '\0';
	return out;
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
	     : from == FMT_TASKSET ? parse_taskset(m, argv[first], &errpos)
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
		out = format_taskset(m);
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
