#!/bin/sh
# scripts/check.sh - build and test three ways, then print one summary line.
#   build       gcc, -O2: every suite (kernels -- guests under QEMU -- only here)
#   build-asan  gcc, AddressSanitizer + UndefinedBehaviorSanitizer: every suite
#   build-tsan  clang, ThreadSanitizer: the concurrent code (stress suite)
# The last two lines (CI greps the last one; keep its form):
#   N skipped (a feature this machine lacks: the test printed 1..0 # SKIP)
#   N passed, N failed
# counted over the test programs of all builds.  The full log of every
# failed test (stdout and stderr, unfiltered) is printed after its suite.
set -u
cd "$(dirname "$0")/.."

passed=0
failed=0
skipped=0

tally() { # tally BUILD-DIR LABEL: count the results; print each failure's full log
	log="$1/meson-logs/testlog.json"
	if [ ! -f "$log" ]; then
		echo "check: $2: no test log" >&2
		failed=$((failed + 1))
		return
	fi
	set -- $(python3 - "$log" "$2" <<'PY'
import json, sys
p = f = s = 0
for line in open(sys.argv[1]):
    t = json.loads(line)
    r = t.get("result")
    if r in ("OK", "EXPECTEDFAIL"):
        p += 1
    elif r == "SKIP":
        s += 1
        why = [l for l in (t.get("stdout") or "").splitlines() if "# SKIP" in l]
        print(f"check: {sys.argv[2]}: {t.get('name')} skipped: "
              f"{why[0] if why else '(no reason printed)'}", file=sys.stderr)
    else:
        f += 1
        # The whole log of the failed test, unfiltered, on stderr (so that
        # stdout stays the numbers the shell reads).
        e = sys.stderr
        print(f"==== FAILED ({sys.argv[2]}): {t.get('name')}: {r}, "
              f"exit {t.get('returncode')}, {t.get('duration', 0):.1f} s", file=e)
        print("$ " + " ".join(t.get("command") or []), file=e)
        for k in ("stdout", "stderr"):
            if t.get(k):
                print(f"---- {k}", file=e)
                e.write(t[k] if t[k].endswith("\n") else t[k] + "\n")
        print(f"==== end of {t.get('name')}", file=e)
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
	# One progress line per test here; the full log of each failed test
	# is printed by tally, from meson's own record of it.
	meson test -C "$dir" --num-processes 2 "$@" |
		grep -E '^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped|Timeout):' || true
	tally "$dir" "$label"
}

SETUP=""
run_suite build "gcc -O2 (all suites)"

SETUP="-Db_sanitize=address,undefined -Db_lundef=false -Dc_args=-fno-sanitize-recover=all"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	run_suite build-asan "gcc ASan+UBSan (all suites)"

# Only what the stress suite runs is built under TSan (the rest of the
# tree compiled there took a minute for nothing), and meson test must not
# rebuild the rest behind it.
SETUP="-Db_sanitize=thread -Db_lundef=false"
CC=clang TSAN_OPTIONS=halt_on_error=1 BUILD_SUITE=stress \
	run_suite build-tsan "clang TSan (stress suite)" --suite stress --no-rebuild

echo "$skipped skipped (a feature this machine lacks: 1..0 # SKIP in the test's log)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
