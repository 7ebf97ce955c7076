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
for b in call cat; do
	printf '\n$ cidkit bench %s\n' "$b"
	"$cidkit" bench "$b"
done
