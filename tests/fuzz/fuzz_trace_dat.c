/* SPDX-License-Identifier: MIT */
/*
 * trace-cmd's trace.dat reader (trace/dat.c through libtracecmd, chosen by
 * trace/reader.c from the magic) on any bytes, given as a seekable file
 * (a memfd).  Properties: an input that does not start with the magic is
 * never read as a trace.dat, and one that does is never read as text; the
 * reader ends (0) or refuses (-EINVAL, -ENOMEM, -EIO, -ENOTSUP), nothing
 * else; every event's CPU is below the file's CPU count; events come in
 * timestamp order (the per-CPU merge); the record count never goes back.
 * Built without libtracecmd, a trace.dat is -ENOTSUP at the open.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cidkit/trace.h>

#include "fuzz.h"

#define MAX_EVENTS 100000

static const char magic[] = "\027\010\104tracing";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-trace-dat", 0);
	bool is_magic = size >= 10 && !memcmp(data, magic, 10);
	struct cidk_trace_reader *r = NULL;
	struct cidk_trace_event ev;
	unsigned long last_rec = 0;
	uint64_t last_ts = 0;
	FILE *f;
	int rc;

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	lseek(fd, 0, SEEK_SET);
	f = fdopen(fd, "r");
	if (!f)
		abort();
	rc = cidk_trace_reader_open(f, &r);
	if (rc) {
		/* only a trace.dat can be refused at the open */
		FUZZ_CHECK(size && data[0] == magic[0]);
		FUZZ_CHECK(rc == -EINVAL || rc == -ENOMEM || rc == -EIO ||
			   rc == -ENOTSUP);
		fclose(f);
		return 0;
	}
	FUZZ_CHECK(cidk_trace_reader_is_dat(r) == is_magic);
	if (!is_magic) { /* text: fuzz_trace's */
		cidk_trace_reader_close(r);
		fclose(f);
		return 0;
	}
	for (int i = 0; i < MAX_EVENTS; i++) {
		const struct cidk_trace_info *info;

		rc = cidk_trace_reader_next(r, &ev);
		FUZZ_CHECK(rc == 1 || rc == 0 || rc == -EINVAL || rc == -ENOMEM);
		FUZZ_CHECK(cidk_trace_reader_line(r) >= last_rec);
		last_rec = cidk_trace_reader_line(r);
		if (rc != 1)
			break;
		info = cidk_trace_reader_info(r);
		FUZZ_CHECK(info->nr_cpus > 0 && ev.cpu < info->nr_cpus);
		FUZZ_CHECK(ev.ts_ns >= last_ts);
		last_ts = ev.ts_ns;
		FUZZ_CHECK(ev.kind < CIDK_TRACE_NR_KINDS && ev.tgid == -1);
	}
	cidk_trace_reader_close(r);
	fclose(f);
	return 0;
}
