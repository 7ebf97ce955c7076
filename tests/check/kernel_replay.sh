#!/bin/sh
# cidkit check --from-trace TRACE --kernel-source 7.2 --trace-cids (issue 38):
# the recorded schedules of tests/data/traces (6.19.6 and 7.2.13 guests,
# the ownership design) driven one event at a time through linux-source-7.2's
# own mm_cid code and our hand-written call context (check/kernel/kcontext.c),
# and each rseq_update's mm_cid compared with the CID that code gives: it
# agrees on every one, as the port does (cidkit sim replay --policy
# ownership), with the same number of mode switches; without the trace's
# mm_cid_exit lines both miss the same 3 events (docs/validation.md); the
# call context with switch-in run before switch-out in context_switch()
# (a copy of check/kernel, planted) disagrees and stops.  Skips (a SKIP
# line, never a pass) when linux-source-7.2 is not in the kernel lab's
# cache (scripts/kernel-source fetch 7.2: docs/check-kernel.md).
CIDKIT=${1:?usage: kernel_replay.sh path/to/cidkit}
. "$(dirname "$0")/../cli/tap.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)
data=$src/tests/data/traces
cache=${CIDKIT_KERNEL_CACHE:-$HOME/.cache/cidkit/kernels}
ls -d "$cache"/sources/linux-source-7.2_* >/dev/null 2>&1 ||
	skip_all "linux-source-7.2 is not cached (scripts/kernel-source fetch 7.2)"

# ---- bad input ----------------------------------------------------------------

expect_usage_error "--trace-cids without --from-trace" \
	check --kernel-source 7.2 --trace-cids
expect_usage_error "--trace-cids without a kernel tree" \
	check --from-trace "$data/tiny.trace" --trace-cids
printf 'no trace here\n' >"$tmp/bad.trace"
expect_usage_error "--trace-cids on a file that is not a trace" \
	check --from-trace "$tmp/bad.trace" --kernel-source 7.2 --trace-cids
grep -v ' sched_process_exec: ' "$data/tiny.trace" >"$tmp/noexec.trace"
expect_usage_error "--trace-cids on a trace without the group's exec" \
	check --from-trace "$tmp/noexec.trace" --kernel-source 7.2 --trace-cids

# ---- every recorded rseq_update, kernel code beside the port ----------------------

# judge KERNEL.json PORT.json M: the kernel code agrees on M of M, nothing
# reported, no lost event; the port agrees on as many; the same mode switches
judge() {
	python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
k, p, m = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
pol = p["policies"][0]
good = (k["rseq_updates"] == m and k["agree"] == m and not k["bug"] and
        not k["stopped"] and k["inconsistent"] == 0 and
        p["rseq_updates"] == m and pol["agree"] == k["agree"] and
        pol["mode_switches"] == k["mode_switches"] and
        k["calls"]["fork"] + 1 == k["threads"] == p["threads"])
if not good:
    print("#  kernel %s/%s (modesw %s), port %s/%s (modesw %s)" % (
        k["agree"], k["rseq_updates"], k["mode_switches"], pol["agree"],
        p["rseq_updates"], pol["mode_switches"]))
sys.exit(0 if good else 1)
EOF
}

for spec in threads4-7.2-smp4:296 threads16-7.2-smp8:209 churn8-7.2-smp4:426 \
	    affinity4-7.2-smp8:337 churn16-6.19-smp8:163 \
	    churn32-6.19-smp16-exit:541; do
	name=${spec%:*} m=${spec#*:}
	t=$data/cid-$name.trace.xz
	run check --from-trace "$t" --kernel-source 7.2 --trace-cids --json
	echo "$out" >"$tmp/k.json"
	"$CIDKIT" sim replay --policy ownership --json "$t" >"$tmp/p.json" 2>/dev/null
	judge "$tmp/k.json" "$tmp/p.json" "$m"
	ok $? "$name: kernel:7.2's code agrees on $m of $m rseq_update, as the port, same mode switches"
done

# the human form says it (docs/check-kernel.md quotes it)
run check --from-trace "$data/cid-churn8-7.2-smp4.trace.xz" --kernel-source 7.2 --trace-cids
echo "$out" | grep -q '^agreement with the recorded mm_cid: 426 of 426 rseq_update (100.00 %)$' &&
	echo "$out" | grep -q '^calls: exec 1 context_switch 147 switch_in 296 switch_out 271 fork 24 exit 25 set_task_cpu 111 '
ok $? "churn8-7.2-smp4: the text gives the agreement and the calls"

# without the kprobe's exits (at sched_process_exit instead): the same three
# events as the port, the joiner that found the exiting thread's CID free
xz -dc "$data/cid-churn32-6.19-smp16-exit.trace.xz" | sed '/ mm_cid_exit: /d' >"$tmp/noexit.trace"
run_status 1 check --from-trace "$tmp/noexit.trace" --kernel-source 7.2 --trace-cids
echo "$out" | grep -q '^agreement with the recorded mm_cid: 538 of 541 rseq_update (99.45 %)$' &&
	echo "$out" | grep -q ': pid 291 on CPU 8: recorded 2, kernel code 3 ' &&
	"$CIDKIT" sim replay --policy ownership "$tmp/noexit.trace" | grep -qE '^  ownership +538 +99\.45 %$'
ok $? "without mm_cid_exit lines: 538 of 541 (pid 291 gets 3, not 2), as the port"

# ---- the plant: context_switch() runs switch-in before switch-out ----------------

mkdir -p "$tmp/src/check"
ln -s "$src/scripts" "$src/lib" "$src/include" "$tmp/src/"
cp -r "$src/check/kernel" "$tmp/src/check/"
sed -i 's/^\tmm_cid_switch_to(p, n);$/\tmm_cid_switch_to(\&kchk_idle[cpu], n); mm_cid_switch_to(p, \&kchk_idle[cpu]);/' \
	"$tmp/src/check/kernel/kcontext.c"
grep -q 'mm_cid_switch_to(&kchk_idle\[cpu\], n); mm_cid_switch_to(p, ' "$tmp/src/check/kernel/kcontext.c"
ok $? "plant: a copy of the call context with switch-in before switch-out"
export CIDKIT_SOURCE_DIR="$tmp/src"
run_status 1 check --from-trace "$data/cid-churn8-7.2-smp4.trace.xz" \
	--kernel-source 7.2 --trace-cids
unset CIDKIT_SOURCE_DIR
echo "$out" | grep -qE '^agreement with the recorded mm_cid: 1[0-9]{2} of 1[0-9]{2} rseq_update' &&
	echo "$out" | grep -q 'a wait that cannot end .* mm_get_cid'
ok $? "planted: churn8-7.2-smp4 disagrees, and mm_get_cid waits for ever: exit 1"

done_testing
