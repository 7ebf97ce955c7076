#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/perf/lease_instr.py - instructions per lease enter/exit pair, by
callgrind (repeatable, unlike wall-clock time on a shared VM).

usage: lease_instr.py LEASE_INSTR_PROGRAM [--table]

For each policy: run the program under callgrind collecting only inside
cidk_lease_enter and cidk_lease_exit, with N and 2N pairs; the difference
divided by N is one pair's cost without the first (registering) enter.
The CPU-number read is not counted: under valgrind the kernel refuses rseq
and the read goes through getcpu() (cidk_rseq_cpu_id_slow), natively it is
one load through the thread pointer.

TAP: the lazy family's pair costs at most 60 instructions (issue 13's
target, docs/cid.md); every policy's pair stays under a ceiling that
catches a regression of its slow-but-known path.  --table prints the
numbers for docs/cid.md instead.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import callgrind  # noqa: E402
from tap import done, ok, plan, skip_all  # noqa: E402

N = 2000
TARGET = 60  # lazy family, issue 13
# the others go through the full switch (today 240, 213, 255 by --table):
# about 10% headroom, so that a regression of their path fails
CEILING = {"bitmap": 300, "inherit": 270, "ownership": 320}
POLICIES = ["bitmap", "lazy", "lazy-batched", "cache-local", "inherit",
            "ownership"]


def count(prog, policy, pairs, tmp):
    """Instructions inside enter and exit, not inside the CPU read.

    Callgrind toggles collection on entry to and exit from each named
    function, so the CPU read's function, called inside enter, toggles it
    off for its own duration: the total is enter + exit - CPU read.
    """
    f = os.path.join(tmp, "cg.%s.%d" % (policy, pairs))
    rc, n = callgrind.count([prog, policy, str(pairs)],
                            ["cidk_lease_enter", "cidk_lease_exit",
                             "cidk_rseq_cpu_id_slow"], f)
    if n is None:
        raise SystemExit("lease_instr: %s exited %d, no totals in %s"
                         % (policy, rc, f))
    return n


def main():
    prog = os.path.abspath(sys.argv[1])
    table = "--table" in sys.argv[2:]
    if not callgrind.available():
        skip_all("valgrind is not installed (scripts/bootstrap.sh installs it)")
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for p in POLICIES:
            a = count(prog, p, N, tmp)
            b = count(prog, p, 2 * N, tmp)
            res[p] = (b - a) / N
    if table:
        print("policy          instructions/pair")
        for p in POLICIES:
            print("%-15s %17.1f" % (p, res[p]))
        return 0
    plan(len(POLICIES))
    for p in POLICIES:
        lim = CEILING.get(p, TARGET)
        ok(0 < res[p] <= lim, "lease:%s pair is %.1f instructions (limit %d)"
           % (p, res[p], lim))
    return done()


if __name__ == "__main__":
    sys.exit(main())
