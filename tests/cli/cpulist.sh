#!/bin/sh
# cidkit cpulist: the exact contract of issue 2.
CIDKIT=${1:?usage: cpulist.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"

# nbits from to input -> expected stdout
while IFS='|' read -r nbits from to input want; do
	[ -z "$nbits" ] && continue
	run cpulist --nbits "$nbits" --from "$from" --to "$to" "$input"
	[ $rc -eq 0 ] && [ "$out" = "$want" ] && [ -z "$err" ]
	ok $? "cpulist --nbits $nbits --from $from --to $to '$input' -> '$want' (got '$out')"
done <<'TABLE'
8|list|list|0-3|0-3
8|list|list|3,1,2|1-3
8|list|list| 0 , 2 |0,2
8|list|list||
64|list|list|0-63:1/2|0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32,34,36,38,40,42,44,46,48,50,52,54,56,58,60,62
16|list|list|0-15:2/4|0-1,4-5,8-9,12-13
32|list|hex|0-3,8-11|00000f0f
64|list|hex|0-3,8-11|00000000,00000f0f
2|list|hex|0-1|3
64|hex|list|ffffffff,00000003|0-1,32-63
8|hex|hex|f|0f
128|list|list|0-63,79-97|0-63,79-97
8|taskset|list|0x3|0-1
8|taskset|list|3|0-1
8|taskset|list|0000000000000003|0-1
8|taskset|hex|0XfF|ff
8|taskset|taskset|0x00|0x0
128|list|taskset|0,33,127|0x80000000000000000000000200000001
8|list|taskset||0x0
64|hex|taskset|00000001,00000000|0x100000000
64|taskset|hex|0x100000000|00000001,00000000
96|hex|list|1,,,0|32
8|list|list|1,,3|1,3
TABLE

# A trailing newline is tolerated.
run cpulist --nbits 8 "1-2
"
[ $rc -eq 0 ] && [ "$out" = "1-2" ]
ok $? "trailing newline tolerated"

# Default formats are list -> list.
run cpulist --nbits 4 "all"
[ "$out" = "0-3" ]
ok $? "default --from list --to list"

# Empty mask prints an empty line.
run cpulist --nbits 8 ""
[ $rc -eq 0 ] && [ "$(wc -c <"$tmp/out")" -eq 1 ]
ok $? "empty mask prints an empty line"

expect_usage_error "bit >= nbits" cpulist --nbits 8 "8"
expect_usage_error "range past nbits" cpulist --nbits 8 "0-8"
expect_usage_error "malformed range" cpulist --nbits 8 "3-1"
expect_usage_error "garbage" cpulist --nbits 8 "1,x"
expect_usage_error "garbage with newline" cpulist --nbits 8 "x
y"
expect_usage_error "bad stride" cpulist --nbits 16 "0-15:5/4"
expect_usage_error "hex too wide" cpulist --nbits 8 --from hex "100"
expect_usage_error "hex not hex" cpulist --nbits 8 --from hex "0xff"
expect_usage_error "taskset: a bit beyond --nbits" cpulist --nbits 8 --from taskset "0x100"
expect_usage_error "taskset: one word, no commas" cpulist --nbits 64 --from taskset "0x3,00000000"
expect_usage_error "taskset: no digits" cpulist --nbits 8 --from taskset "0x"
expect_usage_error "taskset: text after the newline" cpulist --nbits 8 --from taskset "3
1"
expect_usage_error "hex: a zero word beyond --nbits" cpulist --nbits 8 --from hex "0,ff"
run_status 2 cpulist --nbits 8 --from taskset "0x100"
case "$err" in *"out of range for --nbits 8"*) true ;; *) false ;; esac
ok $? "taskset: the message says the bit is out of range"

# Without --nbits: this machine's possible CPUs.
possible=$(cat /sys/devices/system/cpu/possible)
nposs=$(( ${possible##*[-,]} + 1 ))
run cpulist "0-$((nposs - 1))"
[ $rc -eq 0 ] && [ "$out" = "$(if [ $nposs -eq 1 ]; then echo 0; else echo "0-$((nposs - 1))"; fi)" ]
ok $? "no --nbits: every possible CPU ($nposs) fits"
run_status 2 cpulist "$nposs"
 case "$err" in *"--nbits $nposs (this machine's possible CPUs)"*) true ;; *) false ;; esac
ok $? "no --nbits: CPU $nposs is out of range, and the message says why"
run cpulist --to hex "0"
[ $rc -eq 0 ] && [ "$out" = "$(python3 -c "n=$nposs; print(','.join(['%0*x' % (((n % 32 or 32) + 3) // 4 if i == 0 else 8, 1 if i == (n + 31) // 32 - 1 else 0) for i in range((n + 31) // 32)]))")" ]
ok $? "no --nbits --to hex: as wide as the possible CPUs"
expect_usage_error "zero --nbits" cpulist --nbits 0 "0"
expect_usage_error "absurd --nbits" cpulist --nbits 99999999999 "0"
expect_usage_error "negative --nbits" cpulist --nbits -5 "0"
expect_usage_error "unknown format" cpulist --nbits 8 --to dec "0"
expect_usage_error "unknown option" cpulist --nbits 8 --frobnicate "0"
expect_usage_error "no string" cpulist --nbits 8
expect_usage_error "two strings" cpulist --nbits 8 1 2
expect_usage_error "unknown command" frobnicate
expect_usage_error "unknown bench" bench frobnicate
expect_usage_error "no command" 
expect_usage_error "no bench" bench
expect_usage_error "no scenario" sim

run cpulist --help
[ $rc -eq 0 ] && echo "$out" | grep -q -- '--nbits' &&
	echo "$out" | grep -q 'default: this' && echo "$out" | grep -q '/sys/devices/system/cpu/possible' &&
	echo "$out" | grep -q 'taskset'
ok $? "cpulist --help: --nbits defaults to the possible CPUs, the taskset format"
run --help
[ $rc -eq 0 ] && echo "$out" | grep -q cpulist
ok $? "cidkit --help lists the commands"

done_testing
