#!/bin/sh
# tests/cli/fake_resctrl.sh ROOT SYSFS [TICK] - write a small fake resctrl
# mount under ROOT and a matching sysfs under SYSFS, with the counters as
# they are after TICK (default 0) steps of a steady workload.  Run it
# again with TICK+1 to advance the counters (the sampler's open files see
# the new values).  Used by tests/cli/resctrl.sh and scripts/demo.sh.
#
# Machine: 2 CPUs; CPU 0 has L3 cache id 0, CPU 1 has L3 id 1: two
# monitoring domains, mon_L3_00 and mon_L3_01.
# Groups: the root, mon_groups/web, mon_groups/batch, the control group
# gold and its gold/mon_groups/db.  batch's mbm_local_bytes reads
# "Unavailable" in domain 1; gold's mbm_total_bytes reads "Error" in
# domain 0.
set -eu
root=$1
sys=$2
tick=${3:-0}

for c in 0 1; do
	d=$sys/devices/system/cpu/cpu$c
	mkdir -p "$d/cache/index0" "$d/cache/index3" "$d/topology"
	echo 1 >"$d/cache/index0/level"
	echo "$c" >"$d/cache/index0/id"
	echo 3 >"$d/cache/index3/level"
	echo "$c" >"$d/cache/index3/id"
	echo 0 >"$d/topology/physical_package_id"
done
[ -d "$sys/devices/system/cpu/cpu0/cache/index1" ] || {
	# index1/2 exist on real machines too: L1i and L2
	for c in 0 1; do
		d=$sys/devices/system/cpu/cpu$c/cache
		mkdir -p "$d/index1" "$d/index2"
		echo 1 >"$d/index1/level"
		echo "$c" >"$d/index1/id"
		echo 2 >"$d/index2/level"
		echo "$c" >"$d/index2/id"
	done
}
echo 0-1 >"$sys/devices/system/cpu/online"

mkdir -p "$root/info/L3_MON"
echo "llc_occupancy mbm_total_bytes mbm_local_bytes" >"$root/info/L3_MON/mon_features"
echo 0 >"$root/tasks"

# group DIR RATE: write DIR/mon_data for a group moving RATE MB per tick
group() {
	dir=$1
	rate=$2
	for dom in 0 1; do
		m=$dir/mon_data/mon_L3_0$dom
		mkdir -p "$m"
		total=$(( (1000 + tick * rate * (dom + 1)) * 1000000 ))
		echo "$total" >"$m/mbm_total_bytes"
		echo $(( total / 4 * 3 )) >"$m/mbm_local_bytes"
		echo $(( (rate * 256 + dom * 128) * 1024 )) >"$m/llc_occupancy"
	done
}
group "$root" 1
group "$root/mon_groups/web" 40
group "$root/mon_groups/batch" 250
echo Unavailable >"$root/mon_groups/batch/mon_data/mon_L3_01/mbm_local_bytes"
group "$root/gold" 10
echo Error >"$root/gold/mon_data/mon_L3_00/mbm_total_bytes"
echo "L3:0=ff;1=ff" >"$root/gold/schemata"
group "$root/gold/mon_groups/db" 120
