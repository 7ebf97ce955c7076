#!/bin/sh
# scripts/build.sh DIR [meson options...] - configure once, then build.
# BUILD_SUITE=NAME builds only the programs the tests of that suite run
# (from meson's own list of them), not the whole tree.
set -eu
dir=$1
shift
if [ ! -f "$dir/build.ninja" ]; then
	meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || {
		cat "$dir.setup.log" >&2
		exit 1
	}
	rm -f "$dir.setup.log"
fi
targets=
if [ -n "${BUILD_SUITE:-}" ]; then
	targets=$(meson introspect --tests "$dir" | python3 -c '
import json, os, sys
d, suite = sys.argv[1:]
for t in json.load(sys.stdin):
    if any(s.split(":")[-1] == suite for s in t["suite"]):
        print(os.path.relpath(t["cmd"][0], os.path.abspath(d)))
' "$dir" "$BUILD_SUITE" | sort -u)
	[ -n "$targets" ] || {
		echo "build.sh: no test in suite $BUILD_SUITE" >&2
		exit 1
	}
fi
# shellcheck disable=SC2086 # one word per target
ninja -C "$dir" $targets >"$dir.ninja.log" 2>&1 || {
	cat "$dir.ninja.log" >&2
	exit 1
}
rm -f "$dir.ninja.log"
