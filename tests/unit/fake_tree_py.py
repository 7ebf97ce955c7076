#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/support/fake_tree.py, the shell and Python tests' one writer of
fake sysfs/resctrl trees, judged from outside: the kernel's mask forms by
hand-worked values, the fuzz corpus' record bytes, each kind of record on
disk, and a rewrite that a reader holding the file open sees.

usage: fake_tree_py.py   (TAP)
"""
import os
import stat
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import fake_tree as T  # noqa: E402
from tap import done, ok  # noqa: E402

ok(T.cpulist({0, 1, 2, 3, 8}) == "0-3,8" and T.cpulist([5]) == "5" and
   T.cpulist([]) == "", "cpulist: 0-3,8 / 5 / empty")
ok(T.hexmask({0, 33}, 40) == "02,00000001" and T.hexmask({31}, 32) == "80000000"
   and T.hexmask({0}, 4) == "1", "hexmask: 40 bits 02,00000001; 32 bits; 4 bits")
ok(T.encode([("a/b", "x\n"), T.PHASE2, ("c", T.DIR), ("d", b"\x00y")]) ==
   b"a/b\x01x\n\x00\x03\x00c\x01\x02dir\x00d\x01\x00y",
   "encode: NUL-separated path\\x01content, PHASE2 as \\x03")
recs = T.sysfs(2, [(0, 2, lambda c: c), (1, 3, lambda c: None if c else 7)],
               prefix="s")
ok(recs == [("s/online", "0-1\n"),
            ("s/cpu0/cache/index0/level", "2\n"), ("s/cpu0/cache/index0/id", "0\n"),
            ("s/cpu0/cache/index1/level", "3\n"), ("s/cpu0/cache/index1/id", "7\n"),
            ("s/cpu0/topology/physical_package_id", "0\n"),
            ("s/cpu1/cache/index0/level", "2\n"), ("s/cpu1/cache/index0/id", "1\n"),
            ("s/cpu1/topology/physical_package_id", "0\n")],
   "sysfs: online, each CPU's caches (none where the id is None), package")

with tempfile.TemporaryDirectory() as tmp:
    T.write(tmp, [("d/f", "1\n"), ("d/g", T.DIR), ("p", T.FIFO),
                  ("gone/x", "x"), ("gone", T.RM)])
    ok(open(os.path.join(tmp, "d/f")).read() == "1\n" and
       os.path.isdir(os.path.join(tmp, "d/g")) and
       stat.S_ISFIFO(os.stat(os.path.join(tmp, "p")).st_mode) and
       not os.path.exists(os.path.join(tmp, "gone")),
       "write: a file, a directory, a FIFO, and rm -rf")
    r, s = os.path.join(tmp, "r"), os.path.join(tmp, "s")
    rc = T.main(["resctrl", r, s])
    f = os.path.join(r, "mon_groups/web/mon_data/mon_L3_01/mbm_total_bytes")
    held = open(f)
    ino = os.stat(f).st_ino
    first = held.read()
    rc2 = T.main(["resctrl", r, s, "2"])
    held.seek(0)
    ok(rc == 0 and rc2 == 0 and first == "1000000000\n" and
       held.read() == "%d\n" % ((1000 + 2 * 40 * 2) * 1000000) and
       os.stat(f).st_ino == ino,
       "resctrl TICK: web's domain-1 total grows 80 MB a tick, rewritten "
       "in place (an open reader sees it)")
    held.close()
    ok(open(os.path.join(r, "gold/mon_data/mon_L3_00/mbm_total_bytes")).read()
       == "Error\n" and
       open(os.path.join(r, "mon_groups/batch/mon_data/mon_L3_01/"
                            "mbm_local_bytes")).read() == "Unavailable\n" and
       open(os.path.join(s, "devices/system/cpu/cpu1/cache/index3/id")).read()
       == "1\n", "resctrl: gold's Error, batch's Unavailable, CPU 1's L3 id 1")
    ok(T.main(["resctrl", r]) == 2 and T.main(["resctrl", r, s, "x"]) == 2,
       "a wrong command line: exit 2")
sys.exit(done())
