#!/bin/sh
# cidkit bench lease: JSON shape, --help, and every bad input path.
CIDKIT=${1:?usage: bench_lease.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"

run bench lease --threads 2 --iters 2000 --reps 3 --json
[ $rc -eq 0 ] && [ -z "$err" ] && printf '%s' "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)["results"]
whats = {(x["what"], x["threads"]) for x in r}
want = {("lease:" + p, t) for p in ("bitmap", "lazy", "lazy-batched", "cache-local", "inherit", "ownership") for t in (1, 2)}
want |= {(w, t) for w in ("mutex", "kernel-mm_cid", "floor:cas+store") for t in (1, 2)}
assert want <= whats, (want - whats)
assert all(x["ns_per_pair"] > 0 for x in r)
'
ok $? "--json: a row per policy and the mutex, for 1 and 2 threads, ns > 0"

# --threads 1: every row of the table (what, threads, ...) is for 1 thread,
# and each way has its row.  (The old check, "no line matching ' 2 .*x$'",
# could never match: rows end with the RMW/pair column, not with "x".)
run bench lease --threads 1 --iters 1000 --reps 2
rows=$(printf '%s\n' "$out" | awk '$1 ~ /^(lease:|mutex$|kernel-mm_cid$|floor:cas\+store$)/')
nrows=$(printf '%s\n' "$rows" | grep -c .)
n1=$(printf '%s\n' "$rows" | awk '$2 == 1' | grep -c .)
ways=$(printf '%s\n' "$rows" | awk '{ print $1 }' | sort | tr '\n' ' ')
every_way() {
	for w in lease:bitmap lease:lazy lease:lazy-batched lease:cache-local \
		lease:inherit lease:ownership mutex kernel-mm_cid \
		floor:cas+store; do
		printf '%s\n' "$rows" | grep -q "^$w  *1 " || return 1
	done
}
[ $rc -eq 0 ] && [ "$nrows" -ge 9 ] && [ "$n1" -eq "$nrows" ] && every_way
ok $? "--threads 1: $nrows rows, $n1 of them for 1 thread, every way ($ways)"

run bench lease --help
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^usage: cidkit bench lease' &&
	printf '%s\n' "$out" | grep -q 'ownership'
ok $? "--help: usage on stdout (names ownership's uncounted lock), exit 0"

expect_usage_error "--threads 0" bench lease --threads 0
expect_usage_error "--threads x" bench lease --threads x
expect_usage_error "--iters 0" bench lease --iters 0
expect_usage_error "--reps -1" bench lease --reps -1
expect_usage_error "--iters without value" bench lease --iters
expect_usage_error "unknown option" bench lease --bogus
expect_usage_error "extra argument" bench lease extra
done_testing
