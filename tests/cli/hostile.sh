#!/bin/sh
# Hostile command lines and trees (issue 17): every error is one
# "cidkit: ..." line with exit 2 - values with newlines and control bytes
# escaped, long ones cut, empty list items refused, numbers decimal and
# reported as written, over-long roots ENAMETOOLONG, misspelt sysfs names
# and FIFOs refused at once.
CIDKIT=${1:?usage: hostile.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"
data=$(cd "$(dirname "$0")/../data/sysfs" && pwd)

nl='
'
ctl=$(printf 'a\001b')
long=x$(printf '%0300d' 7)

# Each value in every position that echoes it: one line, escaped.
for v in "la${nl}zy" "$ctl" "$long"; do
	expect_usage_error "unknown command" "$v"
	expect_usage_error "unknown sim command" sim "$v"
	expect_usage_error "--policy" sim locality --policy "$v"
	expect_usage_error "--config" sim locality --config "$v"
	expect_usage_error "--trigger" sim scan --trigger "$v"
	expect_usage_error "--seed" sim locality --seed "$v"
	expect_usage_error "--rounds" sim locality --rounds "$v"
	expect_usage_error "--delay-ms" bench burst --delay-ms "$v"
	expect_usage_error "--nbits" cpulist --nbits "$v" 0
	expect_usage_error "cpulist value" cpulist --nbits 8 "$v"
	expect_usage_error "--machine" topo --machine "$v"
	expect_usage_error "extra operand" topo "$v"
	expect_usage_error "unknown option" topo "--$v"
	expect_usage_error "--sysfs-root" topo --sysfs-root "/nonexistent/$v"
done
run_status 2 sim locality --policy "la${nl}zy"
[ "$err" = "cidkit: sim locality: unknown policy 'la\\nzy' (per-cpu, bitmap, lazy, lazy-batched, cache-local, inherit, ownership)" ]
ok $? "a newline is shown as \\n"
run_status 2 sim locality --policy "$ctl"
case "$err" in *"'a\\x01b'"*) true ;; *) false ;; esac
ok $? "a control byte is shown as \\x01"
run_status 2 "$long"
case "$err" in *"…'"*) [ ${#err} -lt 200 ] ;; *) false ;; esac
ok $? "a 300-byte value is cut with … (${#err} bytes)"

# Empty list values and empty items are typos, not "the defaults".
expect_usage_error "sim locality --policy ''" sim locality --policy ''
expect_usage_error "sim locality --config ''" sim locality --config ''
expect_usage_error "sim locality --delay-ms ''" sim locality --delay-ms ''
expect_usage_error "sim switch --cpus ''" sim switch --cpus ''
expect_usage_error "sim switch --policy 'lazy,'" sim switch --policy 'lazy,'
expect_usage_error "sim scan --policy ',lazy'" sim scan --policy ',lazy'
expect_usage_error "sim locality --policy 'lazy,,inherit'" sim locality --policy 'lazy,,inherit'
case "$err" in *"empty value"*) true ;; *) false ;; esac
ok $? "the message says the value is empty"

# Numbers are decimal; out of range is reported as written.
for v in 0x10 0x1p3 1e3 -1 +5 inf nan 1.2.3 ' 5' .; do
	expect_usage_error "bench burst --delay-ms '$v'" bench burst --delay-ms "$v"
done
expect_usage_error "sim locality --delay-ms 0x10" sim locality --delay-ms 0x10
expect_usage_error "huge --seed" sim locality --seed 99999999999999999999999999
case "$err" in *99999999999999999999999999*) true ;; *) false ;; esac
ok $? "an out-of-range number is quoted as written"
expect_usage_error "huge --machine count" topo --machine 99999999999c
case "$err" in *99999999999*) true ;; *) false ;; esac
ok $? "a spec count is quoted as written, not saturated ($err)"

# An over-long --sysfs-root is ENAMETOOLONG, not a truncated path.
root=/$(printf '%05000d' 0)
expect_usage_error "over-long --sysfs-root" topo --sysfs-root "$root"
case "$err" in *"too long"*) [ ${#err} -lt 400 ] ;; *) false ;; esac
ok $? "the message says the root is too long and stays short"
expect_usage_error "over-long resctrl --root" resctrl --root "$root"
case "$err" in "cidkit: resctrl: resctrl root path too long") true ;; *) false ;; esac
ok $? "resctrl --root: the message says the root is too long"
mkdir -p "$tmp/rr/mon_data"
expect_usage_error "over-long resctrl --sysfs-root" resctrl --root "$tmp/rr" --sysfs-root "$root"
case "$err" in "cidkit: resctrl: sysfs root path too long") true ;; *) false ;; esac
ok $? "resctrl --sysfs-root: the message says the root is too long"

# Misspelt sysfs names are errors, not aliases; a FIFO is refused at once.
cp -r "$data/adl-hybrid" "$tmp/vm"
cp -r "$tmp/vm/devices/system/cpu/cpu0/cache/index3" "$tmp/vm/devices/system/cpu/cpu0/cache/index03"
expect_usage_error "cache/index03 next to index3" topo --sysfs-root "$tmp/vm"
case "$err" in *index03*) true ;; *) false ;; esac
ok $? "the message names index03"
rm -rf "$tmp/vm/devices/system/cpu/cpu0/cache/index03"
if [ -d "$tmp/vm/devices/system/node/node0" ]; then
	cp -r "$tmp/vm/devices/system/node/node0" "$tmp/vm/devices/system/node/node00"
	expect_usage_error "node00 next to node0" topo --sysfs-root "$tmp/vm"
	rm -rf "$tmp/vm/devices/system/node/node00"
fi
run_status any topo --sysfs-root "$tmp/vm"
[ $rc -eq 0 ] || [ $rc -eq 1 ]
ok $? "the tree without the misspelt names reads again"
f=$tmp/vm/devices/system/cpu/cpu0/topology/core_cpus_list
[ -e "$f" ] || f=$tmp/vm/devices/system/cpu/cpu0/topology/thread_siblings_list
rm -f "$f"
mkfifo "$f"
start=$(date +%s)
printf '#!/bin/sh\nexec timeout 10 "%s" "$@"\n' "$CIDKIT" >"$tmp/bounded"
chmod +x "$tmp/bounded"
real=$CIDKIT
CIDKIT=$tmp/bounded
expect_usage_error "a FIFO in place of a topology file" topo --sysfs-root "$tmp/vm"
CIDKIT=$real
case "$err" in *"$f: not a regular file"*) [ $(($(date +%s) - start)) -lt 5 ] ;; *) false ;; esac
ok $? "refused at once, naming the file"
done_testing
