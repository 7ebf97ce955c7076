#!/bin/sh
# The trace of the run that froze 6.19.8 (docs/hunt.md, "A trace of the
# run that froze"; docs/data/hunt/trace-6.19.8-x86_64-4-vfork-repro-1/):
# what the page says of it, from the kept files, and the model's verdicts
# on the round that froze.
CIDKIT=${1:?usage: hunt_trace.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
D=$top/docs/data/hunt/trace-6.19.8-x86_64-4-vfork-repro-1
hunt() { python3 "$top/scripts/hunt.py" "$@"; }
xz -dc "$D/froze.trace.xz" >"$tmp/froze.trace" && xz -dc "$D/fifo-passed.trace.xz" >"$tmp/passed.trace"
ok $? "the kept traces decompress"

# what reached the host from the run that froze: round 1's process, its
# CLONE_VM child and two threads, cut before the crossing
r=$(hunt rounds "$tmp/froze.trace")
[ "$r" = "round 166: 3 children recorded (CLONE_VM child 167), mm_cids [0, 2, 3]; the trace ends before the crossing, at 27.576 s" ] &&
	[ "$(grep -vc '^#' "$tmp/froze.trace")" -eq 40 ] && ! grep -q 'stream-end' "$tmp/froze.trace"
ok $? "froze.trace: 40 events, no stream-end, round 166 cut before the crossing with mm_cids 0, 2, 3" "$tmp/froze.trace"

# the run that passed under the SCHED_FIFO recorder: 19 whole rounds, the
# threads at mm_cids 0, 2, 3 before each crossing (1: the CLONE_VM
# child's, which has no rseq area), CID 1 between the crossing and the
# child's exit in one round
hunt rounds "$tmp/passed.trace" >"$tmp/rounds"
[ "$(grep -c 'mm_cids before \[0, 2, 3\], between' "$tmp/rounds")" -eq 19 ] &&
	[ "$(grep -c 'between \[0, 1, 2, 3\]; CPUs' "$tmp/rounds")" -eq 1 ] &&
	[ "$(grep -c 'CPUs running the group between \[0, 2, 3\]; the child woken onto CPU [023]$' "$tmp/rounds")" -eq 18 ] &&
	! grep -q 'the child woken onto CPU 1' "$tmp/rounds" &&
	tail -n 1 "$tmp/passed.trace" | grep -q '^# cidkit-trace: stream-end status=0 lines=3779 before-end=3779 lost=0$'
ok $? "fifo-passed.trace: 19 rounds at mm_cids 0, 2, 3 before the crossing, CID 1 after it in one, the group on CPUs 0, 2, 3 in 18" "$tmp/rounds"

# round166.scn is the trace's schedule: its T0..T3 are --from-trace's
# (T0's recorded events a prefix of the scenario's, T1 marked clone-vm)
{ echo "# cidkit-trace: kernel=6.19.8+deb13-amd64 cpus=4 tgid=166"; grep -v '^#' "$tmp/froze.trace"; } >"$tmp/r166.trace"
run check --from-trace "$tmp/r166.trace" --preemptions 0
printf '%s\n' "$out" | grep '^task ' >"$tmp/from"
grep '^task ' "$D/round166.scn" | sed 's/^task T1 clone-vm:/task T1:/' >"$tmp/scn"
python3 - "$tmp/from" "$tmp/scn" <<'PY'
import sys
f = open(sys.argv[1]).read().splitlines()
s = open(sys.argv[2]).read().splitlines()
assert len(f) == 4, f
assert s[0].startswith(f[0]) and s[1:4] == f[1:4], (f, s)
PY
ok $? "round166.scn's T0..T3 are check --from-trace's of the trace (T0 goes on past the cut)"

# the model on it: the port without the VFORK fix stalls at bound 0, as
# the kernel's code with the fixes reverted does (docs/hunt.md), v6.19
# and -FORK-VFORK too (once they passed: their second walk pass met the
# CLONE_VM child before the threads, the kernel's meets the threads
# first); the fixed one passes
for p in ownership:-VFORK ownership:v6.19 ownership:-FORK-VFORK; do
	run_status 1 check --scenario "$D/round166.scn" --policy $p --preemptions 0
	printf '%s\n' "$out" | grep -q "^vfork-repro-6.19.8 ($p, 4 CPUs, 5 tasks): VIOLATION - .*explorer-switch bound 0 of 0" &&
		printf '%s\n' "$out" | grep -q "^liveness: .*T3 spins in get_cid"
	ok $? "$p: a liveness violation at bound 0, T3 spinning in get_cid"
done
run check --scenario "$D/round166.scn" --policy ownership --preemptions 1
printf '%s\n' "$out" | grep -q "^vfork-repro-6.19.8 (ownership, 4 CPUs, 5 tasks): pass"
ok $? "ownership: pass within 1 explorer switch"
# the run under the SCHED_FIFO recorder that froze: the stream goes on
# past the crossing, to the child's wake-up onto CPU 1, the one CPU the
# group never ran on after the crossing
D2=$top/docs/data/hunt/trace-6.19.8-x86_64-4-vfork-repro-2
xz -dc "$D2/fifo-froze.trace.xz" >"$tmp/ff.trace"
r=$(hunt rounds "$tmp/ff.trace")
[ "$r" = "round 169: child 170, crossing at 31.726 s, no exit of the child; mm_cids before [0, 2, 3], between [2]; CPUs running the group between [0, 2, 3]; the child woken onto CPU 1" ] &&
	[ "$(grep -vc '^#' "$tmp/ff.trace")" -eq 193 ] && [ "$(grep -c '\[001\]' "$tmp/passed.trace")" -eq 5 ]
ok $? "fifo-froze.trace: 193 events, the crossing, the child woken onto CPU 1 (no group CPU); fifo-passed: 5 events on CPU 1" "$tmp/ff.trace"
run check --scenario "$D2/round169.scn" --policy ownership --preemptions 1
printf '%s\n' "$out" | grep -q "^vfork-repro-6.19.8-fifo (ownership, 4 CPUs, 5 tasks): pass"
ok $? "round169.scn, ownership: pass within 1 explorer switch"
for p in ownership:-VFORK ownership:v6.19 ownership:-FORK-VFORK; do
	run_status 1 check --scenario "$D2/round169.scn" --policy $p --preemptions 0
	printf '%s\n' "$out" | grep -q "T4 spins in get_cid"
	ok $? "round169.scn, $p: T4 (the crossing thread, on CPU 1) spins in get_cid"
done
# seed 3 under the SCHED_FIFO recorder: 21 whole rounds then the one
# that froze; CID 1 (the child's) never seen while the child lived
D3=$top/docs/data/hunt/trace-6.19.8-x86_64-4-vfork-repro-3
xz -dc "$D3/fifo-froze.trace.xz" >"$tmp/f3.trace"
hunt rounds "$tmp/f3.trace" >"$tmp/r3"
[ "$(grep -c 'mm_cids before \[0, 2, 3\], between' "$tmp/r3")" -eq 22 ] &&
	! grep -q 'mm_cids before \[[0-9, ]*\], between \[[0-9, ]*1[],]' "$tmp/r3" && ! grep -q 'woken onto CPU 1' "$tmp/r3" &&
	tail -n 1 "$tmp/r3" | grep -q '^round 274: child 275, crossing at 41.261 s, no exit of the child;' &&
	[ "$(grep -vc '^#' "$tmp/f3.trace")" -eq 7222 ] && [ "$(grep -c '\[001\]' "$tmp/f3.trace")" -eq 30 ]
ok $? "seed 3: 22 rounds at 0, 2, 3, no CID 1 while the child lived, round 274 without the child's exit; 30 of 7,222 events on CPU 1" "$tmp/r3"
# remap: a freeze row kept before its kernel's map was taken gets its
# vCPUs' names from the map in the cache, KASLR undone with the row's
# _text; without a map it says how to take one (exit 1)
mkdir -p "$tmp/cache/images/linux-binary-9.9.9_9.9.9-1_arm64"
: >"$tmp/cache/images/linux-binary-9.9.9_9.9.9-1_arm64/vmlinuz"
printf '%s\n' 'ffff800080000000 T _text' 'ffff800080100000 T mm_get_cid' \
	'ffff800080100200 t queued_spin_lock_slowpath' 'ffff800080100400 T other' \
	>"$tmp/cache/images/linux-binary-9.9.9_9.9.9-1_arm64/kallsyms"
cat >"$tmp/row.json" <<'J'
{"kernel": "9.9.9", "arch": "arm64", "smp": 2, "workload": "fork-race", "seed": 2, "verdict": "freeze", "vcpus": ["[kernel-lab] vCPUs (3 samples of QEMU's monitor, no symbol map, _text ffffa66d2f600000):", "vCPU 0: ?  ip ffffa66d2f7000c4 ffffa66d2f7000c4 ffffa66d2f700210", "vCPU 1: ?  ip ffffa66d2f700264 ffffa66d2f700264 ffffa66d2f700264"]}
J
cp "$tmp/row.json" "$tmp/row2.json"
CIDKIT_KERNEL_CACHE=$tmp/cache hunt remap "$tmp/row.json" >"$tmp/remap" 2>&1 &&
	grep -q 'vCPU 0: mm_get_cid (2/3), queued_spin_lock_slowpath (1/3); vCPU 1: queued_spin_lock_slowpath (3/3)$' "$tmp/remap" &&
	grep -q '"remapped": "hunt.py remap, .*kallsyms taken after the run"' "$tmp/row.json" &&
	grep -q 'ip ffffa66d2f7000c4 ffffa66d2f7000c4 ffffa66d2f700210' "$tmp/row.json"
ok $? "remap names a kept freeze's vCPUs from the cached map, the slide undone with the row's _text" "$tmp/remap"
mkdir -p "$tmp/empty"
CIDKIT_KERNEL_CACHE=$tmp/empty hunt remap "$tmp/row2.json" >"$tmp/remap" 2>&1
[ $? -eq 1 ] && grep -q '^hunt.py: .*row2.json: no map of 9.9.9 arm64 in the cache (scripts/kernel-lab symbols --kernel 9.9.9 --arch arm64)$' "$tmp/remap" &&
	grep -q '"vCPU 0: ?  ip' "$tmp/row2.json" && ! grep -q remapped "$tmp/row2.json"
ok $? "remap without a map: one line saying how to take it, exit 1, the row untouched" "$tmp/remap"
done_testing
