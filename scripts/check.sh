#!/bin/sh
# scripts/check.sh - build and test three ways, then print one summary line.
#   build       gcc, -O2: every suite
#   build-asan  gcc, AddressSanitizer + UndefinedBehaviorSanitizer: every suite
#   build-tsan  clang, ThreadSanitizer: the concurrent code (stress suite)
# The last line is "N passed, N failed" (test programs, over all builds).
set -u
cd "$(dirname "$0")/.."

passed=0
failed=0
skipped=0

tally() { # tally BUILD-DIR LABEL
	log="$1/meson-logs/testlog.json"
	if [ ! -f "$log" ]; then
		echo "check: $2: no test log" >&2
		failed=$((failed + 1))
		return
	fi
	set -- $(python3 - "$log" <<'PY'
import json, sys
p = f = s = 0
for line in open(sys.argv[1]):
    r = json.loads(line).get("result")
    if r in ("OK", "EXPECTEDFAIL"):
        p += 1
    elif r == "SKIP":
        s += 1
    else:
        f += 1
print(p, f, s)
PY
)
	passed=$((passed + $1))
	failed=$((failed + $2))
	skipped=$((skipped + $3))
}

run_suite() { # run_suite DIR LABEL [meson test args]
	dir=$1
	label=$2
	shift 2
	echo "== $label"
	if ! scripts/build.sh "$dir" $SETUP; then
		echo "check: $label: build failed" >&2
		failed=$((failed + 1))
		return
	fi
	rm -f "$dir/meson-logs/testlog.json"
	meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" |
		grep -E '^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped|Timeout):' || true
	tally "$dir" "$label"
}

SETUP=""
run_suite build "gcc -O2 (all suites)"

SETUP="-Db_sanitize=address,undefined -Db_lundef=false -Dc_args=-fno-sanitize-recover=all"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	run_suite build-asan "gcc ASan+UBSan (all suites)"

SETUP="-Db_sanitize=thread -Db_lundef=false"
CC=clang TSAN_OPTIONS=halt_on_error=1 \
	run_suite build-tsan "clang TSan (stress suite)" --suite stress

echo "skipped: $skipped (a feature this machine lacks; see the logs)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
