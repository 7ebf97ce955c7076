#!/bin/sh
# cidkit cat: open once, pread many; a drop-in for fastcat.
CIDKIT=${1:?usage: cat.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"

d=$tmp/files
mkdir -p "$d"
echo 12345 >"$d/a"
printf 'two words\n' >"$d/b"
printf 'no newline' >"$d/c"
mkdir "$d/dir"

unset FASTCAT_READ_COUNT
# with_count VALUE CMD...: run CMD with FASTCAT_READ_COUNT=VALUE exported
with_count() {
	FASTCAT_READ_COUNT=$1
	export FASTCAT_READ_COUNT
	shift
	"$@"
	unset FASTCAT_READ_COUNT
}

run cat "$d/a"
[ $rc -eq 0 ] && [ -z "$out" ] && [ -z "$err" ]
ok $? "silent by default, exit 0"

run cat --print "$d/a" "$d/b" "$d/c"
[ $rc -eq 0 ] && [ "$out" = "$d/a: 12345
$d/b: two words
$d/c: no newline" ]
ok $? "--print: 'path: value' per file, in order"

run cat --print /proc/self/stat
case "$out" in "/proc/self/stat: "[0-9]*) true ;; *) false ;; esac
ok $? "--print on a /proc file"

json_get() { # json_get KEY: a top-level number from $out
	python3 -c 'import json,sys; v=json.loads(sys.argv[1]); print(v[sys.argv[2]])' "$out" "$1"
}

# FASTCAT_READ_COUNT sets N when --count is absent.
with_count "7" run cat --json "$d/a" "$d/b"
[ $rc -eq 0 ] && [ "$(json_get count)" = 7 ] && [ "$(json_get reads)" = 14 ]
ok $? "FASTCAT_READ_COUNT=7: 7 rounds, 14 reads"

with_count "0" run cat --json --print "$d/a"
[ $rc -eq 0 ] && [ "$(json_get count)" = 0 ] && [ "$(json_get reads)" = 0 ] &&
	python3 -c 'import json,sys; v=json.loads(sys.argv[1]); assert v["values"] == [] and v["open_ns"] > 0 and v["read_ns"]["rounds"] == 0' "$out"
ok $? "FASTCAT_READ_COUNT=0: open and close only, set-up cost measured"

with_count "0" run cat --stats "$d/a"
[ $rc -eq 0 ] && echo "$out" | grep -q "^set-up: open" && echo "$out" | grep -q "no reads"
ok $? "FASTCAT_READ_COUNT=0 --stats: set-up cost only"

with_count "0" run cat --count 3 --json "$d/a"
[ $rc -eq 0 ] && [ "$(json_get count)" = 3 ]
ok $? "--count overrides FASTCAT_READ_COUNT"

with_count "" run cat --json "$d/a"
[ $rc -eq 0 ] && [ "$(json_get count)" = 1 ]
ok $? "empty FASTCAT_READ_COUNT: default 1"

run cat --stats --count 50 "$d/a" "$d/b"
[ $rc -eq 0 ] && echo "$out" | grep -Eq "^per read: median [0-9]+ ns, min [0-9]+ - max [0-9]+ ns \(over 50 rounds\)$"
ok $? "--stats: median and min-max over the rounds"

run cat --json --print --count 2 "$d/b"
python3 -c 'import json,sys; v=json.loads(sys.argv[1]); assert v["values"] == [{"path": sys.argv[2], "value": "two words"}]; r=v["read_ns"]; assert r["min"] <= r["median"] <= r["max"]' "$out" "$d/b"
ok $? "--json --print: valid JSON with the values"

# A path and a value with a quote, a backslash, control bytes, a newline
# and a byte that is not UTF-8: valid JSON that reads back to the bytes.
odd=$(printf 'q"\\\001\nx\377z')
printf 'v"\\\002\377\n' >"$d/$odd"
run cat --json --print "$d/$odd" "$d/a"
[ $rc -eq 0 ] && python3 -c '
import json, os, sys
v = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))  # strict
want = os.fsencode(sys.argv[2]) + b"/" + sys.argv[3].encode() + b"q\"\\\x01\nx\xffz"
got = v["values"][0]
assert os.fsencode(got["path"]) == want, (got, want)
assert os.fsencode(got["value"]) == b"v\"\\\x02\xff", got
assert os.fsencode(v["values"][1]["path"]) == os.fsencode(sys.argv[2]) + b"/a"
' "$tmp/out" "$d" ""
ok $? "--json: a path with quote, backslash, control bytes, newline, 0xff reads back to its bytes"

run cat --cpu 0 --print "$d/a"
[ $rc -eq 0 ] && [ "$out" = "$d/a: 12345" ]
ok $? "--cpu 0 binds first"

# Failures: one line, exit 2; --keep-going reports, goes on, exits 1.
expect_usage_error "missing file" cat "$d/nope"
case "$err" in "cidkit: $d/nope: No such file or directory") true ;; *) false ;; esac
ok $? "message is 'cidkit: PATH: reason'"
expect_usage_error "missing file after a good one" cat --print "$d/a" "$d/nope"
expect_usage_error "a directory cannot be read" cat "$d/dir"
case "$err" in "cidkit: $d/dir: Is a directory") true ;; *) false ;; esac
ok $? "read failure names the file and the reason"

run_status 1 cat --keep-going --print "$d/nope" "$d/a" "$d/dir" "$d/c"
[ "$out" = "$d/a: 12345
$d/c: no newline" ] && [ "$(wc -l <"$tmp/err")" -eq 2 ]
ok $? "--keep-going: reports each bad file, prints the rest, exit 1"

expect_usage_error "no file" cat
expect_usage_error "bad --count" cat --count x "$d/a"
expect_usage_error "negative --count" cat --count -1 "$d/a"
with_count "abc" expect_usage_error "bad FASTCAT_READ_COUNT" cat "$d/a"
with_count "-3" expect_usage_error "negative FASTCAT_READ_COUNT" cat "$d/a"
expect_usage_error "bad --cpu" cat --cpu x "$d/a"
expect_usage_error "--cpu past CPU_SETSIZE" cat --cpu 99999 "$d/a"
expect_usage_error "--cpu not on this machine" cat --cpu 1000 "$d/a"
expect_usage_error "unknown option" cat --bogus "$d/a"
expect_usage_error "--count without value" cat --count

run cat --help
[ $rc -eq 0 ] && echo "$out" | grep -q "^usage: cidkit cat" && echo "$out" | grep -q FASTCAT_READ_COUNT
ok $? "--help: usage on stdout, exit 0"

# cidkit bench cat: a smoke run, its JSON, its bad inputs.
before=$(ls -d "${TMPDIR:-/tmp}"/cidkit-cat-* 2>/dev/null)
run bench cat --reps 2 --tmp-files 3 --json
[ $rc -eq 0 ] && python3 - "$out" <<'PY'
import json, sys
v = json.loads(sys.argv[1])
assert v["reps"] == 2 and v["tmpdir"]["files"] == 3, v
for s in ("sysfs", "procfs", "tmpdir"):
    if v[s]["files"]:
        a, b = v[s]["open_read_close_ns"], v[s]["open_once_pread_ns"]
        assert a["min"] <= a["median"] <= a["max"] and b["min"] <= b["median"] <= b["max"]
        assert abs(v[s]["ratio"] - a["median"] / b["median"]) <= 0.01 * v[s]["ratio"] + 0.01, v[s]
PY
ok $? "bench cat --json: three sets, both ways, the ratio"
run bench cat --reps 2 --tmp-files 3
[ $rc -eq 0 ] && echo "$out" | grep -Eq '^tmpdir +3  open_read_close +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+x$'
ok $? "bench cat: a table with ratios"
[ "$(ls -d "${TMPDIR:-/tmp}"/cidkit-cat-* 2>/dev/null)" = "$before" ]
ok $? "bench cat removes its temporary files"
expect_usage_error "bench cat: bad --reps" bench cat --reps 0
expect_usage_error "bench cat: bad --tmp-files" bench cat --tmp-files x
expect_usage_error "bench cat: extra argument" bench cat extra
expect_usage_error "bench cat: unknown option" bench cat --bogus

done_testing
