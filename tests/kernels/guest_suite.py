#!/usr/bin/env python3
"""Our per-CPU and rseq tests on a real kernel: one guest of the kernel lab.

  guest_suite.py KERNEL-LAB KERNEL ARCH [CPUS] [--matrix FILE] [--abi-out FILE]

Boots KERNEL (a suite or version, scripts/kernel-lab) on ARCH with CPUS
(default 4) and runs inside, built for ARCH: test_percpu_api,
test_rseq_cpu, test_rseq_mm_cid, test_rseq_threads, test_percpu_sums,
test_percpu_fence, the newcomer's examples/percpu_freelist (FREELIST_RUNS
times, default environment), `cidkit cid --json` and `cidkit abi --json`.
TAP out, one line per program plus the paths and the probe.

What is expected comes from outside cidkit: the kernel's version from
uname (mm_cid exists from Linux 6.3 on: "sched: Introduce per-memory-map
concurrency ID", and rseq's feature size 28 with it), the architecture
(cidkit has rseq critical sections on x86-64, arm64, riscv64, ppc64le
and s390x: each must take the rseq path and say so, unless the kernel breaks rseq's abort promise),
the guest's CPU count.  A program's SKIP is
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
direction.  The abi result's `probe` row (libcidkit's in-process probe)
must say FAIL exactly where the matrix records an abort promise broken
(abort-preempt, abort-migrate, membarrier-rseq; abi_matrix.probe_expected())
and pass everywhere else.

On such a kernel the per-CPU operations must have chosen the atomic path,
for both indexings, with cidk_percpu_why() naming the broken promise and
the kernel (the library's own probe, run in each program at its first
operation): CIDK_EXPECT_PATH=atomic is passed to percpu_api, percpu_sums
and percpu_fence, which must pass -- exact sums on the atomic path, no
TAP TODO.  On every other kernel with cidkit's critical sections the rseq
path must be kept (CIDK_EXPECT_PATH=rseq).  rseq_threads reads the raw
rseq area itself (cpu_id, mm_cid; no cidk_percpu operation), so the
library's fallback does not reach it: its failure on such a kernel stays
`not ok ... # TODO` naming the broken promises (TAP: not counted).
percpu_freelist (the newcomer's program: a per-CPU counter and freelist,
checking itself) must exit 0 with every round exact, on the path above.
On a broken kernel it runs once more with CIDK_PERCPU=rseq, and what it
found is a diagnostic only (a loss shows in some runs, not all: not a
test that could pass by luck).
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from tap import diag, failures, ok  # noqa: E402

GUEST = r'''
echo "=== uname $(uname -r)"
echo "=== nproc $(nproc)"
run() { n=$1; shift; echo "=== begin $n"; "$@" 2>&1; echo "=== end $n $?"; }
run percpu_api env CIDK_EXPECT_PATH=%(path)s test_percpu_api
run rseq_cpu test_rseq_cpu
run rseq_mm_cid test_rseq_mm_cid
run rseq_threads test_rseq_threads
run percpu_sums env CIDK_EXPECT_PATH=%(path)s test_percpu_sums
run percpu_fence env CIDK_EXPECT_PATH=%(path)s test_percpu_fence
%(ops)s
%(ops_stress)s
for i in %(freelist_runs)s; do run freelist$i percpu_freelist 8 20 20000; done
%(forced)s
run cid cidkit cid --threads 6 --duration 500 --json
run stress cidkit stress --seconds 4 --json
run abi cidkit abi --json
'''
# The newcomer's program, again and again in one guest (each run is a new
# process: its own probe, its own path).
FREELIST_RUNS = 3
FORCED = "run freelist_rseq env CIDK_PERCPU=rseq percpu_freelist 8 20 20000"
# The issue-37 operations' stress (every kind aborted on the rseq path,
# exact totals) needs tens of seconds under TCG to see an abort of each
# kind: only when CIDK_GUEST_OPS_SECONDS is set (make check-kernels).
OPS = ("run percpu_ops env CIDK_EXPECT_PATH=%(path)s test_percpu_ops\n"
       "run percpu_ops_atomic env CIDK_PERCPU=atomic CIDK_EXPECT_PATH=atomic "
       "test_percpu_ops\n"
       "run slab percpu_slab 4 4 5000")
# ... on the architectures they are ported to (every one with critical
# sections: include/cidkit/arch/*.h).
OPS_PORTED = ("x86_64", "arm64", "riscv64", "ppc64le", "s390x")
OPS_STRESS = ("run percpu_ops_stress env CIDK_EXPECT_PATH=%(path)s "
              "CIDK_TEST_SECONDS=%(secs)s test_percpu_ops_stress")

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


def release_of_package(name):
    """The kernel release (uname -r) a kernel-lab package boots:
    linux-binary-7.0.13+deb13-arm64 -> 7.0.13+deb13-arm64."""
    return re.sub(r"-unsigned$", "", re.sub(r"^linux-(binary|image)-", "", name))


def version_tuple(release):
    m = re.match(r"^(\d+)\.(\d+)", release)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


# Programs that rely on the kernel aborting critical sections without
# going through cidk_percpu_* (whose path the library's probe chooses):
# rseq_threads reads the rseq area itself.  Their failure on a kernel the
# matrix records as breaking an abort promise is a TODO.
NEEDS_ABORTS = ("rseq_threads", "percpu_ops_stress")
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
    # cidkit's rseq critical sections exist for x86-64, aarch64, riscv64,
    # ppc64le and s390x (include/cidkit/arch/); elsewhere every operation
    # takes the atomic fallback.
    has_sections = arch in ("x86_64", "arm64", "riscv64", "ppc64le", "s390x")
    # ... unless the kernel breaks the abort promise: the probe must find
    # it and every operation take the atomic path.  What the matrix knows
    # is keyed by the release, which only the guest tells; the line's
    # package names it first (kernel-lab list), so ask that before booting.
    pk = subprocess.run([lab, "list", "--kernel", kernel, "--arch", arch],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    w = (pk.stdout.strip().splitlines() or [""])[-1].split()
    planned = release_of_package(w[4]) if len(w) >= 5 else None
    want0 = abi_matrix.expected(matrix, planned, arch) if planned else None
    broken_kernel = abi_matrix.probe_expected(want0) == "FAIL"
    want_cpu_path = "rseq" if has_sections and not broken_kernel else "atomic"
    ops_secs = os.environ.get("CIDK_GUEST_OPS_SECONDS", "")
    if not ops_secs.isdigit():
        ops_secs = ""
    ported = arch in OPS_PORTED
    script = GUEST % {"path": want_cpu_path,
                      "freelist_runs": " ".join(str(i + 1) for i in range(FREELIST_RUNS)),
                      "forced": FORCED if has_sections and broken_kernel else "",
                      "ops": OPS % {"path": want_cpu_path} if ported else "",
                      "ops_stress": OPS_STRESS % {"path": want_cpu_path, "secs": ops_secs}
                      if ops_secs and ported else ""}
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
    # run): the abort promises it breaks excuse the programs that read the
    # rseq area themselves, and send the library to the atomic path.
    want = abi_matrix.expected(matrix, release, arch)
    broken = [c for c in ABORT_CHECKS if want and "FAIL" in want.get(c, ())]
    print(f"1..{17 + bool(ops_secs)}")
    ok(nproc == cpus, f"{where}: the guest booted with {cpus} CPUs")
    ok(release == planned, f"the guest booted {release}, the release the line's package "
       f"names ({planned}: the paths expected were planned for it"
       f"{', which the matrix records as breaking the abort promise' if broken_kernel else ''})")

    tap_blocks = ["percpu_api", "rseq_cpu", "rseq_mm_cid", "rseq_threads",
                  "percpu_sums", "percpu_fence", "percpu_ops", "percpu_ops_atomic"]
    if ops_secs:
        tap_blocks.append("percpu_ops_stress")
    for name in tap_blocks:
        if not ported and name.startswith("percpu_ops"):
            ok(False, f"{name}: not run on {arch}",
               f"TODO the issue-37 operations are not ported to {arch} yet")
            continue
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
        elif name in ("percpu_sums", "percpu_fence", "percpu_ops_stress"):
            # The abort counts (each phase's), for the record of each run.
            for l in text.splitlines():
                if re.match(r"^ok \d+ .*abort", l):
                    diag(f"{name}: {l}")

    # Which path ran, as percpu_sums says it and as it must be here; on a
    # broken kernel, why() must name the broken promise and the kernel.
    text = blocks.get("percpu_sums", ("", 0))[0]
    m = re.search(r"mm_cid path (\w+) \((.*)\), cpu_id path (\w+)", text)
    got_cid, got_why, got_cpu = (m.group(1), m.group(2), m.group(3)) if m else ("?", "", "?")
    want_cid = "rseq" if want_cpu_path == "rseq" and has_mm_cid else "atomic"
    why = ("rseq critical sections, the probe passed" if want_cpu_path == "rseq" else
           f"the matrix records {release} {arch} as breaking {', '.join(broken)}"
           if broken_kernel else f"atomic fallback: cidkit has no {arch} critical sections")
    named = not broken_kernel or ("broken abort promise" in got_why and release in got_why)
    ok(got_cpu == want_cpu_path and got_cid == want_cid and named,
       f"per-CPU path: cpu_id {got_cpu}, mm_cid {got_cid} "
       f"(want cpu_id {want_cpu_path}: {why}; mm_cid {want_cid}"
       f"{'' if has_mm_cid else ': the kernel has no mm_cid'})"
       + (f"; why(): {got_why}" if broken_kernel else ""))
    if not named:
        diag(f"why() does not name the broken promise and {release}: {got_why!r}")

    # The newcomer's program, FREELIST_RUNS times: exact every round, on
    # the path above (counter by mm_cid, freelist by cpu_id).
    exact, paths_seen, whys = 0, set(), set()
    for i in range(FREELIST_RUNS):
        text, rc = blocks.get(f"freelist{i + 1}", ("", -1))
        mp = re.search(r"^path counter (\w+), freelist (\w+) \((.*)\)$", text, re.M)
        if rc == 0 and re.search(r"^exact: counter \d+,", text, re.M) and mp:
            exact += 1
            paths_seen.add((mp.group(1), mp.group(2)))
            whys.add(mp.group(3))
        else:
            diag(f"percpu_freelist run {i + 1}: exit {rc}")
            diag(text)
    named = not broken_kernel or all("broken abort promise" in w and release in w for w in whys)
    ok(exact == FREELIST_RUNS and paths_seen == {(want_cid, want_cpu_path)} and named,
       f"percpu_freelist 8 20 20000 (the newcomer's counter and freelist, default "
       f"environment): {exact} of {FREELIST_RUNS} runs exact in every round, paths "
       f"{sorted(paths_seen)} (want counter {want_cid}, freelist {want_cpu_path})")
    if not named:
        diag(f"why() does not name the broken promise and {release}: {sorted(whys)}")
    if "freelist_rseq" in blocks:
        text, rc = blocks["freelist_rseq"]
        diag(f"percpu_freelist with CIDK_PERCPU=rseq on {release} (not a test): exit {rc}: "
             + " / ".join(text.strip().splitlines()[-1:]))

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

    # tcmalloc's per-CPU slab on the issue-37 operations (examples/
    # percpu_slab.c): every object in exactly one place after each round,
    # on the path this kernel must take.
    text, rc = blocks.get("slab", ("", -1))
    if not ported:
        text = ""
    mp = re.search(r"^path (\w+)", text, re.M)
    placed = re.search(r"(\d+) objects each in one place", text)
    ok(rc == 0 and placed is not None and mp is not None and mp.group(1) == want_cpu_path,
       f"percpu_slab 4 4 5000: exit {rc}, path {mp.group(1) if mp else '?'} "
       f"(want {want_cpu_path}), {'objects in place' if placed else 'no placement line'}",
       "" if ported else f"TODO the issue-37 operations are not ported to {arch} yet")
    if ported and (rc != 0 or placed is None):
        diag(text)

    # A short `cidkit stress` (docs/hunt.md): every invariant holds, each
    # one checked where the kernel and path allow (uniqueness on the rseq
    # mm_cid path, bound and compaction with mm_cid), and it ran phases.
    text, rc = blocks.get("stress", ("", -1))
    try:
        st = json.loads(text)
        v = {k: x["verdict"] for k, x in st["invariants"].items()}
    except (ValueError, KeyError, TypeError):
        st = v = None
    want = {"uniqueness": "pass" if want_cid == "rseq" else "n/a",
            "bound": "pass" if has_mm_cid else "n/a", "progress": "pass",
            "compaction": "pass" if has_mm_cid else "n/a"}
    ok(st is not None and rc == 0 and v == want and st["phases"] > 0 and st["threads"] > 0,
       f"cidkit stress --seconds 4: exit {rc}, {st['phases'] if st else '?'} phases, "
       f"invariants {v} (want {want})")
    if st is None or v != want:
        diag(text)

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
        ok(False, f"cidkit abi --json: exit {rc}, unreadable output (no probe row)")
        ok(False, f"cidkit abi --json: exit {rc}, unreadable output")
        diag(text)
    else:
        fails = [r["name"] for r in rows if r.get("verdict") == "FAIL"]
        unsaid = [r.get("name") for r in rows if r.get("verdict") not in ("pass", "n/a", "FAIL")
                  or (r.get("verdict") != "pass" and not r.get("reason"))]
        diff = abi_matrix.differences(matrix, res, arch)
        good = (rc == (1 if fails else 0) and not unsaid and not diff
                and names == abi_matrix.CHECKS and res.get("kernel") == release)
        probe = [r for r in rows if r.get("name") == "probe"]
        pv = probe[0].get("verdict") if probe else "missing"
        pwant = abi_matrix.probe_expected(want)
        ok(pv == pwant, f"cidkit abi's probe row: {pv} "
           f"({probe[0].get('reason') if probe else 'no probe row'}); want {pwant}: "
           + (f"the matrix records {release} {arch} as breaking {', '.join(broken)}"
              if pwant == "FAIL" else "the matrix records no broken abort promise for "
              f"{release} {arch}" if want else f"{release} is not in the matrix"))
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
