#!/bin/sh
# cidkit trace record: a real recording on this machine (root, tracefs and
# the rseq_update tracepoint needed), replayed.
CIDKIT=${1:?usage: trace_record.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"

[ "$(id -u)" -eq 0 ] || skip_all "trace record needs root"
run trace record --help
echo "$out" | grep -q 'libtracefs' || skip_all "built without libtracefs"
ev=/sys/kernel/tracing/events/rseq/rseq_update
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -d "$ev" ] || skip_all "no rseq:rseq_update tracepoint"

run trace record --out "$tmp/r.trace" -- "$CIDKIT" cid --threads 2 --duration 100
head -n 1 "$tmp/r.trace" | grep -q "^# cidkit-trace: kernel=$(uname -r) cpus=[0-9]* tgid=[0-9]* threads=[0-9]*,[0-9]*,[0-9]*\$"
ok $? "the header names this kernel and three threads (main + 2)" "$tmp/r.trace"
tgid=$(sed -n '1s/.* tgid=\([0-9]*\) .*/\1/p' "$tmp/r.trace")
threads=$(sed -n '1s/.* threads=//p' "$tmp/r.trace" | tr , '|')
grep -q "sched_process_exec: .*pid=$tgid " "$tmp/r.trace" &&
	grep -q "( *$tgid) .*rseq_update: cpu_id=" "$tmp/r.trace" &&
	! grep -v '^#' "$tmp/r.trace" | grep -v 'sched_switch' | grep -v "( *$tgid)" |
		grep -v -E "sched_(migrate_task|wakeup_new): comm=[^ ]* pid=($threads) " | grep -q .
ok $? "the exec and rseq_update events of the group; every other line a switch, or a migration or wake-up of a thread of it" "$tmp/r.trace"
run sim replay --json "$tmp/r.trace"
printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["threads"] == 3 and j["rseq_updates"] > 0 and j["model"], j
'
ok $? "sim replay reads it: three threads, rseq_update events, a model from the kernel"
expect_usage_error "a command that does not exist" trace record --out "$tmp/x.trace" -- /nonexistent/cmd
done_testing
