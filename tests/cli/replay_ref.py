#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/cli/replay_ref.py TRACE JSON [GOAL] - the figures of 'cidkit sim replay
--json' that do not need a policy, worked out again from the trace text by
this plain reader (not trace/text.c): the group's rseq_update events, the
kernel's largest and distinct mm_cids, and the two naive predictors (the
lowest mm_cid not held by another running thread of the group at the
task's switch-in or exec; the task's previous mm_cid).  Then the model's
agreement must beat both and reach GOAL % (default 95, issue 25's goal for
the lazy family; 99 for ownership).  TAP on stdout."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from tap import done, ok  # noqa: E402

LINE = re.compile(r"^\s*(.*)-(\d+)\s+\(\s*([-\d]+)\)\s+\[(\d+)\]\s+\S+\s+[\d.]+: (\w+): (.*)$")
trace, js = sys.argv[1], json.load(open(sys.argv[2]))
goal = int(sys.argv[3]) if len(sys.argv) > 3 else 95
head = {}
threads = set()
on_cpu = {}       # cpu -> pid of the group running there
last = {}         # pid -> last mm_cid
lowest = {}       # pid -> lowest free at its last switch-in
n = lo = prev = 0
seen = set()
started = False


def low(me):
    used = {last.get(p) for c, p in on_cpu.items() if p != me}
    k = 0
    while k in used:
        k += 1
    return k


for line in open(trace):
    if line.startswith("# cidkit-trace:"):
        for kv in line.split()[2:]:
            k, _, v = kv.partition("=")
            head[k] = v
        if "threads" in head:
            threads = {int(x) for x in head["threads"].split(",")}
        continue
    m = LINE.match(line)
    if not m:
        continue
    pid, cpu, ev, f = int(m.group(2)), int(m.group(4)), m.group(5), m.group(6)
    fields = dict(re.findall(r"(\w+)=(\S+)", f))
    if ev == "sched_process_exec" and int(fields["pid"]) == int(head["tgid"]):
        started = True
        on_cpu = {c: p for c, p in on_cpu.items() if c != cpu}
        on_cpu[cpu] = pid
        lowest[pid] = low(pid)
    if not started:
        continue
    if ev == "sched_switch":
        pp, nx = int(fields["prev_pid"]), int(fields["next_pid"])
        if on_cpu.get(cpu) == pp:
            del on_cpu[cpu]
        if nx in threads:
            for c in [c for c, p in on_cpu.items() if p == nx]:
                del on_cpu[c]
            on_cpu[cpu] = nx
            lowest[nx] = low(nx)
    elif ev == "sched_process_exit" or ev == "mm_cid_exit":
        # mm_cid_exit (a kprobe, 6.4-6.18): the line's task gives its CID
        # back for its exit, before sched_process_exit
        p = int(fields["pid"]) if ev == "sched_process_exit" else pid
        on_cpu = {c: q for c, q in on_cpu.items() if q != p}
    elif ev == "rseq_update" and pid in threads:
        cid = int(fields["mm_cid"])
        n += 1
        lo += lowest.get(pid) == cid
        prev += last.get(pid) == cid
        last[pid] = cid
        seen.add(cid)

checks = [
    (js["rseq_updates"] == n, "rseq_update events of the group: %d (reference %d)" % (js["rseq_updates"], n)),
    (js["kernel_distinct"] == len(seen), "kernel's distinct mm_cids: %d (reference %d)" % (js["kernel_distinct"], len(seen))),
    (js["kernel_largest"] == max(seen), "kernel's largest mm_cid: %s (reference %d)" % (js["kernel_largest"], max(seen))),
    (js["naive_lowest"] == lo, "naive lowest-free hits: %d (reference %d)" % (js["naive_lowest"], lo)),
    (js["naive_prev"] == prev, "naive previous-CID hits: %d (reference %d)" % (js["naive_prev"], prev)),
]
model = [p for p in js["policies"] if p["policy"] == js["model"]][0]
checks.append((model["agree"] > lo and model["agree"] > prev,
               "model %s agrees on %d of %d, above lowest-free %d and previous CID %d"
               % (js["model"], model["agree"], n, lo, prev)))
checks.append((model["agree"] * 100 >= goal * n, "model agreement >= %d %% (issue 25's goal): %d of %d" % (goal, model["agree"], n)))
for c, what in checks:
    ok(c, what)
sys.exit(done())
