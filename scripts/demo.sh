#!/bin/sh
# scripts/demo.sh path/to/cidkit - a short showcase of what cidkit does.
set -u
cidkit=$1
step() {
	printf '\n$ cidkit %s\n' "$*"
	"$cidkit" "$@"
}

echo "== cpumasks: the kernel's cpulist and hex formats"
step cpulist --nbits 64 "0-3,8-11"
step cpulist --nbits 64 --to hex "0-3,8-11"
step cpulist --nbits 16 "0-15:2/4"
step cpulist --nbits 96 --from hex "80000000,00000000,00000001"
step cpulist --nbits 8 "0-9"
echo "(exit status $? - bad input is one line and exit 2)"

echo
echo "== the allowed-CPUs union, three ways (short run)"
step bench mask --reps 21

echo
echo "== the kernel's own IDs: cpu_id and mm_cid from rseq, threads waking and sleeping"
step cid --threads 4 --duration 300
echo "== CID leases: ns per enter/exit pair, every policy, vs a mutex (short run)"
step bench lease --iters 50000 --reps 5
echo "== CPU topology: this host, a preset, and span sanity"
step topo
step topo --machine epyc-9654-2s
step topo --machine "2s8c2t:llc=4:cluster=2:numa=2:offline=3" --json
step topo --machine 2s96c2t:llc=7
echo "(exit status $? - a malformed spec is one line and exit 2)"
step topo --sysfs-root "$(dirname "$0")/../tests/data/sysfs/insane-llc"
echo "(exit status $? - a saved tree whose CPU 3 claims an L3 of 2-5: insane)"

echo
echo "== the simulator: a small locality table (EPYC 9654 model; the same bytes every run)"
step sim locality --config 8c1l3,24c24l3 --rounds 6 --reference
echo "== the kernel's mm_cid compaction selftest, simulated on 4 and 64 CPUs"
step sim compaction-test --machine 1s4c1t,1s32c2t --policy lazy,inherit
echo "== mm-mask traffic of a context switch, with and without the idle mm"
step sim switch --cpus 4,48 --policy bitmap,inherit --duration-ms 2
