#!/bin/sh
# cidkit check --growth: the rates it prints (schedules, distinct states and
# steps per second), and tests/check/grow-4x4.scn, the 4x4 shape as a file
# (the scenario docs/check-results.md times --jobs on), against the shape itself.
CIDKIT=${1:?usage: growth.sh path/to/cidkit}
. "$(dirname "$0")/../cli/tap.sh"
scn="$(dirname "$0")/grow-4x4.scn"

run check --growth --preemptions 0
printf '%s\n' "$out" | python3 -c '
import sys
rows = [l.split() for l in sys.stdin.read().splitlines()]
assert rows[0] == ["tasks", "policy", "schedules", "states", "seconds",
                   "sched/s", "states/s", "Msteps/s", "verdict"], rows[0]
assert len(rows) == 9, rows
checked = 0
for r in rows[1:]:
    tasks = int(r[0].split("x")[0])
    sched, states = int(r[2]), int(r[3])
    rs, rst, msteps = float(r[5]), float(r[6]), float(r[7])
    # the rates share their seconds: their ratios are those of the counts
    # (whatever the load), within the rounding of the printed rates
    if rs >= 1000 and msteps >= 0.1:
        assert abs(rst / rs - states / sched) <= 0.02 * states / sched, r
        # each task runs 4 events, each at least one step, per schedule
        assert msteps * 1e6 / rs >= 4 * tasks * 0.98, r
        checked += 1
assert checked >= 1, rows
' 2>"$tmp/why"
ok $? "--growth: sched/s, states/s and Msteps/s columns agree with the counts" "$tmp/why"

run check --growth --preemptions 0 --json
printf '%s' "$out" >"$tmp/g.json"
run check --scenario "$scn" --preemptions 0 --json
printf '%s' "$out" | python3 -c '
import json, sys
g = [r for r in json.load(open(sys.argv[1])) if (r["tasks"], r["cpus"]) == (4, 4)][0]
f = json.load(sys.stdin)[0]
assert f["scenario"] == "grow-4x4", f
assert (g["schedules"], g["states"], g["steps"]) == (f["schedules"], f["states"], f["steps"]), (g, f)
assert g["steps"] >= 16 * g["schedules"], g
' "$tmp/g.json" 2>"$tmp/why"
ok $? "grow-4x4.scn = the --growth shape 4x4: the same schedules, states and steps" "$tmp/why"

done_testing
