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
echo "-- on a fake resctrl mount (tests/cli/fake_resctrl.sh), counters advancing while it samples:"
fake=$(mktemp -d)
fake_gen="$(dirname "$0")/../tests/cli/fake_resctrl.sh"
sh "$fake_gen" "$fake/resctrl" "$fake/sys" 0
(for t in 1 2 3; do sleep 0.5; sh "$fake_gen" "$fake/resctrl" "$fake/sys" $t; sleep 0.5; done) &
ticker=$!
step resctrl --root "$fake/resctrl" --sysfs-root "$fake/sys" --interval 1000 --samples 2
wait $ticker
rm -rf "$fake"

echo
echo "== domain-affine calls and counter reads (short runs)"
step bench call --reps 11 --calls 1000
step bench cat --reps 11
