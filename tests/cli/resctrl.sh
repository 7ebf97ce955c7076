#!/bin/sh
# cidkit resctrl: a clear message without resctrl; on a fake tree, every
# group and domain, the kernel's non-numbers, three output formats.
CIDKIT=${1:?usage: resctrl.sh path/to/cidkit}
here=$(dirname "$0")
. "$here/tap.sh"

r=$tmp/resctrl
s=$tmp/sys
python3 "$here/../support/fake_tree.py" resctrl "$r" "$s"
F="--root $r --sysfs-root $s --interval 0"

# No resctrl on this machine (or not at the default place): exit 2.
if [ ! -d /sys/fs/resctrl/mon_data ]; then
	expect_usage_error "no resctrl mount" resctrl --samples 1
	case "$err" in "cidkit: resctrl: /sys/fs/resctrl"*mount*) true ;; *) false ;; esac
	ok $? "the message names the mount and how to get one"
fi
expect_usage_error "missing --root" resctrl --root "$tmp/nope"
mkdir -p "$tmp/empty"
expect_usage_error "--root without mon_data" resctrl --root "$tmp/empty"
case "$err" in *mon_data*"no monitoring data"*) true ;; *) false ;; esac
ok $? "says there is no monitoring data"
expect_usage_error "missing sysfs" resctrl --root "$r" --sysfs-root "$tmp/nope"
expect_usage_error "bad --interval" resctrl $F --interval x
expect_usage_error "--samples 0" resctrl $F --samples 0
expect_usage_error "bad --events" resctrl $F --events total,bogus
case "$err" in *"'bogus'"*) true ;; *) false ;; esac
ok $? "names the unknown event"
expect_usage_error "empty --events" resctrl $F --events ""
expect_usage_error "--json with --csv" resctrl $F --json --csv
expect_usage_error "unexpected argument" resctrl $F extra
expect_usage_error "unknown option" resctrl --bogus
expect_usage_error "--root without value" resctrl --root

run resctrl --help
[ $rc -eq 0 ] && echo "$out" | grep -q "^usage: cidkit resctrl"
ok $? "--help: usage on stdout, exit 0"

# The table: 5 groups x 2 domains, 2 samples.
run resctrl $F --samples 2
[ $rc -eq 0 ] && [ -z "$err" ] &&
	[ "$(echo "$out" | grep -c '^# sample')" -eq 2 ] &&
	[ "$(echo "$out" | grep -c ' L3_0[01] ')" -eq 20 ]
ok $? "table: 2 samples of 10 rows"
echo "$out" | grep -q "^# sample 1: .*5 groups, 2 domains (2 bound), 30 counters, read [0-9.]* us"
ok $? "each sample reports groups, domains, counters and its read cost"
for g in / mon_groups/web mon_groups/batch gold gold/mon_groups/db; do
	[ "$(echo "$out" | grep -c "^$g  *L3_0")" -eq 4 ]
	ok $? "group $g: both domains, both samples"
done
echo "$out" | grep -Eq '^mon_groups/batch +L3_01 +0\.00 +Unavailable +64128\.0$'
ok $? "Unavailable shown as such (batch, domain 1, local)"
echo "$out" | grep -Eq '^gold +L3_00 +Error +0\.00 +2560\.0$'
ok $? "Error shown as such (gold, domain 0, total)"
[ "$(echo "$out" | grep -c ' 0\.00 ')" -eq 20 ]
ok $? "static counters: 0.00 MB/s"

# JSON: one object per sample, exact values.
run resctrl $F --samples 3 --json
[ $rc -eq 0 ] && python3 - "$out" <<'PY'
import json, sys
lines = sys.argv[1].splitlines()
assert len(lines) == 3, lines
for i, line in enumerate(lines, 1):
    s = json.loads(line)
    assert s["sample"] == i and s["counters"] == 30 and s["groups"] == 5
    assert s["read_ns"] > 0 and s["elapsed_ns"] > 0
    rows = {(r["group"], r["domain"]): r for r in s["rows"]}
    assert len(rows) == 10
    web1 = rows[("mon_groups/web", 1)]
    assert web1["mbm_total_bytes"] == {"state": "ok", "value": 1000000000, "rate": "ok", "bytes_per_s": 0.0}, web1
    assert web1["llc_occupancy"] == {"state": "ok", "value": (40 * 256 + 128) * 1024}
    assert rows[("mon_groups/batch", 1)]["mbm_local_bytes"] == {"state": "Unavailable"}
    assert rows[("gold", 0)]["mbm_total_bytes"] == {"state": "Error"}
    assert all(r["bound"] for r in s["rows"])
PY
ok $? "--json: 3 objects, exact values, Unavailable and Error as states"

# CSV: a header, then one row per group and domain per sample.
run resctrl $F --samples 2 --csv --no-bind --events total,occupancy
[ $rc -eq 0 ] && [ "$(echo "$out" | wc -l)" -eq 21 ] &&
	echo "$out" | head -1 | grep -q '^sample,elapsed_ns,group,resource,domain,bound,' &&
	echo "$out" | grep -q '^2,[0-9]*,gold,L3,0,0,Error,Error,-,-,2621440,[0-9]*$' &&
	echo "$out" | grep -q '^1,[0-9]*,/,L3,1,0,1000000000,0.0,-,-,393216,[0-9]*$'
ok $? "--csv --no-bind --events total,occupancy: header + 20 rows, local absent, unbound"

# A domain whose CPUs are not in sysfs is read unbound (marked *).
mkdir -p "$r/mon_data/mon_L3_07"
echo 5 >"$r/mon_data/mon_L3_07/llc_occupancy"
run resctrl $F --samples 1
echo "$out" | grep -Eq '^/ +L3_07\* +- +- +0\.0$'
ok $? "a domain with no CPU here: read unbound, marked *"

# A group whose name holds a quote, a backslash, control bytes, a newline
# and a byte that is not UTF-8: each JSON sample stays one valid line,
# and the name reads back to its bytes.
cp -r "$r" "$tmp/odd"
odd=$(printf 'q"\\\001\nx\377z')
cp -r "$tmp/odd/mon_groups/web" "$tmp/odd/mon_groups/$odd"
run resctrl --root "$tmp/odd" --sysfs-root "$s" --interval 0 --samples 2 --json
[ $rc -eq 0 ] && python3 -c '
import json, os, sys
lines = open(sys.argv[1], "rb").read().decode("utf-8").split("\n")[:-1]
assert len(lines) == 2, lines
for line in lines:
    names = {os.fsencode(r["group"]) for r in json.loads(line)["rows"]}
    assert b"mon_groups/q\"\\\x01\nx\xffz" in names, names
' "$tmp/out"
ok $? "--json: a group name with quote, backslash, control bytes, newline, 0xff"

done_testing
