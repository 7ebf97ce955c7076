#!/bin/sh
# A sharded search run by GNU parallel (Debian's `parallel`, installed by
# scripts/bootstrap.sh), as docs/check.md shows it: the parts on two job
# slots, then --merge; the same bytes as one unsharded run.
CIDKIT=${1:?usage: shard_parallel.sh path/to/cidkit}
. "$(dirname "$0")/../cli/tap.sh"

if ! command -v parallel >/dev/null 2>&1 ||
	! parallel --version 2>/dev/null | grep -q 'GNU parallel'; then
	skip_all "GNU parallel is not installed (scripts/bootstrap.sh installs it)"
fi
export CIDKIT

for s in lazy-put:4 livelock-3cpu:3; do
	scn=${s%:*} parts=${s#*:}
	"$CIDKIT" check --scenario "$scn" --json >"$tmp/one.json" 2>/dev/null
	want=$?
	seq "$parts" | parallel --will-cite -j 2 --halt never \
		'"$CIDKIT" check --scenario '"$scn"' --json --shard {}/'"$parts"' >'"$tmp"'/part{}.json 2>/dev/null'
	run_status $want check --merge --json "$tmp"/part*.json
	cmp -s "$tmp/out" "$tmp/one.json" && [ "$(ls "$tmp"/part*.json | wc -l)" -eq "$parts" ]
	ok $? "GNU parallel: $scn in $parts parts on 2 slots, merged = one run (exit $want)"
	rm -f "$tmp"/part*.json
done

done_testing
