#!/bin/sh
# tests/install/install.sh - what a user of the installed library does,
# done to a `meson install --destdir` in a temporary folder: build the two
# examples with `pkg-config --cflags --libs cidkit` against it, run them
# against the installed libcidkit.so and check what they print against
# values worked out outside the library (tests/install/examples.sh:
# topo_walk against the saved trees' hand-worked groups, and /sys read in
# Python); check the
# soname, the headers, the man pages and the installed command (with its
# cidkit-check helper).  Speaks TAP.
#   install.sh MESON BUILD_ROOT SOURCE_ROOT VERSION CC SANITIZE
set -u
MESON=$1 BUILD=$2 SRC=$3 VERSION=$4 CC=$5 SANITIZE=$6

. "$SRC/tests/cli/tap.sh"

dest=$tmp/dest
"$MESON" install -C "$BUILD" --no-rebuild --destdir "$dest" >"$tmp/install.log" 2>&1
ok $? "meson install --destdir" "$tmp/install.log"

# Where meson put things (libdir is multiarch on Debian).
pc=$(find "$dest" -name cidkit.pc | head -1)
ok $([ -n "$pc" ]; echo $?) "cidkit.pc installed"
libdir=$(dirname "$(dirname "$pc")")
prefix=$(dirname "$(find "$dest" -type d -name include | head -1)")

# The shared library: real file, soname link, dev link; soname libcidkit.so.1.
[ -f "$libdir/libcidkit.so.1.0.0" ] && [ -L "$libdir/libcidkit.so.1" ] &&
	[ -L "$libdir/libcidkit.so" ]
ok $? "libcidkit.so.1.0.0 with links libcidkit.so.1 and libcidkit.so"
soname=$(readelf -d "$libdir/libcidkit.so.1.0.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
ok $([ "$soname" = libcidkit.so.1 ]; echo $?) "soname is libcidkit.so.1 (got '$soname')"

# Every header of include/cidkit (and of its arch/ folder, the per-CPU
# critical sections percpu.h includes) except the lab's sim.h and trace.h,
# byte for byte.
(cd "$SRC/include/cidkit" && ls *.h arch/*.h | grep -v -e '^sim\.h$' -e '^trace\.h$') >"$tmp/want.h"
(cd "$prefix/include/cidkit" && ls *.h arch/*.h) >"$tmp/got.h"
diff "$tmp/want.h" "$tmp/got.h" >"$tmp/hdiff" 2>&1 &&
	for h in $(cat "$tmp/want.h"); do
		cmp -s "$SRC/include/cidkit/$h" "$prefix/include/cidkit/$h" || exit 1
	done
ok $? "headers installed: include/cidkit/*.h and arch/*.h without the lab's sim.h and trace.h" "$tmp/hdiff"

# Man pages: present, and groff renders them without a warning.
for page in man1/cidkit.1 man3/libcidkit.3; do
	f=$prefix/share/man/$page
	[ -s "$f" ] && groff -man -Tutf8 -ww -z "$f" >"$tmp/groff" 2>&1 &&
		[ ! -s "$tmp/groff" ]
	ok $? "man page $page installed, renders without warnings" "$tmp/groff"
done

# pkg-config, pointed at the install (SYSROOT maps its /usr/local paths).
export PKG_CONFIG_PATH="$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest"
ver=$(pkg-config --modversion cidkit)
ok $([ "$ver" = "$VERSION" ]; echo $?) "pkg-config --modversion cidkit = $VERSION (got '$ver')"
flags=$(pkg-config --cflags --libs cidkit)
case "$flags" in
*"-I$prefix/include"*"-L$libdir"*-lcidkit*) r=0 ;;
*) r=1 ;;
esac
ok $r "pkg-config --cflags --libs points into the install: $flags"

# Build the examples as a user would (sanitizer builds: the library needs
# its runtime linked first, so the examples get the same -fsanitize).
san=""
[ "$SANITIZE" != none ] && san="-fsanitize=$SANITIZE"
for ex in percpu_counter percpu_freelist topo_walk; do
	# shellcheck disable=SC2086
	"$CC" -std=c11 -O2 -Wall -Wextra -Werror $san \
		"$SRC/examples/$ex.c" $flags -pthread -o "$tmp/$ex" >"$tmp/cc.log" 2>&1
	ok $? "examples/$ex.c builds with pkg-config --cflags --libs cidkit" "$tmp/cc.log"
done

export LD_LIBRARY_PATH="$libdir"
ldd "$tmp/percpu_counter" >"$tmp/ldd" 2>&1
grep -q "libcidkit.so.1 => $libdir/libcidkit.so.1 " "$tmp/ldd"
ok $? "the example loads the installed libcidkit.so.1" "$tmp/ldd"

# The newcomer's counter and freelist against the installed library, in
# the default environment: exact every round (it checks itself, exit 1 on
# any loss), and it names the path it ran.
env -u CIDK_PERCPU "$tmp/percpu_freelist" 4 5 20000 >"$tmp/pf.out" 2>&1
rc=$?
grep -q "^exact: counter 400000," "$tmp/pf.out" && [ $rc -eq 0 ]
ok $? "percpu_freelist: 4 threads x 5 rounds x 20000 operations exact (exit $rc)" "$tmp/pf.out"

# What the counter and topo_walk print, held to values from outside the
# library (tests/install/examples.sh, shared with the library-only test).
. "$SRC/tests/install/examples.sh"
examples_check "$tmp/percpu_counter" "$tmp/topo_walk" ""

# The installed command finds its installed cidkit-check (bin/../libexec).
cidkit=$prefix/bin/cidkit
[ -x "$prefix/libexec/cidkit/cidkit-check" ]
ok $? "cidkit-check installed in libexec/cidkit"
env -u CIDKIT_CHECK "$cidkit" check --list >"$tmp/check.out" 2>&1 &&
	[ "$(wc -l <"$tmp/check.out")" -ge 3 ]
ok $? "installed cidkit check --list runs the installed cidkit-check" "$tmp/check.out"
# ... and that one, not another: without it, the command says so.
mv "$prefix/libexec/cidkit/cidkit-check" "$tmp/cidkit-check.away"
env -u CIDKIT_CHECK "$cidkit" check --list >"$tmp/check.out" 2>&1
[ $? -eq 2 ] && grep -q "^cidkit: " "$tmp/check.out"
ok $? "without the installed cidkit-check: one cidkit: line, exit 2" "$tmp/check.out"

done_testing
