#!/bin/sh
# cidkit stress: the invariants hold on this kernel, each planted break is
# caught by its own invariant (and no other), bad input is one line.
CIDKIT=${1:?usage: stress.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"

run stress --help
[ $rc -eq 0 ] && [ -z "$err" ] && echo "$out" | grep -q '^usage: cidkit stress'
ok $? "--help: usage on stdout, exit 0"

# parse: the last run's JSON into $j_* and $d_* (stress_fields.py, one
# python per run): verdicts and details of the four invariants, counts
parse() {
	eval "$(printf '%s' "$out" | python3 "$(dirname "$0")/stress_fields.py")"
}
verdict() {
	eval "printf '%s' \"\$j_$1\""
}
field() {
	eval "printf '%s' \"\$j_$1\""
}

# Under ThreadSanitizer the per-CPU operations take the atomic path
# (cidkit/percpu.h): no rseq mm_cid sections, uniqueness is n/a.
uniq=pass
case ${CIDK_TEST_SANITIZE:-} in *thread*) uniq=n/a ;; esac

# This kernel: every invariant that can be checked holds, and it ran
# (phases, threads, CLONE_VM children, forks and affinity changes > 0).
run stress --seconds 1 --json
parse
v="$(verdict uniqueness) $(verdict bound) $(verdict progress) $(verdict compaction)"
[ $rc -eq 0 ] && [ "$(field ok)" = True ] && [ "$(field phases)" -gt 0 ] &&
	[ "$(field clone_vm_children)" -gt 0 ] && [ "$(field forks)" -gt 0 ] &&
	[ "$(field affinity_changes)" -gt 0 ] && [ "$(field reads)" -gt 0 ]
ok $? "mixed, 1 s: exit 0, invariants $v, and every workload ran"
[ "$v" = "$uniq pass pass pass" ]
ok $? "all four checked here (uniqueness on the rseq mm_cid path: $uniq): $v"

run stress --seconds 1 --workload vfork-repro
[ $rc -eq 0 ] && echo "$out" | grep -Eq '^workload vfork-repro, seed 1, .* [1-9][0-9]* phases' &&
	echo "$out" | grep -Eq 'CLONE_VM children [1-9]' && echo "$out" | grep -q '^progress   pass' &&
	echo "$out" | grep -q '^bound      n/a'
ok $? "vfork-repro, 1 s, human output: rounds in fresh processes with their CLONE_VM child, progress pass"

# affinity-widen: every round's 11 swaps counted in its kind (fresh,
# widened, exit in turn), read as per-task or per-CPU CIDs, not all "other"
run stress --seconds 1 --workload affinity-widen --json
parse
rounds=$(field phases)
sum=0 seen=0
for k in fresh widened exit; do
	for o in task cpu other; do sum=$((sum + $(field aw_${k}_$o))); done
	seen=$((seen + $(field aw_${k}_task) + $(field aw_${k}_cpu)))
done
[ $rc -eq 0 ] && [ "$rounds" -ge 2 ] && [ $sum -eq $((11 * rounds)) ] && [ $seen -gt 0 ] &&
	[ $((${j_aw_fresh_task:-0} + ${j_aw_fresh_cpu:-0})) -gt 0 ] &&
	[ $((${j_aw_widened_task:-0} + ${j_aw_widened_cpu:-0})) -gt 0 ] &&
	[ "$(verdict progress)" = pass ] && [ "$(verdict bound)" = n/a ]
ok $? "affinity-widen, 1 s: $rounds rounds, $sum swaps (11 a round), $seen read as task or CPU CIDs, progress pass"

# Each plant fails its invariant, exit 1, the others still pass.
for b in uniqueness bound progress compaction; do
	if [ $b = uniqueness ] && [ $uniq = n/a ]; then
		ok 0 "--break uniqueness # SKIP no rseq mm_cid sections under TSan"
		continue
	fi
	run_status 1 stress --seconds 1 --watchdog 300 --compact 200 --break $b --json
	parse
	# (a stopped worker cannot read a fresh CID: compaction fails too)
	others=
	for i in uniqueness bound progress compaction; do
		[ $i = $b ] || [ $b$i = progresscompaction ] || others="$others$(verdict $i) "
	done
	[ $rc -eq 1 ] && [ "$(verdict $b)" = FAIL ] &&
		case $others in "pass pass pass " | "pass pass " | "$uniq pass pass " | "$uniq pass ") true ;; *) false ;; esac
	ok $? "--break $b: exit 1, $b FAIL ($(eval "printf '%s' \"\$d_$b\"")), the others pass"
done

expect_usage_error "--seconds 0" stress --seconds 0
expect_usage_error "--seconds 86401" stress --seconds 86401
expect_usage_error "--workload bogus" stress --workload bogus
expect_usage_error "--break bogus" stress --break bogus
expect_usage_error "--threads 0" stress --threads 0
expect_usage_error "--seed -1" stress --seed -1
expect_usage_error "extra operand" stress extra
expect_usage_error "unknown option" stress --bogus
done_testing
