#!/usr/bin/env python3
"""The replay shows a sanitizer's report even while the harness has
silenced standard error (replay_report.c overflows an int there).

usage: replay_report.py PROGRAM INPUT   (TAP)
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from tap import done, ok  # noqa: E402

r = subprocess.run(sys.argv[1:3], capture_output=True, text=True, check=False)
ok(r.returncode != 0 and "runtime error: signed integer overflow" in r.stderr,
   "the UBSan report reaches stderr from inside the harness's "
   "silenced fd 2 (exit %d)" % r.returncode, detail=["stderr:"] + r.stderr.splitlines())
sys.exit(done())
