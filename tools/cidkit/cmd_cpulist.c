/* SPDX-License-Identifier: MIT */
/*
 * cidkit cpulist [--nbits N] [--from list|hex|taskset] [--to list|hex|taskset] STRING
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <cidkit/mask.h>

#include "cli.h"
#include "cmds.h"

#define POSSIBLE "/sys/devices/system/cpu/possible"

static const char usage[] =
	"usage: cidkit cpulist [--nbits N] [--from FMT] [--to FMT] STRING\n"
	"\n"
	"Convert a CPU mask between the kernel's cpulist format (0-3,8-11,\n"
	"0-15:2/4), its hex format (ffffffff,0000000f) and taskset's single\n"
	"hex word (0xf0000000f).  Prints the canonical form; exit status 2 and\n"
	"one line on stderr for malformed input or a bit >= N.\n"
	"\n"
	"  --nbits N     width of the mask in bits (1..16777216; default: this\n"
	"                machine's possible CPUs, the last CPU of\n"
	"                " POSSIBLE " + 1)\n"
	"  --from FMT    input format: list (default), hex, or taskset (hex\n"
	"                digits in one word, 0x optional, as taskset -p prints)\n"
	"  --to FMT      output format: list (default), hex, or taskset (0x and\n"
	"                the digits without leading zeros; 0x0 when empty)\n"
	"How each format treats empty words and masks wider than N: docs/mask.md.\n";

enum fmt { FMT_LIST, FMT_HEX, FMT_TASKSET };

static int parse_fmt(const char *what, const char *s, enum fmt *f)
{
	if (!strcmp(s, "list"))
		*f = FMT_LIST;
	else if (!strcmp(s, "hex"))
		*f = FMT_HEX;
	else if (!strcmp(s, "taskset"))
		*f = FMT_TASKSET;
	else
		return cli_error("cpulist: %s: unknown format '%s' (list, hex or taskset)",
				 what, cli_q(s));
	return 0;
}

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
	static const struct option opts[] = {
		{ "nbits", required_argument, NULL, 'n' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum fmt from = FMT_LIST, to = FMT_LIST;
	bool have_nbits = false;
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
			if (parse_fmt("--from", optarg, &from))
				return CLI_EXIT_USAGE;
			break;
		case 't':
			if (parse_fmt("--to", optarg, &to))
				return CLI_EXIT_USAGE;
			break;
		case 'h':
			fputs(usage, stdout);
			return CLI_EXIT_OK;
		default:
			return cli_bad_option("cpulist", argv, c);
		}
	}
	if (argc - optind != 1)
		return cli_error("cpulist: expected one STRING, got %d (see --help)",
				 argc - optind);
	if (!have_nbits && default_nbits(&nbits))
		return CLI_EXIT_USAGE;

	m = cidk_mask_alloc(nbits);
	if (!m)
		return cli_error("cpulist: %s", strerror(errno));
	rc = from == FMT_HEX	   ? cidk_mask_parse_hex(m, argv[optind], &errpos)
	     : from == FMT_TASKSET ? parse_taskset(m, argv[optind], &errpos)
				   : cidk_mask_parse_list(m, argv[optind], &errpos);
	if (rc) {
		char where[40];

		cidk_mask_free(m);
		cli_excerpt(argv[optind] + errpos, where, sizeof(where));
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
