#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/install/layers.py - the library/lab line, as the compiler saw it.

  layers.py SOURCE_ROOT BUILD_DIR      (TAP)

The include paths (meson.build: lib_inc, cidkit_dep, lab_dep) make a lab
file that names a module's private header ("cid/cid_internal.h") fail to
compile; this test reads what every object of the build really included
(ninja's dependency log, `ninja -t deps`), which also catches a relative
path ("../../lib/cid/cid_internal.h") that no include path can refuse.
Per source file, the headers under lib/ it may reach:

  lib/                       anything (the library)
  tests/unit/                anything (tests of the library's internals)
  examples/, tests/install/  nothing: the installed headers only
  check/, tests/check/, tests/fuzz/fuzz_scenario.c
                             the door and lib/cid/ (the checker compiles
                             lib/cid's sources again, check/meson.build)
  tests/stress/percpu_ops_locks.c
                             the door and lib/percpu/ (it compiles
                             lib/percpu/ops_atomic.c against a stand-in)
  every other lab file       the door only: lib/internal/cidkit_lab.h and
                             the headers it includes itself
"""
import os
import re
import subprocess
import sys

DOOR = "lib/internal/cidkit_lab.h"
EXCEPT = [  # (source prefix, extra lib/ folders it may reach)
    ("check/", ["lib/cid/"]),
    ("tests/check/", ["lib/cid/"]),
    ("tests/fuzz/fuzz_scenario.c", ["lib/cid/"]),
    ("tests/stress/percpu_ops_locks.c", ["lib/percpu/"]),
]


def door_headers(src):
    """The door and the library headers it includes by relative path."""
    out = {DOOR}
    text = open(os.path.join(src, DOOR)).read()
    for inc in re.findall(r'^#include "([^"]+)"', text, re.M):
        out.add(os.path.normpath(os.path.join(os.path.dirname(DOOR), inc)))
    return out


def deps(src, build):
    """{source: set of included files}, paths relative to SOURCE_ROOT."""
    text = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True,
                          text=True, check=True).stdout
    src = os.path.realpath(src)
    out, cur = {}, None
    for line in text.splitlines():
        if not line.startswith(" "):
            cur = None
            continue
        p = os.path.realpath(os.path.join(build, line.strip()))
        if not p.startswith(src + os.sep):
            continue
        rel = os.path.relpath(p, src)
        if cur is None:  # the first dependency is the source itself
            cur = rel
            out.setdefault(cur, set())
        else:
            out[cur].add(rel)
    return out


def allowed(source, header, door):
    if source.startswith(("lib/", "tests/unit/")):
        return True
    if source.startswith(("examples/", "tests/install/")):
        return False
    if header in door:
        return True
    return any(source.startswith(pre) and header.startswith(tuple(dirs))
               for pre, dirs in EXCEPT)


def main():
    src, build = sys.argv[1:3]
    door = door_headers(src)
    n = failed = 0

    def ok(cond, what, detail=""):
        nonlocal n, failed
        n += 1
        print("%s %d - %s" % ("ok" if cond else "not ok", n, what))
        if not cond:
            failed += 1
            for line in detail.splitlines()[:30]:
                print("#   " + line)

    d = deps(src, build)
    lab = [s for s in d if not s.startswith(("lib/", "tests/unit/"))]
    ok(len(lab) > 100 and any(s.startswith("sim/") for s in lab)
       and any(s.startswith("examples/") for s in lab),
       "ninja's dependency log holds the lab's and the examples' objects (%d sources)" % len(lab))
    bad = sorted("%s includes %s" % (s, h) for s in lab for h in d[s]
                 if h.startswith("lib/") and not allowed(s, h, door))
    ok(not bad, "no lab or user source reaches a library-private header but through %s" % DOOR,
       "\n".join(bad))
    used = {h for s in lab for h in d[s]}
    ok(DOOR in used, "the lab does include the door (%s)" % DOOR)
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
