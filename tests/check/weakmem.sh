#!/bin/sh
# cidkit check --memory (issue 26) end to end: the 2026 weak-ordering bug
# (ownership:-W2) is a violation under rc11 and none under sc and tso;
# the violation replays from the directives it prints (a weak choice is
# a T~K directive), the same directives under sc are refused; sharded and
# --jobs searches give one search's report byte for byte under rc11 and
# tso; a bad model name is a usage error.  Expected values: the cover
# letter of [WOES] V2 (2026-02-02: weakly ordered CPUs "observe
# inconsistent state ... the same problem as with #1", W1's live lock),
# x86-TSO (stores seen in order: no switch sees the new percpu word with
# the old transit word), and what --replay promises.  About 30 s.
CIDKIT=${1:?usage: weakmem.sh path/to/cidkit}
. "$(dirname "$0")/../cli/tap.sh"

W2="--scenario livelock-3cpu --policy ownership:-W2"

run_status 1 check $W2 --memory rc11
echo "$out" | grep -q '^livelock-3cpu (ownership:-W2, 3 CPUs, 4 tasks): VIOLATION - .*, memory rc11, weak-choice bound 2$' &&
	echo "$out" | grep -q '^liveness: .*T1 spins in get_cid' &&
	echo "$out" | grep -qE '^ +[0-9]+ +T[0-9] .*load mm\.transit = 0 \(an older store, ~1\)'
ok $? "ownership:-W2 under rc11: the live lock, after a load of the old transit word"
rep=$(echo "$out" | sed -n 's/^replay: //p')
case "$rep" in
"--memory rc11 --replay "*"~"*) true ;;
*) false ;;
esac
ok $? "the replay line names the model and a T~K directive ($rep)"
why=$(echo "$out" | grep '^liveness: ')

# shellcheck disable=SC2086 # (the directives are words)
run_status 1 check $W2 $rep
echo "$out" | grep -q '^livelock-3cpu (ownership:-W2, 3 CPUs, 4 tasks): VIOLATION - a replay of' &&
	[ "$(echo "$out" | grep '^liveness: ')" = "$why" ]
ok $? "the printed directives replay the violation, same reason"

dirs=${rep#--memory rc11 --replay }
expect_usage_error "the same directives under sc (no such memory way)" \
	check $W2 --replay "$dirs"
echo "$err" | grep -q "memory way"
ok $? "... and the message says which directive and why"

run check $W2 --memory sc
echo "$out" | grep -q '^livelock-3cpu (ownership:-W2, 3 CPUs, 4 tasks): pass - '
ok $? "ownership:-W2 under sc: pass"
run check $W2 --memory tso
echo "$out" | grep -q '^livelock-3cpu (ownership:-W2, 3 CPUs, 4 tasks): pass - .*, memory tso, weak-choice bound 2$'
ok $? "ownership:-W2 under tso: pass (stores are seen in order)"
run check --scenario livelock-3cpu --policy ownership --memory rc11
echo "$out" | grep -q '^pass: <= 2 explorer switch(es), memory rc11, <= 2 weak choice(s), sleep sets off'
ok $? "every fix under rc11: pass, the verdict says the model and the bound"
run check $W2 --memory rc11 --weak-bound 0
echo "$out" | grep -q ' pass - '
ok $? "ownership:-W2 under rc11 with --weak-bound 0: pass (no weak choice: sc)"

# sharded and parallel searches under the weak models
for m in rc11 tso; do
	"$CIDKIT" check $W2 --memory $m >"$tmp/one" 2>/dev/null
	for k in 1 2 3; do
		"$CIDKIT" check $W2 --memory $m --shard $k/3 --json >"$tmp/p$k" 2>/dev/null
	done
	"$CIDKIT" check --merge "$tmp/p1" "$tmp/p2" "$tmp/p3" >"$tmp/merged" 2>/dev/null
	cmp -s "$tmp/one" "$tmp/merged"
	ok $? "--memory $m: 3 shards merged = one search, byte for byte" "$tmp/merged"
	"$CIDKIT" check $W2 --memory $m --jobs 2 >"$tmp/jobs" 2>/dev/null
	cmp -s "$tmp/one" "$tmp/jobs"
	ok $? "--memory $m: --jobs 2 = one search, byte for byte" "$tmp/jobs"
done

expect_usage_error "--memory arm" check --scenario switch-race --memory arm

done_testing
