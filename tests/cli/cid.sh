#!/bin/sh
# cidkit cid: the kernel's cpu_id and mm_cid as threads wake and sleep.
CIDKIT=${1:?usage: cid.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"

run cid --help
[ $rc -eq 0 ] && [ -z "$err" ] && echo "$out" | grep -q '^usage: cidkit cid'
ok $? "--help: usage on stdout, exit 0"

# Every printed figure against the per-thread rows, the JSON's against its
# own, and the bound against this machine (tests/cli/cid_report.py): the
# largest mm_cid, the distinct count, the union lines, and
# min(allowed CPUs, threads + main) from our own affinity.
report="python3 $(dirname "$0")/cid_report.py"
for t in 1 3 6; do
	run cid --threads $t --duration 60
	[ $rc -eq 0 ] && [ -z "$err" ] && printf '%s\n' "$out" | $report human $t 2>"$tmp/why"
	ok $? "human, $t threads: rows, union, largest, distinct and bound agree" "$tmp/why"
	run cid --threads $t --duration 60 --json
	[ $rc -eq 0 ] && [ -z "$err" ] && printf '%s' "$out" | $report json $t 2>"$tmp/why"
	ok $? "--json, $t threads: rows, union, largest, distinct and bound agree" "$tmp/why"
done

export GLIBC_TUNABLES=glibc.pthread.rseq=0
run cid --threads 4 --duration 80 --json
unset GLIBC_TUNABLES
[ $rc -eq 0 ] && [ -z "$err" ] && printf '%s' "$out" | $report json 4 cidkit 2>"$tmp/why"
ok $? "--json without glibc's rseq: cidkit registers its own area; figures agree" "$tmp/why"

expect_usage_error "--threads 0" cid --threads 0
expect_usage_error "--threads abc" cid --threads abc
expect_usage_error "--threads 4097" cid --threads 4097
expect_usage_error "--threads -1" cid --threads -1
expect_usage_error "--threads ''" cid --threads ''
expect_usage_error "--duration 0" cid --duration 0
expect_usage_error "--duration 3600001" cid --duration 3600001
expect_usage_error "--duration 1.5" cid --duration 1.5
expect_usage_error "--duration without value" cid --duration
expect_usage_error "unknown long option" cid --bogus
expect_usage_error "unknown short option" cid -x
expect_usage_error "extra argument" cid --threads 2 extra

done_testing
