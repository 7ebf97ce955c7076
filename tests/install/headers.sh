#!/bin/sh
# tests/install/headers.sh - the public headers as a user's compiler sees
# them.  Speaks TAP.
#   1. every include/cidkit/*.h and arch/*.h compiles on its own (no
#      other include, no feature-test macro) as -std=c11 -pedantic (gcc, clang), -std=gnu17,
#      and C++17 -pedantic (g++, clang++), all with -Wall -Wextra -Wundef
#      -Werror;
#   2. C++ calls the library (cxx_call.cc, with g++ and clang++, linked to
#      libcidkit.so) and sees every public struct with C's layout;
#   3. percpu.h's aarch64, riscv64, ppc64le and s390x critical sections
#      compile and assemble with the cross compilers and clang
#      (percpu_use.c), one signature per descriptor, and at least one
#      descriptor per call of percpu_use.c (every operation, the issue-37
#      ones included, is a section on each architecture);
#   4. lib/abi/cs.c's check sections assemble for the same five from the
#      same headers, and no signature literal, descriptor section or
#      spin-wait instruction is written in lib/ or include/ outside
#      include/cidkit/arch/ (one home per architecture, issue 40);
#   5. mask.h's atomic bit operations compile, as C and as C++, to the
#      instructions of the C11 _Atomic code they replaced (atomic_ref.c):
#      making the header C++-safe cost the C path nothing.
#   headers.sh SOURCE_ROOT LIBCIDKIT_SO
set -u
SRC=$1
SO=$2
HERE=$SRC/tests/install

. "$SRC/tests/cli/tap.sh"

W="-Wall -Wextra -Wundef -Werror"
# One unit per header (with a declaration after the include: an empty unit
# is itself an error); one compiler run per mode compiles them all, each
# unit on its own, and a header fails if its unit shows in the errors.
units=""
for h in "$SRC"/include/cidkit/*.h "$SRC"/include/cidkit/arch/*.h; do
	name=${h#"$SRC"/include/cidkit/}
	name=${name%.h}
	unit=$tmp/h_$(echo "$name" | tr / _).c
	printf '#include <cidkit/%s.h>\ntypedef int headers_sh_nonempty;\n' "$name" >"$unit"
	units="$units $unit"
done
for mode in "gcc -x c -std=c11 -pedantic -Wstrict-prototypes" \
	"clang -x c -std=c11 -pedantic -Wstrict-prototypes" \
	"gcc -x c -std=gnu17 -Wstrict-prototypes" \
	"g++ -x c++ -std=c++17 -pedantic" \
	"clang++ -x c++ -std=c++17 -pedantic"; do
	# shellcheck disable=SC2086
	$mode $W -I"$SRC/include" -fsyntax-only $units >"$tmp/err" 2>&1
	rc=$?
	for u in $units; do
		name=$(basename "$u" .c)
		name=$(echo "${name#h_}" | sed 's|^arch_|arch/|')
		! grep -q "$u" "$tmp/err" && { [ $rc -eq 0 ] || [ -s "$tmp/err" ]; }
		ok $? "cidkit/$name.h alone: $mode" "$tmp/err"
	done
done

gcc -std=c11 $W -I"$SRC/include" -c "$HERE/cxx_abi.c" -o "$tmp/cxx_abi.o" >"$tmp/err" 2>&1
ok $? "cxx_abi.c (the C layout, CIDK_PATH_MAX == PATH_MAX)" "$tmp/err"
for cxx in g++ clang++; do
	$cxx -std=c++17 -pedantic $W -I"$SRC/include" "$HERE/cxx_call.cc" \
		"$tmp/cxx_abi.o" "$SO" -pthread -o "$tmp/cxx_call" >"$tmp/err" 2>&1 &&
		LD_LIBRARY_PATH=$(dirname "$SO") "$tmp/cxx_call" >"$tmp/err" 2>&1
	ok $? "$cxx: calls from C++ and the C layout of every public struct" "$tmp/err"
done

# Each "rc |= cidk_percpu_..." line of percpu_use.c calls one operation
# with a constant indexing: at least one section each (a compiler may
# duplicate one, never drop one).  An operation left to a stub that emits
# no section (as arch/unported.h once did for the issue-37 ones on
# riscv64, ppc64le and s390x: 6 descriptors) falls below: clang, which
# duplicates none, then has one fewer.
calls=$(grep -c 'rc |= cidk_percpu_' "$HERE/percpu_use.c")

# The aarch64 critical sections (cidkit/arch/aarch64.h) compile to nothing
# on this host: compile and assemble every operation for aarch64 (Debian's
# cross gcc, clang and clang++ with --target), and find glibc's arm64
# signature (brk #0x45e0) before the abort handlers, one per descriptor.
for mode in "aarch64-linux-gnu-gcc -x c -std=c11 -pedantic" \
	"clang --target=aarch64-linux-gnu -x c -std=c11 -pedantic" \
	"clang++ --target=aarch64-linux-gnu -x c++ -std=c++17 -pedantic"; do
	# shellcheck disable=SC2086
	$mode -O2 $W -I"$SRC/include" -c "$HERE/percpu_use.c" -o "$tmp/a64.o" >"$tmp/err" 2>&1 &&
		sigs=$(aarch64-linux-gnu-objdump -d -j __rseq_failure "$tmp/a64.o" |
			grep -c 'brk[[:space:]]*#0x45e0') &&
		descs=$(( $(aarch64-linux-gnu-objdump -h "$tmp/a64.o" |
			awk '$2 == "__rseq_cs" { print "0x" $3 }') / 32 )) &&
		echo "signatures $sigs, descriptors $descs, calls $calls" >>"$tmp/err" &&
		[ "$sigs" -gt 0 ] && [ "$sigs" -eq "$descs" ] && [ "$descs" -ge "$calls" ]
	ok $? "percpu.h's aarch64 sections assemble, one or more per call: $mode" "$tmp/err"
done

# The same for riscv64, ppc64le and s390x (cidkit/arch/{riscv64,ppc64le,
# s390x}.h): every operation compiles and assembles for each, and each
# descriptor has its abort handler's signature word (riscv "csrw mhartid,
# x0", ppc "twui r5,11" in little-endian bytes, s390 "trap4", big-endian)
# in __rseq_failure: one per descriptor, at least one per call.
for spec in "riscv64-linux-gnu:f1401073" "powerpc64le-linux-gnu:0b 00 e5 0f" \
	"s390x-linux-gnu:b2 ff 0f ff"; do
	t=${spec%%:*}
	word=${spec#*:}
	for mode in "$t-gcc -x c -std=c11 -pedantic" \
		"clang --target=$t -x c -std=c11 -pedantic" \
		"clang++ --target=$t -x c++ -std=c++17 -pedantic"; do
		# shellcheck disable=SC2086
		$mode -O2 $W -I"$SRC/include" -c "$HERE/percpu_use.c" -o "$tmp/x.o" >"$tmp/err" 2>&1 &&
			sigs=$($t-objdump -d -j __rseq_failure "$tmp/x.o" | grep -c "$word") &&
			descs=$(( $($t-objdump -h "$tmp/x.o" |
				awk '$2 == "__rseq_cs" { print "0x" $3 }') / 32 )) &&
			echo "signatures $sigs, descriptors $descs, calls $calls" >>"$tmp/err" &&
			[ "$sigs" -gt 0 ] && [ "$sigs" -eq "$descs" ] &&
			[ "$descs" -ge "$calls" ]
		ok $? "percpu.h's ${t%%-*} sections assemble, one or more per call: $mode" "$tmp/err"
	done
done

# lib/abi's check sections are built from the same architecture headers
# (cs.c's ABI_CS_START and the arch header's CIDK__RSEQ_FAILURE): for each
# of the five, lib/abi/cs.c compiles and assembles, and its four good
# descriptors (__rseq_cs) have four signatures before their handlers; the
# no-sig variant's one descriptor lives in __rseq_cs_broken.
for spec in "x86_64-linux-gnu:0f b9 3d 53 30 05 53" "aarch64-linux-gnu:d428bc00" \
	"riscv64-linux-gnu:f1401073" "powerpc64le-linux-gnu:0b 00 e5 0f" \
	"s390x-linux-gnu:b2 ff 0f ff"; do
	t=${spec%%:*}
	word=${spec#*:}
	od=$t-objdump
	command -v "$od" >/dev/null 2>&1 || od=objdump
	# shellcheck disable=SC2086
	$t-gcc -std=c11 -O2 $W -D_GNU_SOURCE -I"$SRC/include" -I"$SRC/lib" \
		-c "$SRC/lib/abi/cs.c" -o "$tmp/cs.o" >"$tmp/err" 2>&1 &&
		sigs=$($od -d -j __rseq_failure "$tmp/cs.o" | grep -c "$word") &&
		descs=$(( $($od -h "$tmp/cs.o" |
			awk '$2 == "__rseq_cs" { print "0x" $3 }') / 32 )) &&
		broken=$(( $($od -h "$tmp/cs.o" |
			awk '$2 == "__rseq_cs_broken" { print "0x" $3 }') / 32 )) &&
		echo "signatures $sigs, descriptors $descs, broken $broken" >>"$tmp/err" &&
		[ "$sigs" -eq 4 ] && [ "$descs" -eq 4 ] && [ "$broken" -eq 1 ]
	ok $? "lib/abi/cs.c's ${t%%-*} sections from cidkit/arch: 4 signed, 1 broken" "$tmp/err"
done

# One home per architecture (issue 40): each rseq signature's literal, the
# descriptor's sections and the spin-wait instructions are written in
# include/cidkit/arch/ and nowhere else in the library (lib/, include/).
home=$SRC/include/cidkit/arch
for pat in 0x53053053 0xd428bc00 0xf1401073 0x0fe5000b 0xb2ff0fff \
	'pushsection __rseq_cs' 'pushsection __rseq_failure' \
	'"pause' '"yield' 'ia32_pause' 'or 1,1,1' '0x0100000f'; do
	grep -rniF --include='*.[ch]' -- "$pat" "$SRC/lib" "$SRC/include" |
		grep -v "^$home/" | grep -v ':[0-9]*: *\*' >"$tmp/err"
	[ ! -s "$tmp/err" ]
	ok $? "'$pat' in code only under include/cidkit/arch/" "$tmp/err"
done

# Instructions of each function, without addresses or padding.
insns() {
	objdump -d --no-show-raw-insn "$1" | awk '
		/^[0-9a-f]+ <.*>:$/ { name = $2; next }
		/^ *[0-9a-f]+:\t/ {
			sub(/^ *[0-9a-f]+:\t/, "")
			if ($0 !~ /^(nop|xchg +%ax,%ax|data16|cs nop)/)
				print name, $0
		}'
}
for cc in gcc clang; do
	cxx=g++
	[ $cc = clang ] && cxx=clang++
	$cc -std=c11 -O2 $W -I"$SRC/include" -c "$HERE/atomic_ref.c" -o "$tmp/ref.o" &&
		$cc -std=c11 -O2 $W -I"$SRC/include" -c "$HERE/atomic_use.c" -o "$tmp/c.o" &&
		$cxx -std=c++17 -O2 $W -I"$SRC/include" -x c++ -c "$HERE/atomic_use.c" \
			-o "$tmp/cxx.o" >"$tmp/err" 2>&1
	ok $? "$cc/$cxx: atomic_ref.c and atomic_use.c compile" "$tmp/err"
	insns "$tmp/ref.o" >"$tmp/ref.s"
	insns "$tmp/c.o" >"$tmp/c.s"
	insns "$tmp/cxx.o" >"$tmp/cxx.s"
	[ "$(grep -c lock "$tmp/ref.s")" -ge 4 ] && diff "$tmp/ref.s" "$tmp/c.s" >"$tmp/err" 2>&1
	ok $? "$cc -O2: mask.h atomics = the C11 _Atomic code, instruction for instruction" "$tmp/err"
	diff "$tmp/ref.s" "$tmp/cxx.s" >"$tmp/err" 2>&1
	ok $? "$cxx -O2: the same instructions from C++" "$tmp/err"
done

done_testing
