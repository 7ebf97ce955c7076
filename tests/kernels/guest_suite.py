#!/usr/bin/env python3
"""Our per-CPU and rseq tests on a real kernel: one guest of the kernel lab.

  guest_suite.py KERNEL-LAB KERNEL ARCH [CPUS] [--matrix FILE] [--abi-out FILE]

Boots KERNEL (a suite or version, scripts/kernel-lab) on ARCH with CPUS
(default 4) and runs inside, built for ARCH: test_percpu_api,
test_rseq_cpu, test_rseq_mm_cid, test_rseq_threads, test_percpu_sums and
`cidkit cid --json`.  TAP out, one line per program plus the paths.

What is expected comes from outside cidkit: the kernel's version from
uname (mm_cid exists from Linux 6.3 on: "sched: Introduce per-memory-map
concurrency ID", and rseq's feature size 28 with it), the architecture
(cidkit has rseq critical sections on x86-64 and arm64: both must take
the rseq path and say so), the guest's CPU count.  A program's SKIP is
accepted only where the kernel lacks the feature; a kernel that cannot be
had (no network, unknown version) is a failure with kernel-lab's reason.

`cidkit abi --json` must give readable JSON, exit 1 exactly when a check
FAILs, and each check the verdict the committed matrix
(docs/data/abi-matrix.json, --matrix FILE) recorded for this kernel
release (uname -r) and architecture -- any of them when its runs differ;
a release the matrix has no run of must keep every promise (pass, or n/a
with a reason).  A timed check's n/a (no event landed in its time) is
inconclusive and accepted (abi_matrix.differences()).  So a kernel known (and recorded) to break rseq's
promises does not fail the suite, a changed verdict does, in either
direction.  On such a kernel the programs whose sums rely on the kernel
aborting critical sections (percpu_api, percpu_sums, percpu_fence,
rseq_threads) may fail: their failure is then `not ok ... # TODO` naming
the broken promise (TAP: not counted), their success is still reported.
--abi-out FILE writes the abi result with the line, arch, package and
date (scripts/abi-matrix record takes it: make check-kernels).
A guest that stops before CMD's status (kernel-lab exit 125, a panic while
booting under TCG at high load) is booted again, at most twice.
"""
import datetime
import json
import os
import re
import subprocess
import sys

from tap import diag, failures, ok

GUEST = r'''
echo "=== uname $(uname -r)"
echo "=== nproc $(nproc)"
run() { n=$1; shift; echo "=== begin $n"; "$@" 2>&1; echo "=== end $n $?"; }
run percpu_api test_percpu_api
run rseq_cpu test_rseq_cpu
run rseq_mm_cid test_rseq_mm_cid
run rseq_threads test_rseq_threads
run percpu_sums env CIDK_EXPECT_PATH=%(path)s test_percpu_sums
run percpu_fence test_percpu_fence
run cid cidkit cid --threads 6 --duration 500 --json
run abi cidkit abi --json
'''

def tap_result(text):
    """(plan, skip reason or None, oks, not_oks) of a TAP program's output."""
    plan = skip = None
    good = bad = 0
    for line in text.splitlines():
        m = re.match(r"^1\.\.(\d+)(?:\s*#\s*SKIP\s*(.*))?$", line)
        if m:
            plan = int(m.group(1))
            skip = m.group(2) if m.group(2) is not None else (None if plan else "")
        elif re.match(r"^ok \d+", line):
            good += 1
        elif re.match(r"^not ok \d+", line):
            bad += 1
    return plan, skip, good, bad


def version_tuple(release):
    m = re.match(r"^(\d+)\.(\d+)", release)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


# Programs whose exact sums need the kernel to abort a preempted,
# migrated or signalled critical section (the rseq path of cidk_percpu_*).
NEEDS_ABORTS = ("percpu_api", "percpu_sums", "percpu_fence", "rseq_threads")
ABORT_CHECKS = ("abort-preempt", "abort-migrate", "abort-signal", "membarrier-rseq")


def options(argv):
    pos, opt = [], {"--matrix": None, "--abi-out": None}
    i = 0
    while i < len(argv):
        if argv[i] in opt and i + 1 < len(argv):
            opt[argv[i]] = argv[i + 1]
            i += 2
        else:
            pos.append(argv[i])
            i += 1
    return pos, opt


def main():
    pos, opt = options(sys.argv[1:])
    lab, kernel, arch = pos[0:3]
    cpus = int(pos[3]) if len(pos) > 3 else 4
    sys.path.insert(0, os.path.dirname(os.path.abspath(lab)))
    from kernel_lab import abi_matrix  # noqa: E402
    try:
        matrix = abi_matrix.load(opt["--matrix"] or abi_matrix.DATA)
    except abi_matrix.MatrixError as e:
        print("1..1")
        ok(False, f"the abi matrix {opt['--matrix'] or abi_matrix.DATA}: {e}")
        return 1
    # cidkit's rseq critical sections exist for x86-64 and aarch64
    # (include/cidkit/arch/); elsewhere every operation takes the atomic
    # fallback.
    want_cpu_path = "rseq" if arch in ("x86_64", "arm64") else "atomic"
    script = GUEST % {"path": want_cpu_path}
    cmd = [lab, "run", "--kernel", kernel, "--arch", arch,
           "--smp", str(cpus), "--timeout", "400", "--", "sh", "-c", script]
    boots = 1
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while p.returncode == 125 and boots < 3:
        # As topo_shapes.py: a panic while booting under TCG, not an answer.
        print(f"# a boot stopped before CMD "
              f"({(p.stderr.strip().splitlines() or ['?'])[-1]}); booted again")
        boots += 1
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    where = f"{kernel}/{arch}"
    if p.returncode != 0:
        print("1..1")
        reason = (p.stderr.strip().splitlines() or ["no message"])[-1]
        ok(False, f"{where}: kernel-lab exited {p.returncode}: {reason}"
           f"{f' (boot {boots})' if boots > 1 else ''}")
        diag(p.stderr)
        return 1
    out = p.stdout
    release = (re.findall(r"^=== uname (\S+)", out, re.M) or ["?"])[0]
    nproc = int((re.findall(r"^=== nproc (\d+)", out, re.M) or ["0"])[0])
    blocks = {m.group(1): (m.group(2), int(m.group(3))) for m in re.finditer(
        r"^=== begin (\S+)\n(.*?)^=== end \1 (\d+)$", out, re.M | re.S)}
    has_mm_cid = version_tuple(release) >= (6, 3)
    where = f"{kernel} ({release}) on {arch}, {nproc} CPUs"
    # What the matrix recorded for this kernel (None: a release it has not
    # run): the abort promises it breaks excuse the programs that need them.
    want = abi_matrix.expected(matrix, release, arch)
    broken = [c for c in ABORT_CHECKS if want and "FAIL" in want.get(c, ())]
    print("1..10")
    ok(nproc == cpus, f"{where}: the guest booted with {cpus} CPUs")

    for name in ("percpu_api", "rseq_cpu", "rseq_mm_cid", "rseq_threads",
                 "percpu_sums", "percpu_fence"):
        text, rc = blocks.get(name, ("", -1))
        plan, skip, good, bad = tap_result(text)
        if skip is not None and plan == 0:
            # A skip is honest only where the kernel lacks what is skipped.
            honest = name == "rseq_mm_cid" and not has_mm_cid
            ok(honest and rc == 0,
               f"{name}: skipped ({skip}); kernel {release} "
               f"{'has no' if not has_mm_cid else 'has'} mm_cid",
               "SKIP " + skip if honest else "")
            if not honest:
                diag(text)
            continue
        good_run = rc == 0 and plan is not None and plan > 0 and good == plan and bad == 0
        excused = not good_run and name in NEEDS_ABORTS and broken
        ok(good_run, f"{name}: exit {rc}, {good}/{plan} ok",
           f"TODO {release} {arch} breaks {', '.join(broken)} (docs/data/abi-matrix.json)"
           if excused else "")
        if not good_run:
            diag(text)

    # Which path ran, as percpu_sums says it and as it must be here.
    text = blocks.get("percpu_sums", ("", 0))[0]
    m = re.search(r"mm_cid path (\w+) \(.*\), cpu_id path (\w+)", text)
    got_cid, got_cpu = (m.group(1), m.group(2)) if m else ("?", "?")
    want_cid = "rseq" if want_cpu_path == "rseq" and has_mm_cid else "atomic"
    why = ("rseq critical sections" if want_cpu_path == "rseq" else
           f"atomic fallback: cidkit has no {arch} critical sections")
    ok(got_cpu == want_cpu_path and got_cid == want_cid,
       f"per-CPU path: cpu_id {got_cpu}, mm_cid {got_cid} "
       f"(want cpu_id {want_cpu_path}: {why}; mm_cid {want_cid}"
       f"{'' if has_mm_cid else ': the kernel has no mm_cid'})")

    text, rc = blocks.get("cid", ("", -1))
    try:
        j = json.loads(text)
    except ValueError:
        j = None
    if j is None or rc != 0:
        ok(False, f"cidkit cid --json: exit {rc}, unreadable output")
        diag(text)
    elif has_mm_cid:
        bound = min(nproc, 7)  # 6 threads and main
        ok(j["rseq"]["mm_cid"] and j["max_mm_cid"] < bound and
           j["distinct_mm_cids"] <= bound and j["rseq"]["feature_size"] >= 28,
           f"cidkit cid: mm_cid largest {j['max_mm_cid']}, {j['distinct_mm_cids']} distinct, "
           f"below min(CPUs, threads) = {bound}; rseq feature size {j['rseq']['feature_size']}")
    else:
        ok(not j["rseq"]["mm_cid"] and j["rseq"]["feature_size"] < 28 and
           j["rseq"]["feature_size"] >= 20,
           f"cidkit cid: no mm_cid on {release}, said so (rseq feature size "
           f"{j['rseq']['feature_size']}, cpu_id and node_id only)")

    # The rseq ABI's promises on this kernel (cidkit abi): readable JSON,
    # exit 1 exactly when a check FAILs, every check the verdict the
    # matrix recorded for this release (or pass / n/a for a new one).
    text, rc = blocks.get("abi", ("", -1))
    try:
        res = json.loads(text)
        rows = res["checks"]
        names = [r["name"] for r in rows]
    except (ValueError, KeyError, TypeError):
        res = rows = names = None
    if rows is None:
        ok(False, f"cidkit abi --json: exit {rc}, unreadable output")
        diag(text)
    else:
        fails = [r["name"] for r in rows if r.get("verdict") == "FAIL"]
        unsaid = [r.get("name") for r in rows if r.get("verdict") not in ("pass", "n/a", "FAIL")
                  or (r.get("verdict") != "pass" and not r.get("reason"))]
        diff = abi_matrix.differences(matrix, res, arch)
        good = (rc == (1 if fails else 0) and not unsaid and not diff
                and names == abi_matrix.CHECKS and res.get("kernel") == release)
        ok(good, f"cidkit abi: exit {rc}, " + ", ".join(
           f"{r.get('name')} {r.get('verdict')}" for r in rows) +
           (f"; as the matrix recorded for {release}" if want else
            f"; {release} is not in the matrix: every promise must hold"))
        for d in diff:
            diag("differs from the matrix: " + d)
        if unsaid:
            diag(f"no verdict or no reason: {', '.join(map(str, unsaid))}")
        if not good:
            diag(text)
        if opt["--abi-out"]:
            pk = subprocess.run([lab, "list", "--kernel", kernel, "--arch", arch],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            w = (pk.stdout.strip().splitlines() or [""])[-1].split()
            with open(opt["--abi-out"], "w") as f:
                json.dump({"line": kernel, "arch": arch, "cpus": cpus, "seconds": 2,
                           "package": f"{w[4]} {w[1]}" if len(w) >= 5 else "?",
                           "date": datetime.datetime.now(datetime.timezone.utc)
                           .strftime("%Y-%m-%d"), "exit": rc, "boots": boots,
                           "abi": res}, f)
    return 1 if failures() else 0


if __name__ == "__main__":
    sys.exit(main())
