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

# CIDK_PERCPU=rseq: no probe, whose thread would be a fourth of the group
# (the probe's own trace is not what this test is about).
export CIDK_PERCPU=rseq
run trace record --out "$tmp/r.trace" -- "$CIDKIT" cid --threads 2 --duration 100
unset CIDK_PERCPU
head -n 1 "$tmp/r.trace" | grep -q "^# cidkit-trace: kernel=$(uname -r) cpus=[0-9]* tgid=[0-9]* threads=[0-9]*,[0-9]*,[0-9]*\$"
ok $? "the header names this kernel and three threads (main + 2)" "$tmp/r.trace"
tgid=$(sed -n '1s/.* tgid=\([0-9]*\) .*/\1/p' "$tmp/r.trace")
threads=$(sed -n '1s/.* threads=//p' "$tmp/r.trace" | tr , '|')
grep -q "sched_process_exec: .*pid=$tgid " "$tmp/r.trace" &&
	grep -q "( *$tgid) .*rseq_update: cpu_id=" "$tmp/r.trace" &&
	! grep -v '^#' "$tmp/r.trace" | grep -v 'sched_switch' | grep -v "( *$tgid)" |
		grep -v -E "sched_(migrate_task|wakeup_new|wakeup): comm=[^ ]* pid=($threads) " | grep -q .
ok $? "the exec and rseq_update events of the group; every other line a switch, or a migration or wake-up of a thread of it" "$tmp/r.trace"
run sim replay --json "$tmp/r.trace"
printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["threads"] == 3 and j["rseq_updates"] > 0 and j["model"], j
'
ok $? "sim replay reads it: three threads, rseq_update events, a model from the kernel"
expect_usage_error "a command that does not exist" trace record --out "$tmp/x.trace" -- /nonexistent/cmd
# an exec that fails is told by the exec itself (trace/record.c), not by
# CMD's exit status: a command that exits 127 is recorded like any other
run trace record --kprobes none --out "$tmp/e.trace" -- sh -c 'exit 127'
[ $rc -eq 0 ] && head -n 1 "$tmp/e.trace" | grep -q '^# cidkit-trace: kernel=.* tgid=[0-9]* threads=[0-9]'
ok $? "a command that exits 127 is recorded, not taken for an exec failure" "$tmp/e.trace"
if [ ! -e /sys/kernel/tracing/kprobe_events ]; then
	# a kernel without kprobe events: said with the summary, not dropped silently
	run trace record --out "$tmp/k.trace" -- true
	[ $rc -eq 0 ] && printf '%s\n' "$err" | grep -q "^trace record: not recorded: cidkit/mm_cid_work, a kprobe on task_mm_cid_work .*: this kernel has no kprobe events" &&
		printf '%s\n' "$err" | grep -q "^trace record: not recorded: cidkit/cpus_allowed, a kprobe on set_cpus_allowed_common " &&
		! grep -q "probes=" "$tmp/k.trace"
	ok $? "no kprobe events in this kernel: both probes said missing on stderr, none in the header"
	expect_usage_error "--kprobes mm_cid_work where there are no kprobe events" trace record --kprobes mm_cid_work --out "$tmp/k.trace" -- true
fi
expect_usage_error "--kprobes with an unknown probe" trace record --kprobes mm_cid_work,foo --out "$tmp/k.trace" -- true
# --stream (trace/stream.c): the events leave the recorder while CMD runs.
# CMD itself counts, after its workload and before it ends, the workload's
# rseq_update lines already in the file: a recorder that wrote only at
# CMD's end (trace/record.c's way) leaves it 0.
export CIDK_PERCPU=rseq
run trace record --stream --out "$tmp/s.trace" -- sh -c \
	'"$0" cid --threads 2 --duration 200 >/dev/null & p=$!; echo $p >"$1.pid"; wait; sleep 0.3; grep -c "( *$p) .* rseq_update: " "$1" >"$1.mid"' \
	"$CIDKIT" "$tmp/s.trace"
unset CIDK_PERCPU
cid=$(cat "$tmp/s.trace.pid")
sh_pid=$(sed -n '1s/.* tgid=\([0-9]*\) .*/\1/p' "$tmp/s.trace")
mid=$(cat "$tmp/s.trace.mid")
tail -n 1 "$tmp/s.trace" | grep -q "^# cidkit-trace: stream-end status=0 lines=[0-9]* before-end=[0-9]* lost=0\$" &&
	[ "${mid:-0}" -gt 0 ] &&
	grep -q "( *$cid) .* rseq_update: cpu_id=" "$tmp/s.trace"
ok $? "--stream: $mid rseq_update lines in the file before CMD ended, the child's (pid $cid, a descendant) among them, a stream-end line" "$tmp/s.trace"
# every event is of CMD's descendants (set_event_pid with event-fork): the
# task it is about is CMD or a child a recorded fork made, switches aside
python3 - "$tmp/s.trace" "$sh_pid" <<'PY'
import re, sys
mine, bad = {int(sys.argv[2])}, []
for l in open(sys.argv[1]):
    if l.startswith("#"):
        continue
    m = re.search(r"-(\d+) +\([ 0-9-]+\) .* (sched_\w+|rseq_update): (.*)", l)
    if m.group(2) == "sched_process_fork":
        mine.add(int(re.search(r"child_pid=(\d+)", l).group(1)))
    if m.group(2) in ("sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_migrate_task"):
        continue
    if int(m.group(1)) not in mine:
        bad.append(l)
assert len(mine) >= 4 and not bad, (mine, bad[:3])
PY
ok $? "--stream: every other event is CMD's or a descendant's" "$tmp/s.trace"
run sim replay --json --tgid "$cid" "$tmp/s.trace"
printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
# (3 threads; 4 under ASan: the exit-time tracer task of LeakSanitizer)
assert j["threads"] in (3, 4) and j["rseq_updates"] > 0, j
'
ok $? "sim replay reads the stream: the cid process's threads and their rseq_update events"
# --out -: the events on standard output, CMD's own output on standard error
run trace record --stream --out - -- sh -c 'echo from-cmd'
printf '%s\n' "$out" | head -n 1 | grep -q '^# cidkit-trace: kernel=.* stream$' &&
	! printf '%s\n' "$out" | grep -qx from-cmd && printf '%s\n' "$err" | grep -q '^from-cmd$' &&
	printf '%s\n' "$out" | tail -n 1 | grep -q '^# cidkit-trace: stream-end status=0 '
ok $? "--stream --out -: the trace on stdout, CMD's stdout on stderr"
# --fifo: the recorder at SCHED_FIFO, CMD back at SCHED_OTHER; the
# recorder's own wake-ups and switches are not in the trace (it preempts
# CMD's busy threads every 10 ms: without the filter each would be a
# sched_switch of CMD's, and a reader woken per event would never stop);
# --line-prefix on every line
run trace record --stream --fifo 10 --line-prefix 'X: ' --out - -- sh -c \
	'echo $PPID >"$1"; chrt -p $$ >&2; CIDK_PERCPU=rseq "$0" cid --threads $(($(nproc) * 2)) --duration 300 >/dev/null' \
	"$CIDKIT" "$tmp/rec.pid"
rp=$(cat "$tmp/rec.pid")
printf '%s\n' "$err" | grep -q "scheduling policy: SCHED_OTHER" &&
	! printf '%s\n' "$out" | grep -v '^X: ' | grep -q . &&
	[ "$(printf '%s\n' "$out" | grep -c ' rseq_update: ')" -gt 10 ] &&
	! printf '%s\n' "$out" | grep -q -E "[ _]pid=$rp "
ok $? "--fifo 10 --line-prefix: CMD at SCHED_OTHER, every line prefixed, no event about the recorder (pid $rp)"
expect_usage_error "--stream with --kprobes" trace record --stream --kprobes none --out "$tmp/k.trace" -- true
expect_usage_error "--fifo without --stream" trace record --fifo 10 --out "$tmp/k.trace" -- true
expect_usage_error "--fifo 100" trace record --stream --fifo 100 --out "$tmp/k.trace" -- true
expect_usage_error "--stream with a command that does not exist" trace record --stream --out "$tmp/x.trace" -- /nonexistent/cmd
done_testing
