#!/bin/sh
# cidkit topo and cidkit bench topo: the exact contract of issue 3.
CIDKIT=${1:?usage: topo.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"
data=$(cd "$(dirname "$0")/../data/sysfs" && pwd)
# broken copies of the trees go to tmpfs when there is one (many small files)
work=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
trap 'rm -rf "$tmp" "$work"' EXIT

json_ok() { # the output is one valid JSON object
	python3 -c 'import json,sys; json.loads(sys.stdin.read())' <"$tmp/out"
}

# Saved sysfs trees against hand-worked golden JSON (tests/data/sysfs).
shapes="adl-hybrid old-kernel offline smt8 vm insane-llc no-cpu-files no-package zero-cache-map arm64-die non-nesting empty-online arm64-cluster-pkg"
for shape in $shapes; do
	want=0
	case $shape in insane-llc | non-nesting) want=1 ;; esac
	run_status $want topo --sysfs-root "$data/$shape" --json
	[ "$out" = "$(cat "$data/$shape.json")" ] && [ -z "$err" ]
	ok $? "topo --sysfs-root $shape --json: golden output, exit $want"
	[ -f "$data/$shape.groups.json" ] || continue
	run_status $want topo --sysfs-root "$data/$shape" --json --groups
	[ "$out" = "$(cat "$data/$shape.groups.json")" ]
	ok $? "topo --sysfs-root $shape --json --groups: golden groups"
done
[ "$(ls "$data"/*.json | wc -l)" -eq 26 ] && [ "$(ls -d "$data"/*/ | wc -l)" -eq 13 ]
ok $? "every golden output is checked above (13 trees, each with groups)"
python3 -c '
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    assert list(d) == ["nr_cpus", "online", "levels", "span_sane", "insane_level", "insane", "notes"], f
    i = d["insane"]
    assert (i is None) == d["span_sane"] == (d["insane_level"] is None), f
    if i is not None:
        assert i["rule"] in ("span", "nest") and ("below" in i) == (i["rule"] == "nest"), f
        assert len(i["cpus"]) == 2 and i["cpus"][0] <= i["cpus"][1], f
    assert all(isinstance(n, str) for n in d["notes"]), f
    for l in d["levels"]:
        if f.endswith(".groups.json"):
            assert len(l["groups"]) == l["nr_groups"], f
        else:
            assert "groups" not in l, f
' "$data"/*.json
ok $? "the golden outputs are valid JSON with the keys of the contract; one cpulist per group"

# Each fallback is a note in the human output too; nesting and the die.
run topo --sysfs-root "$data/no-cpu-files"
[ $rc -eq 0 ] && echo "$out" | grep -qx 'note: cpu/possible and cpu/online missing: 8 possible CPUs from the cpuN folders, online from each cpuN/online (absent: online)' &&
	echo "$out" | grep -q '^online: 0-5,7 (7 of 8 possible CPUs)$'
ok $? "no cpu/possible, no cpu/online: CPUs from the folders, a note line"
run topo --sysfs-root "$data/no-package"
[ $rc -eq 0 ] && echo "$out" | grep -q '^note: no package information for 4 CPUs' &&
	echo "$out" | grep -Eq '^pkg +1 +4 +4 +0-3$'
ok $? "no package files: one package, a note line"
run topo --sysfs-root "$data/zero-cache-map"
[ $rc -eq 0 ] && echo "$out" | grep -q '^note: llc: cpu0/cache/index4/shared_cpu_map is all zeros' &&
	echo "$out" | grep -Eq '^llc +4 +2 +2 +0-1$'
ok $? "all-zero shared_cpu_map: the core's CPUs, a note line"
run topo --sysfs-root "$data/arm64-die"
[ $rc -eq 0 ] && ! echo "$out" | grep -q '^die ' &&
	echo "$out" | grep -qx 'note: die: 8 groups of one CPU above llc groups of up to 4: level dropped as degenerate (as the kernel drops a one-CPU domain)'
ok $? "arm64 die_id -1: the one-CPU die level is dropped, with a note"
run_status 1 topo --sysfs-root "$data/non-nesting"
echo "$out" | grep -qx 'span: INSANE at llc (cpu 2: 0-2 is not a union of cluster groups: cpu 3 shares cluster 2-3 with it but is in llc 3-7)'
ok $? "non-nesting tree: reported like a span failure, exit 1"
# Issue 23: old hwloc-gather-topology dumps hold empty cpuN/online files.
run topo --sysfs-root "$data/empty-online"
[ $rc -eq 0 ] && [ -z "$err" ] && echo "$out" | grep -q '^online: 0-7 (8 of 8 possible CPUs)$' &&
	echo "$out" | grep -qx 'note: cpu1/online is empty (7 CPUs so, as old hwloc-gather-topology dumps write them): taken as online, as hwloc does'
ok $? "empty cpuN/online files: online, as hwloc reads them, a note line"
# Issue 23: an old arm64 kernel calls each cluster a package under one L3.
run topo --sysfs-root "$data/arm64-cluster-pkg"
[ $rc -eq 0 ] && echo "$out" | grep -qx 'span: sane' &&
	[ "$(echo "$out" | sed -n 's/^\([a-z]*\) .*/\1/p' | tr '\n' ' ')" = "level smt pkg llc numa " ] &&
	echo "$out" | grep -qx 'note: levels ordered by containment, as the kernel builds its domains (each group a union of groups of the level before): smt < pkg < llc'
ok $? "clusters as packages under one L3: sane, rows smt pkg llc numa, a note line"
run_status 1 topo --sysfs-root "$data/non-nesting" --groups
echo "$out" | grep -qx 'cluster groups: 0-1 2-3 4-5 6-7' &&
	echo "$out" | grep -qx 'llc groups: 0-2 3-7'
ok $? "--groups: one line of cpulists per level"
run_status 1 topo --sysfs-root "$data/non-nesting"
! echo "$out" | grep -q '^[a-z]* groups: '
ok $? "without --groups the table stays short"
run_status 1 topo --sysfs-root "$data/insane-llc" --groups --json
echo "$out" | grep -q '{"name": "llc", "nr_groups": 3, "min_span": 4, "max_span": 4, "groups": \["0-3", "2-5", "4-7"\]}'
ok $? "--groups on an overlapping level: every stored group once (3 groups, 3 lists)"
run topo --machine epyc-9654-2s --groups --json
[ $rc -eq 0 ] && python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
l = {x["name"]: x for x in d["levels"]}
assert l["llc"]["groups"][0] == "0-7,192-199", l["llc"]["groups"][0]
assert len(l["llc"]["groups"]) == 24 and len(l["smt"]["groups"]) == 192
cpus = sorted(c for g in l["llc"]["groups"] for part in g.split(",")
              for c in (range(int(part.split("-")[0]), int(part.split("-")[-1]) + 1)))
assert cpus == list(range(384))
' <"$tmp/out"
ok $? "epyc-9654-2s --groups: 24 LLCs, the first 0-7,192-199, a partition of 0-383"

run_status 1 topo --sysfs-root "$data/insane-llc"
echo "$out" | grep -qx 'span: INSANE at llc (cpu 0: 0-3 vs cpu 3: 2-5)'
ok $? "insane tree: human report names the level and both CPUs, exit 1"

run topo --sysfs-root "$data/adl-hybrid"
[ $rc -eq 0 ] && echo "$out" | grep -Eq '^cluster +8 +2 +4 +0-1$' &&
	echo "$out" | grep -Eq '^smt +14 +1 +2 +0-1$' &&
	echo "$out" | grep -qx 'span: sane'
ok $? "hybrid tree: one row per level with groups, min/max span, CPU 0's group"

run topo --sysfs-root "$data/offline"
echo "$out" | grep -q '^online: 0-1,3-4,6-12,14-15 (13 of 16 possible CPUs)$' &&
	echo "$out" | grep -Eq '^smt +7 +1 +2 +0,8$'
ok $? "offline CPUs: not online, in no group"


# Presets (expected values from their shapes, by hand).
run topo --machine epyc-9654-2s --json
[ $rc -eq 0 ] && [ "$out" = '{"nr_cpus": 384, "online": "0-383", "levels": [{"name": "smt", "nr_groups": 192, "min_span": 2, "max_span": 2}, {"name": "llc", "nr_groups": 24, "min_span": 16, "max_span": 16}, {"name": "pkg", "nr_groups": 2, "min_span": 192, "max_span": 192}, {"name": "numa", "nr_groups": 2, "min_span": 192, "max_span": 192}], "span_sane": true, "insane_level": null, "insane": null, "notes": []}' ]
ok $? "epyc-9654-2s: 192 cores, 24 LLCs of 16 CPUs, 2 sockets"

run topo --machine epyc-9654-2s
echo "$out" | grep -Eq '^smt +192 +2 +2 +0,192$' && echo "$out" | grep -Eq '^llc +24 +16 +16 +0-7,192-199$'
ok $? "epyc-9654-2s: CPU 0's core is 0,192 and its LLC 0-7,192-199"

run topo --machine uv-1920 --json
[ $rc -eq 0 ] && [ "$out" = '{"nr_cpus": 1920, "online": "0-1919", "levels": [{"name": "smt", "nr_groups": 960, "min_span": 2, "max_span": 2}, {"name": "llc", "nr_groups": 16, "min_span": 120, "max_span": 120}, {"name": "pkg", "nr_groups": 16, "min_span": 120, "max_span": 120}, {"name": "numa", "nr_groups": 16, "min_span": 120, "max_span": 120}], "span_sane": true, "insane_level": null, "insane": null, "notes": []}' ]
ok $? "uv-1920: 16 sockets x 60 cores x 2 threads"

run topo --machine power-360 --json
[ $rc -eq 0 ] && [ "$out" = '{"nr_cpus": 720, "online": "0-719", "levels": [{"name": "smt", "nr_groups": 90, "min_span": 8, "max_span": 8}, {"name": "llc", "nr_groups": 90, "min_span": 8, "max_span": 8}, {"name": "pkg", "nr_groups": 2, "min_span": 360, "max_span": 360}, {"name": "numa", "nr_groups": 2, "min_span": 360, "max_span": 360}], "span_sane": true, "insane_level": null, "insane": null, "notes": []}' ]
ok $? "power-360: 2 sockets x 45 SMT8 cores"

run topo --machine "2s8c2t:llc=4:cluster=2:die=4:numa=2:offline=3,17" --json
[ $rc -eq 0 ] && json_ok && echo "$out" | grep -q '"nr_cpus": 30,' &&
	echo "$out" | grep -q '{"name": "die", "nr_groups": 4, "min_span": 6, "max_span": 8}'
ok $? "a spec with every option"

# This host, both ways.
run topo
[ $rc -eq 0 ] && echo "$out" | grep -qx 'span: sane' && echo "$out" | grep -q '^smt '
ok $? "topo on this host: sane"
run topo --json
host_json=$out
json_ok && echo "$out" | grep -q '"levels": \[{"name": "smt"'
ok $? "topo --json on this host"
run topo --machine host --json
[ "$out" = "$host_json" ]
ok $? "--machine host is /sys"

# Bad input: one cidkit: line, exit 2; the message names the file.
expect_file_error() { # expect_file_error WHAT FILE-SUFFIX ARGS...
	what=$1
	want=$2
	shift 2
	expect_usage_error "$what" "$@"
	case "$err" in *"$want"*) true ;; *) false ;; esac
	ok $? "$what: the message names $want"
}
broken() { # broken SHAPE: a fresh copy of a saved tree in $work/t
	rm -rf "$work/t"
	cp -r "$data/$1" "$work/t"
}

expect_file_error "no such root" "nowhere/devices/system/cpu/possible" topo --sysfs-root "$tmp/nowhere"
broken adl-hybrid
rm "$work/t/devices/system/cpu/online" "$work/t/devices/system/cpu/cpu0/topology/core_cpus"* "$work/t/devices/system/cpu/cpu0/topology/thread_siblings"*
expect_file_error "online missing, then a required file" "cpu0/topology/core_cpus_list" topo --sysfs-root "$work/t"
broken adl-hybrid
echo "0-3x" >"$work/t/devices/system/cpu/possible"
expect_file_error "possible garbled" "devices/system/cpu/possible" topo --sysfs-root "$work/t"
broken adl-hybrid
echo "0-99999" >"$work/t/devices/system/cpu/possible"
expect_file_error "absurd possible" "devices/system/cpu/possible" topo --sysfs-root "$work/t"
broken adl-hybrid
echo "5-" >"$work/t/devices/system/cpu/cpu7/topology/core_cpus_list"
expect_file_error "core_cpus_list garbled" "cpu7/topology/core_cpus_list" topo --sysfs-root "$work/t" --json
broken old-kernel
rm "$work/t/devices/system/cpu/cpu3/topology/thread_siblings_list"
echo "zz" >"$work/t/devices/system/cpu/cpu3/topology/thread_siblings"
expect_file_error "old kernel: hex fallback garbled" "cpu3/topology/thread_siblings" topo --sysfs-root "$work/t"
broken old-kernel
rm "$work/t/devices/system/cpu/cpu3/topology/thread_siblings_list"
echo "00000001,00000088" >"$work/t/devices/system/cpu/cpu3/topology/thread_siblings"
expect_file_error "NR_CPUS-wide hex with a CPU beyond possible" "cpu3/topology/thread_siblings" topo --sysfs-root "$work/t"
broken old-kernel
rm "$work/t/devices/system/cpu/cpu3/topology/thread_siblings_list"
run topo --sysfs-root "$work/t" --json
[ $rc -eq 0 ] && [ "$out" = "$(cat "$data/old-kernel.json")" ]
ok $? "old kernel: NR_CPUS-wide hex thread_siblings (00000000,00000088) read as the fallback"
broken old-kernel
rm -r "$work/t/devices/system/cpu/cpu5/topology"
expect_file_error "online CPU without topology/" "cpu5/topology/core_cpus_list" topo --sysfs-root "$work/t"
broken smt8
echo "L3" >"$work/t/devices/system/cpu/cpu9/cache/index3/level"
expect_file_error "cache level garbled" "cpu9/cache/index3/level" topo --sysfs-root "$work/t"
broken smt8
echo "0-40" >"$work/t/devices/system/cpu/cpu9/cache/index3/shared_cpu_list"
expect_file_error "cache mask beyond possible" "cpu9/cache/index3/shared_cpu_list" topo --sysfs-root "$work/t"
broken smt8
echo "1,2,x" >"$work/t/devices/system/node/node8/cpulist"
expect_file_error "node cpulist garbled" "node/node8/cpulist" topo --sysfs-root "$work/t"
broken vm
echo "1" >"$work/t/devices/system/cpu/cpu0/topology/core_cpus_list"
expect_file_error "a mask without its own CPU" "cpu0/topology/core_cpus_list" topo --sysfs-root "$work/t"

# The fallbacks never hide a garbled file.
broken no-cpu-files
echo "yes" >"$work/t/devices/system/cpu/cpu3/online"
expect_file_error "cpuN/online garbled" "cpu3/online" topo --sysfs-root "$work/t"
# Empty is online; anything else that is not 0 or 1 is still garbled.
broken empty-online
echo "2" >"$work/t/devices/system/cpu/cpu3/online"
expect_file_error "empty-online tree, one cpuN/online '2'" "cpu3/online" topo --sysfs-root "$work/t"
broken empty-online
echo "" >"$work/t/devices/system/cpu/cpu6/online"
expect_file_error "a cpuN/online of one newline is not an empty one" "cpu6/online" topo --sysfs-root "$work/t"
broken empty-online
echo 0 >"$work/t/devices/system/cpu/cpu5/online"
run topo --sysfs-root "$work/t"
# by hand: 5 offline, 1..4, 6, 7 empty (6 files, cpu1 first); 1 loses its sibling 5
[ $rc -eq 0 ] && echo "$out" | grep -q '^online: 0-4,6-7 (7 of 8 possible CPUs)$' &&
	echo "$out" | grep -Eq '^smt +4 +1 +2 +0,4$' &&
	echo "$out" | grep -qx 'note: cpu1/online is empty (6 CPUs so, as old hwloc-gather-topology dumps write them): taken as online, as hwloc does'
ok $? "empty-online tree with one cpuN/online '0': that CPU offline, the 6 empty ones online"
# Containment orders levels; a partial overlap is still insane: the L3
# split 0-5 and 6-7 cuts the package 4-7 (by hand: pkg 0-3 is not a union
# of llc groups, cpu 4 the witness; below pkg, llc 0-5 is not a union of
# pkg groups either, so pkg fits nowhere).
broken arm64-cluster-pkg
for c in 6 7; do echo c0 >"$work/t/devices/system/cpu/cpu$c/cache/index3/shared_cpu_map"; done
for c in 0 1 2 3 4 5; do printf '3f\n' >"$work/t/devices/system/cpu/cpu$c/cache/index3/shared_cpu_map"; done
run_status 1 topo --sysfs-root "$work/t"
echo "$out" | grep -qx 'span: INSANE at pkg (cpu 0: 0-3 is not a union of llc groups: cpu 4 shares llc 0-5 with it but is in pkg 4-7)' &&
	! echo "$out" | grep -q '^note: levels ordered'
ok $? "clusters as packages under L3s 0-5 and 6-7: INSANE at pkg, exit 1, no order note"
broken no-cpu-files
mkdir "$work/t/devices/system/cpu/cpu03"
expect_file_error "a misspelt cpuN folder" "devices/system/cpu" topo --sysfs-root "$work/t"
broken no-cpu-files
mkdir "$work/t/devices/system/cpu/cpu70000"
expect_file_error "a cpuN folder beyond the limit" "devices/system/cpu" topo --sysfs-root "$work/t"
broken no-cpu-files
rm -rf "$work/t/devices/system/cpu"/cpu*
expect_file_error "no possible and no cpuN folders" "devices/system/cpu/possible" topo --sysfs-root "$work/t"
broken no-cpu-files
for c in 0 1 2 3 4 5 7; do echo 0 >"$work/t/devices/system/cpu/cpu$c/online"; done
expect_file_error "every cpuN/online 0" "devices/system/cpu/online" topo --sysfs-root "$work/t"
broken no-cpu-files
rm -rf "$work/t/devices/system/cpu/cpu5/online"
mkfifo "$work/t/devices/system/cpu/cpu5/online"
expect_file_error "a FIFO as cpuN/online" "cpu5/online" topo --sysfs-root "$work/t"
broken no-package
echo "0-1x" >"$work/t/devices/system/cpu/cpu2/topology/thread_siblings_list"
expect_file_error "no package: a garbled sibling list" "cpu2/topology/thread_siblings_list" topo --sysfs-root "$work/t"
broken no-package
echo "one" >"$work/t/devices/system/cpu/cpu1/topology/physical_package_id"
expect_file_error "physical_package_id garbled" "cpu1/topology/physical_package_id" topo --sysfs-root "$work/t"
broken zero-cache-map
echo "0000000z,00000000" >"$work/t/devices/system/cpu/cpu5/cache/index4/shared_cpu_map"
expect_file_error "a garbled cache map is not an empty one" "cpu5/cache/index4/shared_cpu_map" topo --sysfs-root "$work/t"
broken zero-cache-map
echo "00000000,00000010" >"$work/t/devices/system/cpu/cpu5/cache/index4/shared_cpu_map"
expect_file_error "a non-empty cache map without its CPU" "cpu5/cache/index4/shared_cpu_map" topo --sysfs-root "$work/t"

# Hostile cost: two folders, cpu0 and cpu65535, and nothing else but their
# sibling lists: 65536 possible CPUs from two folders, read at once.
rm -rf "$work/t"
mkdir -p "$work/t/devices/system/cpu/cpu0/topology" "$work/t/devices/system/cpu/cpu65535/topology"
echo 0 >"$work/t/devices/system/cpu/cpu0/topology/thread_siblings_list"
echo 65535 >"$work/t/devices/system/cpu/cpu65535/topology/thread_siblings_list"
t0=$(date +%s%N)
run topo --sysfs-root "$work/t" --json
t1=$(date +%s%N)
[ $rc -eq 0 ] && echo "$out" | grep -q '"nr_cpus": 2, "online": "0,65535"' &&
	[ $(( (t1 - t0) / 1000000 )) -lt 5000 ]
ok $? "cpu0 and cpu65535 folders only: 65536 possible CPUs, 2 online, in $(( (t1 - t0) / 1000000 )) ms (< 5 s)"

# physical_package_id without package masks: one package per id.
broken offline
rm "$work/t/devices/system/cpu"/cpu*/topology/core_siblings* "$work/t/devices/system/cpu"/cpu*/topology/package_cpus*
run topo --sysfs-root "$work/t" --json
[ $rc -eq 0 ] && echo "$out" | grep -q '{"name": "pkg", "nr_groups": 2, "min_span": 6, "max_span": 7}' &&
	echo "$out" | grep -q '"notes": \["no package_cpus or core_siblings for 13 CPUs (cpu0 first): packages from physical_package_id"\]'
ok $? "no package masks but physical_package_id: packages by id, a note"
# Only cpu/online missing (possible kept): online from the cpuN/online files.
broken offline
rm "$work/t/devices/system/cpu/online"
run topo --sysfs-root "$work/t" --json
[ $rc -eq 0 ] && echo "$out" | grep -q '"online": "0-1,3-4,6-12,14-15"' &&
	echo "$out" | grep -q '"notes": \["cpu/online missing: online CPUs from each cpuN/online (absent: online)"\]'
ok $? "cpu/online missing alone: the same CPUs from cpuN/online, a note"

expect_usage_error "unknown preset" topo --machine epyc-9999
expect_usage_error "malformed spec" topo --machine 2s96x
expect_usage_error "llc does not divide" topo --machine 2s96c2t:llc=7
expect_usage_error "unknown spec option" topo --machine 2s96c2t:frob=1
expect_usage_error "empty spec" topo --machine ""
expect_usage_error "absurd size" topo --machine 1000s1000c8t
expect_usage_error "absurd number" topo --machine 99999999999999999999999c
expect_usage_error "everything offline" topo --machine 4c:offline=0-3
expect_usage_error "both sources" topo --machine uv-1920 --sysfs-root /sys
expect_usage_error "empty root" topo --sysfs-root ""
expect_usage_error "extra argument" topo extra
expect_usage_error "unknown option" topo --frobnicate
expect_usage_error "missing option argument" topo --machine
run_status 2 topo --machine 2s96c2t:llc=7
case "$err" in *"llc=7 does not divide 96"*) true ;; *) false ;; esac
ok $? "the spec error says what is wrong"

run topo --help
[ $rc -eq 0 ] && echo "$out" | grep -q -- '--sysfs-root' && [ -z "$err" ]
ok $? "topo --help"

# cidkit bench topo: smoke sizes only.
run bench topo --machine 2s4c2t --machine 4s4c2t --reps 3 --json
[ $rc -eq 0 ] && python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
m = d["machines"]
assert [x["name"] for x in m] == ["2s4c2t", "4s4c2t"]
assert [x["nr_cpus"] for x in m] == [16, 32]
for x in m:
    assert set(x) == {"name", "nr_cpus", "pairwise_ns", "linear_ns", "rebuild_ns"}
    assert all(x[k] > 0 for k in ("pairwise_ns", "linear_ns", "rebuild_ns"))
' <"$tmp/out"
ok $? "bench topo --json: machines with pairwise, linear and rebuild medians"
run bench topo --machine 2s4c2t --machine 4s4c2t --reps 3
[ $rc -eq 0 ] && echo "$out" | grep -q '^growth 2s4c2t -> 4s4c2t'
ok $? "bench topo: table and growth"
# The issue's bar: at 1920 CPUs the linear span + nesting check is at
# least 50x faster than the pairwise one (measured: over 1000x).
run bench topo --machine uv-1920 --reps 3 --json
[ $rc -eq 0 ] && python3 -c '
import json, sys
m = json.loads(sys.stdin.read())["machines"][0]
r = m["pairwise_ns"] / m["linear_ns"]
print("# pairwise / linear at 1920 CPUs: %.0fx" % r)
assert r >= 50, r
' <"$tmp/out"
ok $? "bench topo uv-1920: linear span + nesting >= 50x faster than pairwise"
expect_usage_error "bench topo --reps 0" bench topo --reps 0
expect_usage_error "bench topo bad machine" bench topo --machine 2q
expect_usage_error "bench topo unknown option" bench topo --frob
expect_usage_error "bench topo extra argument" bench topo x
run bench topo --help
[ $rc -eq 0 ] && echo "$out" | grep -q -- '--machine'
ok $? "bench topo --help"

done_testing
