#!/bin/sh
# The simulator's figures in docs/figures are byte-stable: regenerate them
# with the commands `make plots` runs (scripts/plots.sh --sim-only) into a
# temporary folder and compare the bytes of each figure and of the JSON it
# was drawn from with the committed ones.  Then: a changed number draws
# another figure (the comparison can fail), and scripts/plot.py's bad input
# is one "plot.py:" line and exit 2.
CIDKIT=${1:?usage: plots.sh path/to/cidkit SOURCE-ROOT}
SRC=${2:?usage: plots.sh path/to/cidkit SOURCE-ROOT}
. "$(dirname "$0")/../cli/tap.sh"

figs="sim-locality sim-scan sim-scan-scaling"

python=$("$SRC/scripts/mpl-python.sh")
if [ -z "$python" ]; then
	echo "1..0 # SKIP no python3 with matplotlib (scripts/bootstrap.sh installs python3-matplotlib)"
	exit 0
fi
# The figures' bytes depend on matplotlib's version (it is in each SVG's
# metadata); another version draws other bytes, not a wrong figure.
have=$("$python" -c 'import matplotlib; print(matplotlib.__version__)')
drawn=$(sed -n 's/.*Matplotlib v\([^,]*\),.*/\1/p' "$SRC/docs/figures/sim-locality.svg" | head -n 1)
if [ "$have" != "$drawn" ]; then
	echo "1..0 # SKIP docs/figures were drawn by matplotlib $drawn, this is $have (make plots redraws them)"
	exit 0
fi

PYTHON=$python "$SRC/scripts/plots.sh" --sim-only "$CIDKIT" "$tmp/figs" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ]
ok $? "scripts/plots.sh --sim-only draws the simulator's figures"

for f in $figs; do
	for x in "$f.svg" "data/$f.json"; do
		if cmp "$tmp/figs/$x" "$SRC/docs/figures/$x" >"$tmp/out" 2>"$tmp/err"; then
			ok 0 "docs/figures/$x: the same bytes as a fresh run"
		else
			ok 1 "docs/figures/$x: the same bytes as a fresh run (make plots redraws it)"
			diff "$tmp/figs/$x" "$SRC/docs/figures/$x" 2>&1 | head -n 8 | sed 's/^/#   /'
		fi
	done
done

# One number changed by 0.1 ns: the figure must change (and, drawn the
# same way, the unchanged JSON gives the committed bytes).
note=$(cat "$SRC/docs/figures/data/sim-locality.note")
"$python" "$SRC/scripts/plot.py" sim-locality "$SRC/docs/figures/data/sim-locality.json" \
	"$tmp/same.svg" --note "$note" &&
	cmp -s "$tmp/same.svg" "$SRC/docs/figures/sim-locality.svg"
ok $? "scripts/plot.py alone redraws docs/figures/sim-locality.svg byte for byte"
sed '0,/"ns_per_burst": 2006.5/s//"ns_per_burst": 2006.6/' \
	"$SRC/docs/figures/data/sim-locality.json" >"$tmp/changed.json"
! cmp -s "$tmp/changed.json" "$SRC/docs/figures/data/sim-locality.json" &&
	"$python" "$SRC/scripts/plot.py" sim-locality "$tmp/changed.json" "$tmp/changed.svg" \
		--note "$note" &&
	! cmp -s "$tmp/changed.svg" "$SRC/docs/figures/sim-locality.svg"
ok $? "a changed number draws another figure"

# plot_bad WHAT ARGS...: exit 2, one line "plot.py: ...", no figure.
plot_bad() {
	what=$1
	shift
	rm -f "$tmp/bad.svg"
	"$python" "$SRC/scripts/plot.py" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] &&
		grep -q '^plot.py: ' "$tmp/err" && [ ! -e "$tmp/bad.svg" ]
	ok $? "plot.py $what: exit 2, one 'plot.py:' line, no figure"
}
printf '[1, 2' >"$tmp/trunc.json"
printf '[{"config": "8c1l3"}]' >"$tmp/short.json"
printf '{"results": []}' >"$tmp/empty.json"
printf '\377\376' >"$tmp/binary.json"
plot_bad "unknown kind" no-such-kind "$tmp/short.json" "$tmp/bad.svg"
plot_bad "no input" sim-locality "$tmp/bad.svg"
plot_bad "missing file" sim-locality "$tmp/none.json" "$tmp/bad.svg"
plot_bad "truncated JSON" sim-locality "$tmp/trunc.json" "$tmp/bad.svg"
plot_bad "binary input" sim-scan "$tmp/binary.json" "$tmp/bad.svg"
plot_bad "a missing field" sim-locality "$tmp/short.json" "$tmp/bad.svg"
plot_bad "no results" bench-lease "$tmp/empty.json" "$tmp/bad.svg"
plot_bad "the wrong kind's JSON" bench-topo "$SRC/docs/figures/data/sim-scan.json" "$tmp/bad.svg"
plot_bad "not .svg" sim-locality "$SRC/docs/figures/data/sim-locality.json" "$tmp/bad.png"

# bench mask's figure from a small fresh run (a benchmark: its bytes are
# this machine's, now), and the wrong JSON or two runs refused.
"$CIDKIT" bench mask --bits 1000 --reps 3 --grow 5 --json >"$tmp/mask.json" &&
	"$python" "$SRC/scripts/plot.py" bench-mask "$tmp/mask.json" "$tmp/mask.svg" \
		--note "a test run" >"$tmp/out" 2>"$tmp/err" &&
	[ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ] && grep -q '</svg>' "$tmp/mask.svg"
ok $? "plot.py bench-mask draws cidkit bench mask --json"
plot_bad "bench-mask from the wrong kind's JSON" bench-mask "$SRC/docs/figures/data/sim-scan.json" "$tmp/bad.svg"
plot_bad "bench-mask from two runs" bench-mask "$tmp/mask.json" "$tmp/mask.json" "$tmp/bad.svg"

done_testing
