#!/bin/sh
# scripts/fuzz.sh - libFuzzer (clang, ASan+UBSan) on every harness in
# tests/fuzz for FUZZ_SECONDS seconds each (default 60); see docs/fuzz.md.
#   FUZZ_SECONDS=600 scripts/fuzz.sh        all harnesses
#   FUZZ_SECONDS=60 scripts/fuzz.sh spec    one
# New inputs go to build-fuzz/corpus/NAME (the checked-in seeds in
# tests/fuzz/corpus/NAME are read, never written); a crash, leak, timeout
# or broken property leaves build-fuzz/NAME-crash-* and fails the run.
# Copy such an input into tests/fuzz/corpus/NAME: make check replays it.
set -eu
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-60}
cc=${FUZZ_CC:-clang}
out=build-fuzz
flags="-std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -Iinclude -Ilib -Itests/fuzz
       -Itools/cli -Itools/cidkit -Icheck -Ilib/internal -Ilabutil"
lib="lib/mask/*.c lib/topo/*.c lib/resctrl/*.c lib/util/*.c lib/call/*.c labutil/*.c
     tools/cli/cli.c tools/cli/opt.c tools/cidkit/taskset.c
     check/scenario.c lib/cid/*.c trace/*.c"
# trace.dat through libtracecmd when it is installed (scripts/bootstrap.sh
# installs it); without it fuzz_trace_dat sees -ENOTSUP at every open
tc_cflags= tc_libs=
if pkg-config --exists libtracecmd 2>/dev/null; then
	tc_cflags="-DCIDKIT_HAVE_TRACECMD=1 $(pkg-config --cflags libtracecmd)"
	tc_libs=$(pkg-config --libs libtracecmd)
fi
mkdir -p "$out"
status=0
names=${*:-$(for f in tests/fuzz/fuzz_*.c; do
	f=${f#tests/fuzz/fuzz_}; echo "${f%.c}"; done)}
for name in $names; do
	bin=$out/fuzz_$name
	# shellcheck disable=SC2086 # word splitting of the flag and file lists
	$cc $flags $tc_cflags $lib "tests/fuzz/fuzz_$name.c" -o "$bin" \
		$tc_libs -lm -lpthread
	mkdir -p "$out/corpus/$name"
	echo "== $name: $secs s"
	if ! "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$out/$name-" \
		"$out/corpus/$name" "tests/fuzz/corpus/$name" \
		>"$out/$name.log" 2>&1; then
		status=1
		echo "fuzz: $name FAILED (see $out/$name.log)"
	fi
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$name.log")
	cov=$(grep -E '^#[0-9]+' "$out/$name.log" | tail -n 1 |
		sed -n 's/.*\(cov: [0-9]*\) \(ft: [0-9]*\) \(corp: [^ ]*\).*/\1 \2 \3/p')
	echo "$name: ${execs:-?} executions in $secs s, $cov"
done
exit $status
