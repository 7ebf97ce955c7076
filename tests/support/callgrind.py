"""Instruction counts under valgrind's callgrind, for the perf tests
(tests/perf/*_instr.py): deterministic where time is not.

  available()                   valgrind and callgrind_annotate installed
  count(argv, toggles, out)     run argv under callgrind, collecting only
                                inside the functions named in toggles
                                (--toggle-collect: a toggled function
                                called inside another one switches
                                collection off for its own duration);
                                returns (exit status, instructions), the
                                count None when the run left no totals
"""
import os
import shutil
import subprocess


def available():
    return bool(shutil.which("valgrind") and shutil.which("callgrind_annotate"))


def count(argv, toggles, out):
    r = subprocess.run(["valgrind", "--tool=callgrind",
                        "--callgrind-out-file=" + out] +
                       ["--toggle-collect=" + t for t in toggles] + argv,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       cwd=os.path.dirname(out))
    if r.returncode == 0 and os.path.exists(out):
        with open(out) as f:
            for line in f:
                if line.startswith("summary:") or line.startswith("totals:"):
                    return r.returncode, int(line.split()[1])
    return r.returncode, None
