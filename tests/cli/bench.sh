#!/bin/sh
# cidkit bench burst and bench pipe: tiny runs (human and JSON), and one
# cidkit: line with exit 2 for every kind of bad input.
CIDKIT=${1:?usage: bench.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"

# The CPUs this process may use, and one it may not (if any).
allowed=$(python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))')
first=${allowed%% *}
ncpu=$(echo "$allowed" | wc -w)
outside=$(python3 -c 'import os; a = os.sched_getaffinity(0); print(next(c for c in range(1024) if c not in a))')

# ---- bench mask: the three ways are compared, not assumed equal -------------
# 1 changing union + 3 reps x 2 scenarios x 2 cache states (x86-64, aarch64)
case $(uname -m) in x86_64 | aarch64) ncache=2 ;; *) ncache=1 ;; esac
run bench mask --bits 1000 --reps 3 --grow 5
[ $rc -eq 0 ] && [ -z "$err" ] && printf '%s\n' "$out" |
	grep -q "^final weight 1000: the three ways' counts and bitmaps agree ($((1 + 6 * ncache)) comparisons" &&
	printf '%s\n' "$out" | grep -q '^steady: B full, nothing new$' &&
	printf '%s\n' "$out" | grep -q '^growing: B full less 5 bits spread over the mask, 5 new bits each repetition$' &&
	[ "$(printf '%s\n' "$out" | grep -c '^warm: per_bit_atomic / union_count = ')" -eq 2 ]
ok $? "bench mask: both scenarios, $((1 + 6 * ncache)) comparisons (a changing union, then every repetition), all equal"

run bench mask --bits 1000 --reps 3 --grow 7 --json
[ $rc -eq 0 ] && [ -z "$err" ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
nc = int(sys.argv[1])
assert d["bits"] == 1000 and d["reps"] == 3 and d["grow"] == 7, d
assert d["compared"] == 1 + 6 * nc, d["compared"]
runs = [(r["scenario"], r["cache"]) for r in d["runs"]]
want = [(s, c) for s in ("steady", "growing") for c in ("warm", "cold")[:nc]]
assert runs == want, runs
for r in d["runs"]:
    assert r["new_bits"] == (7 if r["scenario"] == "growing" else 0), r
    for w in ("union_count", "per_bit_atomic", "locked_or_weight", "memcmp"):
        m = r[w]
        assert 0 <= m["min_ns"] <= m["median_ns"] <= m["max_ns"], (w, m)
    for k in ("per_bit_over_union", "locked_over_union", "union_over_memcmp"):
        assert r[k] >= 0, (k, r)
' "$ncache"
ok $? "bench mask --json: one run per scenario and cache state, four ways each, min <= median <= max"

run bench mask --bits 100 --grow 101
[ $rc -eq 2 ] && [ -z "$out" ] && [ "$err" = "cidkit: bench mask: --grow 101 is more than --bits 100" ]
ok $? "bench mask: --grow above --bits is one cidkit: line, exit 2"

# ---- bench burst ----------------------------------------------------------
run bench burst --help
[ $rc -eq 0 ] && [ -z "$err" ] && echo "$out" | grep -q '^usage: cidkit bench burst' &&
	echo "$out" | grep -q ' ownership$'
ok $? "burst --help: usage on stdout (ownership among the policies), exit 0"

run bench burst --rounds 2 --delay-ms 0.5
[ $rc -eq 0 ] && [ -z "$err" ] &&
	[ "$(echo "$out" | grep -cE '^(cpu|kernel-cid|lease:[a-z-]+) +([0-9]+|unavailable)')" -eq 8 ] &&
	echo "$out" | grep -qE '^lease:bitmap +[0-9]+ +[0-9]+ .* 0 +0 +'
ok $? "burst: one row per mode (8), lease:bitmap uses CID 0 only"

run bench burst --rounds 3 --delay-ms 0.2 --bytes 4096 --seed 9 --json
[ $rc -eq 0 ] && [ -z "$err" ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = int(sys.argv[1])
assert d["threads"] == n and d["rounds"] == 3 and d["bytes"] == 4096, d
assert d["seed"] == 9 and d["delay_ms"] == 0.2
assert d["line_rtt_before_ns"] >= 0 and d["line_rtt_after_ns"] >= 0
names = [m["mode"] for m in d["modes"]]
assert names == ["cpu", "kernel-cid", "lease:bitmap", "lease:lazy",
                 "lease:lazy-batched", "lease:cache-local", "lease:inherit",
                 "lease:ownership"], names
for m in d["modes"]:
    if not m["available"]:
        assert m["mode"] == "kernel-cid" and m["bursts"] == 0
        continue
    assert m["bursts"] == 3 * n, m
    assert 0 < m["min_ns"] <= m["median_ns"] <= m["max_ns"], m
    assert len(m["per_thread"]) == n
    if m["mode"].startswith("lease:"):
        assert m["out_of_bounds"] == 0 and m["max_cid"] < m["bound"] <= n, m
assert d["modes"][0]["ratio_to_cpu"] == 1.0
' "$ncpu"
ok $? "burst --json: every mode, every burst, lease CIDs in bounds"

run bench burst --cpus "$first" --modes cpu,lease:inherit --rounds 2 --delay-ms 0 --json
[ $rc -eq 0 ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["threads"] == 1 and len(d["modes"]) == 2, d
assert d["modes"][0]["cids"] == sys.argv[1], d["modes"][0]
assert d["modes"][1]["cids"] == "0", d["modes"][1]
' "$first"
ok $? "burst --cpus $first --modes cpu,lease:inherit: one thread, its CPU, CID 0"

expect_usage_error "burst --cpus garbage" bench burst --cpus 0-x
expect_usage_error "burst --cpus empty" bench burst --cpus ''
expect_usage_error "burst --cpus 5000 (out of range)" bench burst --cpus 5000
expect_usage_error "burst --cpus $outside (not allowed)" bench burst --cpus "$outside"
expect_usage_error "burst --modes unknown" bench burst --modes cpu,nope
expect_usage_error "burst --modes lease:unknown" bench burst --modes lease:fifo
expect_usage_error "burst --modes twice" bench burst --modes cpu,cpu
expect_usage_error "burst --modes empty" bench burst --modes ,
expect_usage_error "burst --rounds 0" bench burst --rounds 0
expect_usage_error "burst --rounds abc" bench burst --rounds abc
expect_usage_error "burst --rounds 100001" bench burst --rounds 100001
expect_usage_error "burst --delay-ms -1" bench burst --delay-ms -1
expect_usage_error "burst --delay-ms 10001" bench burst --delay-ms 10001
expect_usage_error "burst --delay-ms nan" bench burst --delay-ms nan
expect_usage_error "burst --bytes 0" bench burst --bytes 0
expect_usage_error "burst --bytes 16777217" bench burst --bytes 16777217
expect_usage_error "burst --seed x" bench burst --seed x
expect_usage_error "burst: an hour of sleep" bench burst --rounds 100000 --delay-ms 10000
expect_usage_error "burst --rounds without value" bench burst --rounds
expect_usage_error "burst unknown option" bench burst --bogus
expect_usage_error "burst extra argument" bench burst extra

# ---- bench pipe -----------------------------------------------------------
run bench pipe --help
[ $rc -eq 0 ] && [ -z "$err" ] && echo "$out" | grep -q '^usage: cidkit bench pipe'
ok $? "pipe --help: usage on stdout, exit 0"

rows=3
[ "$ncpu" -ge 2 ] || rows=2
run bench pipe --loops 200 --runs 2
[ $rc -eq 0 ] && [ -z "$err" ] &&
	[ "$(echo "$out" | grep -cE '^(same CPU|two CPUs|unpinned) +[0-9.]+ ')" -eq $rows ] &&
	echo "$out" | grep -q 'RUSAGE_THREAD'
ok $? "pipe: one row per placement ($rows), switches from RUSAGE_THREAD"

check_pipe_json() { # SIDES RUSAGE
	printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
sides, scope, ncpu = sys.argv[1], sys.argv[2], int(sys.argv[3])
assert d["sides"] == sides and d["rusage"] == scope, d
assert d["loops"] == 200 and d["runs"] == 2
p = d["placements"]
for k in ("same_cpu", "unpinned") + (("two_cpus",) if ncpu >= 2 else ()):
    assert 0 < p[k]["min_us"] <= p[k]["median_us"] <= p[k]["max_us"], p[k]
if ncpu < 2:
    assert p["two_cpus"] is None and d["cpu_b"] is None
s = p["same_cpu"]
assert s["voluntary"] + s["involuntary"] >= 400, s   # one switch per trip
' "$1" "$2" "$ncpu"
}
run bench pipe --loops 200 --runs 2 --json
[ $rc -eq 0 ] && [ -z "$err" ] && check_pipe_json threads RUSAGE_THREAD
ok $? "pipe --json (threads): every placement, a switch per round trip on one CPU"

run bench pipe --loops 200 --runs 2 --processes --json
[ $rc -eq 0 ] && [ -z "$err" ] && check_pipe_json processes RUSAGE_SELF
ok $? "pipe --processes --json: every placement, RUSAGE_SELF in each child"

run bench pipe --loops 100 --runs 1 --cpus "$first" --json
[ $rc -eq 0 ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["cpu_a"] == int(sys.argv[1]) and d["cpu_b"] is None, d
assert d["placements"]["two_cpus"] is None
' "$first"
ok $? "pipe --cpus $first: one CPU, no 'two CPUs' placement"

expect_usage_error "pipe --loops 0" bench pipe --loops 0
expect_usage_error "pipe --loops 10000001" bench pipe --loops 10000001
expect_usage_error "pipe --runs 0" bench pipe --runs 0
expect_usage_error "pipe --runs x" bench pipe --runs x
expect_usage_error "pipe: too many round trips" bench pipe --loops 10000000 --runs 1000
expect_usage_error "pipe --cpus garbage" bench pipe --cpus 1-
expect_usage_error "pipe --cpus $outside (not allowed)" bench pipe --cpus "$outside"
expect_usage_error "pipe --cpus three CPUs" bench pipe --cpus 0-2
expect_usage_error "pipe --cpus without value" bench pipe --cpus
expect_usage_error "pipe unknown option" bench pipe --threads 2
expect_usage_error "pipe extra argument" bench pipe extra

done_testing
