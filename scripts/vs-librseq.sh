#!/bin/sh
# cidkit's per-CPU operations against librseq's, side by side in one run
# (bench/vs_librseq.c; docs/percpu.md, "Against librseq").
#
#   scripts/vs-librseq.sh [--src DIR] [--guest KERNEL] [-- BENCH-OPTIONS]
#
# --guest KERNEL runs it in an arm64 guest of the kernel lab instead
# (scripts/kernel-lab; under TCG only the ratios mean anything): librseq
# and the bench cross-built, linked against the guest's glibc dynamically
# (librseq finds glibc's rseq registration with dlsym, which a static
# binary cannot), the loader and libc copied into the guest.
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
guest=
while [ $# -gt 0 ]; do
	case $1 in
	--src) [ $# -ge 2 ] || die "--src needs a directory"; src=$2; shift 2 ;;
	--src=*) src=${1#--src=}; shift ;;
	--guest) [ $# -ge 2 ] || die "--guest needs a kernel (kernel-lab list)"; guest=$2; shift 2 ;;
	--guest=*) guest=${1#--guest=}; shift ;;
	--help|-h) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option $1 (--help)" ;;
	*) die "unexpected argument $1 (bench options go after --)" ;;
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
if [ -n "$guest" ]; then
	cross=aarch64-linux-gnu
	prefix=$cache/librseq-arm64-inst
	if [ ! -f "$prefix/lib/librseq.a" ]; then
		bdir=$cache/librseq-arm64-build
		rm -rf "$bdir" && git clone -q "$src" "$bdir" >&2 ||
			die "$src: cannot copy the checkout"
		# the library and headers only: its tests need a C++ cross compiler
		(cd "$bdir" && ./bootstrap && ./configure -q --host=$cross \
			--prefix="$prefix" --disable-numa --disable-shared &&
			make -s -C src -j2 && make -s -C src install &&
			make -s -C include install) >&2 ||
			die "librseq did not cross-build (see above)"
	fi
	python3 -c "import sys; sys.path.insert(0, '$here/scripts')
from kernel_lab import guest; guest.build_programs('arm64')" >&2 ||
		die "the arm64 guest build failed"
	g=${CIDKIT_GUEST_BUILD_ARM64:-$here/build-guest-arm64}
	ninja -C "$g" lib/libcidkit.a bench/libcidkit_bench.a >&2
	out=$g/bench/vs_librseq
	$cross-gcc -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror \
		-I"$here/include" -I"$here/lib" -I"$here/bench" -I"$prefix/include" \
		"$here/bench/vs_librseq.c" "$g/bench/libcidkit_bench.a" \
		"$g/lib/libcidkit.a" "$prefix/lib/librseq.a" -lpthread -o "$out" ||
		die "the arm64 bench did not build"
	libs=/usr/$cross/lib
	exec "$here/scripts/kernel-lab" run --kernel "$guest" --arch arm64 \
		--smp 2 --timeout 900 --file "$out:/bin/vs_librseq" \
		--file "$libs/ld-linux-aarch64.so.1:/lib/ld-linux-aarch64.so.1" \
		--file "$libs/libc.so.6:/lib/libc.so.6" -- vs_librseq "$@"
fi
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
