#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/perf/mask_instr.py - instructions per cidk_mask_union_count() call
on 327,680 bits, by callgrind (repeatable, unlike wall-clock time on a
shared VM), for each way of its check and for the public function.

usage: mask_instr.py MASK_INSTR_PROGRAM [--table]

For each way and scenario (steady: nothing new; growing: 64 new bits
spread over the mask): run the program under callgrind collecting only
inside the call, with N and 2N calls; the difference divided by N is one
call.  TAP: each way's steady pass stays under a ceiling about 10% above
today's count (scalar 40,996, sse2 20,848, avx2 7,734 by --table), so a
check that stops vectorising fails, and the public function costs what
the best way this CPU has costs.  --table prints the numbers for
docs/mask.md instead.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import callgrind  # noqa: E402
from tap import done, ok, plan, skip_all  # noqa: E402

N = 10
BITS = 327680
WAYS = ["scalar", "sse2", "avx2", "public"]
SCENARIOS = ["steady", "growing"]
CEILING = {"scalar": 45000, "sse2": 23000, "avx2": 8500}


def count(prog, way, scen, calls, tmp):
    """Instructions inside the call (None: this CPU or build lacks WAY)."""
    f = os.path.join(tmp, "cg.%s.%s.%d" % (way, scen, calls))
    rc, n = callgrind.count([prog, way, scen, str(BITS), str(calls)],
                            ["cidk__mask_union_count_isa",
                             "cidk_mask_union_count"], f)
    if rc == 3:
        return None
    if n is None:
        raise SystemExit("mask_instr: %s %s exited %d, no totals in %s"
                         % (way, scen, rc, f))
    return n


def main():
    prog = os.path.abspath(sys.argv[1])
    table = "--table" in sys.argv[2:]
    if not callgrind.available():
        skip_all("valgrind is not installed (scripts/bootstrap.sh installs it)")
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for w in WAYS:
            for s in SCENARIOS:
                a = count(prog, w, s, N, tmp)
                b = count(prog, w, s, 2 * N, tmp)
                res[w, s] = None if a is None else (b - a) / N
    if table:
        print("way       steady   growing   (instructions per call, %d bits)"
              % BITS)
        for w in WAYS:
            if res[w, "steady"] is None:
                print("%-8s  absent on this CPU or build" % w)
            else:
                print("%-8s %7.0f %9.0f" % (w, res[w, "steady"],
                                            res[w, "growing"]))
        return 0
    have = [w for w in WAYS[:-1] if res[w, "steady"] is not None]
    plan(len(have) + 1)
    for w in have:
        ok(0 < res[w, "steady"] <= CEILING[w],
           "%s: steady pass is %.0f instructions (limit %d)"
           % (w, res[w, "steady"], CEILING[w]))
    best = min(res[w, "steady"] for w in have)
    pub = res["public", "steady"]
    ok(pub <= best * 1.01, "public: steady pass is %.0f instructions, the "
       "best way this CPU has is %.0f" % (pub, best))
    return done()


if __name__ == "__main__":
    sys.exit(main())
