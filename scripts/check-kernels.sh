#!/bin/sh
# scripts/check-kernels.sh - make check-kernels: the guest suite
# (tests/kernels/guest_suite.py) on every kernel line x both architectures,
# 4 CPUs each.  Lines: bookworm (6.1), trixie (6.12), trixie-backports'
# 6.18, 6.19, 7.0, 7.1, 7.2 and 7.3 (each its newest x.y.z there), sid,
# experimental; KERNEL_LINES overrides.  Each line's package is listed first (kernel-lab
# list --kernel), then each guest's TAP; last line "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
bpo=trixie-backports
lines=${KERNEL_LINES:-"bookworm trixie $bpo/6.18 $bpo/6.19 $bpo/7.0 $bpo/7.1 $bpo/7.2 $bpo/7.3 sid experimental"}
passed=0
failed=0
for k in $lines; do
	for a in x86_64 arm64; do
		echo "== $k on $a: $(scripts/kernel-lab list --kernel "$k" --arch "$a" 2>&1 | tail -n 1)"
		if python3 tests/kernels/guest_suite.py scripts/kernel-lab "$k" "$a" 4; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
