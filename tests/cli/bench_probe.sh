#!/bin/sh
# cidkit bench probe: a smoke run, its JSON against its own counts, the
# table, --first (what the report spawns), and every bad input path.
CIDKIT=${1:?usage: bench_probe.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"

run abi --only register --json
case "$out" in
*ThreadSanitizer*) skip_all "ThreadSanitizer build: the probe has no critical sections" ;;
*"no rseq(2) here"*) skip_all "no rseq(2) on this kernel" ;;
esac

run bench probe --runs 7 --processes 3 --json
[ $rc -eq 0 ] && [ -z "$err" ] && printf '%s' "$out" | python3 -c '
import json, sys
v = json.load(sys.stdin)
assert v["runs"] == 7 and v["processes"] == 3 and v["cpus"] >= 1, v
for k in ("probe", "thread", "first"):
    s = v[k]
    assert set(s) == {"median_us", "p99_us", "min_us", "max_us", "ratio"}, s
    assert 0 < s["min_us"] <= s["median_us"] <= s["p99_us"] <= s["max_us"], (k, s)
    want = s["median_us"] / v["thread"]["median_us"]
    assert abs(s["ratio"] - want) <= 0.01 * want + 0.01, (k, s, want)
assert v["thread"]["ratio"] == 1.0, v
assert sum(v["verdicts"].values()) == 7 and sum(v["first_verdicts"].values()) == 3, v
assert set(v["verdicts"]) == {"pass", "FAIL", "unknown"}, v
' 2>"$tmp/why"
ok $? "--json: probe, thread, first (min <= median <= p99 <= max, ratios), a verdict per run and per process" "$tmp/why"

run bench probe --runs 3 --processes 0 --json
[ $rc -eq 0 ] && printf '%s' "$out" | python3 -c '
import json, sys
v = json.load(sys.stdin)
assert v["first"] is None and sum(v["first_verdicts"].values()) == 0, v
'
ok $? "--processes 0: no fresh process, first is null"

run bench probe --runs 5 --processes 2
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -Eq '^probe +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+x$' &&
	printf '%s\n' "$out" | grep -Eq '^pthread_create\+join +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +1\.00x$' &&
	printf '%s\n' "$out" | grep -Eq '^first of a process +[0-9.]+ ' &&
	printf '%s\n' "$out" | grep -Eq '^verdicts: probe [0-9]+ pass, [0-9]+ FAIL, [0-9]+ unknown; first '
ok $? "the table: probe, thread (1.00x), first of a process, the verdicts"

run bench probe --first
printf '%s\n' "$out" | grep -Eq '^[0-9]+\.[0-9] (pass|FAIL|unknown)$'
ok $? "--first: one line, microseconds and the verdict"

run bench probe --help
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^usage: cidkit bench probe'
ok $? "--help: usage on stdout, exit 0"

expect_usage_error "--runs 0" bench probe --runs 0
expect_usage_error "--runs x" bench probe --runs x
expect_usage_error "--processes -1" bench probe --processes -1
expect_usage_error "--first --runs 3" bench probe --first --runs 3
expect_usage_error "--first --json" bench probe --first --json
expect_usage_error "unknown option" bench probe --bogus
expect_usage_error "extra argument" bench probe extra
done_testing
