#!/usr/bin/env python3
"""The hunt: `cidkit stress` in Debian's kernels, one guest per job.

  hunt.py jobs [--kernels K,K...] [--arches A,A...] [--smp N,N...]
               [--seeds N] [--workloads W,W...] [--seconds S]
  hunt.py one KERNEL ARCH SMP WORKLOAD SEED [--seconds S] [--out DIR]
  hunt.py table DIR...
  hunt.py check DOC
  hunt.py boots KERNEL ARCH SMP N [--boot-timeout S] [--cmdline ARGS]
  hunt.py trace KERNEL ARCH SMP WORKLOAD SEED [--seconds S] [--fifo N] --out FILE
  hunt.py rounds TRACE
  hunt.py remap FILE...

`trace` runs the stress as `one` does under `cidkit trace record --stream`
(SCHED_FIFO N, default 50, 0: SCHED_OTHER; each event written to the console at once in the lab's
frame, glibc's rseq area kept so every thread has rseq_update events) and
writes the events that reached the host to FILE, whether CMD ended or the
guest froze (docs/hunt.md "A trace of the run that froze"); one JSON line
on stdout: exit, lines, the last event's time, the vCPUs.  `rounds` reads
such a trace of `vfork-repro`: per round process, its CLONE_VM child (the
child of another thread group: the round makes no other), the crossing
(its last thread's fork), the mm_cids its threads returned to user with
before the crossing and between it and the child's exit, and the CPUs
its threads were switched in on in between, and the CPUs the child was
woken onto in between (the round's end: its SIGKILL).

`boots` boots KERNEL N times in a row (CMD: cat /proc/uptime) with
nokaslr and prints one JSON line per boot: whether it reached /init, the
guest's uptime there, the wall time, the host's load average, and for a
boot that never reached /init the vCPUs' symbols (the "Probing EDD" hang:
docs/hunt.md).

`remap` names again the vCPUs of freeze rows (FILE: `one`'s JSON) that
ran before their kernel's map was taken (`scripts/kernel-lab symbols
--kernel K --arch A`): the raw addresses and the boot's `_text` kept in
the row, the map from the cache; the row says it was remapped.

`jobs` prints one `hunt.py one ...` command line per kernel x arch x smp
x workload x seed (GNU parallel runs them: `hunt.py jobs | parallel -j1`,
`--sshlogin` spreads them over machines); `one` boots KERNEL on ARCH with
SMP vCPUs (scripts/kernel-lab), runs `cidkit stress --workload WORKLOAD
--seed SEED --seconds S --heartbeat 1000 --json` in it and writes one
JSON line (to DIR/K_A_SMP_W_SEED.json with --out, else stdout) with the
verdict:
  pass      the stress ended, every invariant held
  FAIL      it ended, an invariant failed (which, and its detail)
  freeze    CMD did not end within S + 90 s (kernel-lab exit 124): the
            last heartbeat's time (time to freeze) and each vCPU's
            function from QEMU's monitor
  boot      the guest never reached /init in 3 boots (a lab failure)
  panic     the guest stopped without CMD's status
`table` prints the markdown table of the JSON lines in DIR(s); `check`
(make check, tests/docs) says in TAP whether each table of DOC under a
`<!-- hunt-table: DIR... -->` line is what `table DIR...` prints now.
Bounded: each guest is killed S + 90 s after QEMU's start.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LAB = os.path.join(HERE, "kernel-lab")

# every trixie-backports version from 6.19.6 to 7.3.x the mirror held on
# 2026-12-03 (scripts/kernel-lab list): before the fork/vfork fixes
# (6.19.6, 6.19.8), after them, and each 7.x release
KERNELS = ["6.19.6", "6.19.8", "6.19.10", "6.19.11", "6.19.13", "6.19.14",
           "7.0.4", "7.0.7", "7.0.9", "7.0.10", "7.0.12", "7.0.13",
           "7.1.3", "7.1.7", "7.1.8", "7.1.13",
           "7.2.6", "7.2.9", "7.2.11", "7.2.12", "7.3.4"]


def one(a):
    t0 = time.monotonic()
    cmd = [sys.executable, LAB, "run", "--kernel", a.kernel, "--arch", a.arch,
           "--smp", str(a.smp), "--timeout", str(a.seconds + 90),
           "--boot-timeout", "150", "--",
           "cidkit", "stress", "--workload", a.workload, "--seed", str(a.seed),
           "--seconds", str(a.seconds), "--heartbeat", "1000", "--json"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = p.stderr.decode("utf-8", "replace")
    row = dict(kernel=a.kernel, arch=a.arch, smp=a.smp, workload=a.workload,
               seed=a.seed, seconds=a.seconds, exit=p.returncode,
               wall=round(time.monotonic() - t0, 1),
               command=" ".join(["scripts/kernel-lab"] + cmd[2:]))
    beats = [float(m.group(1)) for m in re.finditer(r"^# t=([0-9.]+) s", err, re.M)]
    row["last_heartbeat_s"] = beats[-1] if beats else None
    if p.returncode in (0, 1):
        try:
            r = json.loads(p.stdout)
            row["verdict"] = "pass" if r["ok"] else "FAIL"
            row["invariants"] = {k: v["verdict"] + ": " + v["detail"]
                                 for k, v in r["invariants"].items()}
            row["stress"] = {k: r[k] for k in ("phases", "threads", "clone_vm_children",
                                               "forks", "max_users", "max_mm_cid")}
        except (ValueError, KeyError):
            row["verdict"] = "error"
            row["detail"] = err.strip().splitlines()[-3:]
    elif p.returncode == 124:
        row["verdict"] = "freeze"
        row["kernel_said"] = [l.strip() for l in err.splitlines()
                              if re.search(r"soft lockup|rcu_(preempt|sched) detected|hung_task|blocked for", l)]
        row["vcpus"] = [l.strip() for l in err.splitlines()
                        if l.strip().startswith(("vCPU ", "[kernel-lab] vCPUs"))]
    elif p.returncode == 125 and "boot failure" in err:
        row["verdict"] = "boot"
    elif p.returncode == 125:
        row["verdict"] = "panic"
        row["detail"] = err.strip().splitlines()[-8:]
    else:
        row["verdict"] = "error"
        row["detail"] = err.strip().splitlines()[-3:]
    row["boots_retried"] = err.count("never reached /init")
    # /init's own line: a panic before it is the boot's, not the stress's
    row["init_reached"] = p.returncode in (0, 1) or "running CMD" in err
    line = json.dumps(row)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        name = f"{a.kernel}_{a.arch}_{a.smp}_{a.workload}_{a.seed}.json"
        with open(os.path.join(a.out, name), "w") as f:
            f.write(line + "\n")
    print(line)
    return 0


def jobs(a):
    me = os.path.abspath(__file__)
    for k in a.kernels.split(","):
        for arch in a.arches.split(","):
            for smp in a.smp.split(","):
                for w in a.workloads.split(","):
                    for s in range(1, a.seeds + 1):
                        print(f"{sys.executable} {me} one {k} {arch} {smp} {w} {s} "
                              f"--seconds {a.seconds}" + (f" --out {a.out}" if a.out else ""))
    return 0


def table_lines(dirs):
    """The markdown table of the JSON rows in DIRS, as a list of lines."""
    rows, out = [], []
    for d in dirs:
        for f in sorted(glob.glob(os.path.join(d, "*.json"))):
            rows += [json.loads(l) for l in open(f) if l.strip()]
    out.append("| kernel | arch | vCPUs | workload | seed | verdict | time to freeze (s) | vCPUs at the freeze | wall (s) |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ttf = ""
        if r["verdict"] == "freeze":  # no heartbeat: in the first round
            ttf = r["last_heartbeat_s"] if r["last_heartbeat_s"] is not None else "< round 1's end"
        vc = "; ".join(v.split("  ip")[0] for v in r.get("vcpus", []) if v.startswith("vCPU"))
        if r["verdict"] == "FAIL":
            vc = "; ".join(f"{k}: {v}" for k, v in r["invariants"].items() if v.startswith("FAIL"))
        out.append(f"| {r['kernel']} | {r['arch']} | {r['smp']} | {r['workload']} | {r['seed']} | "
                   f"{r['verdict']} | {ttf} | {vc} | {r['wall']} |")
    return out


def table(a):
    print("\n".join(table_lines(a.dirs)))
    return 0


def check(a):
    """TAP: each table of DOC under a line `<!-- hunt-table: DIR... -->`
    (DIRs from the top of the tree) is what `table DIR...` prints now."""
    top = os.path.dirname(HERE)
    lines = open(a.doc).read().splitlines()
    n = bad = 0
    for i, l in enumerate(lines):
        m = re.match(r"<!-- hunt-table: (.+) -->$", l.strip())
        if not m:
            continue
        n += 1
        dirs = m.group(1).split()
        want = table_lines([os.path.join(top, d) for d in dirs])
        j = i + 1
        while j < len(lines) and not lines[j].startswith("|"):
            j += 1
        have = []
        while j < len(lines) and lines[j].startswith("|"):
            have.append(lines[j])
            j += 1
        ok = have == want and len(want) > 2
        bad += not ok
        print(f"{'ok' if ok else 'not ok'} {n} - {os.path.basename(a.doc)} line {i + 1}: "
              f"the table of {' '.join(dirs)} ({len(want) - 2} rows)")
        if not ok:
            for k, (h, w) in enumerate(zip(have + [""] * len(want), want + [""] * len(have))):
                if h != w:
                    print(f"#   table line {k + 1}: page {h!r}\n#   data {w!r}")
                    break
    if not n:
        print(f"not ok 1 - {a.doc}: no <!-- hunt-table: DIR... --> line")
        n, bad = 1, 1
    print(f"1..{n}")
    return 1 if bad else 0


def boots(a):
    for i in range(a.n):
        t0 = time.monotonic()
        load = os.getloadavg()[0]
        cmd = [sys.executable, LAB, "run", "--kernel", a.kernel, "--arch", a.arch,
               "--smp", str(a.smp), "--timeout", str(a.boot_timeout + 60),
               "--boot-timeout", str(a.boot_timeout),
               "--cmdline", ("nokaslr " + a.cmdline).strip(), "--", "cat", "/proc/uptime"]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        err = p.stderr.decode("utf-8", "replace")
        hung = err.count("never reached /init")
        row = dict(boot=i + 1, kernel=a.kernel, smp=a.smp, cmdline=a.cmdline,
                   exit=p.returncode, hung_boots=hung, load=round(load, 1),
                   wall=round(time.monotonic() - t0, 1),
                   uptime=(p.stdout.split() or [b"?"])[0].decode(),
                   vcpus=[l.strip() for l in err.splitlines() if l.strip().startswith("vCPU ")])
        if p.returncode != 0:
            row["tail"] = err.strip().splitlines()[-24:]
        print(json.dumps(row), flush=True)
    return 0


def trace(a):
    fifo = f"--fifo {a.fifo} " if a.fifo else ""
    rec = ("exec cidkit trace record --stream " + fifo + "--buffer-kb 4096 "
           "--line-prefix \"$(cat /lab/token):o @ \" --out /dev/console -- "
           "env CIDKIT_STRESS_REEXEC=1 cidkit stress --workload "
           f"{a.workload} --seed {a.seed} --seconds {a.seconds} --heartbeat 1000 --json")
    cmd = [sys.executable, LAB, "run", "--stream", "--kernel", a.kernel, "--arch", a.arch,
           "--smp", str(a.smp), "--timeout", str(a.seconds + 90),
           "--boot-timeout", "150", "--", "sh", "-c", rec]
    t0 = time.monotonic()
    arrived = []  # (seconds since the start on the host, line)
    with tempfile.TemporaryFile() as ef:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=ef)
        for raw in p.stdout:
            arrived.append((time.monotonic() - t0, raw.decode("utf-8", "replace").rstrip("\n")))
        p.wait()
        ef.seek(0)
        err = ef.read().decode("utf-8", "replace")
    lines = [l[2:] for _, l in arrived if l.startswith("@ ")]
    # the lag of each event behind the first one's: host arrival minus
    # guest time, both counted from the first event (clocks not aligned)
    lag = []
    for h, l in arrived:
        m = re.search(r"\] \S+ +([0-9]+\.[0-9]+): ", l) if l.startswith("@ ") else None
        if m:
            lag.append((h, float(m.group(1))))
    lags = sorted((h - lag[0][0]) - (g - lag[0][1]) for h, g in lag)
    with open(a.out, "w") as f:
        f.write("".join(l + "\n" for l in lines))
    ts = [float(m.group(1)) for l in lines
          for m in [re.search(r"\] \S+ +([0-9]+\.[0-9]+): ", l)] if m]
    row = dict(kernel=a.kernel, arch=a.arch, smp=a.smp, workload=a.workload,
               seed=a.seed, fifo=a.fifo, exit=p.returncode,
               wall=round(time.monotonic() - t0, 1), events=sum(not l.startswith("#") for l in lines),
               ended=any(l.startswith("# cidkit-trace: stream-end") for l in lines),
               first_event_s=ts[0] if ts else None, last_event_s=ts[-1] if ts else None,
               lag_s=dict(median=round(lags[len(lags) // 2], 3), max=round(lags[-1], 3),
                          last=round((lag[-1][0] - lag[0][0]) - (lag[-1][1] - lag[0][1]), 3))
               if lags else None,
               last_line_host_s=round(lag[-1][0], 1) if lag else None,
               vcpus=[l.strip() for l in err.splitlines() if l.strip().startswith("vCPU ")],
               command=" ".join(["scripts/kernel-lab"] + cmd[2:]))
    if p.returncode:
        row["tail"] = err.strip().splitlines()[-12:]
    print(json.dumps(row))
    return 0


EVENT = re.compile(r"-(\d+) +\(\s*([0-9-]+)\) \[(\d+)\] \S+ +([0-9.]+): (\w+): (.*)")


def rounds(a):
    ev, top = [], None
    for l in open(a.trace):
        m = re.match(r"# cidkit-trace: .*tgid=(\d+)", l)
        if m and top is None:
            top = int(m.group(1))
        m = EVENT.search(l)
        if m and not l.startswith("#"):
            ev.append((int(m.group(1)), m.group(2), int(m.group(3)), float(m.group(4)),
                       m.group(5), m.group(6)))
    tg_of, exit_t, kids = {}, {}, {}
    for pid, tg, cpu, t, name, rest in ev:
        if tg.isdigit():
            tg_of[pid] = int(tg)
        if name == "sched_process_exit":
            exit_t[int(re.search(r" pid=(\d+)", rest).group(1))] = t
        if name != "sched_process_fork":
            continue
        c = int(re.search(r"child_pid=(\d+)", rest).group(1))
        if pid == top:  # CMD execs env, then the stress: one pid
            kids[c] = []
        elif pid in kids:
            kids[pid].append((c, t))
    for r, ks in sorted(kids.items()):
        if tg_of.get(r) != r:
            continue  # a thread of the stress, not a round's process
        vm = [c for c, _ in ks if tg_of.get(c, r) != r]
        if len(ks) < 4 or not vm:
            seen = sorted({int(re.search(r"mm_cid=(\d+)", e[5]).group(1)) for e in ev
                           if e[4] == "rseq_update" and tg_of.get(e[0]) == r})
            print(f"round {r}: {len(ks)} children recorded (CLONE_VM child "
                  f"{vm[0] if vm else '?'}), mm_cids {seen}; the trace ends before "
                  f"the crossing, at {ev[-1][3]:.3f} s")
            continue
        cross, vexit = ks[-1][1], exit_t.get(vm[0], float("inf"))
        pre, post, cpus = set(), set(), set()
        for pid, tg, cpu, t, name, rest in ev:
            if name == "rseq_update" and tg_of.get(pid) == r:
                cid = int(re.search(r"mm_cid=(\d+)", rest).group(1))
                if t < cross:
                    pre.add(cid)
                elif t < vexit:
                    post.add(cid)
            if name == "sched_switch" and cross < t < vexit:
                if tg_of.get(int(re.search(r"next_pid=(\d+)", rest).group(1))) == r:
                    cpus.add(cpu)
        woken = [int(re.search(r"target_cpu=(\d+)", e[5]).group(1)) for e in ev
                 if e[4] == "sched_wakeup" and cross < e[3] < vexit
                 and re.search(rf" pid={vm[0]} ", e[5])]
        gone = (f"child's exit {vexit - cross:.3f} s later" if vexit != float("inf")
                else "no exit of the child")
        print(f"round {r}: child {vm[0]}, crossing at {cross:.3f} s, {gone}; "
              f"mm_cids before {sorted(pre)}, between {sorted(post)}; CPUs running "
              f"the group between {sorted(cpus)}; the child woken onto CPU "
              f"{', '.join(map(str, woken)) or '-'}")
    return 0


VCPU_LINE = re.compile(r"^vCPU (\d+): .*  ip ((?:[0-9a-f]+ ?)+)$")


def remap(a):
    sys.path.insert(0, HERE)
    from kernel_lab import kernels, monitor, symbols
    bad = 0
    for path in a.files:
        with open(path) as f:
            r = json.loads(f.readline())
        head = (r.get("vcpus") or [""])[0]
        m = re.search(r"_text ([0-9a-f]+)", head)
        if r.get("verdict") != "freeze" or not m:
            print(f"hunt.py: {path}: no vCPUs with the boot's _text to map", file=sys.stderr)
            bad = 1
            continue
        apt = kernels.Apt()
        k = kernels.cached_match(apt, r["kernel"], r["arch"])
        syms = symbols.lookup(apt.image_path(k), r["arch"]) if k else None
        if syms is None:
            print(f"hunt.py: {path}: no map of {r['kernel']} {r['arch']} in the cache "
                  f"(scripts/kernel-lab symbols --kernel {r['kernel']} --arch {r['arch']})",
                  file=sys.stderr)
            bad = 1
            continue
        samples = []
        for l in r["vcpus"][1:]:
            v = VCPU_LINE.match(l)
            if not v:
                continue
            for i, ip in enumerate(v.group(2).split()):
                while len(samples) <= i:
                    samples.append({})
                samples[i][int(v.group(1))] = int(ip, 16)
        text = monitor.describe(samples, syms, int(m.group(1), 16)).decode()
        r["vcpus"] = [l.strip() for l in text.splitlines()]
        r["remapped"] = f"hunt.py remap, {time.strftime('%Y-%m-%d')}: {syms.what} taken after the run"
        with open(path, "w") as f:
            f.write(json.dumps(r) + "\n")
        print(f"{path}: " + "; ".join(l.split("  ip")[0] for l in r["vcpus"][1:]))
    return bad


def main():
    p = argparse.ArgumentParser(prog="hunt.py")
    sub = p.add_subparsers(dest="cmd", required=True)
    j = sub.add_parser("jobs")
    j.add_argument("--kernels", default=",".join(KERNELS))
    j.add_argument("--arches", default="x86_64,arm64")
    j.add_argument("--smp", default="4,8")
    j.add_argument("--workloads", default="vfork-repro,fork-race,mixed")
    j.add_argument("--seeds", type=int, default=2)
    j.add_argument("--seconds", type=int, default=60)
    j.add_argument("--out")
    o = sub.add_parser("one")
    o.add_argument("kernel")
    o.add_argument("arch", choices=["x86_64", "arm64"])
    o.add_argument("smp", type=int)
    o.add_argument("workload")
    o.add_argument("seed", type=int)
    o.add_argument("--seconds", type=int, default=60)
    o.add_argument("--out")
    b = sub.add_parser("boots")
    b.add_argument("kernel")
    b.add_argument("arch", choices=["x86_64", "arm64"])
    b.add_argument("smp", type=int)
    b.add_argument("n", type=int)
    b.add_argument("--boot-timeout", type=int, default=60)
    b.add_argument("--cmdline", default="")
    r = sub.add_parser("trace")
    r.add_argument("kernel")
    r.add_argument("arch", choices=["x86_64", "arm64"])
    r.add_argument("smp", type=int)
    r.add_argument("workload")
    r.add_argument("seed", type=int)
    r.add_argument("--seconds", type=int, default=30)
    r.add_argument("--fifo", type=int, default=50)
    r.add_argument("--out", required=True)
    rd = sub.add_parser("rounds")
    rd.add_argument("trace")
    rm = sub.add_parser("remap")
    rm.add_argument("files", nargs="+")
    t = sub.add_parser("table")
    t.add_argument("dirs", nargs="+")
    c = sub.add_parser("check")
    c.add_argument("doc")
    a = p.parse_args()
    return {"jobs": jobs, "one": one, "table": table, "boots": boots, "check": check,
            "trace": trace, "rounds": rounds, "remap": remap}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
