#!/bin/sh
# cidkit bench call: a smoke run, its JSON, its bad inputs.
CIDKIT=${1:?usage: bench_call.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"

run bench call --reps 3 --calls 50 --json
[ $rc -eq 0 ] && python3 - "$out" <<'PY'
import json, sys
v = json.loads(sys.argv[1])
assert v["reps"] == 3 and v["calls"] == 50, v
ways = ["plain_call", "call_on_local", "handoff_same_cpu"]
if v["cpu_b"] >= 0:
    ways.append("handoff_other_cpu")
base = v["call_on_local"]["median_ns"]
for w in ways:
    x = v[w]
    assert x["min_ns"] <= x["median_ns"] <= x["max_ns"], (w, x)
    assert abs(x["ratio"] - x["median_ns"] / base) <= 0.01 * x["ratio"] + 0.01, (w, x)
assert v["call_on_local"]["ratio"] == 1.0
PY
ok $? "bench call --json: every way, median within min-max, ratios"

run bench call --reps 3 --calls 50
[ $rc -eq 0 ] && echo "$out" | grep -Eq '^handoff_same_cpu +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+x$' &&
	echo "$out" | grep -Eq '^call_on_local +[0-9.]+ +[0-9.]+ +[0-9.]+ +1\.0x$'
ok $? "bench call: a table with ratios to call_on_local"

expect_usage_error "bad --calls" bench call --calls 0
expect_usage_error "bad --reps" bench call --reps x
expect_usage_error "extra argument" bench call extra
expect_usage_error "unknown option" bench call --bogus

run bench call --help
[ $rc -eq 0 ] && echo "$out" | grep -q "^usage: cidkit bench call"
ok $? "--help"

done_testing
