#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fake sysfs and resctrl trees for the Python and shell tests, and the
fuzz seeds: one description, two outputs.

A tree is described as a list of records (path, content): content is a
str or bytes (a regular file of those bytes), or DIR, FIFO, RM (make a
directory, make a FIFO, remove the path).  Records apply in order, so a
later one may overwrite, replace or remove an earlier one.

  write(root, records)     the tree on disk, under root (parents made);
                           rewriting a file keeps its inode, so a reader
                           that holds it open sees the new bytes
  encode(records)          the same as the fuzz corpus holds it:
                           NUL-separated b"path\\x01content", PHASE2 as
                           b"\\x03" (tests/fuzz/fuzz_sysfs.c and
                           fuzz_resctrl_tree.c read it, fuzz_tree.h
                           writes it into their temporary tree)
  cpulist(cpus), hexmask(cpus, nbits)
                           the kernel's two printed forms of a mask
  sysfs(ncpus, caches, ...)
                           the records of a small sysfs machine: online,
                           each CPU's cache/indexK/{level,id} and
                           topology/physical_package_id (the C tests'
                           twin: fake_sysfs() in tests/support/fake_tree.c)
  resctrl_demo(tick)       the small resctrl mount of tests/cli/resctrl.sh,
                           docs/counters.md and scripts/demo.sh

As a command, for the shell tests:

  fake_tree.py resctrl ROOT SYSFS [TICK]
      the resctrl mount under ROOT and its sysfs under SYSFS, counters as
      after TICK (default 0) steps of a steady workload; run again with
      TICK+1 to advance them (a sampler's open files see the new values).

The C tests write their trees in process (tests/support/fake_tree.c):
they garble and rewrite files between library calls, thousands of times.
"""
import os
import sys

DIR, FIFO, RM = b"\x02dir", b"\x02fifo", b"\x02rm"
PHASE2 = None  # in encode(): the fuzz record that ends phase 1


def cpulist(cpus):
    """"0-3,8" for {0, 1, 2, 3, 8}: the kernel's %*pbl."""
    cpus = sorted(cpus)
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(out)


def hexmask(cpus, nbits):
    """The kernel's %*pb: 32-bit words high first, the first one only as
    wide as nbits needs."""
    v = 0
    for c in cpus:
        v |= 1 << c
    chunks = []
    for k in range((nbits + 31) // 32):
        chunks.append((v >> (32 * k)) & 0xffffffff)
    chunks.reverse()
    first_digits = ((nbits % 32) + 3) // 4 if nbits % 32 else 8
    s = [f"{chunks[0]:0{first_digits}x}"] + [f"{c:08x}" for c in chunks[1:]]
    return ",".join(s)


def _bytes(body):
    return body if isinstance(body, bytes) else body.encode()


def put(path, body):
    """One file at @path (parents made) holding @body (str or bytes),
    rewritten in place when it exists."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(_bytes(body))


def _rm(path):
    if os.path.isdir(path) and not os.path.islink(path):
        for name in os.listdir(path):
            _rm(os.path.join(path, name))
        os.rmdir(path)
    elif os.path.lexists(path):
        os.remove(path)


def write(root, records):
    """Apply @records under @root (made if missing)."""
    os.makedirs(root, exist_ok=True)
    for rec in records:
        if rec is PHASE2:
            continue
        rel, body = rec
        path = os.path.join(root, rel)
        body = _bytes(body)
        if body == RM:
            _rm(path)
        elif body == DIR:
            os.makedirs(path, exist_ok=True)
        elif body == FIFO:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if not os.path.exists(path):
                os.mkfifo(path)
        else:
            put(path, body)


def encode(records):
    """@records as the fuzz corpus holds them."""
    return b"\0".join(b"\x03" if r is PHASE2 else
                      _bytes(r[0]) + b"\x01" + _bytes(r[1]) for r in records)


def sysfs(ncpus, caches, package=lambda c: c // 2, online=None,
          prefix="devices/system/cpu"):
    """A sysfs of CPUs 0..ncpus-1, cpu/online "0-N" unless @online; for
    each CPU c, each (index, level, id) of @caches, id a function of c
    (None: no such cache on c), and physical_package_id package(c)."""
    recs = [(prefix + "/online", online or "0-%d\n" % (ncpus - 1))]
    for c in range(ncpus):
        d = "%s/cpu%d" % (prefix, c)
        for index, level, cid in caches:
            i = cid(c)
            if i is not None:
                recs += [("%s/cache/index%d/level" % (d, index), "%d\n" % level),
                         ("%s/cache/index%d/id" % (d, index), "%d\n" % i)]
        recs.append((d + "/topology/physical_package_id", "%d\n" % package(c)))
    return recs


def resctrl_demo(tick=0):
    """(resctrl records, sysfs records) of a 2-CPU machine whose CPU c
    has L3 cache id c: two monitoring domains, mon_L3_00 and mon_L3_01.
    Groups: the root, mon_groups/web, mon_groups/batch, the control group
    gold and its gold/mon_groups/db.  batch's mbm_local_bytes reads
    "Unavailable" in domain 1; gold's mbm_total_bytes reads "Error" in
    domain 0.  Counters as after @tick steps of a steady workload."""
    same = lambda c: c  # noqa: E731
    sys_recs = sysfs(2, [(0, 1, same), (3, 3, same), (1, 1, same),
                         (2, 2, same)], package=lambda c: 0)

    def group(d, rate):
        recs = []
        for dom in (0, 1):
            m = "%smon_data/mon_L3_0%d/" % (d, dom)
            total = (1000 + tick * rate * (dom + 1)) * 1000000
            recs += [(m + "mbm_total_bytes", "%d\n" % total),
                     (m + "mbm_local_bytes", "%d\n" % (total // 4 * 3)),
                     (m + "llc_occupancy",
                      "%d\n" % ((rate * 256 + dom * 128) * 1024))]
        return recs

    r = [("info/L3_MON/mon_features",
          "llc_occupancy mbm_total_bytes mbm_local_bytes\n"),
         ("tasks", "0\n")]
    r += group("", 1) + group("mon_groups/web/", 40)
    r += group("mon_groups/batch/", 250)
    r += [("mon_groups/batch/mon_data/mon_L3_01/mbm_local_bytes",
           "Unavailable\n")]
    r += group("gold/", 10)
    r += [("gold/mon_data/mon_L3_00/mbm_total_bytes", "Error\n"),
          ("gold/schemata", "L3:0=ff;1=ff\n")]
    r += group("gold/mon_groups/db/", 120)
    return r, sys_recs


def main(argv):
    if len(argv) in (3, 4) and argv[0] == "resctrl":
        try:
            tick = int(argv[3]) if len(argv) == 4 else 0
        except ValueError:
            tick = -1
        if tick >= 0:
            r, s = resctrl_demo(tick)
            write(argv[1], r)
            write(argv[2], s)
            return 0
    print("usage: fake_tree.py resctrl ROOT SYSFS [TICK]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
