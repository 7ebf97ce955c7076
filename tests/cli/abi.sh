#!/bin/sh
# cidkit abi: the rseq ABI checks on this kernel, their report, their
# errors, and each check made to FAIL by a deliberately broken user side.
CIDKIT=${1:?usage: abi.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"
report="python3 $(dirname "$0")/abi_report.py"
ALL="register ids abort-preempt abort-migrate abort-signal cpu-id-start mm-cid membarrier-rseq slice-ext probe"

run abi --only register --json
case "$out" in
*ThreadSanitizer*) skip_all "ThreadSanitizer build: rseq checks are n/a by design" ;;
*"no rseq(2) here"*) skip_all "no rseq(2) on this kernel" ;;
esac

run abi --help
[ $rc -eq 0 ] && [ -z "$err" ] && echo "$out" | grep -q '^usage: cidkit abi' &&
	echo "$out" | grep -q -- '--seconds'
ok $? "--help: usage on stdout, exit 0"

run abi --list
[ "$(echo "$out" | awk '{print $1}' | tr '\n' ' ')" = "$ALL " ]
ok $? "--list: the ten checks, in order"

# The real run: nothing fails on this kernel (6.x x86-64 keeps every
# promise checked); pass or n/a with a reason; shape and oracles.
run abi --json --seconds 2
printf '%s' "$out" | $report json $ALL 2>"$tmp/why"
ok $? "--json: shape, reasons, evidence against this machine; exit 0" "$tmp/why"
! printf '%s' "$out" | grep -q '"FAIL"'
ok $? "--json: no check FAILs on this kernel"

run abi --seconds 1
printf '%s' "$out" | $report human $ALL 2>"$tmp/why"
ok $? "human: one row per check, in order; exit 0" "$tmp/why"

run abi --only abort-signal,ids --json --seconds 0.5
printf '%s' "$out" | $report json abort-signal ids 2>"$tmp/why"
ok $? "--only abort-signal,ids: those two, in that order" "$tmp/why"

# This host keeps every promise it offers (x86-64, 6.x): a wrong FAIL or a
# wrong n/a of any check shows here.  slice-ext is pass only where the
# kernel offers the extension (7.0+), n/a otherwise.
ncpu=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
must="register ids abort-preempt abort-signal cpu-id-start mm-cid membarrier-rseq probe"
[ "$ncpu" -ge 2 ] && must="$must abort-migrate"
for c in $must; do
	run abi --only "$c" --seconds 1
	v=$(printf '%s' "$out" | $report verdict "$c" 2>&1)
	[ "$v" = pass ] && [ $rc -eq 0 ]
	ok $? "$c passes on this host ($v)"
done

# Without glibc's rseq the checks use cidkit's own registration (lib/rseq).
export GLIBC_TUNABLES=glibc.pthread.rseq=0
run abi --only register,abort-signal --json --seconds 1
unset GLIBC_TUNABLES
printf '%s' "$out" | $report json register abort-signal 2>"$tmp/why" &&
	printf '%s' "$out" | grep -q '"owner": 2' &&
	[ "$(printf '%s' "$out" | grep -c '"verdict": "pass"')" -ge 1 ] &&
	! printf '%s' "$out" | grep -q '"FAIL"'
ok $? "without glibc's rseq: cidkit's own area (owner 2), nothing FAILs" "$tmp/why"

expect_usage_error "--only nosuch" abi --only nosuch
expect_usage_error "--only ''" abi --only ''
expect_usage_error "--seconds 0" abi --seconds 0
expect_usage_error "--seconds abc" abi --seconds abc
expect_usage_error "--seconds 601" abi --seconds 601
expect_usage_error "--break nosuch" abi --break nosuch
expect_usage_error "--break unarmed,nosuch" abi --break unarmed,nosuch
expect_usage_error "extra argument" abi extra
expect_usage_error "unknown option" abi --bogus

# Each check shown able to fail: run it on a broken user side, see FAIL
# and exit 1.  (break: the checks it must make FAIL.)  unarmed is what a
# kernel that never aborts looks like from user space.
abort_checks="abort-preempt abort-signal membarrier-rseq"
[ "$ncpu" -ge 2 ] && abort_checks="$abort_checks abort-migrate"
for pair in "cs-short:$abort_checks" "no-sig:$abort_checks" \
	"write-early:$abort_checks" "unregistered:register mm-cid" \
	"no-event:cpu-id-start" "unarmed:$abort_checks probe" \
	"idle-helper:probe"; do
	brk=${pair%%:*}
	for c in ${pair#*:}; do
		run_status 1 abi --only "$c" --break "$brk" --seconds 2
		v=$(printf '%s' "$out" | $report verdict "$c" 2>&1)
		# no-sig: the kernel itself must have killed the process.
		[ "$v" = FAIL ] && { [ "$brk" != no-sig ] ||
			printf '%s' "$out" | grep -q "killed by SIGSEGV"; }
		ok $? "--break $brk: $c FAILs ($v)"
	done
done
# ...and never a pass without proof (issue 35's audit): a helper that goes
# through its motions without its event (the aborts that remain have
# nothing to do with it), and with the section unarmed as well (events,
# no abort, no commit saw a change), must each be n/a with exit 0.
for brk in idle-helper unarmed,idle-helper; do
	for c in $abort_checks; do
		run abi --only "$c" --break "$brk" --seconds 1 --json
		v=$(printf '%s' "$out" | python3 -c 'import json,sys; c=json.load(sys.stdin)["checks"][0]; e=c["evidence"]; print(c["verdict"], e["events"] > 0, e["aborts_in_event"])' 2>&1)
		[ "$v" = "n/a True 0" ] && [ $rc -eq 0 ]
		ok $? "--break $brk: $c is n/a, not pass (verdict, events landed, aborts in an event: $v)"
	done
done
if [ "$ncpu" -ge 2 ]; then
	run_status 1 abi --only ids --break stale
	[ "$(printf '%s' "$out" | $report verdict ids)" = FAIL ]
	ok $? "--break stale: ids FAILs"
fi
# slice-ext can only fail where the kernel offers the extension (7.0+).
run abi --only slice-ext --json
if printf '%s' "$out" | grep -q '"verdict": "pass"'; then
	run_status 1 abi --only slice-ext --break unregistered
	[ "$(printf '%s' "$out" | $report verdict slice-ext)" = FAIL ]
	ok $? "--break unregistered: slice-ext FAILs"
else
	skip "" "slice-ext not offered by this kernel: its broken variant cannot be shown here"
fi

done_testing
