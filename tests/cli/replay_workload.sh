#!/bin/sh
# cidkit cid --churn and --affinity: the workloads recorded for the replay
# (docs/validation.md).  What they did is judged from outside: the JSON's
# counts against the options, and, where this machine can record, the
# trace's own forks, exits and forced moves (tests/cli/replay_workload.py,
# a reader of its own).
CIDKIT=${1:?usage: replay_workload.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"
ref="python3 $(dirname "$0")/replay_workload.py"

run cid --threads 3 --churn 4 --duration 80 --json
printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["churn_waves"] == 4 and j["threads_created"] == 12, j
assert "affinity_changes" not in j, j
'
ok $? "--churn 4 --threads 3: 4 waves of 3 threads, 12 created"
run cid --threads 2 --churn 2 --duration 40
echo "$out" | grep -q '^churn: 2 waves, 4 threads created (users 2 + 1 at the start of a wave, 1 at its end)$'
ok $? "--churn 2, human: the churn line"
run cid --threads 2 --affinity --duration 60 --json
printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
# one change per 0.5-1.5 ms of sleep (longer on a loaded machine: 9 at
# load 15) over 60 ms, each taken while its thread lives
assert 1 <= j["affinity_changes"] <= 120, j
assert "churn_waves" not in j, j
'
ok $? "--affinity: 1-120 affinity changes in 60 ms (one per 0.5 ms at most)"
expect_usage_error "--churn 0" cid --churn 0
expect_usage_error "--churn 1001" cid --churn 1001
expect_usage_error "--churn x" cid --churn x
expect_usage_error "--affinity=1" cid --affinity=1

# Recorded here, where the machine lets us.
rec=yes
[ "$(id -u)" -eq 0 ] || rec="trace record needs root"
"$CIDKIT" trace record --help 2>/dev/null | grep -q libtracefs || rec="built without libtracefs"
[ -d /sys/kernel/tracing/events/rseq/rseq_update ] || rec="no rseq:rseq_update tracepoint"
if [ "$rec" = yes ]; then
	# no probe (its thread would be one more fork of the group)
	export CIDK_PERCPU=rseq
	ncpu=$(nproc)
	th=$((ncpu + 1))
	run trace record --out "$tmp/c.trace" -- "$CIDKIT" cid --threads $th --churn 3 --duration 150
	got=$($ref "$tmp/c.trace")
	echo "$got" | grep -q "^threads=$((3 * th)) waves=3 peak=$((th + 1)) trough=1 "
	ok $? "--churn 3 --threads $th recorded: $((3 * th)) thread forks, 3 waves from 1 user to $((th + 1)) ($ncpu CPUs) and back ($got)"
	run trace record --out "$tmp/a.trace" -- "$CIDKIT" cid --threads 2 --affinity --duration 300
	got=$($ref "$tmp/a.trace")
	moves=$(echo "$got" | sed 's/.*forced_moves=//')
	[ "$moves" -ge 3 ]
	ok $? "--affinity recorded: 3 or more threads moved by sched_setaffinity (the first wave's wake-ups move at most 2; a sleeping thread moves at its wake-up, not counted) ($got)"
	run sim replay "$tmp/a.trace"
	ok $? "sim replay reads the --affinity trace"
	unset CIDK_PERCPU
else
	echo "# not recorded: $rec"
fi
done_testing
