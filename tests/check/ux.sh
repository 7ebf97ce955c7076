#!/bin/sh
# cidkit check as a first-time user meets it (issue 29): verdicts and exit
# statuses (exhaustive / the bound's cut, limit 3, scenario mistake 4,
# unexpected pass 5), the grammar (--help, --show, per-task affinity),
# parse errors that name FILE:LINE and the token, a scenario name vs a
# file, replay messages (a function never reached, --state-every-step, a
# stopped prefix), and the trace's words (explorer switches; the cpu
# column and the state block agree).  Expected values are worked by hand
# from the scenarios below, not taken from the tool.
CIDKIT=${1:?usage: ux.sh path/to/cidkit}
. "$(dirname "$0")/../cli/tap.sh"

# ---- verdicts and exit statuses ---------------------------------------------

# One task: nothing to interleave, so no bound can cut anything.
printf 'name alone\ncpus 1\ntask A initial: in 0; out\n' >"$tmp/alone.scn"
run check --scenario "$tmp/alone.scn" --policy bitmap
# (one schedule at each bound, 0, 1, 2: the search runs them in turn)
echo "$out" | grep -q '^alone (bitmap, 1 CPUs, 1 tasks): pass - 3 schedules' &&
	echo "$out" | grep -q '^pass: exhaustive - every schedule ran to its end'
ok $? "one task: 'pass: exhaustive', exit 0"

# Two tasks on two CPUs: a switch from the running task to the other at any
# point of either is a schedule the bound of 0 refuses; some must be cut.
run check --scenario switch-race --preemptions 0 --json
printf '%s' "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
assert r["verdict"] == "pass" and not r["exhaustive"] and r["cut_schedules"] > 0, r
' 2>"$tmp/why"
ok $? "bound 0 on two tasks: pass, not exhaustive, the cut counted (JSON)" "$tmp/why"
run check --scenario switch-race --preemptions 0
echo "$out" | grep -qE '^pass: <= 0 explorer switch\(es\), sequential consistency, sleep sets on, --max-steps 20000; the bound cut at least [1-9][0-9]* schedule\(s\)$'
ok $? "bound 0: the verdict line names the bounds and the cut"

run_status 3 check --scenario converge --max-schedules 5 --json
printf '%s' "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
assert r["verdict"] == "limit" and r["limit"] == "max-schedules" and r["schedules"] == 5, r
' 2>"$tmp/why"
ok $? "--max-schedules reached: verdict limit, exit 3 (JSON)" "$tmp/why"

# A long run is not a live lock: every step of switch-race changes the
# state, none repeats, so a --max-steps of 10 cuts runs that were not loops.
run_status 3 check --scenario switch-race --max-steps 10
echo "$out" | grep -q ': LIMIT - ' && ! echo "$out" | grep -q '^liveness'
ok $? "--max-steps cutting long runs: limit, exit 3, no liveness claim"

# A scenario mistake: A ends its script on CPU 0 and never leaves it; when
# A goes first, B waits for CPU 0 for ever, whatever the code does.
cat >"$tmp/stuck.scn" <<'EOF'
name stuck
cpus 1
task A initial: in 0
task B initial: in 0; out
EOF
run_status 4 check --scenario "$tmp/stuck.scn" --policy bitmap
echo "$out" | grep -q '^stuck (bitmap, 1 CPUs, 2 tasks): SCENARIO MISTAKE' &&
	echo "$out" | grep -q '^scenario mistake: the script cannot finish, whatever the code does: B waits to switch in on CPU 0, where A runs$' &&
	! echo "$out" | grep -q '^liveness'
ok $? "a task waiting for a CPU nobody leaves: a scenario mistake, exit 4"
run_status 4 check --scenario "$tmp/stuck.scn" --policy bitmap --json
printf '%s' "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
assert r["verdict"] == "mistake" and r["property"] == "scenario", r
' 2>"$tmp/why"
ok $? "the mistake in JSON: verdict mistake, property scenario" "$tmp/why"

# expect violation, under its own policy, on a scenario with one task: no
# violation is possible.  With another --policy the expectation is not the
# scenario's any more: a plain pass.
cat >"$tmp/expect.scn" <<'EOF'
name expects
cpus 1
policy bitmap
expect violation
task A initial: in 0; out
EOF
run_status 5 check --scenario "$tmp/expect.scn"
echo "$out" | grep -q '^expects (bitmap, 1 CPUs, 1 tasks): UNEXPECTED PASS' &&
	echo "$out" | grep -q "^the scenario says 'expect violation' under its own policy bitmap, and none was found$"
ok $? "'expect violation' on a passing scenario: unexpected pass, exit 5"
run check --scenario "$tmp/expect.scn" --policy inherit
echo "$out" | grep -q ': pass - '
ok $? "the same under another --policy: the expectation does not apply, exit 0"

# A real violation is still 1, and the published bugs are violations, not
# mistakes (a task spins in get_cid: the code's doing).
run_status 1 check --scenario concurrent-forks
echo "$out" | grep -q ': VIOLATION - ' && echo "$out" | grep -q '^liveness: '
ok $? "concurrent-forks on v6.19: still a violation, exit 1"

# The whole library, each scenario under its own policy: the published bugs
# are violations (and expected), so 1 wins over every other status.
run_status 1 check
echo "$out" | grep -qE '^[0-9]+ scenarios, 3 with a violation, 0 with another verdict than pass \(exit 1\)$'
ok $? "the library: 3 violations (the published bugs), nothing else, exit 1"

# ---- the grammar --------------------------------------------------------------

run check --help
echo "$out" | grep -qF 'task NAME [initial] [affinity CPULIST]: EVENT; EVENT; ...' &&
	echo "$out" | grep -q 'events: in CPU, out, enter CPU, leave, fork TASK, exit, migrate CPU' &&
	echo "$out" | grep -q '^  3 limit ' && echo "$out" | grep -q '^  4 scenario mistake ' &&
	echo "$out" | grep -q '^  5 unexpected pass ' && echo "$out" | grep -q '^  1 violation ' &&
	echo "$out" | grep -q "not a scheduler preemption"
ok $? "--help: the grammar, the exit statuses, what an explorer switch is"

# --show prints a built-in scenario's text; as a file it is the same scenario.
run check --show livelock-3cpu
printf '%s\n' "$out" >"$tmp/shown.scn"
grep -q '^name livelock-3cpu$' "$tmp/shown.scn" &&
	grep -q '^task T0 initial: in 0; fork T3; out$' "$tmp/shown.scn"
ok $? "--show NAME: the scenario's text"
run_status 1 check --scenario livelock-3cpu
cp "$tmp/out" "$tmp/named"
run_status 1 check --scenario "$tmp/shown.scn"
cmp -s "$tmp/named" "$tmp/out"
ok $? "--show's text, run as a file: the same bytes as the named scenario"
expect_usage_error "--show of an unknown scenario" check --show nosuch
expect_usage_error "--show with --list" check --show switch-race --list

# A task's own affinity.  A and B start on CPUs 0-1 of 4: the mm's allowed
# union is the union of its tasks' CPUs, 2 (not the 4 of the machine).
cat >"$tmp/aff.scn" <<'EOF'
name aff
cpus 4
task A initial affinity 0-1: in 1; out
task B initial affinity 0,1: in 0; out
EOF
run check --scenario "$tmp/aff.scn" --policy bitmap --replay 'A/1,!'
echo "$out" | grep -q '^mm: users 2, nr_cpus_allowed 2, cidmask 0$'
ok $? "per-task affinity: two tasks on 0-1 of 4 CPUs, nr_cpus_allowed 2"
printf 'cpus 4\ntask A initial affinity 2-3: in 1; out\n' >"$tmp/aff2.scn"
run_status 2 check --scenario "$tmp/aff2.scn"
[ "$err" = "cidkit: $tmp/aff2.scn:2: task A: CPU 1 is not allowed near 'in 1'" ]
ok $? "per-task affinity: 'in' on a CPU outside it is refused at its line"

# ---- parse errors: FILE:LINE and the token -------------------------------------

perr() { # perr WHAT 'EXPECTED MESSAGE AFTER FILE:' TEXT
	printf '%s\n' "$3" >"$tmp/p.scn"
	run_status 2 check --scenario "$tmp/p.scn"
	[ -z "$out" ] && [ "$err" = "cidkit: $tmp/p.scn:$2" ]
	ok $? "parse error, $1: '$2'"
}
perr "a fork of an unknown task, on line 2 of 3" "2: fork of an unknown task near 'Z'" 'cpus 2
task A initial: in 0; fork Z; out
task B initial: in 1; out'
perr "a comma instead of a semicolon" "2: events are separated by ';', not ',' near '0,'" 'cpus 2
task A initial: in 0, out'
perr "a comma after a word event" "2: events are separated by ';', not ',' near 'out,'" 'cpus 2
task A initial: in 0; out, in 1'
perr "a bad policy inside a file" "2: unknown policy (see --help) near 'owner'" 'cpus 2
policy owner
task A initial: in 0; out'
perr "an event that needs the task running, on its task's line" "3: task B: an event that needs it running, while it is not near 'out'" 'cpus 2
task A initial: in 0; out
task B initial: out
task C initial: in 1; out'
perr "an unknown event" "2: unknown event near 'jump'" 'cpus 2
task A initial: in 0; jump'
perr "a bad CPU" "2: 'in' needs a CPU below 2 near '7'" 'cpus 2
task A initial: in 7'

# A word without '/' or '.scn': a built-in name first, else a file of that
# name (in the current directory), else an error that says both.
printf 'name plainfile\ncpus 1\ntask A initial: in 0; out\n' >"$tmp/plainfile"
abs=$(cd "$(dirname "$CIDKIT")" && pwd)/$(basename "$CIDKIT")
(cd "$tmp" && "$abs" check --scenario plainfile --policy bitmap >"$tmp/o" 2>/dev/null)
rc=$?
[ $rc -eq 0 ] && grep -q '^plainfile (bitmap, 1 CPUs, 1 tasks): pass' "$tmp/o"
ok $? "--scenario WORD: a file of that name in the current directory runs" "$tmp/o"
run_status 2 check --scenario nosuch
[ "$err" = "cidkit: check: no scenario named 'nosuch' (see --list), and no file of that name" ]
ok $? "--scenario WORD: neither a scenario nor a file, one line saying both"

# ---- replay ----------------------------------------------------------------------

walk=$(dirname "$0")/../data/check/walk.scn
run_status 2 check --scenario "$walk" --replay T1@nowhere
[ "$err" = "cidkit: check: --replay: directive 1: T1 finished without reaching function 'nowhere' (no step of T1 is in a function of that name)" ]
ok $? "--replay T@FUNC with a mistyped FUNC: the function was never reached"
run_status 2 check --scenario "$walk" --replay 'T0@task_rq_lock*9'
echo "$err" | grep -q "^cidkit: check: --replay: directive 1: T0 entered function 'task_rq_lock' [0-9]* time(s), then finished (the directive asks for 9)$"
ok $? "--replay T@FUNC*K beyond the entries: how many times it was reached"

# A stopped prefix has no verdict: not "pass".
run check --scenario "$walk" --replay 'T1/2,!'
head=$(echo "$out" | sed -n 1p)
echo "$head" | grep -q "^walk (ownership, 2 CPUs, 3 tasks): stopped at '!' after [0-9]* steps - a prefix of a schedule, no verdict" &&
	! echo "$head" | grep -qi 'pass'
ok $? "a stopped replay: its own words, no 'pass'"

# --state-every-step: T1's `in 1; out` from the start, 2 events; after each
# step the state block (1 mm line + 2 CPUs + 3 tasks = 6 lines), indented.
run check --scenario "$walk" --replay 'T1/2,!' --state-every-step
steps=$(echo "$out" | sed -n 's/^trace: \([0-9]*\) steps.*/\1/p')
states=$(echo "$out" | grep -c '^       | ')
[ -n "$steps" ] && [ "$steps" -gt 0 ] && [ "$states" -eq $((steps * 6)) ] &&
	echo "$out" | grep -q '^       | cpu1: T1 switching in' &&
	echo "$out" | grep -q '^       | T1: switching in, cpu 1'
ok $? "--state-every-step: 6 state lines under each of the $steps steps"
expect_usage_error "--state-every-step without --replay" check --scenario "$walk" --state-every-step

# ---- the trace's words -------------------------------------------------------------

run_status 1 check --scenario livelock-3cpu
! echo "$out" | grep -qi 'preemption' &&
	echo "$out" | grep -q '^trace: [0-9]* steps, 1 explorer switch(es) (\* marks one'
ok $? "the trace says 'explorer switch', never 'preemption'"
# T1's switch-in on CPU 1 runs move_task from CPU 0: its rows say cpu1 (the
# CPU it switches in on), not the runqueue it leaves; a migrate (T1 not
# running) has none.
echo "$out" | grep -qE '^ +[0-9]+   T1   cpu1  in 1       store T1\.cpu: 0 -> 1 .*move_task$' &&
	echo "$out" | grep -qE '^ +[0-9]+   T1   -     migrate 2  store T1\.cpu: 1 -> 2 .*move_task$'
ok $? "move_task inside 'in 1' shows cpu1; inside 'migrate 2', no CPU"
# The state at the violation: T1 spins in its switch-in on CPU 2; the CPU
# line and the task line say the same.
echo "$out" | grep -q '^cpu2: T1 switching in, ' && echo "$out" | grep -q '^T1: switching in, cpu 2, '
ok $? "state block: 'cpu2: T1 switching in' next to 'T1: switching in'"
printf '%s\n' "$out" | python3 -c '
import re, sys
lines = sys.stdin.read().split("state at the violation:\n", 1)[1].splitlines()
task = {l.split(":")[0]: l.split(": ", 1)[1] for l in lines if re.match(r"T[0-9]+: ", l)}
for l in lines:
    m = re.match(r"cpu[0-9]+: (runs (T[0-9]+)|(T[0-9]+) (switching in|switching out|exiting))", l)
    if not m:
        continue
    if m.group(2):
        assert task[m.group(2)].startswith("running"), (l, task[m.group(2)])
    else:
        assert task[m.group(3)].startswith(m.group(4)), (l, task[m.group(3)])
' 2>"$tmp/why"
ok $? "state block: every CPU line agrees with its task's line" "$tmp/why"

# A scenario file's policy may name a variant with fixes taken out
# (ownership:-W3-W4: the judge's files under tests/check/judge/).
printf 'cpus 2\npolicy ownership:-W3-W4\ntask T0 initial: in 0; out\n' >"$tmp/variant.scn"
run_status 0 check --scenario "$tmp/variant.scn"
echo "$out" | grep -q '^(unnamed) (ownership:-W3-W4, 2 CPUs, 1 tasks): pass'
ok $? "a scenario file's 'policy ownership:-W3-W4' is read as that variant"

done_testing
