#!/usr/bin/env python3
"""The replay shows a sanitizer's report even while the harness has
silenced standard error (replay_report.c overflows an int there).

usage: replay_report.py PROGRAM INPUT   (TAP)
"""
import subprocess
import sys

r = subprocess.run(sys.argv[1:3], capture_output=True, text=True, check=False)
ok = r.returncode != 0 and "runtime error: signed integer overflow" in r.stderr
print("1..1")
print("%s 1 - the UBSan report reaches stderr from inside the harness's "
      "silenced fd 2 (exit %d)" % ("ok" if ok else "not ok", r.returncode))
if not ok:
    print("# stderr: " + r.stderr.replace("\n", "\n# "))
sys.exit(0 if ok else 1)
