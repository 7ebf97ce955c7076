/* SPDX-License-Identifier: MIT */
/*
 * Replay a corpus through one harness, deterministically, without
 * libFuzzer: replay FILE|DIR...  Each file is one input; directories are
 * read one level deep, in name order.  Prints TAP: one line per file.
 * A broken property aborts (the harness's fuzz_fail), and the last
 * "# replaying" line names the input.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

/*
 * Harnesses capture or silence fd 2 around the code under test (fuzz_cli,
 * fuzz_opt); a sanitizer's report written then would be lost, so reports
 * go to a copy of the original standard error.  Every sanitizer runtime
 * of the process has its own report fd: gcc links ASan and UBSan as two
 * libraries, so each is told, each with its own copy (a runtime may close
 * the fd it was given before reopening its report file).  Clang's one
 * runtime is in the program: dlsym finds it first.
 */
static void reports_to_stderr_copy(void)
{
	static const char *const rt[] = { NULL, "libasan.so.8", "libasan.so.6",
					   "libubsan.so.1" };

	for (size_t i = 0; i < sizeof(rt) / sizeof(rt[0]); i++) {
		void *h = rt[i] ? dlopen(rt[i], RTLD_NOW | RTLD_NOLOAD)
				: RTLD_DEFAULT;
		void (*set)(void *);
		int fd;

		if (!h)
			continue;
		set = (void (*)(void *))dlsym(h, "__sanitizer_set_report_fd");
		if (set && (fd = dup(2)) >= 0)
			set((void *)(intptr_t)fd);
		if (rt[i])
			dlclose(h);
	}
}

static unsigned int count;

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		printf("not ok %u - %s: cannot open\n", ++count, path);
		return 1;
	}
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 4096;
			if (!(buf = realloc(buf, cap)))
				abort();
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	printf("# replaying %s\n", path);
	fflush(stdout);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	printf("ok %u - %s (%zu bytes)\n", ++count, path, len);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir)
{
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int bad = 0;
	DIR *d = opendir(dir);

	if (!d) {
		printf("not ok %u - %s: cannot open\n", ++count, dir);
		return 1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap && !(names = realloc(names, (cap = cap ? 2 * cap : 64) *
							    sizeof(*names))))
			abort();
		if (!(names[n] = malloc(strlen(dir) + strlen(de->d_name) + 2)))
			abort();
		sprintf(names[n++], "%s/%s", dir, de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp);
	for (size_t i = 0; i < n; i++) {
		bad |= replay_file(names[i]);
		free(names[i]);
	}
	free(names);
	if (!n)
		printf("not ok %u - %s: empty corpus\n", ++count, dir), bad = 1;
	return bad;
}

int main(int argc, char **argv)
{
	int bad = 0;

	reports_to_stderr_copy();

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (!stat(argv[i], &st) && S_ISDIR(st.st_mode))
			bad |= replay_dir(argv[i]);
		else
			bad |= replay_file(argv[i]);
	}
	printf("1..%u\n", count);
	return bad || !count;
}
