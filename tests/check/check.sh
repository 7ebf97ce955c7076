#!/bin/sh
# cidkit check: the interleaving explorer end to end, on the scenario
# library.  Finds the two published ownership bugs on ownership:v6.19 and
# none on the current design; every mutant is killed by its own run; same
# input, same bytes; bad input is one
# line, exit 2.  Every policy on every scenario: matrix.py.
CIDKIT=${1:?usage: check.sh path/to/cidkit}
. "$(dirname "$0")/../cli/tap.sh"
. "$(dirname "$0")/mutant.sh"

run check --help
[ $rc -eq 0 ] && echo "$out" | grep -q '^usage: cidkit check'
ok $? "--help: usage, exit 0"

run check --list
[ $rc -eq 0 ] && [ "$(echo "$out" | grep -cE '^[a-z0-9-]+ +[a-z:.0-9-]+ +[0-9]+ CPUs')" -eq 18 ] &&
	echo "$out" | grep -qE '^published-livelock +ownership:v6.19 +4 CPUs, 5 tasks, expect violation'
ok $? "--list: 18 scenarios, the published live lock among them"

# The published bugs, found on the merged design (each well under 60 s).
for s in published-livelock livelock-3cpu; do
	run_status 1 check --scenario $s
	steps=$(echo "$out" | sed -n 's/^trace: \([0-9]*\) steps.*/\1/p')
	echo "$out" | grep -q '^liveness: ' &&
		echo "$out" | grep -q 'T1 spins in get_cid' &&
		echo "$out" | grep -q 'T0 waits in task_rq_lock .* for lock cpu2.rq_lock, held by T1' &&
		[ -n "$steps" ] && [ "$steps" -le 60 ] &&
		echo "$out" | grep -qE '^ +[0-9]+ \* T1 '
	ok $? "$s on ownership:v6.19: the live lock, T1 spinning in get_cid under cpu2's lock ($steps steps)"
done

run_status 1 check --scenario concurrent-forks
echo "$out" | grep -q '^liveness: .*TA waits to switch in on CPU 2, where TB runs; TB spins in get_cid' &&
	echo "$out" | grep -q '^TA: running\|^TA: not running'
ok $? "concurrent-forks on ownership:v6.19: the stall (TB waits for the CID TA kept)"

# The same scenarios on the current design: no violation.
for s in livelock-3cpu concurrent-forks; do
	run check --scenario $s --policy ownership
	[ $rc -eq 0 ] && echo "$out" | grep -q "^$s (ownership, .*: pass - .*explorer-switch bound 2 of 2"
	ok $? "$s on ownership (every fix): no violation within 2 preemptions"
done
run check --scenario published-livelock --policy ownership --preemptions 1
[ $rc -eq 0 ] && echo "$out" | grep -q ': pass - '
ok $? "published-livelock on ownership: no violation within 1 preemption"

# Every policy, every scenario at 2 preemptions: tests/check/matrix.py
# (check_matrix), in the plain and the ASan+UBSan builds.

# Sleep sets prune schedules, never states: with and without them the
# search reaches the same distinct states (and the same verdict).
for s in switch-back lazy-put fork-exit; do
	run check --scenario $s
	a=$(echo "$out" | sed -n 's/.*: pass - \([0-9]*\) schedules, \([0-9]*\) states.*/\1 \2/p')
	run check --scenario $s --no-por
	b=$(echo "$out" | sed -n 's/.*: pass - \([0-9]*\) schedules, \([0-9]*\) states.*/\1 \2/p')
	[ -n "$a" ] && [ -n "$b" ] && [ "${a#* }" = "${b#* }" ] && [ "${a% *}" -le "${b% *}" ]
	ok $? "$s: sleep sets reach the same states with no more schedules ($a vs $b)"
done

# Each mutant of the checker's mutation table (scripts/mutate.py TABLE,
# source patches of lib/cid) judged by its own run, not by the table's
# summary line: in the mutant's build, the scenario that should catch it
# gives a violation of the named property (exit 1); without the mutant
# every scenario passes on every policy (matrix.py).  The list is this
# test's, written from what each mutant breaks; the table must name
# exactly these.  Built two at a time first (about 2 s each).
mutants="take-test-then-set:bitmap:switch-back:safety
bitmap-put-early:bitmap:switch-back:quiescence
inherit-no-put:inherit:switch-back:quiescence
inherit-no-bound:inherit:exit-shrink:safety
lazy-scan-busy:lazy:scan-race:safety
lazy-put-keeps-slot:lazy:scan-race:safety
own-no-transit-clear:ownership:switch-back:quiescence
own-walk-drop-running:ownership:switch-back:quiescence
own-keep-transit:ownership:switch-back:quiescence
own-converge-no-put:ownership:exit-shrink:quiescence
own-no-rq-recheck:ownership:fork-walk-migrate:quiescence
lease-claim-no-cas:lazy:lease-claim:quiescence
lease-exit-any:lazy:lease-leave:quiescence
lazy-migrate-busy:lazy:fork-walk-migrate:corruption"
echo "$mutants" | cut -d: -f1 | xargs -P 2 -I{} \
	python3 "$MUTATE" build {} "$tmp/m" --build "$(dirname "$CIDKIT")" >/dev/null 2>&1
for m in $mutants; do
	IFS=: read -r name pol scn prop <<EOF_M
$m
EOF_M
	exe=$(mutant "$name")
	if [ -z "$exe" ]; then
		ok 1 "mutant $name builds" "$tmp/why"
		continue
	fi
	export CIDKIT_CHECK="$exe"
	run_status 1 check --policy "$pol" --scenario "$scn" --json
	unset CIDKIT_CHECK
	printf '%s' "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert len(r) == 1 and r[0]["verdict"] == "violation" and r[0]["property"] == sys.argv[1], r[0]
' "$prop" 2>"$tmp/why"
	ok $? "mutant $name: $scn on $pol finds a $prop violation" "$tmp/why"
done
python3 "$MUTATE" list --table | cut -d' ' -f1 | sort >"$tmp/table"
echo "$mutants" | cut -d: -f1 | sort | diff - "$tmp/table" >"$tmp/why"
ok $? "mutate.py's table names exactly the 14 mutants judged above" "$tmp/why"

# Leases' fast paths (lease_fast.h): every lazy-family policy passes the
# lease scenarios at 3 preemptions, and a trace shows the fast path ran.
for p in lazy lazy-batched cache-local; do
	for s in lease-claim lease-leave lease-scan; do
		run check --policy $p --scenario $s --preemptions 3
		[ $rc -eq 0 ] && echo "$out" | grep -q ": pass - "
		ok $? "lease fast path: $s passes under $p (3 preemptions)"
	done
done
CIDKIT_CHECK=$(mutant lease-claim-no-cas)
export CIDKIT_CHECK
run_status 1 check --scenario lease-claim
unset CIDKIT_CHECK
echo "$out" | grep -q "lease_fast.h:.* cidk__lazy_lease_claim"
ok $? "mutant lease-claim-no-cas: the trace runs through the fast claim"

CIDKIT_CHECK=$(mutant inherit-no-put)
export CIDKIT_CHECK
run_status 1 check --scenario exit-shrink
unset CIDKIT_CHECK
echo "$out" | grep -q "^quiescence: CID .* leaked"
ok $? "mutant inherit-no-put: a leak at quiescence"

# Determinism: the same command prints the same bytes on standard output,
# text and JSON; the wall clock goes to standard error.
for fmt in "" --json; do
	run_status 1 check --scenario concurrent-forks $fmt
	cp "$tmp/out" "$tmp/first"
	run_status 1 check --scenario concurrent-forks $fmt
	cmp -s "$tmp/first" "$tmp/out" && ! grep -q 'time:\|seconds' "$tmp/out" &&
		echo "$err" | grep -qE '^time: [0-9.]+ s, [0-9]+ schedules/s'
	ok $? "same scenario and bounds: the same output bytes${fmt:+ ($fmt)}, the time on stderr"
done

run_status 1 check --scenario livelock-3cpu --json
printf '%s' "$out" | python3 -c '
import json, re, sys
d = json.load(sys.stdin)
assert len(d) == 1, d
r = d[0]
assert r["verdict"] == "violation" and r["property"] == "liveness", r
assert r["policy"] == "ownership:v6.19" and r["cpus"] == 3, r
t = r["trace"]
assert len(t) <= 60 and [s["step"] for s in t] == list(range(1, len(t) + 1))
assert any(s["preemption"] for s in t)
assert any(s["function"] == "get_cid" and s["op"] == "spin" for s in t), t
assert all(s["source"].startswith("lib/cid/") for s in t if s["op"] not in ("start", "event"))
# the cpu column is the CPU the task occupies: inside an `in N` event
# (after its first step) it is N, even while move_task still locks the
# runqueue it leaves; inside `migrate N` (not running) there is none
assert all(s["cpu"] is None or 0 <= s["cpu"] < 3 for s in t), t
moves = 0
for s in t:
    ev = re.match(r"(in|migrate) ([0-9]+)$", s["event"])
    if not ev or s["op"] in ("start", "event"):
        continue
    if ev.group(1) == "in":
        assert s["cpu"] == int(ev.group(2)), s
        m = re.match(r"store (T[0-9]+)\.cpu: ([0-9]+) -> ([0-9]+)$", s["what"])
        moves += bool(m and m.group(2) != ev.group(2))
    else:
        assert s["cpu"] is None, s
assert moves > 0, "no move_task inside a switch-in in the trace"
'
ok $? "--json: the violation, its numbered trace with CPUs, functions and sources"

run_status 1 check --random 3000 --seed 3 --scenario published-livelock
echo "$out" | grep -q 'random executions (seed 3, depth 3)' &&
	echo "$out" | grep -q '^liveness: '
ok $? "--random (PCT) finds the live lock too"

# (verdicts and exit statuses of limits and mistakes: tests/check/ux.sh)
run_status 3 check --scenario switch-race --max-steps 10
echo "$out" | grep -q '^limit: --max-steps 10 cut [0-9]* execution(s) that kept changing the state'
ok $? "--max-steps: executions longer than the bound are a limit, exit 3"

run_status 3 check --scenario converge --max-schedules 5
echo "$out" | grep -q ': LIMIT - 5 schedules' &&
	echo "$out" | grep -q '^limit: --max-schedules 5 reached before the search was done'
ok $? "--max-schedules: stops and says so, exit 3"

run check --growth --preemptions 0 --json
[ $rc -eq 0 ] && printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert [(r["tasks"], r["cpus"]) for r in d] == [(2,1),(2,2),(3,2),(4,2),(4,3),(5,3),(4,4),(6,4)], d
assert all(r["verdict"] == "pass" and r["schedules"] > 0 for r in d), d
'
ok $? "--growth: eight shapes, 2x1 to 6x4"

# A scenario from a file.
cat >"$tmp/ok.scn" <<'EOF'
# two tasks trading CPUs
name trade
cpus 2
task A initial: in 0; out; in 1; out
task B initial: in 1; out; in 0; out
EOF
run check --scenario "$tmp/ok.scn" --policy inherit
[ $rc -eq 0 ] && echo "$out" | grep -q '^trade (inherit, 2 CPUs, 2 tasks): pass'
ok $? "a scenario file runs"

bad() { # bad WHAT LINE TEXT: FILE:LINE as a compiler writes it
	printf '%s\n' "$3" >"$tmp/bad.scn"
	run_status 2 check --scenario "$tmp/bad.scn"
	[ -z "$out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		echo "$err" | grep -q "^cidkit: $tmp/bad.scn:$2: "
	ok $? "bad scenario ($1): exit 2, one line naming line $2"
}
bad "unknown event" 2 'cpus 2
task A initial: in 0; jump'
bad "CPU out of range" 2 'cpus 2
task A initial: in 2'
bad "out while not running" 2 'cpus 1
task A initial: out'
bad "fork of nobody" 2 'cpus 1
task A initial: in 0; fork Z'
bad "forked twice" 4 'cpus 2
task A initial: in 0; fork B; out
task C initial: in 1; fork B; out
task B: in 0'
bad "no cpus" 1 'task A initial: in 0'
printf 'cpus 2\ntask A initial: in 0; \033[31mred\n' >"$tmp/esc.scn"
run_status 2 check --scenario "$tmp/esc.scn"
echo "$err" | grep -q "unknown event near '?\[31mred'" &&
	! printf '%s' "$err" | LC_ALL=C grep -q "$(printf '\033')"
ok $? "bad scenario: its own bytes are quoted without control bytes (an escape sequence)"

bad "cpus twice (found by fuzz_scenario: the tasks' CPUs were checked against the first)" 3 'cpus 64
task A initial: affinity 0-63; in 20; out
cpus 2'
bad "a CPU beyond the machine at the end of a long cpulist" 2 'cpus 64
allowed 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64'
bad "unknown keyword" 2 'cpus 2
colour blue'
bad "too many tasks" 10 'cpus 1
task A initial:
task B initial:
task C initial:
task D initial:
task E initial:
task F initial:
task G initial:
task H initial:
task I initial:'
bad "disallowed CPU" 3 'cpus 4
allowed 0-1
task A initial: in 3'

# --replay: a found violation's directives run it again, step for step.
run check --scenario livelock-3cpu
rep=$(echo "$out" | sed -n 's/^replay: --replay //p')
sed 1d "$tmp/out" >"$tmp/found"
run_status 1 check --scenario livelock-3cpu --replay "$rep"
[ -n "$rep" ] && sed 1d "$tmp/out" | cmp -s - "$tmp/found"
ok $? "--replay of the printed directives ($rep): the same violation, trace and state"

# --replay: the exact CIDs of the ownership walks, worked by hand from the
# design (lib/cid/ownership.c, docs/cid.md).  Two CPUs: two users fit
# (max_cids = min(2 + 2/4, 2) = 2); T0's fork of T2 makes three, so the
# fork switches the mm to per-CPU mode and walks the tasks.  T1 first runs
# `in 1; out` (T1/2): in per-task mode it keeps CID 1 while it sleeps.
walk=$(dirname "$0")/../data/check/walk.scn
state() { # the lines after "state at the stop:"
	echo "$out" | sed -n '/^state at the stop:$/,$p' | sed 1d
}
# T1 switches in after the fork set the mode (per-CPU, in transit) but
# before the walk reached it: it hands its own CID 1 to CPU 1 itself, and
# since the transition is in progress, in transit; T0, not yet visited,
# still owns CID 0; T2 is not on the task list yet ([FORK]).
run check --scenario "$walk" --replay 'T1/2,T0@fixup_tasks_to_cpus,T1/1,!'
[ $rc -eq 0 ] && [ "$(state)" = "mm: users 3, nr_cpus_allowed 2, cidmask 0 1; mode per-cpu transit, max_cids 2
cpu0: runs T0, cid 0
cpu1: runs T1, cid 1 transit
T0: running, cpu 0, cid 0, owns 0, next event pending
T1: running, cpu 1, cid 1, owns 1 transit, next event pending
T2: not forked yet, cpu 0, cid -, owns -, next event pending" ]
ok $? "--replay: a task switching in before the walk reaches it hands its CID over in transit"
# The same switch-in after the walk: the walk moved running T0's CID to
# CPU 0 in transit ([WOES] 1/4) and dropped sleeping T1's CID 1 into the
# pool; the transition is over, so T1 on CPU 1 takes the lowest free CID,
# 1, as CPU 1's own.
run check --scenario "$walk" --replay 'T1/2,T0/2,T1/1,!'
[ $rc -eq 0 ] && [ "$(state)" = "mm: users 3, nr_cpus_allowed 2, cidmask 0 1; mode per-cpu, max_cids 2
cpu0: runs T0, cid 0 transit
cpu1: runs T1, cid 1 oncpu
T0: running, cpu 0, cid 0, owns 0 transit, next event pending
T1: running, cpu 1, cid 1, owns 1 oncpu, next event pending
T2: not running, cpu 0, cid -, owns -, next event pending" ]
ok $? "--replay: a task switching in after the walk gets its CPU's CID"
# T1 migrates while the walk visits it: the walk read T1 on CPU 1
# (T0:1 after entering task_rq_lock for T1), T1 moves to CPU 0, the walk
# locks CPU 1, re-checks, sees CPU 0, retries there (its loads of T1.cpu
# read 1, 0, 0, 0), and drops T1's CID (T1 sleeps): CID 1 is free, only
# CPU 0's in-transit CID 0 is taken.
run check --scenario "$walk" --replay 'T1/4,T0@task_rq_lock*2,T0:1,T1/1,T0/1,!'
[ $rc -eq 0 ] && [ "$(state)" = "mm: users 3, nr_cpus_allowed 2, cidmask 0; mode per-cpu, max_cids 2
cpu0: runs T0, cid 0 transit
cpu1: runs -, cid 1
T0: running, cpu 0, cid 0, owns 0 transit, next event pending
T1: not running, cpu 0, cid -, owns -, next event none
T2: not running, cpu 0, cid -, owns -, next event pending" ] &&
	[ "$(echo "$out" | sed -n 's/.* T0 .*load T1\.cpu = \([0-9]\) .*task_rq_lock$/\1/p' | tr -d '\n')" = 1000 ]
ok $? "--replay: a migration during the walk: the re-check sends the walk to the new CPU"
run check --scenario "$walk" --replay 'T1/2,T0/2,T1/1,!' --json
[ $rc -eq 0 ] && printf '%s' "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
assert r["verdict"] == "stopped" and r["stopped"] is True, r
assert "cpu1: runs T1, cid 1 oncpu" in r["state"], r["state"]
assert r["trace"][-1]["thread"] == "T1" and r["trace"][-1]["cpu"] == 1, r["trace"][-1]
'
ok $? "--replay --json: stopped, the trace and the state"
# After the directives, no preemption: T0 runs to its end first.
run check --scenario "$walk" --replay 'T0'
[ $rc -eq 0 ] && echo "$out" | grep -q '^walk (ownership, 2 CPUs, 3 tasks): no violation on this one schedule - a replay of 1 directive(s), [0-9]* steps$' &&
	[ "$(echo "$out" | grep -E '^ +[0-9]+ ' | sed -n 1p | awk '{print $2}')" = T0 ] &&
	echo "$out" | grep -q '^state at the end:$'
ok $? "--replay: one directive, then the rest without preemption to the end"

expect_usage_error "--replay: no such task" check --scenario "$walk" --replay T9
expect_usage_error "--replay: no such task (--json: nothing on stdout)" check --scenario "$walk" --replay T9 --json
expect_usage_error "unknown scenario (--json: nothing on stdout)" check --scenario nosuch --json
expect_usage_error "--replay: zero steps" check --scenario "$walk" --replay T0:0
expect_usage_error "--replay: a count that is not one" check --scenario "$walk" --replay T0/x
expect_usage_error "--replay: no function" check --scenario "$walk" --replay T0@
expect_usage_error "--replay: a thread that cannot run" check --scenario "$walk" --replay T2:1
expect_usage_error "--replay: a function never reached" check --scenario "$walk" --replay T1@nowhere
expect_usage_error "--replay: directives left at the end" check --scenario "$walk" --replay T0,T1,T2,T0:1
expect_usage_error "--replay: a directive after the stop" check --scenario "$walk" --replay 'T0,!,T1'
expect_usage_error "--replay without --scenario" check --replay T0
expect_usage_error "--replay with --random" check --scenario "$walk" --replay T0 --random 5
head -c 17000 /dev/zero | tr '\0' 'x' >"$tmp/big.txt"
expect_usage_error "--replay over 16 KiB" check --scenario "$walk" --replay "$(cat "$tmp/big.txt")"

# A cpulist of all 64 CPUs one by one (181 bytes) is a cpulist like any
# other (the parser's word once held 31 bytes: found by fuzz_scenario).
all64=$(i=0; while [ $i -lt 64 ]; do
	[ $i -gt 0 ] && printf ,
	printf '%d' $i
	i=$((i + 1))
done)
printf 'cpus 64\nallowed %s\ntask A initial: in 63; affinity %s; out\n' \
	"$all64" "$all64" >"$tmp/wide.scn"
run check --scenario "$tmp/wide.scn" --policy bitmap
[ $rc -eq 0 ] && [ ${#all64} -eq 181 ] &&
	echo "$out" | grep -q '^(unnamed) (bitmap, 64 CPUs, 1 tasks): pass'
ok $? "a scenario with 64 CPUs listed one by one, in 'allowed' and in 'affinity'"

# docs/check.md's command outputs are checked byte for byte by
# tests/docs/cram.py (suite docs).

expect_usage_error "unknown scenario" check --scenario nosuch
expect_usage_error "missing file" check --scenario "$tmp/none.scn"
head -c 70000 /dev/zero | tr '\0' '#' >"$tmp/big.scn"
expect_usage_error "file over 64 KiB" check --scenario "$tmp/big.scn"
printf 'cpus 1\0task A initial:\n' >"$tmp/nul.scn"
expect_usage_error "a NUL byte" check --scenario "$tmp/nul.scn"
expect_usage_error "unknown policy" check --policy nope
expect_usage_error "variant of a policy without" check --policy lazy:v6.19
expect_usage_error "fixes joined by a comma" check --policy ownership:-W1,-FORK
expect_usage_error "'+' and '-' fixes mixed" check --policy ownership:-W1+W4
expect_usage_error "an unknown fix" check --policy ownership:-W5

# A fix spec is printed back in one form (cid.h), which reads back the same.
run check --scenario vfork-walk --policy ownership:-fork-w1
[ $rc -eq 0 ] && echo "$out" | grep -q '^vfork-walk (ownership:-W1-FORK, 2 CPUs'
ok $? "--policy ownership:-fork-w1 runs as ownership:-W1-FORK"
run_status 1 check --scenario vfork-walk --policy ownership:+W1+W2+W3+W4+FEB+FORK
[ $rc -eq 1 ] && echo "$out" | grep -q '^vfork-walk (ownership:-VFORK, 2 CPUs.*VIOLATION'
ok $? "--policy ownership:+(all but VFORK) is ownership:-VFORK, and finds its stall"
expect_usage_error "--mutant is gone (a mutant is a build: scripts/mutate.py)" check --mutant take-test-then-set
expect_usage_error "--list with --growth (one group)" check --list --growth
expect_usage_error "--preemptions above 8" check --preemptions 9
expect_usage_error "--seed given twice" check --seed 1 --seed 2
expect_usage_error "preemptions out of range" check --preemptions 9
expect_usage_error "max-steps not a number" check --max-steps 1e3
expect_usage_error "random zero" check --random 0
expect_usage_error "an operand" check extra
expect_usage_error "unknown option" check --frobnicate
expect_usage_error "--list with --show" check --list --show switch-back

done_testing
