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
echo "== per-CPU operations (librseq's set, both indexings): tcmalloc's per-CPU slab,"
echo "   batch push/pop and a resizer fencing CPUs; every object in one place after each round"
printf '\n$ examples/percpu_slab 4 4 5000\n'
"$(dirname "$cidkit")/examples/percpu_slab" 4 4 5000
echo "== cidkit stress: threads crossing the CPU count, CLONE_VM children, forks, affinity"
echo "   churn; four invariants of the kernel's mm_cid watched from user space (2 s)"
step stress --seconds 2
echo "== CID leases: ns per enter/exit pair, every policy, vs a mutex (short run)"
step bench lease --iters 50000 --reps 5

echo
echo "== the context-switch round trip through two pipes: one CPU, two CPUs, unpinned (short run)"
step bench pipe --loops 1000 --runs 3
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
step sim compaction-test --machine 1s4c1t,1s32c2t --policy lazy,inherit,ownership
echo "== mm-mask traffic of a context switch, with and without the idle mm"
step sim switch --cpus 4,48 --policy bitmap,inherit,ownership --duration-ms 2
echo "== the checker: interleavings of the real policy code; the kernel's published"
echo "   ownership live lock (6.19 as merged) found, and gone with the fixes"
step check --scenario livelock-3cpu
echo "(exit status $? - a violation, with its trace)"
step check --scenario livelock-3cpu --policy ownership
echo "== one schedule replayed and stopped: a task schedules in while the fork's"
echo "   walk is under way, and hands its CID to its CPU in transit"
step check --scenario "$(dirname "$0")/../tests/data/check/walk.scn" --replay 'T1/2,T0@fixup_tasks_to_cpus,T1/1,!'
echo "== the mutation table: each deliberately broken build of lib/cid caught"
printf '\n$ scripts/mutate.py table\n'
python3 "$(dirname "$0")/mutate.py" table --build "$(dirname "$cidkit")"
echo "== the same checker on the kernel's own mm_cid code: Debian's linux-source 7.2"
echo "   fetched (first run ~1 min, 160 MB), its CONFIG_SCHED_MM_CID blocks compiled"
echo "   against cidkit's stand-ins at run time (docs/check-kernel.md)"
step check --kernel-source 7.2 --scenario concurrent-forks
echo "== counter reads: open once, pread many (cidkit cat, a drop-in for fastcat)"
step cat --print /sys/devices/system/cpu/online /proc/loadavg
printf '\n$ FASTCAT_READ_COUNT=1000 cidkit cat --stats /sys/devices/system/cpu/cpu0/topology/core_id\n'
FASTCAT_READ_COUNT=1000 "$cidkit" cat --stats /sys/devices/system/cpu/cpu0/topology/core_id
step cat /nonexistent
echo "(exit status $? - an unopenable file is one line and exit 2)"

echo
echo "== resctrl memory-bandwidth sampler"
step resctrl --samples 1
echo "(exit status $? - this machine has no resctrl)"
echo "-- on a fake resctrl mount (tests/support/fake_tree.py), counters advancing while it samples:"
fake=$(mktemp -d)
fake_gen="$(dirname "$0")/../tests/support/fake_tree.py"
python3 "$fake_gen" resctrl "$fake/resctrl" "$fake/sys" 0
(for t in 1 2 3; do sleep 0.5; python3 "$fake_gen" resctrl "$fake/resctrl" "$fake/sys" $t; sleep 0.5; done) &
ticker=$!
step resctrl --root "$fake/resctrl" --sysfs-root "$fake/sys" --interval 1000 --samples 2
wait $ticker
rm -rf "$fake"

echo
echo "== domain-affine calls and counter reads (short runs)"
step bench call --reps 11 --calls 1000
step bench cat --reps 11

echo
echo "== the kernel lab: Debian's newest kernel (sid) booted under QEMU on arm64,"
echo "   4 CPUs, running cidkit inside (first run downloads the kernel, ~1 min)"
printf '\n$ scripts/kernel-lab run --kernel sid --arch arm64 --smp 4 -- cidkit cid --threads 6\n'
"$(dirname "$0")/kernel-lab" run --kernel sid --arch arm64 --smp 4 -- cidkit cid --threads 6
echo "(exit status $? - the table above came from an arm64 guest)"
