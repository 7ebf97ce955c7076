#!/bin/sh
# cidkit cid: the kernel's cpu_id and mm_cid as threads wake and sleep.
CIDKIT=${1:?usage: cid.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"

run cid --help
[ $rc -eq 0 ] && [ -z "$err" ] && echo "$out" | grep -q '^usage: cidkit cid'
ok $? "--help: usage on stdout, exit 0"

run cid --threads 3 --duration 60
[ $rc -eq 0 ] && [ -z "$err" ] &&
	[ "$(echo "$out" | grep -cE '^ +[0-9]+ +[0-9]+ ')" -eq 3 ] &&
	echo "$out" | grep -qE '^(largest mm_cid [0-9]+, [0-9]+ distinct|mm_cid: unavailable)'
ok $? "human: one row per thread (3), the largest mm_cid or 'unavailable'"

# JSON: the shape, and the kernel's bound on what it reported.
check_json() { # check_json EXPECTED_OWNER_OR_EMPTY
	printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
want = sys.argv[1]
assert d["threads"] == 4 and d["duration_ms"] == 80, d
assert len(d["per_thread"]) == 4
for t in d["per_thread"]:
    assert t["samples"] > 0 and t["cpus"] != "", t
r = d["rseq"]
assert d["percpu"]["cpu_id"] in ("rseq", "atomic") and d["percpu"]["mm_cid"] in ("rseq", "atomic"), d["percpu"]
if r["registered_by"] == "none":
    assert d["percpu"] == {"cpu_id": "atomic", "mm_cid": "atomic"}, d["percpu"]
assert not want or r["registered_by"] == want, (r, want)
if r["mm_cid"]:
    m = d["max_mm_cid"]
    assert 0 <= m < 5, m                 # below the threads (4 + main)
    assert d["distinct_mm_cids"] >= 1
else:
    assert d["max_mm_cid"] is None and d["mm_cids"] is None
' "$1"
}

run cid --threads 4 --duration 80 --json
[ $rc -eq 0 ] && [ -z "$err" ] && check_json ""
ok $? "--json: valid, 4 threads, mm_cid below the thread count"

export GLIBC_TUNABLES=glibc.pthread.rseq=0
run cid --threads 4 --duration 80 --json
unset GLIBC_TUNABLES
[ $rc -eq 0 ] && [ -z "$err" ] && check_json cidkit
ok $? "--json without glibc's rseq: cidkit registers its own area"

expect_usage_error "--threads 0" cid --threads 0
expect_usage_error "--threads abc" cid --threads abc
expect_usage_error "--threads 4097" cid --threads 4097
expect_usage_error "--threads -1" cid --threads -1
expect_usage_error "--threads ''" cid --threads ''
expect_usage_error "--duration 0" cid --duration 0
expect_usage_error "--duration 3600001" cid --duration 3600001
expect_usage_error "--duration 1.5" cid --duration 1.5
expect_usage_error "--duration without value" cid --duration
expect_usage_error "unknown long option" cid --bogus
expect_usage_error "unknown short option" cid -x
expect_usage_error "extra argument" cid --threads 2 extra

done_testing
