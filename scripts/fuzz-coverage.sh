#!/bin/sh
# scripts/fuzz-coverage.sh NAME FILE... - line coverage of FILE... (library
# sources) by the corpus of harness NAME (tests/fuzz/corpus/NAME plus what
# make fuzz added in build-fuzz/corpus/NAME), replayed by a clang build
# with source-based coverage.  Prints llvm-cov's report for FILE...
set -eu
cd "$(dirname "$0")/.."
name=$1
shift
out=build-fuzz/cov-$name
mkdir -p "$out"
# shellcheck disable=SC2086 # the file lists split on purpose
clang -std=c11 -D_GNU_SOURCE -O0 -fprofile-instr-generate -fcoverage-mapping \
	-Iinclude -Ilib -Itests/fuzz -Itools/cli -Itools/cidkit -Icheck -Ilib/internal -Ilabutil \
	lib/mask/*.c lib/topo/*.c lib/resctrl/*.c lib/util/*.c lib/call/*.c labutil/*.c \
	tools/cli/cli.c tools/cli/opt.c tools/cidkit/taskset.c check/scenario.c tests/fuzz/replay.c "tests/fuzz/fuzz_$name.c" \
	-o "$out/replay" -lm -lpthread
dirs=tests/fuzz/corpus/$name
[ -d "build-fuzz/corpus/$name" ] && dirs="$dirs build-fuzz/corpus/$name"
# shellcheck disable=SC2086
LLVM_PROFILE_FILE="$out/replay.profraw" "$out/replay" $dirs >/dev/null 2>&1
llvm-profdata merge -o "$out/replay.profdata" "$out/replay.profraw"
llvm-cov report "$out/replay" -instr-profile="$out/replay.profdata" "$@"
