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

# sim scan's figures worked out by hand (issue 35), not read off the command:
# periodic pins one task per CPU, each waking every 100 us for 5 us, so
# every (mm, CPU) slot keeps its own CID (0..7 on 8 CPUs, bound
# min(8 CPUs, 8 users) = 8), used far within the 100 ms expiry and below
# the weight 8: lazy's scan releases nothing.  With compaction on return
# to user, the first due check only arms (the first wake-ups come within
# 100 us), then one full pass every 100 ms: in 250 ms, 2 calls, each
# visiting all 8 slots, each visit 2 lines priced by distance from the
# scanning CPU (sim/machine.c's Zen 4 constants: L2 14 cycles at 3.7 GHz,
# 17 ns within an LLC, 80 ns between LLCs of a package, 190 ns between
# sockets).  From any CPU of 2s2c2t (LLC = socket): itself and its SMT
# sibling at L2, the other core's 2 CPUs at 17, the 4 of the other socket
# at 190: 2 * (2 * 14/3.7 + 2 * 17 + 4 * 190) = 1603.135 ns; with llc=1
# the other core is another LLC of the package, at 80:
# 2 * (2 * 14/3.7 + 2 * 80 + 4 * 190) = 1855.135 ns.  Every call costs the
# same, so p50 = p99 = max, and a pass is one call (0.0016, 0.0019 ms).
for m in "2s2c2t 1.603 0.0016" "2s2c2t:llc=1 1.855 0.0019"; do
	set -- $m
	run sim scan --machine "$1" --workload periodic --policy lazy --trigger return-to-user \
		--duration-ms 250 --json
	printf '%s' "$out" | python3 -c '
import json, sys
(o,) = json.load(sys.stdin)
want = {"nr_cpus": 8, "calls": 2, "p50_us": float(sys.argv[1]), "p99_us": float(sys.argv[1]),
        "max_us": float(sys.argv[1]), "full_pass_ms": float(sys.argv[2]), "max_cid": 7,
        "bound": 8, "max_cid_max_ratio": 1.0}
got = {k: o[k] for k in want}
assert got == want, (got, want)
' "$2" "$3"
	ok $? "sim scan --machine $1, lazy, periodic, 250 ms: 2 calls of $2 us each (p50, p99, max), worked out by hand"
done

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

run sim locality --reference --score
scored=$out
[ $rc -eq 0 ] && echo "$out" | grep -q '^score: sim/ref over the 24 reference cells' &&
	[ "$(echo "$out" | grep -c '^[12]0*0 ms  *[0-9a-z]*  *[0-9.]*x ')" -eq 8 ] &&
	echo "$out" | grep -q '^geometric-mean error: mean |ln(sim/ref)| = [0-9.]* over 24 cells (a factor of [0-9.]*x)$' &&
	echo "$out" | grep -q '^worst cell: ' &&
	echo "$out" | grep -q '^lazy/cache-local ratios: mean |ln(sim/ref)| = '
ok $? "sim locality --reference --score: 8 score rows, the mean error, the worst cell, the ratios"
run sim locality --reference --score
[ "$out" = "$scored" ]
ok $? "sim locality --score: the same command prints the same bytes"
run sim locality --reference --score --json
printf '%s' "$out" | python3 -c '
import json, math, sys
o = json.load(sys.stdin)
text = sys.argv[1]
s = o["score"]
assert len(o["cells"]) == 40 and len(s["rows"]) == 8, o.keys()
errs = [abs(math.log(r[p]["sim"] / r[p]["ref"])) for r in s["rows"]
        for p in ("per-cpu", "lazy", "cache-local")]
assert len(errs) == 24
assert abs(sum(errs) / 24 - s["mean_abs_log"]) < 1e-3, (sum(errs) / 24, s)
assert "= %.3f over 24 cells" % s["mean_abs_log"] in text
assert abs(max(errs) - abs(math.log(s["worst"]["sim_over_ref"]))) < 1e-3
rat = [abs(math.log(r["lazy_over_cache_local"]["sim_over_ref"])) for r in s["rows"]]
assert abs(sum(rat) / 8 - s["ratio_mean_abs_log"]) < 1e-3
' "$scored"
ok $? "sim locality --score --json: cells and score; the mean, worst and ratio error recomputed from the rows agree with the text"
expect_usage_error "a policy variant (for cidkit check)" sim switch --policy ownership:v6.19
expect_usage_error "an unknown variant" sim locality --policy ownership:nope
expect_usage_error "--score without --reference" sim locality --score
expect_usage_error "--score without all 24 cells" sim locality --reference --score --config 8c1l3
expect_usage_error "--score without lazy" sim locality --reference --score --policy per-cpu,cache-local
expect_usage_error "--score without the 10 ms delay" sim locality --reference --score --delay-ms 200

expect_usage_error "unknown scenario" sim frobnicate
expect_usage_error "unknown config" sim locality --config 9c9l3
expect_usage_error "unknown policy" sim locality --policy fastest
run_status 2 sim locality --policy fastest
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

# The outputs docs/ shows are checked byte for byte by tests/docs/cram.py
# (suite docs).

for s in locality scan compaction-test switch; do
	run sim $s --help
	[ $rc -eq 0 ] && echo "$out" | grep -q "usage: cidkit sim $s" &&
		echo "$out" | grep -q "ownership\|all six"
	ok $? "sim $s --help (ownership among the policies)"
done

done_testing
