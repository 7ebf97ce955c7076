#!/usr/bin/env python3
"""Our per-CPU and rseq tests on a real kernel: one guest of the kernel lab.

  guest_suite.py KERNEL-LAB KERNEL ARCH [CPUS]

Boots KERNEL (a suite or version, scripts/kernel-lab) on ARCH with CPUS
(default 4) and runs inside, built for ARCH: test_percpu_api,
test_rseq_cpu, test_rseq_mm_cid, test_rseq_threads, test_percpu_sums and
`cidkit cid --json`.  TAP out, one line per program plus the paths.

What is expected comes from outside cidkit: the kernel's version from
uname (mm_cid exists from Linux 6.3 on: "sched: Introduce per-memory-map
concurrency ID", and rseq's feature size 28 with it), the architecture
(cidkit has rseq critical sections on x86-64 and arm64: both must take
the rseq path and say so), the guest's CPU count.  `cidkit abi` must find
every promise kept (exit 0; n/a only with a reason) on these kernels.  A program's SKIP is
accepted only where the kernel lacks the feature; a kernel that cannot be
had (no network, unknown version) is a failure with kernel-lab's reason.
"""
import json
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


def main():
    lab, kernel, arch = sys.argv[1:4]
    cpus = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    # cidkit's rseq critical sections exist for x86-64 and aarch64
    # (include/cidkit/arch/); elsewhere every operation takes the atomic
    # fallback.
    want_cpu_path = "rseq" if arch in ("x86_64", "arm64") else "atomic"
    script = GUEST % {"path": want_cpu_path}
    p = subprocess.run([lab, "run", "--kernel", kernel, "--arch", arch,
                        "--smp", str(cpus), "--timeout", "400", "--", "sh", "-c", script],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    where = f"{kernel}/{arch}"
    if p.returncode != 0:
        print("1..1")
        reason = (p.stderr.strip().splitlines() or ["no message"])[-1]
        ok(False, f"{where}: kernel-lab exited {p.returncode}: {reason}")
        diag(p.stderr)
        return 1
    out = p.stdout
    release = (re.findall(r"^=== uname (\S+)", out, re.M) or ["?"])[0]
    nproc = int((re.findall(r"^=== nproc (\d+)", out, re.M) or ["0"])[0])
    blocks = {m.group(1): (m.group(2), int(m.group(3))) for m in re.finditer(
        r"^=== begin (\S+)\n(.*?)^=== end \1 (\d+)$", out, re.M | re.S)}
    has_mm_cid = version_tuple(release) >= (6, 3)
    where = f"{kernel} ({release}) on {arch}, {nproc} CPUs"
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
        ok(good_run, f"{name}: exit {rc}, {good}/{plan} ok")
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

    # The rseq ABI's promises on this kernel (cidkit abi): every check
    # passes or says why it does not apply.
    text, rc = blocks.get("abi", ("", -1))
    try:
        rows = json.loads(text)["checks"]
    except (ValueError, KeyError, TypeError):
        rows = None
    if rows is None:
        ok(False, f"cidkit abi --json: exit {rc}, unreadable output")
        diag(text)
    else:
        bad = [r for r in rows if r.get("verdict") not in ("pass", "n/a") or
               (r.get("verdict") == "n/a" and not r.get("reason"))]
        ok(rc == 0 and not bad and len(rows) >= 9,
           f"cidkit abi: exit {rc}, " + ", ".join(
               f"{r.get('name')} {r.get('verdict')}" for r in rows))
        if bad or rc:
            diag(text)
    return 1 if failures() else 0


if __name__ == "__main__":
    sys.exit(main())
