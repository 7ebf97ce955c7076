#!/bin/sh
# scripts/check-kernels.sh - make check-kernels: the matrix report.
# On every kernel line x86_64 and arm64, then riscv64, ppc64le and s390x
# on their Debian lines (4 CPUs each, one guest at a time): the guest suite (tests/kernels/guest_suite.py: our programs and
# `cidkit abi --json`, judged against the committed matrix
# docs/data/abi-matrix.json); then `cidkit abi` on the host; then every abi
# result recorded into the data file (scripts/abi-matrix record: a run with
# a FAIL is confirmed by a second guest) and docs/abi.md's table
# regenerated from it (scripts/abi-matrix docs).  Lines: bookworm (6.1),
# trixie (6.12), trixie-backports' 6.18, 6.19, 7.0, 7.1, 7.2 and 7.3 (each
# its newest x.y.z there) and its 7.0.7, 7.0.9 and 7.0.10 (the 7.0 point
# releases between the broken 7.0.4 and 7.0.13: where the probe's verdict
# could change), sid, experimental; KERNEL_LINES overrides.
#
# Fails on: a guest suite that fails (our programs' TAP, or cidkit abi
# crashing, printing bad JSON, or giving a verdict the matrix did not
# record for that kernel: a changed kernel behaviour must be looked at);
# the host's verdicts differing from the matrix; a topology shape whose
# cidkit topo disagrees with the kernel's sched domains.  Not on a kernel the
# matrix records as breaking rseq's promises.  The data file and the table
# are rewritten either way: `git diff docs/` shows what changed.
# Last line "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
bpo=trixie-backports
lines=${KERNEL_LINES:-"bookworm trixie $bpo/6.18 $bpo/6.19 $bpo/7.0.7 $bpo/7.0.9 $bpo/7.0.10 $bpo/7.0 $bpo/7.1 $bpo/7.2 $bpo/7.3 sid experimental"}
# the issue-37 operations' stress in every guest (tests/kernels/guest_suite.py)
export CIDK_GUEST_OPS_SECONDS=${CIDK_GUEST_OPS_SECONDS:-30}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
i=0
for k in $lines; do
	for a in x86_64 arm64; do
		i=$((i + 1))
		echo "== $k on $a: $(scripts/kernel-lab list --kernel "$k" --arch "$a" 2>&1 | tail -n 1)"
		if python3 tests/kernels/guest_suite.py scripts/kernel-lab "$k" "$a" 4 \
			--abi-out "$out/$i.json"; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	done
done
# The architectures added later, on the Debian lines this machine's
# mirror serves for them (abi_matrix.LINES_OF: riscv64 trixie and sid;
# ppc64le and s390x bookworm, trixie/6.12.107, sid, experimental), one
# guest at a time; NEW_ARCH_LINES overrides.
for a in riscv64 ppc64le s390x; do
	new_lines=${NEW_ARCH_LINES:-$(python3 -c "import sys; sys.path.insert(0, 'scripts')
from kernel_lab import abi_matrix; print(' '.join(abi_matrix.LINES_OF['$a']))")}
	for k in $new_lines; do
		i=$((i + 1))
		echo "== $k on $a: $(scripts/kernel-lab list --kernel "$k" --arch "$a" 2>&1 | tail -n 1)"
		if python3 tests/kernels/guest_suite.py scripts/kernel-lab "$k" "$a" 4 \
			--abi-out "$out/$i.json"; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	done
done
# cidkit topo against the sched domains of every machine shape (make check
# boots six of them: tests/kernels/topo_shapes.py QUICK).
for a in x86_64 arm64; do
	for s in $(python3 tests/kernels/topo_shapes.py --list "$a"); do
		echo "== topology shape $s on $a (sid)"
		if python3 tests/kernels/topo_shapes.py scripts/kernel-lab sid "$a" "$s"; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	done
done
echo "== host $(uname -r) and the matrix: scripts/abi-matrix record --host"
scripts/build.sh build || exit 1
if scripts/abi-matrix record --host $(ls "$out"/*.json 2>/dev/null); then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi
if scripts/abi-matrix docs; then
	echo "== docs/abi.md regenerated from docs/data/abi-matrix.json:" \
		"$(git diff --stat -- docs/abi.md docs/data/abi-matrix.json | tail -n 1)"
else
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
