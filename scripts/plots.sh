#!/bin/sh
# scripts/plots.sh [--sim-only] path/to/cidkit OUTDIR
# Runs every lab command whose result is a comparison and draws its figure
# (scripts/plot.py) into OUTDIR/NAME.svg; the JSON it drew from goes to
# OUTDIR/data/.  `make plots` runs it into docs/figures.
#   sim-*    deterministic: the same bytes on every run (tests/plots checks
#            the committed ones against a fresh run with --sim-only)
#   bench-*  this machine, now: short runs (a busy machine is fine for the
#            shapes, not for the values); the date, machine and load are
#            printed under each figure's title
# Exit 2 if matplotlib is missing (scripts/bootstrap.sh installs it).
set -eu

sim_only=false
if [ "${1:-}" = --sim-only ]; then
	sim_only=true
	shift
fi
[ $# -eq 2 ] || { echo "usage: scripts/plots.sh [--sim-only] path/to/cidkit OUTDIR" >&2; exit 2; }
cidkit=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)

python=$("$here/mpl-python.sh" || true)
if [ -z "$python" ]; then
	echo "cidkit: plots: no python3 with matplotlib (apt-get install python3-matplotlib, or scripts/bootstrap.sh as root)" >&2
	exit 2
fi

mkdir -p "$out/data"

# run NAME ARGS...: cidkit ARGS > data/NAME.json, quietly (progress on
# stderr is dropped; a failure shows it).
run() {
	name=$1
	shift
	echo "plots: cidkit $*" >&2
	if ! "$cidkit" "$@" >"$out/data/$name.json" 2>"$out/data/$name.err"; then
		cat "$out/data/$name.err" >&2
		exit 1
	fi
	rm -f "$out/data/$name.err"
}

# plot KIND NOTE NAME.json...: draw OUTDIR/KIND.svg; the note (the date,
# machine and command of a benchmark run) is kept in data/KIND.note.
plot() {
	kind=$1
	note=$2
	shift 2
	printf '%s\n' "$note" >"$out/data/$kind.note"
	"$python" "$here/plot.py" "$kind" "$@" "$out/$kind.svg" --note "$note"
	echo "plots: $out/$kind.svg" >&2
}

d=$out/data

# --- the simulator: deterministic -------------------------------------------
run sim-locality sim locality --reference --json
# (the JSON does not name the machine: the command's default)
plot sim-locality "cidkit sim locality --reference --json (machine epyc-9654-2s, the default)" "$d/sim-locality.json"

run sim-scan sim scan --json
plot sim-scan "cidkit sim scan --json (300 ms simulated per run)" "$d/sim-scan.json"

# 105 ms: one full pass of lazy per machine; the worst call and the full
# pass are the same as at 250 ms (docs/sim.md), in a third of the time.
run sim-scan-scaling sim scan --scaling --duration-ms 105 --json
plot sim-scan-scaling "cidkit sim scan --scaling --duration-ms 105 --json" "$d/sim-scan-scaling.json"

$sim_only && exit 0

# --- benchmarks: this machine, now ------------------------------------------
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
machine="${model:-unknown CPU}, $(nproc) CPUs online, Linux $(uname -r)"
stamp() { # the date and load of the run that just finished
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $machine, load $(cut -d' ' -f1 /proc/loadavg)"
}

machines="2s32c2t 2s64c2t 4s64c2t 8s64c2t uv-1920 16s128c2t big-8192"
# shellcheck disable=SC2046,SC2086 # one --machine per word of $machines
run bench-topo bench topo --reps 3 --json $(printf -- '--machine %s ' $machines)
plot bench-topo "$(stamp)
cidkit bench topo --reps 3 --json --machine M, M = $(echo "$machines" | sed 's/ /, /g') (medians)" "$d/bench-topo.json"

for t in 2 4 8; do
	run bench-lease-$t bench lease --threads $t --iters 50000 --reps 5 --json
done
plot bench-lease "$(stamp)
cidkit bench lease --threads N --iters 50000 --reps 5 --json, N = 2, 4, 8 (1 thread: from the N = 2 run)" \
	"$d/bench-lease-2.json" "$d/bench-lease-4.json" "$d/bench-lease-8.json"

for t in 1 2 4 8; do
	run bench-percpu-$t bench percpu --threads $t --iters 200000 --reps 5 --json
done
plot bench-percpu "$(stamp)
cidkit bench percpu --threads N --iters 200000 --reps 5 --json, N = 1, 2, 4, 8" \
	"$d/bench-percpu-1.json" "$d/bench-percpu-2.json" "$d/bench-percpu-4.json" "$d/bench-percpu-8.json"

run bench-burst-0 bench burst --delay-ms 0 --rounds 100 --json
run bench-burst-0.1 bench burst --delay-ms 0.1 --rounds 100 --json
run bench-burst-1 bench burst --delay-ms 1 --rounds 100 --json
run bench-burst-10 bench burst --delay-ms 10 --rounds 30 --json
plot bench-burst "$(stamp)
cidkit bench burst --delay-ms D --rounds R --json, D = 0, 0.1, 1 (R = 100) and 10 (R = 30)" \
	"$d/bench-burst-0.json" "$d/bench-burst-0.1.json" "$d/bench-burst-1.json" "$d/bench-burst-10.json"

run bench-mask bench mask --reps 21 --json
plot bench-mask "$(stamp)
cidkit bench mask --reps 21 --json (327,680 bits; growing: 64 new bits per repetition)" "$d/bench-mask.json"
