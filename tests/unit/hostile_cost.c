/* SPDX-License-Identifier: MIT */
/*
 * Hostile input costs what its size says (issue 17, findings 1-4): each
 * case runs the input that once exploded and measures it - CPU time for
 * time, getrusage() ru_maxrss for memory - against a limit.
 *
 *   hostile_cost stride   160 KB of "0-65535:1/1" items, a 350-byte list
 *                         at 2^24 bits, and small strides; bit-by-bit
 *                         reference for every pattern shape
 *   hostile_cost spec     65536c:llc=1:die=1:numa=65536 and 16s4096c
 *   hostile_cost resctrl  an online file naming CPU 16777215
 *   hostile_cost fifo     a FIFO (and a directory) where sysfs files belong
 *
 * One case per process (meson runs each): ru_maxrss is a process-wide peak.
 * Under sanitizers times are multiplied by 20 and memory limits by 8, which
 * still catches the old costs (seconds, gigabytes).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cidkit/mask.h>
#include <cidkit/resctrl.h>
#include <cidkit/topo.h>

#include "fake_tree.h"
#include "tap.h"
#include "test_clock.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SLOW 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SLOW 1
#endif
#endif
#ifndef SLOW
#define SLOW 0
#endif
#define TIME_X (SLOW ? 20.0 : 1.0)
#define MEM_X (SLOW ? 8 : 1)

/*
 * Costs are the process's CPU time (test_ms(CLOCK_PROCESS_CPUTIME_ID)),
 * not the wall clock: on a shared 2-CPU machine other jobs (a parallel
 * build, the other test suites) stretch wall time by 2x and more, which
 * made a 100 ms limit flaky; CPU time counts only the work the input
 * causes.  (The test is single-threaded.)  Wall time for the FIFO cases
 * only: a blocking open() costs no CPU time, so only the wall clock shows
 * that the refusal came at once.
 */
static long peak_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* ---- finding 1: strides ------------------------------------------------- */

/* The kernel's meaning of one region, a bit at a time. */
static void ref_region(unsigned char *bits, unsigned int start,
		       unsigned int end, unsigned int used, unsigned int group)
{
	for (unsigned int b = start; b <= end; b++)
		if ((b - start) % group < used)
			bits[b] = 1;
}

static void stride_reference(void)
{
	static const unsigned int sizes[] = { 23, 35, 64, 65, 109, 200, 4097 };
	unsigned int seed = 1, bad = 0, cases = 0;

	for (unsigned int si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		unsigned int nbits = sizes[si];
		struct cidk_mask *m = cidk_mask_alloc(nbits);
		unsigned char *ref = malloc(nbits);

		for (unsigned int i = 0; i < 3000; i++) {
			unsigned int a, b, g, u;
			char s[96];

			seed = seed * 1103515245u + 12345u;
			a = (seed >> 8) % nbits;
			seed = seed * 1103515245u + 12345u;
			b = a + (seed >> 8) % (nbits - a);
			seed = seed * 1103515245u + 12345u;
			g = 1 + (seed >> 8) % (i % 3 ? 70 : 150);
			seed = seed * 1103515245u + 12345u;
			u = 1 + (seed >> 8) % g;
			snprintf(s, sizeof(s), "%u-%u:%u/%u", a, b, u, g);
			memset(ref, 0, nbits);
			ref_region(ref, a, b, u, g);
			cases++;
			if (cidk_mask_parse_list(m, s, NULL)) {
				if (!bad++)
					diag("%s refused", s);
				continue;
			}
			for (unsigned int k = 0; k < nbits; k++)
				if (cidk_mask_test(m, k) != !!ref[k]) {
					if (!bad++)
						diag("%s at %u bits: bit %u differs",
						     s, nbits, k);
					break;
				}
		}
		free(ref);
		cidk_mask_free(m);
	}
	ok(bad == 0, "%u random stride regions agree with the bit-by-bit reference",
	   cases);
}

static void stride_cost(void)
{
	const char item[] = "0-65535:1/1,";
	size_t n = 160 * 1024 / (sizeof(item) - 1), len = n * (sizeof(item) - 1);
	char *s = malloc(len + 1);
	struct cidk_mask *m = cidk_mask_alloc(CIDK_TOPO_MAX_CPUS);
	struct cidk_mask *big = cidk_mask_alloc(CIDK_MASK_MAX_BITS);
	char arg[400];
	double t0, ms;
	int rc;

	for (size_t i = 0; i < n; i++)
		memcpy(s + i * (sizeof(item) - 1), item, sizeof(item) - 1);
	s[len] = '\0';
	t0 = test_ms(CLOCK_PROCESS_CPUTIME_ID);
	rc = cidk_mask_parse_list(m, s, NULL);
	ms = test_ms(CLOCK_PROCESS_CPUTIME_ID) - t0;
	ok(rc == 0 && cidk_mask_weight(m) == 65536 && ms < 100 * TIME_X,
	   "160 KB of 0-65535:1/1 parsed in %.1f ms (limit %.0f; was 9 s)", ms,
	   100 * TIME_X);

	/* the 350-byte command-line argument at 2^24 bits, stride 1/1 and 1/2 */
	arg[0] = '\0';
	for (int i = 0; i < 22; i++)
		strcat(arg, i % 2 ? "0-16777215:1/2," : "0-16777215:1/1,");
	t0 = test_ms(CLOCK_PROCESS_CPUTIME_ID);
	rc = cidk_mask_parse_list(big, arg, NULL);
	ms = test_ms(CLOCK_PROCESS_CPUTIME_ID) - t0;
	ok(rc == 0 && cidk_mask_weight(big) == CIDK_MASK_MAX_BITS &&
		   ms < 200 * TIME_X,
	   "%zu bytes of 2^24-bit strides parsed in %.1f ms (limit %.0f; was 4.5 s)",
	   strlen(arg), ms, 200 * TIME_X);

	/* a small stride the whole width, many times over */
	t0 = test_ms(CLOCK_PROCESS_CPUTIME_ID);
	for (int i = 0; i < 20 && !rc; i++)
		rc = cidk_mask_parse_list(big, "0-16777215:3/7", NULL);
	ms = test_ms(CLOCK_PROCESS_CPUTIME_ID) - t0;
	ok(rc == 0 && ms < 300 * TIME_X &&
		   cidk_mask_weight(big) == 16777216u / 7 * 3 + 1,
	   "20 x 0-16777215:3/7 in %.1f ms (limit %.0f)", ms, 300 * TIME_X);
	free(s);
	cidk_mask_free(m);
	cidk_mask_free(big);
}

/* ---- finding 2: spec shapes --------------------------------------------- */

static void spec_cost(void)
{
	static const char *const specs[] = {
		"65536c:llc=1", "65536c:llc=1:die=1:numa=65536",
		"16s4096c:llc=1:cluster=1:numa=4096", "32768c2t:llc=1",
	};
	long before = peak_kb();

	for (unsigned int i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct cidk_topo_err err;
		struct cidk_topo *t = NULL;
		double t0 = test_ms(CLOCK_PROCESS_CPUTIME_ID), ms;
		bool sane;
		int rc;

		rc = cidk_topo_from_spec(specs[i], &t, &err);
		ms = test_ms(CLOCK_PROCESS_CPUTIME_ID) - t0;
		sane = t && cidk_topo_span_sane(t, NULL);
		ok(rc == 0 && sane && ms < 1000 * TIME_X &&
			   cidk_topo_nr_groups(t, CIDK_TOPO_LLC) ==
				   cidk_topo_nr_cpu_ids(t) /
					   cidk_topo_group_weight(t, CIDK_TOPO_LLC, 0),
		   "%s built and sane in %.0f ms (limit %.0f; was 27 s)",
		   specs[i], ms, 1000 * TIME_X);
		cidk_topo_free(t);
	}
	ok(peak_kb() - before < 64 * 1024 * MEM_X,
	   "peak memory grew by %ld KB (limit %d KB; was 2.1 GB)",
	   peak_kb() - before, 64 * 1024 * MEM_X);
}

/* ---- shared: a scratch sysfs tree --------------------------------------- */

static char base[256];

static void put(const char *rel, const char *text)
{
	fake_write(base, rel, "%s", text);
}

static void cleanup(void)
{
	if (fake_rm(base, ""))
		diag("could not remove %s", base);
}

static void make_base(void)
{
	fake_tmpdir(base, sizeof(base), "hostile", 0);
	atexit(cleanup);
}

/* ---- finding 3: resctrl's CPU map --------------------------------------- */

static void resctrl_cost(void)
{
	static const char *const online[] = { "0-16777215\n", "9999999\n",
					      "0,65536\n",
					      "99999999999999999999999\n" };
	long before;

	make_base();
	before = peak_kb();
	for (unsigned int i = 0; i < sizeof(online) / sizeof(online[0]); i++) {
		struct cidk_resctrl_err err = { "", "" };
		struct cidk_mask *m = NULL;
		double t0, ms;
		int rc;

		put("devices/system/cpu/online", online[i]);
		t0 = test_ms(CLOCK_PROCESS_CPUTIME_ID);
		rc = cidk_resctrl_domain_cpus(base, "L3", 0, &m, &err);
		ms = test_ms(CLOCK_PROCESS_CPUTIME_ID) - t0;
		ok(rc == -ERANGE && !m && ms < 50 * TIME_X &&
			   strstr(err.msg, "beyond"),
		   "online %.*s refused (%s: %s) in %.2f ms", (int)strcspn(online[i], "\n"),
		   online[i], strerror(-rc), err.msg, ms);
		cidk_mask_free(m);
	}
	ok(peak_kb() - before < 8 * 1024 * MEM_X,
	   "peak memory grew by %ld KB (limit %d KB; was 400 MB)",
	   peak_kb() - before, 8 * 1024 * MEM_X);

	/* the largest accepted width still costs O(CIDK_TOPO_MAX_CPUS) */
	{
		struct cidk_mask *m = NULL;
		double t0 = test_ms(CLOCK_PROCESS_CPUTIME_ID), ms;
		int rc;

		put("devices/system/cpu/online", "0,65535\n");
		rc = cidk_resctrl_domain_cpus(base, "L3", 0, &m, NULL);
		ms = test_ms(CLOCK_PROCESS_CPUTIME_ID) - t0;
		ok(rc == 0 && m && m->nbits == 65536 &&
			   ms < 100 * TIME_X,
		   "online 0,65535 accepted: 65536 bits in %.2f ms", ms);
		cidk_mask_free(m);
	}
}

/* ---- finding 4: a FIFO where a file belongs ----------------------------- */

static void fifo(void)
{
	static const char *const tree[][2] = {
		{ "devices/system/cpu/possible", "0-1\n" },
		{ "devices/system/cpu/online", "0-1\n" },
	};
	char path[PATH_MAX];
	struct cidk_topo_err err;
	struct cidk_resctrl_err rerr;
	struct cidk_topo *t = NULL;
	struct cidk_mask *m = NULL;
	double t0, ms;
	int rc;

	make_base();
	for (unsigned int i = 0; i < 2; i++)
		put(tree[i][0], tree[i][1]);

	/* possible as a FIFO with no writer: open() would block for ever */
	snprintf(path, sizeof(path), "%s/devices/system/cpu/possible", base);
	unlink(path);
	if (mkfifo(path, 0644))
		skip_all("mkfifo failed");
	alarm(10); /* a regression hangs: fail it instead of the suite */
	t0 = test_ms(CLOCK_MONOTONIC);
	rc = cidk_topo_from_sysfs(base, &t, &err);
	ms = test_ms(CLOCK_MONOTONIC) - t0;
	ok(rc == -EINVAL && !t && strstr(err.path, "possible") &&
		   strstr(err.msg, "not a regular file") && ms < 100 * TIME_X,
	   "topo: FIFO possible refused in %.2f ms: %s: %s", ms, err.path,
	   err.msg);

	/* online as a FIFO, for resctrl's CPU map */
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", base);
	unlink(path);
	if (mkfifo(path, 0644))
		skip_all("mkfifo failed");
	t0 = test_ms(CLOCK_MONOTONIC);
	rc = cidk_resctrl_domain_cpus(base, "L3", 0, &m, &rerr);
	ms = test_ms(CLOCK_MONOTONIC) - t0;
	ok(rc == -EINVAL && !m && strstr(rerr.path, "online") &&
		   strstr(rerr.msg, "not a regular file") && ms < 100 * TIME_X,
	   "resctrl: FIFO online refused in %.2f ms: %s: %s", ms, rerr.path,
	   rerr.msg);

	/* a directory where possible belongs */
	snprintf(path, sizeof(path), "%s/devices/system/cpu/possible", base);
	unlink(path);
	mkdir(path, 0755);
	rc = cidk_topo_from_sysfs(base, &t, &err);
	ok(rc == -EISDIR && !t && strstr(err.path, "possible") &&
		   strstr(err.msg, "directory"),
	   "topo: directory possible refused: %s", err.msg);
	alarm(0);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	if (!strcmp(what, "stride")) {
		stride_reference();
		stride_cost();
	} else if (!strcmp(what, "spec")) {
		spec_cost();
	} else if (!strcmp(what, "resctrl")) {
		resctrl_cost();
	} else if (!strcmp(what, "fifo")) {
		fifo();
	} else {
		fprintf(stderr, "usage: hostile_cost stride|spec|resctrl|fifo\n");
		return 2;
	}
	return done_testing();
}
