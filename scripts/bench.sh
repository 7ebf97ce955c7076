#!/bin/sh
# scripts/bench.sh path/to/cidkit - every benchmark, with default sizes.
set -u
cidkit=$1
for b in mask topo; do
	printf '\n$ cidkit bench %s\n' "$b"
	"$cidkit" bench "$b"
done
printf '\n$ cidkit bench lease\n'
"$cidkit" bench lease
printf '\n$ cidkit bench pipe\n'
"$cidkit" bench pipe
printf '\n$ cidkit bench pipe --processes\n'
"$cidkit" bench pipe --processes
printf '\n$ cidkit bench burst\n'
"$cidkit" bench burst
printf '\n$ cidkit bench burst --delay-ms 0 --rounds 300\n'
"$cidkit" bench burst --delay-ms 0 --rounds 300
for b in call cat; do
	printf '\n$ cidkit bench %s\n' "$b"
	"$cidkit" bench "$b"
done
