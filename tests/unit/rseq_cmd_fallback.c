/* SPDX-License-Identifier: MIT */
/*
 * `cidkit cid` on a thread whose rseq registration is impossible: the main
 * thread registers a foreign area first (run without glibc's registration,
 * GLIBC_TUNABLES=glibc.pthread.rseq=0, so that the kernel accepts it), then
 * runs the subcommand.  It must say that mm_cid is unavailable, still show
 * every thread's CPUs, and exit 0 - in the table and in JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cidkit/rseq.h>

#include "cmds.h"
#include "tap.h"

static struct cidk_rseq_abi foreign __attribute__((aligned(32)));

/* Run cmd_cid with @args, stdout into @buf; returns its exit status. */
static int run_cid(char **args, int argc, char *buf, size_t size)
{
	FILE *f = tmpfile();
	int saved = dup(1), rc;
	size_t n;

	if (!f || saved < 0)
		return -1;
	fflush(stdout);
	dup2(fileno(f), 1);
	rc = cmd_cid(argc, args);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = 0;
	fclose(f);
	return rc;
}

int main(void)
{
	static char out[65536], copy[65536];
	char a0[] = "cid", a1[] = "--threads", a2[] = "3", a3[] = "--duration",
	     a4[] = "50", a5[] = "--json";
	char *human[] = { a0, a1, a2, a3, a4, NULL };
	char *json[] = { a0, a1, a2, a3, a4, a5, NULL };
	struct cidk_rseq_info info;
	int rc, rows = 0;

	if (__rseq_size)
		skip_all("glibc registered rseq; run with GLIBC_TUNABLES=glibc.pthread.rseq=0");
	foreign.cpu_id = (uint32_t)-1;
	if (syscall(__NR_rseq, &foreign, (unsigned int)sizeof(foreign), 0,
		    0x53053053u))
		skip_all("rseq(2) unavailable: the fallback is the only path");
	cidk_rseq_info(&info);
	ok(info.owner == CIDK_RSEQ_NONE && !info.has_mm_cid,
	   "main thread: no area of ours, no mm_cid");

	rc = run_cid(human, 5, out, sizeof(out));
	ok(rc == 0, "table: exit 0 (%d)", rc);
	memcpy(copy, out, sizeof(out));
	for (char *l = strtok(copy, "\n"); l; l = strtok(NULL, "\n"))
		diag("%s", l);
	ok(strstr(out, "mm_cid unavailable: no rseq area") != NULL,
	   "table says why mm_cid is unavailable");
	ok(strstr(out, "\nmm_cid: unavailable") != NULL,
	   "summary says mm_cid: unavailable");
	for (char *p = out; (p = strstr(p, "\n     ")) != NULL; p++) {
		unsigned int id;
		char cpus[64], cids[64];

		if (sscanf(p + 1, "%u %*u %63s %63s", &id, cpus, cids) == 3 &&
		    strcmp(cpus, "-") && !strcmp(cids, "-"))
			rows++;
	}
	ok(rows == 3, "3 thread rows with CPUs and no mm_cids (%d)", rows);

	rc = run_cid(json, 6, out, sizeof(out));
	ok(rc == 0, "json: exit 0 (%d)", rc);
	ok(strstr(out, "\"registered_by\": \"none\"") &&
		   strstr(out, "\"mm_cid\": false") &&
		   strstr(out, "\"max_mm_cid\": null") &&
		   strstr(out, "\"register_error\": 22"),
	   "json: registered_by none, mm_cid false, max null, error EINVAL");
	syscall(__NR_rseq, &foreign, (unsigned int)sizeof(foreign), 1,
		0x53053053u);
	return done_testing();
}
