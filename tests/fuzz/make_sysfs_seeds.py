#!/usr/bin/env python3
# Seeds for fuzz_sysfs from the saved trees in tests/data/sysfs: each tree's
# files (list forms first; hex forms only where a tree has no list) as
# NUL-separated "path\x01content" records.  Run from the repository root:
#   python3 tests/fuzz/make_sysfs_seeds.py
# The records are tests/support/fake_tree.py's descriptions.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from fake_tree import encode  # noqa: E402

DATA = "tests/data/sysfs"
OUT = "tests/fuzz/corpus/sysfs"
os.makedirs(OUT, exist_ok=True)


def records(tree, keep):
    base = os.path.join(DATA, tree, "devices/system")
    recs = []
    for d, _, files in sorted(os.walk(base)):
        for f in sorted(files):
            full = os.path.join(d, f)
            rel = os.path.relpath(full, base)
            if keep(rel):
                with open(full, "rb") as fh:
                    recs.append((rel, fh.read()))
    return recs


def small(rel):
    name = rel.rsplit("/", 1)[-1]
    return name in ("possible", "online", "core_cpus_list", "package_cpus_list",
                    "thread_siblings_list", "core_siblings_list", "cpulist",
                    "die_cpus_list", "cluster_cpus_list", "shared_cpu_list",
                    "level", "type", "shared_cpu_map", "thread_siblings",
                    "core_siblings", "cpumap")


def cpus_below(n):
    def keep(rel):
        parts = rel.split("/")
        if len(parts) > 2 and parts[0] == "cpu" and parts[1].startswith("cpu"):
            num = parts[1][3:]
            if num.isdigit() and int(num) >= n:
                return False
        return small(rel)
    return keep


for tree in sorted(os.listdir(DATA)):
    if not os.path.isdir(os.path.join(DATA, tree)):
        continue
    data = encode(records(tree, cpus_below(10 ** 6)))
    if len(data) > 16384:  # the harness's limit: keep the first CPUs only
        for n in (16, 8, 4, 2):
            data = encode(records(tree, cpus_below(n)))
            if len(data) <= 16384:
                break
    with open(os.path.join(OUT, tree), "wb") as fh:
        fh.write(data)
# the hostile ones: a FIFO, a directory, a misspelt index, a stride file
fifo = b"cpu/possible\x010-1\0cpu/online\x01\x02fifo"
dirr = b"cpu/possible\x01\x02dir"
stride = b"cpu/possible\x01" + b"0-8191:1/1," * 1000 + b"\0cpu/online\x010"
index07 = (b"cpu/possible\x010\0cpu/online\x010\0cpu/cpu0/topology/core_cpus_list\x010\0"
           b"cpu/cpu0/topology/package_cpus_list\x010\0cpu/cpu0/cache/index3/level\x013\0"
           b"cpu/cpu0/cache/index3/type\x01Unified\0cpu/cpu0/cache/index3/shared_cpu_list\x010\0"
           b"cpu/cpu0/cache/index03/level\x013")
for name, data in (("fifo", fifo), ("dir", dirr), ("stride", stride),
                   ("index03", index07)):
    with open(os.path.join(OUT, name), "wb") as fh:
        fh.write(data)
