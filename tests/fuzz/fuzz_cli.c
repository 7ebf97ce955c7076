/* SPDX-License-Identifier: MIT */
/*
 * The command's value helpers (tools/cli/cli.c) on any bytes: cli_q,
 * the one escaping helper for user text in errors, and the number
 * parsers.  Properties: cli_q's output has no control byte and a bounded
 * length, and is the input itself when that is short and plain;
 * cli_parse_u64 accepts exactly the decimal strings that fit, with their
 * value; cli_parse_double accepts only digits and one point.
 */
#include <fcntl.h>
#include <unistd.h>

#include "cli.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int null_fd = -1;
	char *s = fuzz_str(data, size);
	const char *q = cli_q(s);
	size_t len = strlen(s), qlen = strlen(q);
	bool plain = len <= 80, digits = len > 0, decimal = len > 0;
	unsigned __int128 ref = 0;
	unsigned int dots = 0;
	uint64_t v = 0;
	double d = 0;
	int saved, rc;

	for (size_t i = 0; i < qlen; i++)
		FUZZ_CHECK((unsigned char)q[i] >= 0x20 && q[i] != 0x7f);
	FUZZ_CHECK(qlen <= 4 * 80 + 3);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		plain &= c >= 0x20 && c != 0x7f && c != '\\';
		digits &= c >= '0' && c <= '9';
		dots += c == '.';
		decimal &= (c >= '0' && c <= '9') || c == '.';
		if (digits && ref <= UINT64_MAX)
			ref = ref * 10 + (c - '0');
	}
	decimal &= dots <= 1 && len > dots;
	if (plain)
		FUZZ_CHECK(!strcmp(q, s));

	/* the parsers print their one line: not into the fuzzer's log */
	if (null_fd < 0)
		null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	fflush(stderr);
	saved = dup(2);
	dup2(null_fd, 2);
	rc = cli_parse_u64("fuzz", s, 0, UINT64_MAX, &v);
	FUZZ_CHECK((rc == 0) == (digits && ref <= UINT64_MAX));
	FUZZ_CHECK(rc != 0 || v == (uint64_t)ref);
	rc = cli_parse_double("fuzz", s, 0, 1e300, &d);
	FUZZ_CHECK(rc != 0 || decimal);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	free(s);
	return 0;
}
