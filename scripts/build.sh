#!/bin/sh
# scripts/build.sh DIR [meson options...] - configure once, then build.
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
ninja -C "$dir" >"$dir.ninja.log" 2>&1 || {
	cat "$dir.ninja.log" >&2
	exit 1
}
rm -f "$dir.ninja.log"
