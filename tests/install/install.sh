#!/bin/sh
# tests/install/install.sh - what a user of the installed library does,
# done to a `meson install --destdir` in a temporary folder: build the two
# examples with `pkg-config --cflags --libs cidkit` against it, run them
# against the installed libcidkit.so and check what they print; check the
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

# The shared library: real file, soname link, dev link; soname libcidkit.so.0.
[ -f "$libdir/libcidkit.so.0.1.0" ] && [ -L "$libdir/libcidkit.so.0" ] &&
	[ -L "$libdir/libcidkit.so" ]
ok $? "libcidkit.so.0.1.0 with links libcidkit.so.0 and libcidkit.so"
soname=$(readelf -d "$libdir/libcidkit.so.0.1.0" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
ok $([ "$soname" = libcidkit.so.0 ]; echo $?) "soname is libcidkit.so.0 (got '$soname')"

# Every header of include/cidkit except the lab's sim.h and trace.h, byte for byte.
(cd "$SRC/include/cidkit" && ls *.h | grep -v -e '^sim\.h$' -e '^trace\.h$') >"$tmp/want.h"
(cd "$prefix/include/cidkit" && ls *.h) >"$tmp/got.h"
diff "$tmp/want.h" "$tmp/got.h" >"$tmp/hdiff" 2>&1 &&
	for h in $(cat "$tmp/want.h"); do
		cmp -s "$SRC/include/cidkit/$h" "$prefix/include/cidkit/$h" || exit 1
	done
ok $? "headers installed: include/cidkit/*.h without the lab's sim.h and trace.h" "$tmp/hdiff"

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
for ex in percpu_counter topo_walk; do
	# shellcheck disable=SC2086
	"$CC" -std=c11 -O2 -Wall -Wextra -Werror $san \
		"$SRC/examples/$ex.c" $flags -pthread -o "$tmp/$ex" >"$tmp/cc.log" 2>&1
	ok $? "examples/$ex.c builds with pkg-config --cflags --libs cidkit" "$tmp/cc.log"
done

export LD_LIBRARY_PATH="$libdir"
ldd "$tmp/percpu_counter" >"$tmp/ldd" 2>&1
grep -q "libcidkit.so.0 => $libdir/libcidkit.so.0 " "$tmp/ldd"
ok $? "the example loads the installed libcidkit.so.0" "$tmp/ldd"

# The counter: 4 threads x 200000 increments, the sum exact.
"$tmp/percpu_counter" 4 200000 >"$tmp/pc.out" 2>&1
rc=$?
grep -qx "total 800000 (expected 800000)" "$tmp/pc.out" && [ $rc -eq 0 ]
ok $? "percpu_counter: 4 x 200000 increments sum to exactly 800000" "$tmp/pc.out"
grep -Eq "^path (rseq|atomic) \(" "$tmp/pc.out"
ok $? "percpu_counter names its path ($(sed -n 's/^path //p' "$tmp/pc.out"))" "$tmp/pc.out"
CIDK_PERCPU=atomic "$tmp/percpu_counter" 3 100000 >"$tmp/pc2.out" 2>&1
grep -qx "total 300000 (expected 300000)" "$tmp/pc2.out" &&
	grep -q "^path atomic " "$tmp/pc2.out"
ok $? "percpu_counter with CIDK_PERCPU=atomic: 300000, atomic path" "$tmp/pc2.out"
"$tmp/percpu_counter" 0 >"$tmp/pc3.out" 2>&1
[ $? -eq 2 ]
ok $? "percpu_counter 0: refused, exit 2" "$tmp/pc3.out"

# The topology walk against the installed command's view of the same
# sysfs: this machine and the saved trees (with LLC levels) of tests/data.
cidkit=$prefix/bin/cidkit
python3 - "$tmp/topo_walk" "$cidkit" /sys "$SRC"/tests/data/sysfs/adl-hybrid \
	"$SRC"/tests/data/sysfs/offline "$SRC"/tests/data/sysfs/old-kernel \
	"$SRC"/tests/data/sysfs/smt8 "$SRC"/tests/data/sysfs/vm \
	>"$tmp/walks" 2>&1 <<'PY'
import json, re, subprocess, sys
walk_exe, cidkit = sys.argv[1:3]
def cpus(lst):
    s = set()
    for part in filter(None, lst.split(",")):
        a, _, b = part.partition("-")
        s.update(range(int(a), int(b or a) + 1))
    return s
def check(root):
    walk = subprocess.run([walk_exe, root], capture_output=True, text=True,
                          check=True).stdout.splitlines()
    topo = json.loads(subprocess.run([cidkit, "topo", "--sysfs-root", root, "--json"],
                                     capture_output=True, text=True).stdout)
    online = cpus(topo["online"])
    llc = [l for l in topo["levels"] if l["name"] == "llc"]
    if not llc:
        assert walk == ["llc: none (%d online CPUs)" % len(online)], walk
        return "no llc level"
    llc = llc[0]
    groups = []
    for i, line in enumerate(walk):
        m = re.fullmatch(r"llc (\d+): cpus (\S+) \((\d+) cpus, (\d+) cores\)", line)
        assert m and int(m[1]) == i, line
        g = cpus(m[2])
        assert len(g) == int(m[3]), line
        groups.append(g)
    assert len(groups) == llc["nr_groups"], (len(groups), llc)
    sizes = [len(g) for g in groups]
    assert (min(sizes), max(sizes)) == (llc["min_span"], llc["max_span"]), sizes
    assert set().union(*groups) == online, "groups do not cover the online CPUs"
    assert sum(sizes) == len(online), "groups overlap"
    assert [min(g) for g in groups] == sorted(min(g) for g in groups), "order"
    # the group of the first online CPU, as the command's table shows it
    table = subprocess.run([cidkit, "topo", "--sysfs-root", root],
                           capture_output=True, text=True).stdout
    row = [l.split() for l in table.splitlines() if l.startswith("llc ")][0]
    assert cpus(row[-1]) == groups[0], (row, groups[0])
    return "%d groups" % len(groups)
for root in sys.argv[3:]:
    try:
        print("PASS", root, check(root))
    except Exception as e:
        print("FAIL", root, repr(e))
PY
nroots=0
while read -r verdict root what; do
	nroots=$((nroots + 1))
	echo "$verdict $root $what" >"$tmp/cmp"
	ok $([ "$verdict" = PASS ]; echo $?) "topo_walk $root: the LLC groups of cidkit topo ($what)" "$tmp/cmp"
done <"$tmp/walks"
ok $([ $nroots -eq 6 ]; echo $?) "topo_walk compared on 6 sysfs trees" "$tmp/walks"
"$tmp/topo_walk" "$SRC/tests/data/sysfs/insane-llc" >"$tmp/walk.out" 2>"$tmp/walk.err"
[ $? -eq 1 ] && grep -q "llc groups of cpus .* overlap" "$tmp/walk.err"
ok $? "topo_walk refuses an insane tree" "$tmp/walk.err"

# The installed command finds its installed cidkit-check (bin/../libexec).
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
