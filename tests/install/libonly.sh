#!/bin/sh
# tests/install/libonly.sh - the library alone, as someone who ships it
# builds it: a fresh `meson setup -Dlab=false` of the source tree in a
# temporary folder, compiled and installed with --destdir; then
#   - the install holds the library's files and nothing of the lab (no
#     cidkit command, no cidkit-check, no cidkit(1), no examples), and the
#     build defines no lab target and no test outside the unit suite;
#   - libcidkit.a is installed, and exports (default visibility) exactly
#     what libcidkit.so exports: its internals stay hidden in a user's own
#     shared library too;
#   - `pkg-config --static --libs cidkit` adds Libs.private (-pthread -lm);
#   - the two examples built against it three ways -- shared
#     (pkg-config --libs), fully static (-static, pkg-config --static) and
#     with the archive named (libcidkit.a, libc shared) -- print what the
#     full install test expects (tests/install/examples.sh); the static
#     ones need no libcidkit.so (ldd, readelf) and run with it removed.
# Speaks TAP.  Costs a library build without its tests: 9.9 s and 18.5 s
# of wall clock in two runs of meson test on the shared two-core machine
# (load 2-3.6; 6 s and 15 s of it the build).
#   libonly.sh MESON SOURCE_ROOT CC
set -u
MESON=$1 SRC=$2 CC=$3

. "$SRC/tests/cli/tap.sh"
. "$SRC/tests/install/examples.sh"

build=$tmp/build dest=$tmp/dest
t0=$(date +%s)
CC=$CC "$MESON" setup "$build" "$SRC" -Dlab=false >"$tmp/setup.log" 2>&1
ok $? "meson setup -Dlab=false" "$tmp/setup.log"
# What is installed, not the unit tests' programs (half the objects; the
# plain build runs those tests); two jobs: make check runs two tests at a
# time on a two-core machine.
"$MESON" compile -C "$build" -j 2 cidkit:shared_library cidkit:static_library \
	libcidkit.3:custom >"$tmp/compile.log" 2>&1
ok $? "meson compile: libcidkit.so, libcidkit.a, libcidkit.3 (library-only build)" "$tmp/compile.log"
"$MESON" install -C "$build" --no-rebuild --destdir "$dest" >"$tmp/install.log" 2>&1
ok $? "meson install --destdir (library-only build)" "$tmp/install.log"
echo "# library-only setup + compile + install: $(($(date +%s) - t0)) s"

# Only the library's targets and tests: no lab target was even defined
# but labutil/ (prng, stats: the unit tests' random cases; not installed).
"$MESON" introspect --targets "$build" | python3 -c '
import json, sys
lib = {("cidkit", "shared library"), ("cidkit", "static library"),
       ("libcidkit.3", "custom"), ("cidkit_labutil", "static library"),
       ("cidkit-test-support", "static library")}  # tests/support, not installed
extra = sorted("%s (%s)" % (t["name"], t["type"]) for t in json.load(sys.stdin)
               if (t["name"], t["type"]) not in lib
               and not (t["type"] == "executable" and t["name"].startswith("test_")))
if extra:
    print("\n".join(extra))
' >"$tmp/targets" 2>&1
ok $([ ! -s "$tmp/targets" ]; echo $?) \
	"targets: libcidkit.so, libcidkit.a, libcidkit.3, labutil and test programs only" "$tmp/targets"
"$MESON" introspect --tests "$build" | python3 -c '
import json, sys
tests = json.load(sys.stdin)
print(len(tests))
for t in tests:
    if t["suite"] != ["cidkit:unit"]:
        print(t["name"], t["suite"])
' >"$tmp/tests" 2>&1
[ "$(head -1 "$tmp/tests")" -gt 20 ] && [ "$(wc -l <"$tmp/tests")" -eq 1 ]
ok $? "tests: the unit suite only ($(head -1 "$tmp/tests") tests)" "$tmp/tests"

# The files installed, every one of them.
pc=$(find "$dest" -name cidkit.pc | head -1)
libdir=$(dirname "$(dirname "$pc")")
prefix=$(dirname "$(find "$dest" -type d -name include | head -1)")
(
	cd "$SRC/include/cidkit" &&
		ls *.h arch/*.h | grep -v -e '^sim\.h$' -e '^trace\.h$' | sed 's|^|include/cidkit/|'
	l=${libdir#"$prefix"/}
	for f in libcidkit.a libcidkit.so libcidkit.so.1 libcidkit.so.1.0.0 pkgconfig/cidkit.pc; do
		echo "$l/$f"
	done
	echo share/man/man3/libcidkit.3
) | sort >"$tmp/want.files"
(cd "$prefix" && find . ! -type d | sed 's|^\./||' | sort) >"$tmp/got.files"
find "$dest" ! -type d | grep -v "^$prefix/" >>"$tmp/got.files"
diff "$tmp/want.files" "$tmp/got.files" >"$tmp/files.diff" 2>&1
ok $? "installed: the library (.so, .a), headers, cidkit.pc, libcidkit.3 and nothing else" "$tmp/files.diff"
[ ! -e "$prefix/bin/cidkit" ] && [ ! -e "$prefix/libexec/cidkit" ]
ok $? "no cidkit command, no cidkit-check in the library-only install"

# The archive exports what the .so exports, no more, no less.
nm -D --defined-only "$libdir/libcidkit.so.1.0.0" | awk '{ print $NF }' | sort >"$tmp/so.syms"
readelf -sW "$libdir/libcidkit.a" |
	awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" && $6 == "DEFAULT" { print $8 }' |
	sort >"$tmp/a.syms"
diff "$tmp/so.syms" "$tmp/a.syms" >"$tmp/syms.diff" 2>&1 && [ -s "$tmp/a.syms" ]
ok $? "libcidkit.a: its default-visibility symbols are libcidkit.so's ($(wc -l <"$tmp/a.syms"))" "$tmp/syms.diff"
grep -v '^cidk_' "$tmp/a.syms" >"$tmp/a.bad"
grep '^cidk__' "$tmp/a.syms" >>"$tmp/a.bad"
ok $([ ! -s "$tmp/a.bad" ]; echo $?) \
	"libcidkit.a: nothing internal (cidk__) or unprefixed is default-visible" "$tmp/a.bad"

export PKG_CONFIG_PATH="$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest"
static_libs=$(pkg-config --static --libs cidkit | sed 's/ *$//')
[ "$static_libs" = "-L$libdir -lcidkit -pthread -lm" ]
ok $? "pkg-config --static --libs cidkit: $static_libs"

# The examples, three ways.
mkdir "$tmp/shared" "$tmp/static" "$tmp/archive"
for ex in percpu_counter topo_walk; do
	# shellcheck disable=SC2046
	"$CC" -std=c11 -O2 -Wall -Wextra -Werror "$SRC/examples/$ex.c" \
		$(pkg-config --cflags --libs cidkit) -o "$tmp/shared/$ex" >"$tmp/cc.log" 2>&1
	ok $? "examples/$ex.c, shared: pkg-config --cflags --libs cidkit" "$tmp/cc.log"
	# shellcheck disable=SC2046
	"$CC" -static -std=c11 -O2 -Wall -Wextra -Werror "$SRC/examples/$ex.c" \
		$(pkg-config --cflags --static --libs cidkit) -o "$tmp/static/$ex" >"$tmp/cc.log" 2>&1
	ok $? "examples/$ex.c, static: -static and pkg-config --static --libs cidkit" "$tmp/cc.log"
	# shellcheck disable=SC2046
	"$CC" -std=c11 -O2 -Wall -Wextra -Werror "$SRC/examples/$ex.c" \
		$(pkg-config --cflags cidkit) "$libdir/libcidkit.a" -pthread -lm \
		-o "$tmp/archive/$ex" >"$tmp/cc.log" 2>&1
	ok $? "examples/$ex.c, archive: libcidkit.a named, libc shared" "$tmp/cc.log"
done

LD_LIBRARY_PATH="$libdir" ldd "$tmp/shared/percpu_counter" >"$tmp/ldd" 2>&1
grep -q "libcidkit.so.1 => $libdir/libcidkit.so.1 " "$tmp/ldd"
ok $? "shared: loads the library-only build's libcidkit.so.1" "$tmp/ldd"
export LD_LIBRARY_PATH="$libdir"
examples_check "$tmp/shared/percpu_counter" "$tmp/shared/topo_walk" "shared: "
unset LD_LIBRARY_PATH

# From here on there is no libcidkit.so to find.
mkdir "$tmp/so.away"
mv "$libdir"/libcidkit.so* "$tmp/so.away/"
for ex in percpu_counter topo_walk; do
	readelf -d "$tmp/static/$ex" >"$tmp/readelf" 2>&1
	! grep -q "(NEEDED)" "$tmp/readelf"
	ok $? "static: $ex needs no shared library at all (readelf -d)" "$tmp/readelf"
	ldd "$tmp/archive/$ex" >"$tmp/ldd" 2>&1
	grep -q "libc.so" "$tmp/ldd" && ! grep -q -e cidkit -e "not found" "$tmp/ldd"
	ok $? "archive: $ex needs libc.so but no libcidkit.so (ldd)" "$tmp/ldd"
done
examples_check "$tmp/static/percpu_counter" "$tmp/static/topo_walk" "static: "
examples_check "$tmp/archive/percpu_counter" "$tmp/archive/topo_walk" "archive: "

done_testing
