#!/bin/sh
# GNU option habits in every subcommand (issue 40): options and operands in
# any order (getopt_long's permutation, tools/cli/opt.c), "--" ends the
# options, an unknown option is named.  For each leaf subcommand:
#  - `SUB x --help` prints exactly what `SUB --help` prints, exit 0: the
#    option after the operand x is still an option (without the
#    permutation x ends the options and --help is a second operand);
#  - `SUB x --bogus`: exit 2, one line naming '--bogus';
#  - `SUB -- --json`: after "--", --json is an operand: exit 2, one line
#    naming it, and not as an unknown option.
# The subcommands that take operands also run for real: an option after
# the operand gives the bytes of the options-first form, and "--" lets an
# operand start with '-'.  trace record is the exception, in order: its
# operands are a command line whose options are the command's own.
CIDKIT=${1:?usage: options.sh path/to/cidkit}
case $CIDKIT in /*) ;; *) CIDKIT=$(pwd)/$CIDKIT ;; esac # the test cds
# shellcheck source=tests/cli/tap.sh
. "$(dirname "$0")/tap.sh"
here=$(cd "$(dirname "$0")" && pwd)
trace=$here/../data/traces/tiny.trace

# Every leaf subcommand of `cidkit --help` and its groups (counted below,
# so a new subcommand must be added here).
leaves="cpulist topo cid abi stress check cat resctrl
sim:locality sim:scan sim:compaction-test sim:switch sim:replay
bench:mask bench:pipe bench:burst bench:lease bench:topo bench:call
bench:cat bench:percpu bench:probe bench:replay"

# The subcommands the command lists, leaves of sim/bench/trace expanded.
listed() {
	"$CIDKIT" "$@" --help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p'
}
all=
for c in $(listed); do
	case $c in
	sim | bench | trace)
		for s in $(listed "$c"); do all="$all $c:$s"; done ;;
	*) all="$all $c" ;;
	esac
done
# shellcheck disable=SC2086 # one word per subcommand
want=$(printf '%s\n' $leaves trace:record | sort | tr '\n' ' ')
# shellcheck disable=SC2086
have=$(printf '%s\n' $all | sort | tr '\n' ' ')
[ "$want" = "$have" ]
ok $? "the list covers every subcommand (command lists: $have)"

for leaf in $leaves; do
	# shellcheck disable=SC2046 # "sim:scan" -> sim scan
	set -- $(echo "$leaf" | tr ':' ' ')
	name="$*"
	run "$@" --help
	first=$out
	run "$@" x --help
	[ -n "$first" ] && [ "$out" = "$first" ]
	ok $? "$name x --help: the help of $name --help"

	expect_usage_error "$name x --bogus" "$@" x --bogus
	case "$err" in *"unknown option '--bogus'"*) true ;; *) false ;; esac
	ok $? "$name: an unknown option after an operand is named ($err)"

	expect_usage_error "$name -- --json" "$@" -- --json
	case "$err" in *"unknown option"*) false ;; *--json*) true ;; *) false ;; esac
	ok $? "$name: after --, --json is an operand ($err)"
done

# cidkit trace record CMD ARGS...: in order, CMD's options are CMD's.
expect_usage_error "trace record --bogus true" trace record --bogus true
case "$err" in *"unknown option '--bogus'"*) true ;; *) false ;; esac
ok $? "trace record: an unknown option is named ($err)"
expect_usage_error "trace record --kprobes bad true --bogus" \
	trace record --kprobes bad true --bogus
case "$err" in *"unknown option"*) false ;; *) true ;; esac
ok $? "trace record: --bogus after CMD is CMD's ($err)"

# Before the subcommand's name: named as an option.
for pre in "" sim bench trace; do
	# shellcheck disable=SC2086 # an empty $pre is no word
	expect_usage_error "cidkit $pre --bogus" $pre --bogus
	case "$err" in *"unknown option '--bogus'"*) true ;; *) false ;; esac
	ok $? "cidkit $pre --bogus: named ($err)"
done

# --- the subcommands with operands, for real ---------------------------

# same WHAT ARGS... -- ARGS2...: both exit 0 with the same stdout.
same() {
	what=$1
	shift
	a=
	while [ "$1" != "::" ]; do a="$a $1"; shift; done
	shift
	# shellcheck disable=SC2086 # the words of the first form
	run $a
	first=$out
	run "$@"
	[ -n "$first" ] && [ "$out" = "$first" ]
	ok $? "$what"
}

same "cpulist 0-1 --to hex: as --to hex 0-1" \
	cpulist --to hex --nbits 8 0-1 :: cpulist 0-1 --to hex --nbits 8
same "cpulist --from hex 3 --to list --nbits 8: options around the operand" \
	cpulist --from hex --to list --nbits 8 3 :: \
	cpulist --from hex 3 --to list --nbits 8
expect_usage_error "cpulist -- -1" cpulist -- -1
case "$err" in *"'-1' at offset 0"*) true ;; *) false ;; esac
ok $? "cpulist -- -1: a cpulist the parser refuses, not an option ($err)"

cp "$trace" "$tmp/-t.trace"
same "sim replay TRACE --json: as --json TRACE" \
	sim replay --json --disagreements 3 "$trace" :: \
	sim replay "$trace" --json --disagreements 3
same "sim replay --json -- -t.trace: an operand starting with '-'" \
	sim replay --json "$trace" :: sim replay --json -- "$tmp/-t.trace"
cd "$tmp" || exit 1
run sim replay --json "$trace"
first=$(printf '%s' "$out" | sed "s#$trace#TRACE#g")
run sim replay --json -- -t.trace
[ -n "$first" ] && [ "$(printf '%s' "$out" | sed 's#-t\.trace#TRACE#g')" = "$first" ]
ok $? "sim replay --json -- -t.trace (relative): the trace read"
"$CIDKIT" sim replay - --json <"$trace" >"$tmp/stdin.out" 2>&1
rc=$?
"$CIDKIT" sim replay --json - <"$trace" >"$tmp/stdin1.out" 2>&1
[ $rc -eq 0 ] && [ -s "$tmp/stdin.out" ] && cmp -s "$tmp/stdin.out" "$tmp/stdin1.out"
ok $? "sim replay - --json: '-' is stdin, the option after it an option"
cd - >/dev/null || exit 1

# bench replay: timings differ, the shape (every number as N) does not.
shape() { printf '%s' "$out" | sed 's/[0-9][0-9.e+-]*/N/g'; }
run bench replay --json --reps 1 "$trace"
first=$(shape)
run bench replay "$trace" --reps 1 --json
[ -n "$first" ] && [ "$(shape)" = "$first" ] && case "$first" in "{"*) true ;; *) false ;; esac
ok $? "bench replay TRACE --reps 1 --json: the JSON of the options-first form"
run bench replay --json --reps 1 -- "$tmp/-t.trace"
[ "$(shape)" = "$first" ]
ok $? "bench replay --json --reps 1 -- -t.trace: an operand starting with '-'"

printf 'a counter\n' >"$tmp/-c"
printf '41\n' >"$tmp/v"
same "cat FILE --print --count 2: as --print --count 2 FILE" \
	cat --print --count 2 "$tmp/v" :: cat "$tmp/v" --print --count 2
run cat --print -- "$tmp/-c" "$tmp/v"
[ "$out" = "$tmp/-c: a counter
$tmp/v: 41" ]
ok $? "cat --print -- -c v: an operand starting with '-'"

# check --merge PARTS --json (the parts: one small search in two shards)
for k in 1 2; do
	"$CIDKIT" check --scenario converge --preemptions 1 --json --shard $k/2 \
		>"$tmp/-p$k.json" 2>/dev/null
done
cp "$tmp/-p1.json" "$tmp/p1.json"
cp "$tmp/-p2.json" "$tmp/p2.json"
same "check --merge A B --json: as --merge --json A B" \
	check --merge --json "$tmp/p1.json" "$tmp/p2.json" :: \
	check --merge "$tmp/p1.json" "$tmp/p2.json" --json
case "$out" in "["*"converge"*) true ;; *) false ;; esac
ok $? "check --merge ... --json: the merged JSON array"
cd "$tmp" || exit 1
same "check --merge --json -- -p1.json -p2.json: operands starting with '-'" \
	check --merge --json p1.json p2.json :: \
	check --merge --json -- -p1.json -p2.json
cd - >/dev/null || exit 1

done_testing
