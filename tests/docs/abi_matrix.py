#!/usr/bin/env python3
"""docs/abi.md's matrix cannot go stale: the table between the abi-matrix
markers is what scripts/abi-matrix docs generates from the committed data
file docs/data/abi-matrix.json, byte for byte.

  abi_matrix.py SOURCE-ROOT     TAP

Also: the data file is a well-formed matrix (every run's checks in order,
verdicts pass / FAIL / n/a, exit 1 exactly with a FAIL, a run with a FAIL
confirmed by a second one); it holds the host and every kernel line x
arch of make check-kernels; the table read back (an independent parse of
the markdown, not the generator) shows every recorded verdict in its
row; a verdict flipped in a copy of the data changes the generated page;
and where a run breaks a promise, the page names the public report.
"""
import copy
import os
import sys

ROOT = sys.argv[1]
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
from kernel_lab import abi_matrix as M  # noqa: E402
from tap import diag, failures, ok  # noqa: E402

DATA = os.path.join(ROOT, "docs", "data", "abi-matrix.json")
DOC = os.path.join(ROOT, "docs", "abi.md")
REPORT = "[REGRESSION] rseq: refactoring in v6.19 broke everyone on arm64"

print("1..6")
try:
    data = M.load(DATA)
    err = None
except M.MatrixError as e:
    data, err = None, str(e)
ok(data is not None and data["runs"],
   f"{os.path.relpath(DATA, ROOT)} is a well-formed matrix"
   f"{': ' + err if err else ''}")
if data is None:
    sys.exit(1)

have = {(r["line"], r["arch"]) for r in data["runs"]}
missing = [f"{ln} {a}" for a in M.ARCHES for ln in M.LINES_OF[a] if (ln, a) not in have]
ok(not missing and any(r["line"] == "host" for r in data["runs"]),
   "it holds the host and every line x arch of make check-kernels"
   f"{': missing ' + ', '.join(missing) if missing else ''}")

with open(DOC) as f:
    page = f.read()
try:
    want = M.render(page, data)
except M.MatrixError as e:
    want = None
    diag(str(e))
ok(want == page, "docs/abi.md's table is the one generated from the data file "
   "(scripts/abi-matrix docs rewrites it)")
if want is not None and want != page:
    import difflib
    diag("".join(difflib.unified_diff(page.splitlines(True), want.splitlines(True),
                                      "docs/abi.md", "generated")))

# Read the page's table back, as markdown, and find each run's verdicts.
b, e = M.MARKERS
block = page.split(b, 1)[-1].split(e, 1)[0] if b in page else ""
rows = [[c.strip() for c in ln.strip().strip("|").split("|")]
        for ln in block.splitlines() if ln.startswith("| ") and not ln.startswith("| line")]
wrong = []
for r in data["runs"]:
    row = [x for x in rows if x[0] == r["line"] and x[2] == M.ARCH_NAME[r["arch"]]
           and x[3].split(" ")[0].rstrip(",") == str(r["run"])]
    if len(row) != 1:
        wrong.append(f"{r['line']} {r['arch']} run {r['run']}: {len(row)} rows")
        continue
    shown = [c.split(" ")[0] for c in row[0][4:]]
    # a run recorded before a later check existed shows it as not run
    said = [c["verdict"] for c in r["checks"]] + [M.NOT_RUN] * (len(M.CHECKS) - len(r["checks"]))
    if row[0][1] != r["kernel"] or shown != said:
        wrong.append(f"{r['line']} {r['arch']} run {r['run']}: shows {row[0][1]} {shown}")
ok(not wrong and len(rows) == len(data["runs"]),
   f"the page's table, read back, shows each of the {len(data['runs'])} runs' kernel "
   f"and verdicts ({len(rows)} rows){': ' + '; '.join(wrong) if wrong else ''}")

# The comparison is not blind: one verdict flipped in a copy changes it.
flip = copy.deepcopy(data)
c = flip["runs"][-1]["checks"][2]
c["verdict"] = "pass" if c["verdict"] != "pass" else "FAIL"
ok(want is not None and M.render(page, flip) != want,
   f"a flipped {c['name']} verdict ({flip['runs'][-1]['kernel']}) changes the generated page")

fails = [r for r in data["runs"] if r["exit"] == 1 and r["line"] != "host"]
outside = page.replace(block, "")
ok(not fails or REPORT in outside,
   f"{len(fails)} runs break a promise; the page names the public report "
   f"({REPORT!r}) outside the table")
sys.exit(1 if failures() else 0)
