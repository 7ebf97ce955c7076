#!/bin/sh
# cidkit abi --require (the gate: exit 0 holds, 1 broken, 3 cannot be told)
# and --quick (only the library's in-process probe, and the path the
# per-CPU operations took from it).  The oracles: this host (x86-64, a 6.x
# kernel that keeps every promise it offers: docs/abi.md's matrix), the
# --break variants that make a check FAIL or n/a whatever the kernel, and
# the environment the test sets (CIDK_PERCPU).
CIDKIT=${1:?usage: abi_gate.sh path/to/cidkit}
. "$(dirname "$0")/tap.sh"

run abi --only register --json
case "$out" in
*ThreadSanitizer*) skip_all "ThreadSanitizer build: rseq checks are n/a by design" ;;
*"no rseq(2) here"*) skip_all "no rseq(2) on this kernel" ;;
esac

# "NAME VERDICT ..." lines: exactly these names, in this order, with these verdicts.
lines_are() {
	[ "$(printf '%s\n' "$out" | awk '{ print $1 ":" $2 }' | tr '\n' ' ')" = "$* " ]
}

# --- --require: what holds exits 0, one line per requirement ----------
run abi --require abort
lines_are abort:pass
ok $? "--require abort: one line, the probe's abort promise holds here; exit 0"

run abi --require register
lines_are register:pass
ok $? "--require register: one line, pass; exit 0"

run abi --require abort,register,abort --seconds 0.5
lines_are abort:pass register:pass
ok $? "--require abort,register,abort: each once, in the order given; exit 0"

# --- cannot be told: 3, where the plain run says n/a and exits 0 -------
run abi --only slice-ext --json
if printf '%s' "$out" | grep -q '"verdict": "n/a"'; then
	run_status 3 abi --require slice-ext
	lines_are slice-ext:n/a
	ok $? "--require slice-ext (n/a on this kernel): exit 3, not 0"
	run_status 3 abi --require register,slice-ext
	lines_are register:pass slice-ext:n/a
	ok $? "--require register,slice-ext: one n/a makes it 3"
else
	for i in 1 2; do
		skip "" "slice-ext is offered by this kernel: not n/a here"
	done
fi
# idle-helper: the helper makes no event, so the check can say nothing
# (docs/abi.md): n/a on every kernel, exit 0 without --require, 3 with it.
run abi --only abort-signal --break idle-helper --seconds 0.5
printf '%s\n' "$out" | grep -q '^abort-signal *n/a'
ok $? "--break idle-helper without --require: n/a, exit 0 (as before)"
run_status 3 abi --require abort-signal --break idle-helper --seconds 0.5
lines_are abort-signal:n/a
ok $? "--require abort-signal --break idle-helper: n/a is exit 3"

# --- broken: 1, and FAIL wins over n/a ---------------------------------
run_status 1 abi --require abort-signal --break unarmed --seconds 0.5
lines_are abort-signal:FAIL
ok $? "--require abort-signal --break unarmed: FAIL is exit 1"
# unarmed + idle-helper is n/a (no event, nothing to abort), register passes
run_status 3 abi --require abort-signal,register --break unarmed,idle-helper --seconds 0.5
lines_are abort-signal:n/a register:pass
ok $? "--require with unarmed,idle-helper: n/a and pass make 3"
run_status 1 abi --require abort-preempt,slice-ext --break unarmed --seconds 0.5
printf '%s\n' "$out" | grep -q '^abort-preempt *FAIL'
ok $? "--require abort-preempt,slice-ext --break unarmed: a FAIL makes it 1 whatever else"

# The process's own probe on a broken user side (--break reaches it):
# unarmed is what the broken kernels look like (nothing aborts: FAIL at
# once), idle-helper the control (no event: the section must commit),
# unarmed,no-event never answers (unknown at the deadline).
run_status 1 abi --require abort --break unarmed
lines_are abort:FAIL
ok $? "--require abort --break unarmed: the probe says FAIL, exit 1"
run_status 1 abi --require abort --break idle-helper
lines_are abort:FAIL
ok $? "--require abort --break idle-helper: the control commits, FAIL, exit 1"
run_status 3 abi --require abort --break unarmed,no-event
lines_are abort:unknown
ok $? "--require abort --break unarmed,no-event: unknown is exit 3"
run_status 1 abi --require abort,slice-ext --break unarmed
[ "$(printf '%s\n' "$out" | awk '{ print $1 ":" $2 }' | head -1)" = abort:FAIL ] &&
	[ "$(printf '%s\n' "$out" | wc -l)" -eq 2 ]
ok $? "--require abort,slice-ext --break unarmed: FAIL beats the rest, exit 1"

# The probe's opt-in promises (a fork each): signal and cpu-id-start.
# cpu-id-start is also a check: the check, unless --quick.
run abi --require signal
lines_are signal:pass
ok $? "--require signal: the probe's opt-in promise holds here; exit 0"
run abi --require cpu-id-start --json --seconds 0.5
printf '%s' "$out" | python3 -c '
import json, sys
(r,) = json.load(sys.stdin)["require"]
assert r["name"] == "cpu-id-start" and r["from"] == "check" and r["verdict"] == "pass", r
assert "len32_trials" in r["evidence"], r
' 2>"$tmp/why"
ok $? "--require cpu-id-start: the full check (from: check), pass" "$tmp/why"
run abi --quick --require cpu-id-start,signal --json
printf '%s' "$out" | python3 -c '
import json, sys
v = json.load(sys.stdin)
assert [x["name"] for x in v["promises"]] == ["abort", "signal", "cpu-id-start"], v["promises"]
r = v["require"]
assert [(x["name"], x["from"], x["verdict"]) for x in r] == [
    ("cpu-id-start", "probe", "pass"), ("signal", "probe", "pass")], r
assert v["exit"] == 0, v
' 2>"$tmp/why"
ok $? "--quick --require cpu-id-start,signal: the probe's promises (from: probe), shown with abort" "$tmp/why"
run_status 1 abi --quick --require signal --break unarmed
printf '%s\n' "$out" | grep -Eq '^require signal +FAIL '
ok $? "--quick --require signal --break unarmed: FAIL, exit 1"

# --- --json of --require -------------------------------------------------
run_status any abi --require abort,register,slice-ext --json
printf '%s' "$out" | python3 -c '
import json, sys
v = json.load(sys.stdin)
rc = int(sys.argv[1])
r = v["require"]
assert [x["name"] for x in r] == ["abort", "register", "slice-ext"], r
assert [x["from"] for x in r] == ["probe", "check", "check"], r
for x in r:
    assert set(x) == {"name", "from", "verdict", "answer", "reason", "evidence"}, x
    assert x["reason"], x
    assert x["answer"] == {"pass": "pass", "FAIL": "FAIL", "n/a": "unknown", "unknown": "unknown"}[x["verdict"]], x
a = r[0]
assert a["verdict"] == "pass", a
e = a["evidence"]
assert set(e) == {"attempts", "aborts_in_event", "stray_aborts", "broken", "events", "us"}, e
assert e["broken"] == 0 and e["aborts_in_event"] >= 1 and e["events"] >= e["aborts_in_event"], e
assert e["attempts"] >= e["aborts_in_event"] + e["stray_aborts"], e
assert r[1]["verdict"] == "pass" and r[1]["evidence"]["ms"] >= 0, r[1]
answers = [x["answer"] for x in r]
want = 1 if "FAIL" in answers else 3 if "unknown" in answers else 0
assert v["exit"] == rc == want, (v["exit"], rc, want)
' "$rc" 2>"$tmp/why"
ok $? "--require --json: each requirement with its answer and evidence; exit = the worst answer" "$tmp/why"

# --- bad names and combinations: one cidkit: line, exit 2 --------------
expect_usage_error "--require nosuch" abi --require nosuch
expect_usage_error "--require abort,nosuch" abi --require abort,nosuch
expect_usage_error "--require ''" abi --require ''
expect_usage_error "--require with --only" abi --require abort --only register
expect_usage_error "--quick --require register (a full check)" abi --quick --require register
expect_usage_error "--quick --only" abi --quick --only register
expect_usage_error "--quick --seconds" abi --quick --seconds 1
expect_usage_error "--quick with an operand" abi --quick extra

# --- --quick: the probe, and the path each indexing took ----------------
unset CIDK_PERCPU
run abi --quick
printf '%s\n' "$out" | grep -Eq '^abort +pass ' &&
	printf '%s\n' "$out" | grep -Eq '^ +attempts=[0-9]+ aborts_in_event=[1-9][0-9]* stray_aborts=[0-9]+ broken=0 events=[1-9]' &&
	printf '%s\n' "$out" | grep -Eq '^cpu_id +rseq ' &&
	printf '%s\n' "$out" | grep -Eq '^mm_cid +rseq ' &&
	printf '%s\n' "$out" | grep -q 'CIDK_PERCPU unset'
ok $? "--quick: abort pass with its evidence; cpu_id and mm_cid on the rseq path; exit 0"

out=$(CIDK_PERCPU=atomic "$CIDKIT" abi --quick 2>"$tmp/err")
rc=$?
printf '%s\n' "$out" >"$tmp/out"
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -Eq '^cpu_id +atomic .*CIDK_PERCPU=atomic' &&
	printf '%s\n' "$out" | grep -Eq '^mm_cid +atomic .*CIDK_PERCPU=atomic' &&
	printf '%s\n' "$out" | grep -Eq '^abort +pass '
ok $? "CIDK_PERCPU=atomic --quick: both indexings forced atomic, and says so; the probe still asks the kernel"

quick_json='
import json, sys
v = json.load(sys.stdin)
path, env = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
assert v["kernel"] and v["arch"], v
assert v["probe_us"] > 0 and v["call_us"] > 0 and v["cpus"] >= 1, v
assert v["CIDK_PERCPU"] == env, v
(p,) = v["promises"]
assert p["name"] == "abort" and p["verdict"] == "pass", p
assert p["broken"] == 0 and p["aborts_in_event"] >= 1 and p["events"] >= 1, p
assert p["attempts"] >= p["aborts_in_event"] + p["stray_aborts"], p
assert p["why"], p
assert [x["index"] for x in v["percpu"]] == ["cpu_id", "mm_cid"], v
for x in v["percpu"]:
    assert x["path"] == path and x["why"], x
    if env:
        assert "CIDK_PERCPU=" + env in x["why"], x
assert "require" not in v and "exit" not in v, v
'
run abi --quick --json
printf '%s' "$out" | python3 -c "$quick_json" rseq 2>"$tmp/why"
ok $? "--quick --json: the probe's verdict, evidence and time; both paths rseq" "$tmp/why"

out=$(CIDK_PERCPU=atomic "$CIDKIT" abi --quick --json 2>"$tmp/err")
rc=$?
[ $rc -eq 0 ] && printf '%s' "$out" | python3 -c "$quick_json" atomic atomic 2>"$tmp/why"
ok $? "CIDK_PERCPU=atomic --quick --json: both paths atomic, the variable named" "$tmp/why"

# --quick on a broken probe: the library falls back, and says why; the
# override keeps rseq and says so.
run_status 1 abi --quick --break unarmed
printf '%s\n' "$out" | grep -Eq '^abort +FAIL ' &&
	printf '%s\n' "$out" | grep -Eq '^ +attempts=[1-9][0-9]* aborts_in_event=0 stray_aborts=[0-9]+ broken=[1-9]' &&
	printf '%s\n' "$out" | grep -Eq '^cpu_id +atomic +broken abort promise: ' &&
	printf '%s\n' "$out" | grep -Eq '^mm_cid +atomic +broken abort promise: '
ok $? "--quick --break unarmed: FAIL with a broken commit, both indexings atomic naming the promise; exit 1"

run_status 0 abi --quick --break unarmed,no-event
printf '%s\n' "$out" | grep -Eq '^abort +unknown ' &&
	printf '%s\n' "$out" | grep -Eq '^cpu_id +atomic +.*could not tell' &&
	printf '%s\n' "$out" | grep -Eq '^mm_cid +atomic +.*could not tell'
ok $? "--quick --break unarmed,no-event: unknown, the safe default (atomic) and why; exit 0"

out=$(CIDK_PERCPU=rseq "$CIDKIT" abi --quick --break unarmed 2>"$tmp/err")
rc=$?
printf '%s\n' "$out" >"$tmp/out"
[ $rc -eq 1 ] && printf '%s\n' "$out" | grep -Eq '^abort +FAIL ' &&
	printf '%s\n' "$out" | grep -Eq '^cpu_id +rseq +.*CIDK_PERCPU=rseq' &&
	printf '%s\n' "$out" | grep -Eq '^mm_cid +rseq +.*CIDK_PERCPU=rseq'
ok $? "CIDK_PERCPU=rseq --quick --break unarmed: the probe says FAIL, the override keeps rseq and says so"

# --- the launcher's recipe: --quick --require abort ---------------------
run abi --quick --require abort
printf '%s\n' "$out" | grep -Eq '^require abort +pass ' &&
	printf '%s\n' "$out" | grep -Eq '^cpu_id +rseq '
ok $? "--quick --require abort: the probe alone gates; exit 0 here"

run abi --quick --require abort --json
printf '%s' "$out" | python3 -c '
import json, sys
v = json.load(sys.stdin)
assert v["exit"] == 0 and [x["name"] for x in v["require"]] == ["abort"], v
assert v["require"][0]["verdict"] == v["promises"][0]["verdict"] == "pass", v
' 2>"$tmp/why"
ok $? "--quick --require abort --json: the gate and the probe agree" "$tmp/why"

# the recipe itself, as docs/abi.md writes it: rseq kept here, atomic
# exported when the probe is broken (FAIL) or cannot tell (unknown)
for brk in "" unarmed unarmed,no-event; do
	out=$(unset CIDK_PERCPU; "$CIDKIT" abi --quick --require abort ${brk:+--break $brk} >/dev/null ||
		export CIDK_PERCPU=atomic; echo "${CIDK_PERCPU:-unset}")
	want=atomic
	[ -z "$brk" ] && want=unset
	[ "$out" = $want ]
	ok $? "the launcher recipe${brk:+ with --break $brk}: CIDK_PERCPU $out"
done

# docs/abi.md's in-process recipe still compiles against the headers
# (-fsyntax-only: the names, types and constants it uses exist).
src=$(cd "$(dirname "$0")/../.." && pwd)
python3 - "$src/docs/abi.md" >"$tmp/gate.c" <<'PY'
import re, sys
doc = open(sys.argv[1]).read()
sec = doc.split("## Gating per-CPU data on this kernel", 1)[1].split("\n## ", 1)[0]
print(re.search(r"^```c\n(.*?)^```", sec, re.M | re.S).group(1))
PY
cc=$(command -v cc || command -v gcc || command -v clang)
if [ -n "$cc" ]; then
	grep -q cidk_abi_probe_cached "$tmp/gate.c" &&
		"$cc" -std=c11 -Wall -Werror -fsyntax-only -I"$src/include" "$tmp/gate.c" 2>"$tmp/why"
	ok $? "docs/abi.md: the in-process recipe compiles (-std=c11 -Wall -Werror)" "$tmp/why"
else
	skip "" "no C compiler to compile docs/abi.md's recipe"
fi

done_testing
