#!/bin/sh
# cidkit's per-CPU operations against librseq's, side by side in one run
# (bench/vs_librseq.c; docs/percpu.md, "Against librseq").
#
#   scripts/vs-librseq.sh [--src DIR] [-- BENCH-OPTIONS]
#
# librseq is built from its public repository OUTSIDE this tree: --src DIR
# (or LIBRSEQ_SRC) names a checkout; without one it is cloned from
# $LIBRSEQ_GIT (default https://github.com/compudj/librseq.git) into
# ${XDG_CACHE_HOME:-$HOME/.cache}/cidkit/peers/librseq.  It is installed
# (built in a fresh clone, .../peers/librseq-build) into
# .../peers/librseq-inst, and cidkit is built against it in
# build-vs-librseq (buildtype debugoptimized, as the default build).
# BENCH-OPTIONS go to the bench: --threads N --iters N --reps N --json.
set -eu

die() { echo "cidkit: $*" >&2; exit 2; }

here=$(cd "$(dirname "$0")/.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/cidkit/peers
src=${LIBRSEQ_SRC:-}
while [ $# -gt 0 ]; do
	case $1 in
	--src) [ $# -ge 2 ] || die "--src needs a directory"; src=$2; shift 2 ;;
	--src=*) src=${1#--src=}; shift ;;
	--help|-h) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	*) break ;;
	esac
done

"$here/scripts/bootstrap.sh" autoconf automake libtool git >&2
if [ -z "$src" ]; then
	src=$cache/librseq
	if [ ! -d "$src/.git" ]; then
		mkdir -p "$cache"
		git clone -q "${LIBRSEQ_GIT:-https://github.com/compudj/librseq.git}" "$src" ||
			die "cannot clone librseq (set LIBRSEQ_SRC to a checkout)"
	fi
fi
[ -f "$src/configure.ac" ] || die "$src: not a librseq checkout"
prefix=$cache/librseq-inst
if [ ! -f "$prefix/lib/pkgconfig/librseq.pc" ]; then
	echo "vs-librseq: building librseq $(git -C "$src" describe --always 2>/dev/null || echo '?') into $prefix" >&2
	bdir=$cache/librseq-build
	# a fresh copy: the checkout itself may be configured already
	rm -rf "$bdir" && git clone -q "$src" "$bdir" >&2 ||
		die "$src: cannot copy the checkout"
	(cd "$bdir" && ./bootstrap && ./configure -q --prefix="$prefix" --disable-numa &&
		make -s -j2 && make -s install) >&2 ||
		die "librseq did not build (see above)"
fi
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
b=$here/build-vs-librseq
[ -f "$b/build.ninja" ] || meson setup "$b" "$here" >&2
ninja -C "$b" bench/vs_librseq >&2
[ -x "$b/bench/vs_librseq" ] || die "meson did not find librseq in $prefix"
LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$b/bench/vs_librseq" "$@"
