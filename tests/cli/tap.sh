# tests/cli/tap.sh - TAP helpers for the command's end-to-end tests.
# Source it; then: run ARGS... (sets $out $err $rc), ok COND "what", done.
# The exit status is always checked: the first ok after `run` fails unless
# the command exited 0; `run_status N ARGS...` expects exit N instead
# (`any`: whatever it is, the test judges $rc itself).
# ok COND "what" FILE: on failure, show FILE (first 40 lines) instead of
# the last run's output.
# skip_all "why" before any ok: plan "1..0 # SKIP why", exit 0 (meson's TAP
# parser reports SKIP; exit 77 would be an ERROR under protocol: 'tap').
# skip "what" "why": one assertion that cannot be made here, as
# "ok N - what # SKIP why" (counted by meson as skipped, not passed).
n=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

want_rc=
run() {
	run_status 0 "$@"
}

run_status() {
	want_rc=$1
	shift
	"$CIDKIT" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

ok() {
	n=$((n + 1))
	why=
	if [ -n "$want_rc" ] && [ "$want_rc" != any ] && [ "$rc" != "$want_rc" ]; then
		why=" (exit $rc, expected $want_rc)"
	fi
	want_rc=
	if [ "$1" = 0 ] && [ -z "$why" ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2$why"
		failed=$((failed + 1))
		if [ $# -ge 3 ]; then
			[ -f "$3" ] && sed 's/^/#   /' "$3" | head -40
			return 0
		fi
		echo "#   stdout: $(head -c 300 "$tmp/out" | tr '\n' '|')"
		echo "#   stderr: $(head -c 300 "$tmp/err" | tr '\n' '|')"
		echo "#   exit: ${rc:-}"
	fi
}

# expect_usage_error WHAT ARGS...: exit 2, exactly one line on stderr that
# starts with "cidkit: ", nothing on stdout.
expect_usage_error() {
	what=$1
	shift
	run_status 2 "$@"
	lines=$(wc -l <"$tmp/err")
	[ $rc -eq 2 ] && [ "$lines" -eq 1 ] && [ -z "$out" ] &&
		case "$err" in "cidkit: "*) true ;; *) false ;; esac
	ok $? "$what: exit 2, one 'cidkit:' line"
}

skip() {
	n=$((n + 1))
	echo "ok $n - ${1:+$1 }# SKIP $2"
}

skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

done_testing() {
	echo "1..$n"
	[ $n -gt 0 ] && [ $failed -eq 0 ]
}
