#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/support/tap.py, the Python tests' one TAP printer, judged from
outside: small programs that use it are run, and their output and exit
status must be what meson's TAP parser needs.

usage: tap_py.py   (TAP)
"""
import os
import subprocess
import sys

SUPPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support")
sys.path.insert(0, SUPPORT)
from tap import done, ok  # noqa: E402


def run(body):
    prog = "import sys\nsys.path.insert(0, %r)\nimport tap\n%s" % (SUPPORT, body)
    r = subprocess.run([sys.executable, "-c", prog], capture_output=True,
                       text=True)
    return r.returncode, r.stdout


CASES = [
    ("two passes", "tap.ok(1, 'a')\ntap.ok(True, 'b')\nsys.exit(tap.done())",
     0, "ok 1 - a\nok 2 - b\n1..2\n"),
    ("a failure fails, with its detail", "tap.ok(1, 'a')\n"
     "tap.ok(0, 'b', detail=['x', 'y'])\ntap.ok(1, 'c', detail='z')\n"
     "sys.exit(tap.done())",
     1, "ok 1 - a\nnot ok 2 - b\n#   x\n#   y\nok 3 - c\n1..3\n"),
    ("no assertion fails", "sys.exit(tap.done())",
     1, "1..0\n# no assertions were made\n"),
    ("skip_all: plan 1..0 SKIP, exit 0",
     "tap.skip_all('no valgrind')\ntap.ok(0, 'never')",
     0, "1..0 # SKIP no valgrind\n"),
    ("a TODO failure is not counted; SKIP is a directive",
     "tap.ok(0, 'a', 'TODO known')\ntap.ok(1, 'b', 'SKIP why')\n"
     "sys.exit(tap.done())",
     0, "not ok 1 - a # TODO known\nok 2 - b # SKIP why\n1..2\n"),
    ("plan() first, not again at the end; a newline cannot split a line",
     "tap.plan(1)\ntap.ok(1, 'a\\nb')\ntap.diag('d1\\nd2', 'x')\n"
     "sys.exit(tap.done())",
     0, "1..1\nok 1 - a b\n# x: d1\n# x: d2\n"),
    ("a '#' in a description cannot start a directive",
     "tap.ok(0, 'a # TODO b')\nsys.exit(tap.done())",
     1, "not ok 1 - a _ TODO b\n1..1\n"),
    ("failures() and count()", "tap.ok(0, 'a')\ntap.ok(1, 'b')\n"
     "print(tap.failures(), tap.count())",
     0, "not ok 1 - a\nok 2 - b\n1 2\n"),
]

for what, body, rc, out in CASES:
    got_rc, got = run(body)
    ok(got_rc == rc and got == out, what,
       detail=["exit %d (want %d)" % (got_rc, rc)] + got.splitlines())
sys.exit(done())
