#!/bin/sh
# scripts/bench.sh path/to/cidkit - every benchmark, with default sizes.
set -u
cidkit=$1
step() {
	printf '\n$ cidkit bench %s\n' "$*"
	"$cidkit" bench "$@"
}
step mask
step topo
step lease
step pipe
step pipe --processes
step burst
step burst --delay-ms 0 --rounds 300
step call
step cat
step probe
