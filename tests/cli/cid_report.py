#!/usr/bin/env python3
"""Hold a `cidkit cid` report against itself and against the machine.

usage: cid_report.py human|json THREADS [OWNER] < report

Every figure the report prints is recomputed from the per-thread rows (or
"per_thread" objects) and from this process's own affinity, as the kernel
defines the bound: largest mm_cid = the largest in any row, distinct = the
size of their union, the union lines = the union of the rows, the bound =
min(allowed CPUs, threads + main), and every mm_cid below it.  Exits 1
with the first disagreement on stderr.
"""
import json
import os
import re
import sys


def cpulist(s):
    """The kernel's cpulist (0-3,8) as a set; '' or '-' is empty."""
    out = set()
    if s in ("", "-", None):
        return out
    for part in s.split(","):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out


def fail(msg):
    print("cid_report: " + msg, file=sys.stderr)
    sys.exit(1)


def check(rows_cpus, rows_cids, union_cpus, union_cids, largest, distinct,
          bound, threads, has_mm_cid):
    allowed = os.sched_getaffinity(0)
    want_bound = min(len(allowed), threads + 1)
    if len(rows_cpus) != threads:
        fail(f"{len(rows_cpus)} thread rows for {threads} threads")
    cpus = set().union(*rows_cpus)
    if union_cpus != cpus:
        fail(f"union of cpus {sorted(union_cpus)} but rows {sorted(cpus)}")
    if not cpus <= allowed:
        fail(f"cpus {sorted(cpus)} outside the allowed {sorted(allowed)}")
    if not has_mm_cid:
        if largest is not None or distinct is not None:
            fail("no mm_cid, yet a largest or distinct figure")
        return
    cids = set().union(*rows_cids)
    if not cids:
        fail("mm_cid available, yet no thread saw one")
    if union_cids != cids:
        fail(f"union of mm_cids {sorted(union_cids)} but rows {sorted(cids)}")
    if largest != max(cids):
        fail(f"largest mm_cid {largest}, rows say {max(cids)}")
    if distinct != len(cids):
        fail(f"{distinct} distinct mm_cids, rows say {len(cids)}")
    if bound != want_bound:
        fail(f"bound {bound}, min(allowed {len(allowed)}, threads "
             f"{threads} + main) = {want_bound}")
    if max(cids) >= want_bound:
        fail(f"mm_cid {max(cids)} not below the kernel bound {want_bound}")


def human(text, threads):
    rows = re.findall(r"^ +(\d+) +(\d+) +(\S+) +(\S+) +(\d+)$", text, re.M)
    u = re.search(r"^all threads: cpus (\S+)(?:; mm_cids (\S+))?$", text,
                  re.M)
    if not u:
        fail("no 'all threads:' line")
    m = re.search(r"^largest mm_cid (\d+), (\d+) distinct; kernel bound "
                  r"min\(allowed CPUs, threads incl\. main\) = (\d+)$",
                  text, re.M)
    has = m is not None
    if not has and not re.search(r"^mm_cid: unavailable", text, re.M):
        fail("neither the largest mm_cid nor 'mm_cid: unavailable'")
    check([cpulist(r[2]) for r in rows], [cpulist(r[3]) for r in rows],
          cpulist(u.group(1)), cpulist(u.group(2)),
          int(m.group(1)) if has else None, int(m.group(2)) if has else None,
          int(m.group(3)) if has else None, threads, has)


def as_json(text, threads, owner):
    d = json.loads(text)
    if d["threads"] != threads:
        fail(f"threads {d['threads']}, asked {threads}")
    r = d["rseq"]
    if owner and r["registered_by"] != owner:
        fail(f"registered by {r['registered_by']}, expected {owner}")
    if r["registered_by"] == "none" and d["percpu"] != {"cpu_id": "atomic",
                                                        "mm_cid": "atomic"}:
        fail(f"no rseq area, yet per-CPU ops {d['percpu']}")
    for t in d["per_thread"]:
        if t["samples"] <= 0:
            fail(f"thread {t['thread']} took no sample")
    has = bool(r["mm_cid"])
    if not has and (d["mm_cids"] is not None or d["mm_cid_bound"] is not None
                    and d["max_mm_cid"] is not None):
        fail("no mm_cid, yet mm_cid figures")
    check([cpulist(t["cpus"]) for t in d["per_thread"]],
          [cpulist(t["mm_cids"]) for t in d["per_thread"]],
          cpulist(d["cpus"]), cpulist(d["mm_cids"]),
          d["max_mm_cid"], d["distinct_mm_cids"] if has else None,
          d["mm_cid_bound"], threads, has)


def main():
    kind, threads = sys.argv[1], int(sys.argv[2])
    owner = sys.argv[3] if len(sys.argv) > 3 else ""
    text = sys.stdin.read()
    human(text, threads) if kind == "human" else as_json(text, threads, owner)


main()
