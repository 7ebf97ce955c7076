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
