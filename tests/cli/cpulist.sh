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
expect_usage_error "missing --nbits" cpulist "0-3"
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
[ $rc -eq 0 ] && echo "$out" | grep -q -- '--nbits'
ok $? "cpulist --help"
run --help
[ $rc -eq 0 ] && echo "$out" | grep -q cpulist
ok $? "cidkit --help lists the commands"

done_testing
