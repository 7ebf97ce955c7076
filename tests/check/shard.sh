#!/bin/sh
# cidkit check --shard K/N, --merge FILE..., --jobs N: one search spread
# over parts gives the report of one search.  The reference is the
# unsharded run of the same command (no unit, no part, no merge in it):
# the merged --json must be the same bytes -- verdict, schedules, steps,
# distinct states, bound, and for a violation the same trace and state.
# Bad input: one 'cidkit:' line, exit 2.  GNU parallel: shard_parallel.sh.
CIDKIT=${1:?usage: shard.sh path/to/cidkit}
. "$(dirname "$0")/../cli/tap.sh"
. "$(dirname "$0")/mutant.sh"

# same_as_one NAME N ARGS...: the N parts of `check ARGS --json`, merged
# (files in reverse order), against one run; text reports too.
same_as_one() {
	name=$1 parts=$2
	shift 2
	"$CIDKIT" check "$@" --json >"$tmp/one.json" 2>/dev/null
	one_rc=$?
	"$CIDKIT" check "$@" >"$tmp/one.txt" 2>/dev/null
	files=
	k=1
	while [ $k -le "$parts" ]; do
		"$CIDKIT" check "$@" --json --shard "$k/$parts" >"$tmp/part$k.json" 2>/dev/null
		files="$tmp/part$k.json $files"
		k=$((k + 1))
	done
	# shellcheck disable=SC2086
	run_status any check --merge --json $files
	# shellcheck disable=SC2086
	"$CIDKIT" check --merge $files >"$tmp/merged.txt" 2>/dev/null
	[ "$rc" = "$one_rc" ] && [ "$one_rc" -le 1 ] && cmp -s "$tmp/out" "$tmp/one.json" &&
		cmp -s "$tmp/merged.txt" "$tmp/one.txt"
	ok $? "$name: $parts parts merged = one search (exit $one_rc, same --json and text)"
}

same_as_one "switch-back (ownership)" 3 --scenario switch-back
same_as_one "fork-walk-migrate (ownership), no sleep sets" 2 --scenario fork-walk-migrate --no-por --preemptions 1
same_as_one "scan-race (lazy), 3 preemptions" 4 --scenario scan-race --preemptions 3
same_as_one "fork-exit (cache-local)" 5 --scenario fork-exit
same_as_one "lease-scan (cache-local)" 2 --scenario lease-scan
same_as_one "exit-shrink (inherit), 7 parts" 7 --scenario exit-shrink
same_as_one "switch-race (bitmap)" 3 --scenario switch-race --policy bitmap
# violations: the search stops at the lowest bound where any part found
# one; the shortest trace, the first in DFS order among equals
same_as_one "published-livelock (ownership:v6.19, a violation at bound 1)" 3 --scenario published-livelock
same_as_one "concurrent-forks (ownership:v6.19, a violation)" 2 --scenario concurrent-forks
# (a mutant is its own build: scripts/mutate.py, run through CIDKIT_CHECK)
CIDKIT_CHECK=$(mutant own-walk-drop-running)
export CIDKIT_CHECK
same_as_one "mutant own-walk-drop-running (a violation)" 4 --scenario switch-back
unset CIDKIT_CHECK
# every scenario of the library in one file per part
same_as_one "the whole library at 1 preemption" 2 --preemptions 1

# The parts share the work: each of 3 parts of converge counts at least a
# sixth of its 137061 schedules (unit estimates, not just unit counts).
"$CIDKIT" check --scenario converge --preemptions 1 >"$tmp/c.txt" 2>/dev/null
total=$(sed -n 's/.*pass - \([0-9]*\) schedules.*/\1/p' "$tmp/c.txt")
low=
for k in 1 2 3; do
	s=$("$CIDKIT" check --scenario converge --preemptions 1 --json --shard $k/3 2>/dev/null |
		grep -o '"verdict": "pass", .*' | grep -o '"schedules": [0-9]*' |
		head -n 1 | sed 's/.* //')
	[ -n "$s" ] && [ -n "$total" ] && [ $((s * 6)) -ge "$total" ] || low="$low $k:$s"
done
[ -n "$total" ] && [ -z "$low" ]
ok $? "converge at 1 preemption: each of 3 parts has at least 1/6 of $total schedules${low:+ (not:$low)}"

# --jobs: the same search on N processes, the same bytes.
for j in 2 3; do
	for s in switch-back livelock-3cpu; do
		"$CIDKIT" check --scenario $s --json >"$tmp/one.json" 2>/dev/null
		want=$?
		run_status $want check --scenario $s --json --jobs $j
		cmp -s "$tmp/out" "$tmp/one.json"
		ok $? "--jobs $j: $s, the same --json as one process (exit $want)"
	done
done

# PCT splits by seed (a swarm): the parts' executions add up to --random N.
for k in 1 2 3; do
	"$CIDKIT" check --scenario published-livelock --random 3000 --seed 3 --json \
		--shard $k/3 >"$tmp/r$k.json" 2>/dev/null
done
run_status 1 check --merge "$tmp/r1.json" "$tmp/r2.json" "$tmp/r3.json"
echo "$out" | grep -q '^published-livelock (ownership:v6.19, 4 CPUs, 5 tasks): VIOLATION - 3000 random executions (seed 3, depth 3)' &&
	echo "$out" | grep -q '^liveness: ' &&
	python3 -c '
import json, sys
parts = [json.load(open(f))[0] for f in sys.argv[1:]]
assert [p["schedules"] for p in parts] == [1000] * 3, parts
assert [p["part"]["schedules"] for p in parts] == [1000] * 3
assert parts[0]["part"]["state_hashes"] != parts[1]["part"]["state_hashes"]
' "$tmp/r1.json" "$tmp/r2.json" "$tmp/r3.json"
ok $? "--random 3000 in 3 parts: 1000 executions each, other seeds, 3000 merged, the live lock"

# Bad input.
for spec in 0/3 4/3 1/0 x 1/3x 3 /3 1/100001 -1/3; do
	expect_usage_error "--shard $spec" check --scenario switch-race --shard "$spec"
done
expect_usage_error "--shard with --jobs" check --shard 1/2 --jobs 2
expect_usage_error "--jobs with --max-schedules" check --jobs 2 --max-schedules 10
expect_usage_error "--shard with --replay" check --scenario switch-race --shard 1/2 --replay T0
expect_usage_error "--jobs 0" check --jobs 0
expect_usage_error "--random fewer than the parts" check --random 2 --shard 1/3
expect_usage_error "--merge without files" check --merge
expect_usage_error "a file without --merge" check "$tmp/part1.json"
expect_usage_error "--merge with --scenario" check --merge --scenario switch-race "$tmp/part1.json"
for k in 1 2 3; do
	"$CIDKIT" check --scenario switch-race --json --shard $k/3 >"$tmp/s$k.json" 2>/dev/null
done
"$CIDKIT" check --scenario exit-shrink --json --shard 2/3 >"$tmp/other.json" 2>/dev/null
"$CIDKIT" check --scenario switch-race --preemptions 1 --json --shard 2/3 >"$tmp/p1.json" 2>/dev/null
"$CIDKIT" check --scenario switch-race --policy lazy --json --shard 2/3 >"$tmp/lazy.json" 2>/dev/null
"$CIDKIT" check --scenario switch-race --json --shard 2/4 >"$tmp/of4.json" 2>/dev/null
"$CIDKIT" check --scenario switch-race --json >"$tmp/plain.json" 2>/dev/null
head -c 700 "$tmp/s2.json" >"$tmp/cut.json"
sed 's/"k": 2/"k": 9/' "$tmp/s2.json" >"$tmp/k9.json"
expect_usage_error "--merge: a part missing" check --merge "$tmp/s1.json" "$tmp/s3.json"
expect_usage_error "--merge: a part twice" check --merge "$tmp/s1.json" "$tmp/s2.json" "$tmp/s2.json" "$tmp/s3.json"
expect_usage_error "--merge: another scenario" check --merge "$tmp/s1.json" "$tmp/other.json" "$tmp/s3.json"
expect_usage_error "--merge: other options" check --merge "$tmp/s1.json" "$tmp/p1.json" "$tmp/s3.json"
expect_usage_error "--merge: another policy" check --merge "$tmp/s1.json" "$tmp/lazy.json" "$tmp/s3.json"
expect_usage_error "--merge: a part of 4 among parts of 3" check --merge "$tmp/s1.json" "$tmp/of4.json" "$tmp/s3.json"
expect_usage_error "--merge: a truncated file" check --merge "$tmp/s1.json" "$tmp/cut.json" "$tmp/s3.json"
expect_usage_error "--merge: part 9 of 3" check --merge "$tmp/s1.json" "$tmp/k9.json" "$tmp/s3.json"
expect_usage_error "--merge: the --json of an unsharded run" check --merge "$tmp/plain.json"
expect_usage_error "--merge: a missing file" check --merge "$tmp/none.json"
printf '[{"part": 1}' >"$tmp/junk.json"
expect_usage_error "--merge: not JSON" check --merge "$tmp/junk.json"
run_status 2 check --merge "$tmp/s1.json" "$tmp/cut.json" "$tmp/s3.json"
echo "$err" | grep -q '^cidkit: check: --merge: .*cut.json: not JSON (truncated at byte 700)$'
ok $? "--merge: a truncated file is named, with where it ends"
# A key given twice is refused (JSON_REJECT_DUPLICATES): here "k" is 1,
# then 2 -- a reader keeping the last value would merge it as part 2.
sed 's/"k": 2/"k": 1, "k": 2/' "$tmp/s2.json" >"$tmp/dup.json"
run_status 2 check --merge "$tmp/s1.json" "$tmp/dup.json" "$tmp/s3.json"
echo "$err" | grep -q '^cidkit: check: --merge: .*dup.json: not JSON (duplicate object key'
ok $? "--merge: a key given twice is refused, the file named"
# Each refusal for its own reason (not another check tripping later).
for c in "other.json:the scenario differs" "p1.json:the options differ" \
	"lazy.json:the policy differs"; do
	run_status 2 check --merge "$tmp/s1.json" "$tmp/${c%%:*}" "$tmp/s3.json"
	echo "$err" | grep -q "${c%%:*}: item 1 is of another search than in .*s1.json (${c#*:})\$"
	ok $? "--merge: ${c%%:*} refused because ${c#*:}"
done
# options that change the counts but not the bound: no sleep sets
"$CIDKIT" check --scenario switch-race --no-por --json --shard 2/3 >"$tmp/nopor.json" 2>/dev/null
run_status 2 check --merge "$tmp/s1.json" "$tmp/nopor.json" "$tmp/s3.json"
echo "$err" | grep -q "nopor.json: item 1 is of another search than in .*s1.json (the options differ)\$"
ok $? "--merge: a part without sleep sets among parts with them refused"
run_status 2 check --merge "$tmp/s1.json" "$tmp/s2.json" "$tmp/s2.json" "$tmp/s3.json"
echo "$err" | grep -q 's2.json: part 2/3 is there twice (also in .*s2.json)$'
ok $? "--merge: a part given twice is named"
run_status 2 check --merge "$tmp/s3.json" "$tmp/s1.json"
echo "$err" | grep -q '^cidkit: check: --merge: part 2/3 is missing (2 file(s) given)$'
ok $? "--merge: the missing part is named"

done_testing
