#!/usr/bin/env python3
"""The kernel lab's parts that need no guest (TAP), each against an
independent reference:

  units.py SCRIPTS-DIR

- Debian version order (which kernel is "newest"): scripts/kernel_lab's
  sort key against a sort by `dpkg --compare-versions`, on versions the
  mirror held plus rc and epoch cases;
- the initramfs writer: the archive extracted by busybox's cpio gives back
  the same files, modes and device nodes;
- arm64 images: a gzip image and an EFI zboot image (MZ, 'zimg', payload
  offset and size, compression name: the layout of the kernel's
  drivers/firmware/efi/libstub/zboot-header.S) unpack to the raw Image,
  and a raw Image is passed through untouched;
- package names: each architecture's plain flavour (Debian's names,
  written out here by hand) maps to the lab's --arch, other flavours
  (cloud, rt, 16k, 64k) to none.
"""
import functools
import gzip
import lzma
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, sys.argv[1])
from kernel_lab import abi_matrix, guest, kernels  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from tap import failures, ok  # noqa: E402

print("1..15")

VERSIONS = ["6.1.170-3", "6.1.176-1", "6.12.107-1", "6.12.117-1", "6.16.3-1~bpo13+1",
            "6.16.12-1~bpo13+1", "6.19.6-2~bpo13+1", "6.19.6-1", "6.19.14-1~bpo13+1",
            "7.0.12-2~bpo13+1", "7.2.13-1", "7.3~rc7-1~exp1", "7.3-1", "7.3.4-1~bpo13+1",
            "1:1.35.0-4+deb12u1+b1", "1:1.38.0-3+b1", "2:0.1-1", "7.3~rc7", "7.3+b1-1"]


def dpkg_cmp(a, b):
    if subprocess.run(["dpkg", "--compare-versions", a, "lt", b]).returncode == 0:
        return -1
    return 0 if subprocess.run(["dpkg", "--compare-versions", a, "eq", b]).returncode == 0 else 1


by_dpkg = sorted(VERSIONS, key=functools.cmp_to_key(dpkg_cmp))
by_key = sorted(VERSIONS, key=kernels.vercmp_key)
ok(by_dpkg == by_key, f"{len(VERSIONS)} versions sort as dpkg --compare-versions sorts them"
   + ("" if by_dpkg == by_key else f": dpkg {by_dpkg}, ours {by_key}"))

with tempfile.TemporaryDirectory() as t:
    src = os.path.join(t, "src")
    os.makedirs(os.path.join(src, "sub"))
    with open(os.path.join(src, "a.txt"), "w") as f:
        f.write("one\n")
    with open(os.path.join(src, "sub", "b.bin"), "wb") as f:
        f.write(bytes(range(256)) * 5 + b"x")  # a length not a multiple of 4
    os.chmod(os.path.join(src, "sub", "b.bin"), 0o751)
    arc = os.path.join(t, "a.cpio")
    c = guest.Cpio(arc)
    c.node("/dev/console", 5, 1)
    c.host(src, "/root/src")
    c.file("/init", b"#!/bin/sh\n", 0o755)
    c.close()
    out = os.path.join(t, "out")
    os.makedirs(out)
    with open(arc, "rb") as f:
        r = subprocess.run(["busybox", "cpio", "-i", "-d"], cwd=out, stdin=f,
                           stderr=subprocess.PIPE)
    same = all(open(os.path.join(src, p), "rb").read() ==
               open(os.path.join(out, "root/src", p), "rb").read()
               for p in ("a.txt", "sub/b.bin"))
    ok(r.returncode == 0 and same, "busybox cpio extracts the archive: the files, byte for byte")
    ok(os.stat(os.path.join(out, "root/src/sub/b.bin")).st_mode & 0o777 == 0o751 and
       os.stat(os.path.join(out, "init")).st_mode & 0o777 == 0o755, "file modes kept")
    st = os.lstat(os.path.join(out, "dev/console"))
    ok(os.major(st.st_rdev) == 5 and os.minor(st.st_rdev) == 1 and
       (st.st_mode & 0o170000) == 0o020000, "/dev/console is character device 5,1")

    image = b"ARM64 Image " + os.urandom(5000)

    def zboot(payload, comp):
        hdr = bytearray(64)
        hdr[0:2] = b"MZ"
        hdr[4:8] = b"zimg"
        hdr[8:12] = (64).to_bytes(4, "little")
        hdr[12:16] = len(payload).to_bytes(4, "little")
        hdr[24:24 + len(comp)] = comp.encode()
        return bytes(hdr) + payload + b"\0" * 100  # padding after, as the PE has

    cases = [("gzip image", gzip.compress(image)),
             ("zboot gzip", zboot(gzip.compress(image), "gzip")),
             ("zboot xz", zboot(lzma.compress(image, format=lzma.FORMAT_XZ), "xzkern"))]
    for name, data in cases:
        p = os.path.join(t, "vmlinuz")
        with open(p, "wb") as f:
            f.write(data)
        work = tempfile.mkdtemp(dir=t)
        try:
            got = guest.qemu_image(p, "arm64", work)
            good = got != p and open(got, "rb").read() == image
        except Exception as e:  # a wrong offset: not gzip or xz data at all
            print(f"# {name}: {e!r}")
            good = False
        ok(good, f"arm64 {name} unpacks to the Image")
    raw = os.path.join(t, "raw")
    with open(raw, "wb") as f:
        f.write(b"MZ\0\0" + image)
    ok(guest.qemu_image(raw, "arm64", t) == raw, "a raw arm64 Image is passed as it is")

# The abi matrix's judgement (abi_matrix.differences), on a hand-made
# matrix: kernel "k-broken" recorded twice (abort-preempt FAIL in both,
# membarrier-rseq n/a then FAIL), kernel "k-good" once, all pass.
# Debian's kernel package names (as the mirror lists them) and the lab arch
# each must give; None: a flavour the lab does not boot.
NAMES = {
    "linux-image-6.1.0-50-amd64": "x86_64",
    "linux-binary-7.2.13+deb14-arm64": "arm64",
    "linux-image-6.12.117+deb13-riscv64": "riscv64",
    "linux-binary-7.3-powerpc64le": "ppc64le",
    "linux-image-6.1.0-50-s390x": "s390x",
    "linux-image-6.1.0-50-cloud-amd64": None,
    "linux-binary-7.2.13+deb14-rt-arm64": None,
    "linux-image-6.12.117+deb13-arm64-16k": None,
    "linux-image-6.12.117+deb13-powerpc64le-64k": None,
}
got = {}
for n in NAMES:
    m = kernels.NAME_RE.match(n)
    got[n] = kernels.ARCH_OF_FLAVOUR[m.group(3)] if m else None
ok(got == NAMES and sorted(kernels.DEB_ARCH) == sorted(kernels.FLAVOUR),
   "package names: each plain flavour maps to its --arch, other flavours to none")
if got != NAMES:
    print("# " + repr({k: v for k, v in got.items() if NAMES[k] != v}))


def run_of(kernel, run, verdicts):
    # the probe's row follows the abort checks (abi_matrix.probe_expected):
    # FAIL where one of them FAILed, unless the case says otherwise
    broken = any(verdicts.get(n) == "FAIL" for n in abi_matrix.PROBE_PROMISES)
    verdicts = dict({"probe": "FAIL" if broken else "pass"}, **verdicts)
    checks = [{"name": n, "verdict": verdicts.get(n, "pass"), "reason": "r",
               "evidence": {}} for n in abi_matrix.CHECKS]
    return {"line": kernel, "arch": "arm64", "run": run, "kernel": kernel,
            "confirms": run - 1 if run > 1 else None, "date": "2026-12-02",
            "exit": 1 if "FAIL" in verdicts.values() else 0, "checks": checks}


matrix = abi_matrix.validate({"runs": [
    run_of("k-broken", 1, {"abort-preempt": "FAIL", "membarrier-rseq": "n/a"}),
    run_of("k-broken", 2, {"abort-preempt": "FAIL", "membarrier-rseq": "FAIL"}),
    run_of("k-good", 1, {})]})


def judged(kernel, verdicts):
    res = run_of(kernel, 1, verdicts)
    return [d.split(":")[0] for d in abi_matrix.differences(matrix, res, "arm64")]


ok(judged("k-broken", {"abort-preempt": "FAIL", "membarrier-rseq": "FAIL"}) == [] and
   judged("k-broken", {"abort-preempt": "FAIL", "membarrier-rseq": "n/a"}) == [],
   "abi matrix: a kernel's recorded verdicts are accepted (any of its runs')")
ok(judged("k-broken", {}) == ["abort-preempt", "membarrier-rseq", "probe"] and
   judged("k-good", {"abort-preempt": "FAIL"}) == ["abort-preempt", "probe"],
   "abi matrix: a verdict flipped either way differs (FAIL->pass on k-broken, "
   "also where one run was n/a; pass->FAIL on k-good; the probe's with them)")
ok(judged("k-broken", {"abort-preempt": "FAIL", "membarrier-rseq": "FAIL", "probe": "pass"}) == ["probe"] and
   judged("k-good", {"probe": "FAIL"}) == ["probe"] and
   judged("k-good", {"probe": "n/a"}) == ["probe"],
   "abi matrix: the probe alone flipped differs (pass on a broken kernel, FAIL or n/a on a good one)")
ok(judged("k-new", {"abort-signal": "FAIL"}) == ["abort-signal"] and
   judged("k-new", {"slice-ext": "n/a"}) == [],
   "abi matrix: a release it has not recorded must keep every promise (pass or n/a)")
ok(judged("k-good", {"abort-migrate": "n/a", "mm-cid": "n/a"}) == [] and
   judged("k-good", {"register": "n/a"}) == ["register"],
   "abi matrix: a timed check's n/a is inconclusive (accepted), an untimed one's is a change")
bad = run_of("k-x", 1, {"ids": "FAIL"})
try:
    abi_matrix.validate({"runs": [bad]})
    refused = False
except abi_matrix.MatrixError:
    refused = True
ok(refused, "abi matrix: a FAIL without its confirming second run is refused")
sys.exit(1 if failures() else 0)
