#!/bin/sh
# cidkit sim ...: determinism, JSON shape, and bad input.
CIDKIT=${1:?usage: sim.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"

small="--config 8c1l3,24c24l3 --delay-ms 10 --rounds 4"

run sim locality $small
first=$out
[ $rc -eq 0 ] && echo "$out" | grep -q '^# cidkit sim locality' &&
	echo "$out" | grep -q 'lazy/cache-local'
ok $? "sim locality: a table headed by the command line"
run sim locality $small
[ "$out" = "$first" ]
ok $? "sim locality: the same command prints the same bytes"
run sim locality $small --seed 2
[ $rc -eq 0 ] && [ "$out" != "$first" ]
ok $? "sim locality: another seed prints another table"

run sim locality $small --json
printf '%s' "$out" | python3 -c '
import json, sys
a = json.load(sys.stdin)
keys = {"config", "delay_ms", "policy", "ns_per_burst", "max_cid", "cid_changes"}
assert len(a) == 2 * 5, len(a)
for o in a:
    assert keys <= set(o), o
    assert o["ns_per_burst"] > 0
assert {o["policy"] for o in a} == {"per-cpu", "lazy", "cache-local", "inherit", "ownership"}
'
ok $? "sim locality --json: an array of the contract's objects"

run sim locality --config 8c1l3 --delay-ms 200 --rounds 3 --reference
echo "$out" | grep -q 'reference' && echo "$out" | grep -q 'sim/ref'
ok $? "sim locality --reference adds the published rows"

run sim scan --workload periodic --policy lazy,lazy-batched --batch 16 --duration-ms 250 --json
printf '%s' "$out" | python3 -c '
import json, sys
a = json.load(sys.stdin)
keys = {"policy", "batch", "workload", "p50_us", "p99_us", "max_us", "full_pass_ms", "max_cid"}
assert len(a) == 2 and all(keys <= set(o) for o in a), a
assert a[0]["max_us"] > a[1]["max_us"]
'
ok $? "sim scan --json: objects with the contract's keys; a full pass costs more than a batch"

run sim compaction-test --machine 1s4c1t --policy lazy,inherit --trigger return-to-user
[ $rc -eq 0 ] && echo "$out" | grep -q '0 expected-to-pass runs failed'
ok $? "sim compaction-test: passes where it must, exit 0"

run sim compaction-test --policy lazy,ownership
[ $rc -eq 0 ] && echo "$out" | grep -q '0 expected-to-pass runs failed' &&
	[ "$(echo "$out" | grep -c ' ownership  *n/a  *[0-9]* pass ')" -eq 8 ] &&
	[ "$(echo "$out" | grep -c ' lazy  *return-to-user  *[0-9]* pass ')" -eq 8 ] &&
	! echo "$out" | grep -q ' ownership  *tick'
ok $? "sim compaction-test --policy lazy,ownership: both converge on all 8 machines; ownership once, trigger n/a"

run sim compaction-test --machine 1s8c1t --policy ownership,bitmap --json
printf '%s' "$out" | python3 -c '
import json, sys
a = json.load(sys.stdin)
assert [o["policy"] for o in a] == ["ownership", "bitmap"], a
assert all(o["trigger"] is None and o["passed"] and o["must_pass"] for o in a), a
'
ok $? "sim compaction-test --json: policies without a scan have trigger null, one run each"

run sim locality --policy per-cpu,lazy,cache-local,inherit,ownership --config 24c24l3 --delay-ms 200 --rounds 4
[ $rc -eq 0 ] && echo "$out" | grep -q '^config .* ownership  *lazy/cache-local$' &&
	echo "$out" | grep -q '^24c24l3 '
ok $? "sim locality: an ownership column"

run sim scan --workload periodic --policy lazy,ownership --duration-ms 250
[ $rc -eq 0 ] && echo "$out" | grep -q '^periodic .* ownership  *-  *n/a  *n/a  *n/a  *n/a  *n/a '
ok $? "sim scan: ownership has no scan: n/a in the scan columns"

run sim switch --cpus 4 --policy bitmap,inherit --duration-ms 2 --json
printf '%s' "$out" | python3 -c '
import json, sys
o = json.load(sys.stdin)
assert len(o["mask"]) == 4 and len(o["cid"]) == 2
assert o["mask"][1]["mask_atomics_per_switch"] == 1.0
'
ok $? "sim switch --json: mask and cid arrays"

expect_usage_error "unknown scenario" sim frobnicate
expect_usage_error "unknown config" sim locality --config 9c9l3
expect_usage_error "unknown policy" sim locality --policy fastest
run sim locality --policy fastest
echo "$err" | grep -q 'ownership)'
ok $? "the unknown-policy message lists ownership"
expect_usage_error "per-cpu is not a CID policy for scan" sim scan --policy per-cpu
expect_usage_error "unknown trigger" sim locality --trigger sometimes
expect_usage_error "bad delay" sim locality --delay-ms -3
expect_usage_error "absurd rounds" sim locality --rounds 99999999999
expect_usage_error "one round leaves nothing to measure" sim locality --rounds 1
expect_usage_error "unknown machine" sim locality --machine nosuchbox
expect_usage_error "malformed machine spec" sim scan --machine 2s0c2t
expect_usage_error "unknown workload" sim scan --workload pipe
expect_usage_error "bad batch" sim scan --batch 0
expect_usage_error "bad bound" sim compaction-test --bound-ms 0
expect_usage_error "too few CPUs" sim switch --cpus 1
expect_usage_error "more CPUs than the machine" sim switch --machine 1s4c1t --cpus 8
expect_usage_error "stray argument" sim switch extra
expect_usage_error "an hour of simulated messaging" sim scan --duration-ms 3600000
expect_usage_error "absurd switch duration" sim switch --duration-ms 999999999

# docs/cid.md shows this table: it must be what the command prints, byte
# for byte (regenerate the block when the simulator's numbers move).
doc="$(dirname "$0")/../../docs/cid.md"
cmdline='sim locality --reference --policy per-cpu,lazy,cache-local,inherit,ownership'
shown=$(awk -v c="\$ build/cidkit $cmdline" '
	$0 == c { on = 1; next }
	on && /^```/ { exit }
	on { print }' "$doc")
run $cmdline
[ $rc -eq 0 ] && [ -n "$shown" ] && [ "$out" = "$shown" ]
ok $? "docs/cid.md: the ownership locality table is the command's output, byte for byte"
if [ "$out" != "$shown" ]; then
	printf '%s\n' "$shown" > "$tmp/doc"
	printf '%s\n' "$out" > "$tmp/cmd"
	diff "$tmp/doc" "$tmp/cmd" | sed 's/^/# /' | head -20
fi

for s in locality scan compaction-test switch; do
	run sim $s --help
	[ $rc -eq 0 ] && echo "$out" | grep -q "usage: cidkit sim $s" &&
		echo "$out" | grep -q "ownership\|all six"
	ok $? "sim $s --help (ownership among the policies)"
done

done_testing
