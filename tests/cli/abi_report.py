#!/usr/bin/env python3
"""Hold a `cidkit abi` report against its own rows and against this machine.

usage: abi_report.py json|human NAME... < report
       abi_report.py verdict NAME < report     (prints NAME's verdict)

json: the shape (kernel, arch, seconds, failed, checks: name, verdict,
reason, ms, evidence of integers), the checks named in that order, a
reason for every FAIL and n/a, failed = the FAIL rows, and the evidence
against what this process sees itself: AT_RSEQ_FEATURE_SIZE from
/proc/self/auxv (the same kernel), the allowed CPUs from its affinity,
attempts = aborts + commits, the commit counter = the commits on a pass,
mm-cid's bound = min(allowed CPUs, threads) with the largest mm_cid below.
human: one row per check named, in that order, its verdict in column 2.
Exits 1 with the first disagreement on stderr.
"""
import json
import os
import re
import struct
import sys

VERDICTS = ("pass", "FAIL", "n/a")


def fail(msg):
    sys.stderr.write(msg + "\n")
    sys.exit(1)


def auxv(key):
    data = open("/proc/self/auxv", "rb").read()
    for i in range(0, len(data) - 15, 16):
        k, v = struct.unpack("QQ", data[i:i + 16])
        if k == key:
            return v
    return None


def check_json(text, names):
    try:
        rep = json.loads(text)
    except ValueError as e:
        fail("not JSON: %s" % e)
    for k, t in (("kernel", str), ("arch", str), ("seconds", (int, float)),
                 ("failed", int), ("checks", list)):
        if not isinstance(rep.get(k), t):
            fail("key %s missing or of the wrong type" % k)
    if os.uname().release != rep["kernel"] or os.uname().machine != rep["arch"]:
        fail("kernel/arch %s %s, uname says %s %s" % (
            rep["kernel"], rep["arch"], os.uname().release, os.uname().machine))
    got = [c.get("name") for c in rep["checks"]]
    if got != names:
        fail("checks %s, expected %s" % (got, names))
    allowed = len(os.sched_getaffinity(0))
    fs = auxv(27) or 20
    nfail = 0
    for c in rep["checks"]:
        n, v, ev = c["name"], c.get("verdict"), c.get("evidence")
        if v not in VERDICTS:
            fail("%s: verdict %r" % (n, v))
        if not isinstance(c.get("reason"), str) or not isinstance(c.get("ms"), int):
            fail("%s: reason or ms missing" % n)
        if v != "pass" and not c["reason"].strip():
            fail("%s: %s without a reason" % (n, v))
        if not isinstance(ev, dict) or not all(isinstance(x, int) for x in ev.values()):
            fail("%s: evidence is not an object of integers" % n)
        nfail += v == "FAIL"
        if n == "register" and "feature_size" in ev and ev["feature_size"] != fs:
            fail("register: feature_size %d, this process's auxv says %d" % (ev["feature_size"], fs))
        if n == "ids" and "cpus_allowed" in ev and ev["cpus_allowed"] != allowed:
            fail("ids: %d CPUs allowed, our affinity has %d" % (ev["cpus_allowed"], allowed))
        if "attempts" in ev:
            if ev["attempts"] != ev["aborts"] + ev["commits"]:
                fail("%s: attempts %d != aborts %d + commits %d" % (
                    n, ev["attempts"], ev["aborts"], ev["commits"]))
            if v == "pass" and (ev["counter"] != ev["commits"] or ev["aborts"] < 1
                                or ev["commits_after_change"] != 0
                                or ev["events"] < 1
                                or not 1 <= ev["aborts_in_event"] <= ev["aborts"]):
                fail("%s: pass with counter %d, commits %d, aborts %d (%d in an event), "
                     "after change %d, events %d" % (
                         n, ev["counter"], ev["commits"], ev["aborts"], ev["aborts_in_event"],
                         ev["commits_after_change"], ev["events"]))
        if n == "mm-cid" and "bound" in ev:
            if ev["allowed_cpus"] != allowed:
                fail("mm-cid: %d CPUs allowed, our affinity has %d" % (ev["allowed_cpus"], allowed))
            if ev["bound"] != min(allowed, ev["threads"]):
                fail("mm-cid: bound %d != min(%d, %d)" % (ev["bound"], allowed, ev["threads"]))
            if v == "pass" and not 0 <= ev["max_mm_cid"] < ev["bound"]:
                fail("mm-cid: pass with largest %d, bound %d" % (ev["max_mm_cid"], ev["bound"]))
    if nfail != rep["failed"]:
        fail("failed %d, the rows have %d FAIL" % (rep["failed"], nfail))


def rows(text):
    out = []
    for line in text.splitlines():
        m = re.match(r"^(\S+)[ ]+(pass|FAIL|n/a)[ ]+\S", line)
        if m and m.group(1) != "check":
            out.append((m.group(1), m.group(2)))
    return out


def main():
    mode, names = sys.argv[1], sys.argv[2:]
    text = sys.stdin.read()
    if mode == "json":
        check_json(text, names)
    elif mode == "human":
        got = [n for n, _ in rows(text)]
        if got != names:
            fail("rows %s, expected %s" % (got, names))
    elif mode == "verdict":
        for n, v in rows(text):
            if n == names[0]:
                print(v)
                return
        fail("no row %s" % names[0])
    else:
        fail("unknown mode %s" % mode)


main()
