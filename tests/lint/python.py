#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Lint every Python file of the tree with pyflakes (Debian's pyflakes3):
the *.py files under scripts/, tests/, bench/ and examples/, and the
scripts/ commands without the suffix whose first line names python
(scripts/kernel-lab, ...).  pyflakes reports what is wrong, not what is
ugly: unused imports and variables, undefined names, redefinitions,
f-strings without a field, `is` against a literal.  One TAP line per file.

First it lints a file planted with an unused import and an undefined name
and must see both, so a linter that reports nothing cannot pass.

usage: python.py SOURCE_ROOT   (TAP)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from tap import diag, done, ok, skip_all  # noqa: E402

FOLDERS = ("scripts", "tests", "bench", "examples")


def python_files(root):
    found = []
    for top in FOLDERS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__")
            for f in sorted(files):
                p = os.path.join(d, f)
                if f.endswith(".py"):
                    found.append(p)
                elif top == "scripts" and d == os.path.join(root, top):
                    with open(p, "rb") as fh:
                        first = fh.readline()
                    if first.startswith(b"#!") and b"python" in first:
                        found.append(p)
    return found


def pyflakes(cmd, paths):
    """{path: [message lines]} of what pyflakes reports about @paths."""
    r = subprocess.run(cmd + paths, capture_output=True, text=True)
    out = {}
    for line in (r.stdout + r.stderr).splitlines():
        m = re.match(r"(.+?):\d+:(\d+:)? ", line)
        out.setdefault(m.group(1) if m else "?", []).append(line)
    return out, r.returncode


def main():
    root = os.path.abspath(sys.argv[1])
    if shutil.which("pyflakes3"):
        cmd = ["pyflakes3"]
    elif subprocess.run([sys.executable, "-m", "pyflakes", "--version"],
                        capture_output=True).returncode == 0:
        cmd = [sys.executable, "-m", "pyflakes"]
    else:
        skip_all("pyflakes is not installed (scripts/bootstrap.sh installs "
                 "pyflakes3)")
    with tempfile.TemporaryDirectory() as tmp:
        plant = os.path.join(tmp, "plant.py")
        with open(plant, "w") as f:
            f.write("import os\n\n\nprint(undefined_name)\n")
        got, rc = pyflakes(cmd, [plant])
        text = "\n".join(got.get(plant, []))
        ok(rc != 0 and "'os' imported but unused" in text and
           "undefined name 'undefined_name'" in text,
           "pyflakes reports a planted unused import and undefined name",
           detail=text or "(nothing reported)")
    files = python_files(root)
    rel = {os.path.relpath(p, root) for p in files}
    ok(len(files) >= 30 and {"scripts/kernel-lab", "scripts/mutate.py",
                             "tests/support/tap.py"} <= rel,
       f"{len(files)} Python files found, scripts/kernel-lab among them")
    got, _ = pyflakes(cmd, files)
    for p in files:
        ok(p not in got, "pyflakes: " + os.path.relpath(p, root),
           detail=got.get(p, []))
    for p in set(got) - set(files):
        ok(False, "pyflakes: " + p, detail=got[p])
    if got:
        diag("fix what pyflakes3 says, or mark a deliberate line `# noqa`")
    return done()


if __name__ == "__main__":
    sys.exit(main())
