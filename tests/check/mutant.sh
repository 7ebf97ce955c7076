# tests/check/mutant.sh - sourced by the checker's shell tests: a source
# mutant's checker (scripts/mutate.py: TABLE, PLANTS, AUDIT or a generated
# id), built once per test from the build's own checker objects.
#   mutant ID    prints the path of its cidkit-check ("" and $tmp/why:
#                it does not build); CIDKIT_CHECK=PATH makes `cidkit
#                check` run it
# Needs $CIDKIT (build/cidkit: its folder is the build) and $tmp.
MUTATE="$(dirname "$0")/../../scripts/mutate.py"
mutant() {
	exe="$tmp/m/$(printf '%s' "$1" | tr -c 'A-Za-z0-9_.-' '_')/cidkit-check"
	if [ -x "$exe" ]; then
		echo "$exe"
		return
	fi
	python3 "$MUTATE" build "$1" "$tmp/m" --build "$(dirname "$CIDKIT")" 2>"$tmp/why"
}
