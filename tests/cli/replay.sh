#!/bin/sh
# cidkit sim replay: a hand-written schedule whose CIDs are worked out by
# hand (below), the recorded validation trace against a plain reference
# reader (replay_ref.py), determinism, and bad traces.
CIDKIT=${1:?usage: replay.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"
data=$(dirname "$0")/../data/traces

# tiny.trace, 4 CPUs, kernel 6.18 (model: cache-local), threads 100-102.
# By hand, from docs/cid.md's descriptions of the policies:
#   exec 100 on CPU 0: every policy gives 0 (nr_cids_used 0 < 1; lowest free)
#   101 in on CPU 1: 1; 102 in on CPU 2: 2 (all policies)
#   101 out on CPU 1; migrates 1 -> 3 (3 users < 4 CPUs, CPU 3's slot empty:
#     the lazy family moves CID 1 with it); 101 in on CPU 3: 1 for all
#     (bitmap: lowest free; inherit: its last; ownership: its own)
#   102 out on CPU 2 (slot keeps 2), 100 out on CPU 0 (slot keeps 0);
#   100 migrates 0 -> 2: CPU 2's slot has CID 2, so the lazy family
#     releases 100's 0; 100 in on CPU 2: the slot's 2.  The kernel said 2:
#     lazy family 5 of 5; bitmap (lowest free: 0), inherit (its last: 0)
#     and ownership (task-owned: 0) 4 of 5.
#   naive lowest-free: 0, 1, 2, 1 hit, 0 misses (2): 4; previous CID: only
#     101's second (1): 1.
#   bitmap RMWs: 5 sets + 3 clears = 8; lazy: 3 sets + the migration's
#     release = 4, and 2 slot hand-overs (101 on CPU 3, 100 on CPU 2).
run sim replay --json "$data/tiny.trace"
printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
p = {o["policy"]: o for o in j["policies"]}
want = {"bitmap": 4, "lazy": 5, "lazy-batched": 5, "cache-local": 5, "inherit": 4, "ownership": 4}
assert {k: p[k]["agree"] for k in want} == want, {k: p[k]["agree"] for k in p}
assert (j["model"], j["rseq_updates"], j["naive_lowest"], j["naive_prev"], j["threads"]) == ("cache-local", 5, 4, 1, 3), j
assert (j["kernel_largest"], j["kernel_distinct"]) == (2, 3), j
assert p["bitmap"]["bitmap_rmw"] == 8 and p["lazy"]["bitmap_rmw"] == 4, p
assert p["lazy"]["handovers"] == 2 and p["lazy"]["migrate_moves"] == 1, p
for o in p.values():
    assert (o["switches_in"], o["handed"], o["largest"]) == (5, 5, 2), o
assert [(d["pid"], d["kernel"]) for d in j["disagreements"]] == [], j
'
ok $? "tiny trace: every policy's agreement, the naive predictors and the costs as worked out by hand"

run sim replay --model ownership --json "$data/tiny.trace"
printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
d = j["disagreements"]
assert j["model"] == "ownership" and len(d) == 1, j
assert (d[0]["pid"], d[0]["cpu"], d[0]["kernel"], d[0]["model"], d[0]["lowest_free"], d[0]["prev_cid"]) == (100, 2, 2, 0, 0, 0), d
'
ok $? "tiny trace, --model ownership: the one disagreement (100 on CPU 2: kernel 2, task-owned 0) with its context"

run sim replay "$data/tiny.trace"
first=$out
run sim replay "$data/tiny.trace"
[ "$out" = "$first" ] && echo "$out" | grep -q '^cache-local \*' &&
	echo "$out" | grep -q 'naive: previous CID *1 *20.00 %'
ok $? "tiny trace: the same bytes twice; the model starred; the naive rows"

# recorded traces: 'cidkit cid --threads 4' on this machine's 6.18 (2 CPUs,
# model cache-local) and in 7.2 guests of the kernel lab (4 CPUs; 8 CPUs
# with 16 threads, ownership's per-CPU mode; model ownership): every figure
# a plain reader can work out, and the model above both naive predictors
for t in cid-threads4-6.18 cid-threads4-7.2-smp4 cid-threads16-7.2-smp8; do
	xz -dc "$data/$t.trace.xz" >"$tmp/v.trace"
	run sim replay --json "$tmp/v.trace"
	printf '%s' "$out" >"$tmp/v.json"
	python3 "$(dirname "$0")/replay_ref.py" "$tmp/v.trace" "$tmp/v.json" >"$tmp/ref.tap"
	ok $? "$t: counts and naive predictors as a plain reader finds them, the model above both and >= 95 %" "$tmp/ref.tap"
done
# the churn and affinity workloads (cidkit cid --churn 3, --affinity) in
# kernel-lab guests: 7.2.13 on 4 CPUs (8 threads x 3 waves) and on 8 CPUs
# (4 threads moved by affinity changes), 6.19.6 on 8 CPUs (16 threads x 3
# waves); ownership's goal, 99 %.  Each churn wave takes the users above
# the CPUs and back to 1, below pcpu_thrs: two mode switches per wave, the
# waves counted from the trace's forks and exits by replay_workload.py.
for t in cid-churn8-7.2-smp4 cid-affinity4-7.2-smp8 cid-churn16-6.19-smp8; do
	xz -dc "$data/$t.trace.xz" >"$tmp/w.trace"
	run sim replay --json "$tmp/w.trace"
	printf '%s' "$out" >"$tmp/w.json"
	python3 "$(dirname "$0")/replay_ref.py" "$tmp/w.trace" "$tmp/w.json" 99 >"$tmp/ref.tap"
	ok $? "$t: counts and naive predictors as a plain reader finds them, ownership above both and >= 99 %" "$tmp/ref.tap"
	w=$(python3 "$(dirname "$0")/replay_workload.py" "$tmp/w.trace" | sed 's/.*waves=\([0-9]*\) .*/\1/')
	cpus=$(sed -n '1s/.* cpus=\([0-9]*\) .*/\1/p' "$tmp/w.trace")
	case $t in
	*churn*) want=$((2 * w)) why="$w waves across the thresholds of $cpus CPUs" ;;
	*) want=0 why="affinity: users stay below $cpus CPUs" ;;
	esac
	printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
o = [p for p in j["policies"] if p["policy"] == "ownership"][0]
assert o["mode_switches"] == int(sys.argv[1]), (o["mode_switches"], sys.argv[1])
' "$want"
	ok $? "$t: ownership switches mode $want times ($why)"
done
# 6.12 guests recorded with the kprobe events (trace record --kprobes auto:
# mm_cid_work, cpus_allowed, mm_cid_exit) and sched_wakeup: the lazy model
# against the plain reader, and each mechanism the replay takes from those
# events shown to carry agreement -- the same trace without that event
# agrees on fewer rseq_update events.  GOAL: 95 (issue 25's), 93 for the
# 16-CPU churn, whose gap is two pairs of concurrent first switch-ins the
# trace orders one way and the kernel allocated the other (docs/validation.md).
agree_of() { # TRACE -> the model's agreeing events
	"$CIDKIT" sim replay --json "$1" | python3 -c '
import json, sys
j = json.load(sys.stdin)
print([p for p in j["policies"] if p["policy"] == j["model"]][0]["agree"])'
}
for tg in cid-affinity2-6.12-smp4-kp:95:cpus_allowed \
	cid-affinity8-6.12-smp16-kp:95:cpus_allowed,sched_wakeup \
	cid-churn8-6.12-smp4-kp:95:mm_cid_work,sched_wakeup \
	cid-churn32-6.12-smp16-kp:93:mm_cid_work,sched_wakeup,mm_cid_exit; do
	t=${tg%%:*} rest=${tg#*:} goal=${rest%%:*} mechs=${rest#*:}
	xz -dc "$data/$t.trace.xz" >"$tmp/k.trace"
	head -n 1 "$tmp/k.trace" | grep -q ' probes=mm_cid_work,cpus_allowed,mm_cid_exit$'
	ok $? "$t: recorded with the three kprobe events"
	run sim replay --json "$tmp/k.trace"
	printf '%s' "$out" >"$tmp/k.json"
	python3 "$(dirname "$0")/replay_ref.py" "$tmp/k.trace" "$tmp/k.json" "$goal" >"$tmp/ref.tap"
	ok $? "$t: counts and naive predictors as a plain reader finds them, lazy above both and >= $goal %" "$tmp/ref.tap"
	# the lazy family's scans: one per mm_cid_work call of a live thread
	# of the group that comes 90 ms or more after the last scan (the first
	# call arms the clock), worked out here from the text
	python3 -c '
import json, re, sys
tr, js = sys.argv[1], json.load(open(sys.argv[2]))
th = set(re.search(r"threads=([0-9,]+)", open(tr).readline()).group(1).split(","))
gone, nxt, scans, up = set(), None, 0, False
for l in open(tr):
    m = re.match(r"^\s*.*-(\d+)\s+\(\s*[-\d]+\)\s+\[\d+\]\s+\S+\s+([\d.]+): (\w+): (.*)$", l)
    if not m:
        continue
    pid, ts, ev = m.group(1), float(m.group(2)), m.group(3)
    up = up or ev == "sched_process_exec"
    if ev == "mm_cid_exit":
        gone.add(pid)
    elif ev == "sched_process_exit":
        gone.add(re.search(r" pid=(\d+)", m.group(4)).group(1))
    elif ev == "mm_cid_work" and up and pid in th and pid not in gone:
        if nxt is None:
            nxt = ts + 0.090
        elif ts >= nxt:
            scans, nxt = scans + 1, ts + 0.090
lazy = [p for p in js["policies"] if p["policy"] == "lazy"][0]
assert lazy["compaction_calls"] == scans, (lazy["compaction_calls"], scans)
print(scans)' "$tmp/k.trace" "$tmp/k.json" >"$tmp/scans" 2>&1
	ok $? "$t: lazy scans at the kernel's task_mm_cid_work calls: $(cat "$tmp/scans")"
	full=$(agree_of "$tmp/k.trace")
	for m in $(echo "$mechs" | tr , ' '); do
		case $m in
		mm_cid_work) sed '1s/probes=mm_cid_work,/probes=/' "$tmp/k.trace" >"$tmp/a.trace" ;;
		*) grep -v " $m: " "$tmp/k.trace" >"$tmp/a.trace" ;;
		esac
		less=$(agree_of "$tmp/a.trace")
		[ -n "$full" ] && [ -n "$less" ] && [ "$less" -lt "$full" ]
		ok $? "$t: without $m the model agrees on fewer events ($less < $full)"
	done
done
# 6.19.6, 16 CPUs, 32 threads x 3 waves: the guest's sched_mm_cid_exit()
# calls (a kprobe in the top-level buffer of the same run, merged into the
# recorded text as mm_cid_exit lines, docs/validation.md): ownership 100 %,
# and fewer events without them (its exit then comes at sched_process_exit)
t=cid-churn32-6.19-smp16-exit
xz -dc "$data/$t.trace.xz" >"$tmp/k.trace"
run sim replay --json "$tmp/k.trace"
printf '%s' "$out" >"$tmp/k.json"
python3 "$(dirname "$0")/replay_ref.py" "$tmp/k.trace" "$tmp/k.json" 99 >"$tmp/ref.tap"
ok $? "$t: counts and naive predictors as a plain reader finds them, ownership above both and >= 99 %" "$tmp/ref.tap"
full=$(agree_of "$tmp/k.trace")
grep -v " mm_cid_exit: " "$tmp/k.trace" >"$tmp/a.trace"
less=$(agree_of "$tmp/a.trace")
[ -n "$full" ] && [ -n "$less" ] && [ "$less" -lt "$full" ]
ok $? "$t: without mm_cid_exit ownership agrees on fewer events ($less < $full)"
run sim replay --json - <"$tmp/v.trace"
[ "$out" = "$(cat "$tmp/v.json")" ]
ok $? "standard input: the same result"
run sim replay --json "$data/cid-threads16-7.2-smp8.trace.xz"
[ "$out" = "$(cat "$tmp/v.json")" ]
ok $? "TRACE.xz read through xz -dc: the same result"
gzip -c "$tmp/v.trace" >"$tmp/v.trace.gz"
run sim replay --json "$tmp/v.trace.gz"
[ "$out" = "$(cat "$tmp/v.json")" ]
ok $? "TRACE.gz read through gzip -dc: the same result"
printf 'not xz' >"$tmp/bad.xz"
expect_usage_error "a .xz that is not" sim replay "$tmp/bad.xz"

# bad traces: one line naming FILE:LINE, exit 2
sed '5s/child_pid=101/child_pid=x/' "$data/tiny.trace" >"$tmp/bad.trace"
expect_usage_error "a bad field" sim replay "$tmp/bad.trace"
case "$err" in *"bad.trace:5: "*) true ;; *) false ;; esac
ok $? "the error names line 5"
sed '14s/dest_cpu=3/dest_cpu=9/' "$data/tiny.trace" >"$tmp/cpu.trace"
expect_usage_error "a CPU beyond the trace's" sim replay "$tmp/cpu.trace"
case "$err" in *"cpu.trace:14: "*) true ;; *) false ;; esac
ok $? "the error names line 14"
grep -v '^#' "$data/tiny.trace" >"$tmp/nohead.trace"
expect_usage_error "no CPU count" sim replay "$tmp/nohead.trace"
run sim replay --cpus 4 --tgid 100 --model cache-local --json "$tmp/nohead.trace"
printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["rseq_updates"] == 5 and j["threads"] == 3, j
'
ok $? "no header: --cpus, --tgid and the fork lineage replay the same group"
# bench replay: it replays what it says (the tiny trace's 19 event lines;
# at least the million synthetic events asked for), every policy and all
# six, and the parser's row for a trace
nev=$(grep -c -v '^#' "$data/tiny.trace")
run bench replay --reps 2 --json "$data/tiny.trace"
printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
names = [r["what"] for r in j["results"]]
assert j["events"] == int(sys.argv[1]), (j["events"], sys.argv[1])
assert names == ["all six", "bitmap", "lazy", "lazy-batched", "cache-local", "inherit", "ownership", "parse (lines)"], names
assert all(0 < r["m_per_s_min"] <= r["m_per_s"] <= r["m_per_s_max"] for r in j["results"]), j
' "$nev"
ok $? "bench replay TRACE: the trace's $nev events, seven replay rows and the parser's"
run bench replay --reps 1 --events 1 --json
printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert 1000000 <= j["events"] < 1010000 and j["cpus"] == 8, j
assert len(j["results"]) == 7 and all(r["m_per_s"] > 0 for r in j["results"]), j
'
ok $? "bench replay: a million synthetic events through seven rows"
expect_usage_error "an unknown policy" sim replay --policy nope "$data/tiny.trace"
expect_usage_error "a missing file" sim replay "$tmp/none.trace"
# trace-cmd's trace.dat, through libtracecmd: 'cidkit cid --threads 3' on
# this machine's 6.18 (2 CPUs, thread group 3391), the events in a tracefs
# instance, 'trace-cmd extract -B', stored uncompressed inside ('trace-cmd
# convert --compression none') and xz'd; next to it what 'trace-cmd report'
# printed for the same file.  trace-cmd's own reading is the reference:
# the binary and the text must replay to the same bytes.
dat=cid-threads3-6.18
xz -dc "$data/$dat.dat.xz" >"$tmp/t.dat"
run_status any sim replay --json --tgid 3391 --model cache-local "$tmp/t.dat"
if [ $rc -eq 2 ] && case "$err" in *"without libtracecmd"*) true ;; *) false ;; esac; then
	for w in "dat = report" "dat.xz" "a pipe" "trace-cmd report" "truncated" "magic only"; do
		skip "trace.dat: $w" "built without libtracecmd"
	done
else
	printf '%s' "$out" >"$tmp/dat.json"
	run sim replay --json --tgid 3391 --model cache-local --cpus 2 "$data/$dat.report.xz"
	[ "$out" = "$(cat "$tmp/dat.json")" ] && printf '%s' "$out" | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["threads"] == 4 and j["rseq_updates"] > 50 and j["events"] > 900, j
'
	ok $? "trace.dat and trace-cmd report's text of it: the same figures (4 threads, every event)"
	run sim replay --json --tgid 3391 --model cache-local "$data/$dat.dat.xz"
	[ "$out" = "$(cat "$tmp/dat.json")" ]
	ok $? "trace.dat.xz (a pipe, copied to a temporary file): the same"
	run sim replay --json --tgid 3391 --model cache-local - <"$tmp/t.dat"
	[ "$out" = "$(cat "$tmp/dat.json")" ]
	ok $? "trace.dat on standard input: the same"
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i "$tmp/t.dat" 2>/dev/null | cmp -s - "$(xz -dc "$data/$dat.report.xz" >"$tmp/r.txt"; echo "$tmp/r.txt")"
		ok $? "the stored text is what trace-cmd report prints for the stored trace.dat"
	else
		skip "trace.dat: trace-cmd report" "no trace-cmd"
	fi
	head -c 4096 "$tmp/t.dat" >"$tmp/short.dat"
	expect_usage_error "a truncated trace.dat" sim replay --tgid 1 "$tmp/short.dat"
	printf '\027\010\104tracing' >"$tmp/magic.dat"
	expect_usage_error "trace.dat's magic and nothing else" sim replay --tgid 1 "$tmp/magic.dat"
fi
done_testing
