#!/usr/bin/env python3
"""Regenerate the command outputs shown in docs/check.md:
    python3 tests/check/docblocks.py build/cidkit docs/check.md
Every fenced block whose first line is "$ build/cidkit check ARGS" gets
what the command prints now (without its time line).  tests/check/check.sh
fails when a block is stale; this rewrites them."""
import re
import subprocess
import sys

cidkit, path = sys.argv[1], sys.argv[2]
text = open(path).read()


def fill(m):
    args = m.group(1).split()
    out = subprocess.run([cidkit, "check"] + args, capture_output=True,
                         text=True, check=False).stdout
    out = "".join(l for l in out.splitlines(True) if not l.startswith("time:"))
    return "$ build/cidkit check " + m.group(1) + "\n" + out + "```"


text = re.sub(r"\$ build/cidkit check ([^\n]*)\n.*?```", fill, text, flags=re.S)
open(path, "w").write(text)
