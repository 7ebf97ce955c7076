#!/usr/bin/env python3
"""The kernel lab's hangs, on the stand-in machine (TAP).

  hangs.py KERNEL-LAB FAKE-QEMU

What a lab that boots hundreds of guests must tell apart, through the
real kernel-lab, its /init and console parser, with fake_qemu.sh as the
machine (no kernel; tests/kernels/status.py says how):
  - CMD that prints, then hangs: exit 124, what it printed kept (stdout
    and stderr lines), and the wedged guest's vCPUs from QEMU's monitor
    (fake_monitor.py) mapped to symbols through the image's System.map;
  - a boot that never reaches /init (FAKE_QEMU_HANG_BOOTS): booted again,
    each such boot said, CMD's result byte for byte from the boot that
    got there; three such boots: exit 125, 'boot failure';
  - a boot that panics before /init (FAKE_QEMU_PANIC_BOOTS): booted again;
  - --stream: CMD's first line reaches our stdout before CMD ends.
No process of a run is left behind.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from fake_lab import reaped, sandbox_works, workdir  # noqa: E402
from tap import diag, failures, ok  # noqa: E402

LAB = os.path.abspath(sys.argv[1])
FAKE = os.path.abspath(sys.argv[2])

SYSTEM_MAP = """\
ffffffff81000000 T _text
ffffffff81100000 T mm_cid_get
ffffffff81100200 t sched_mm_cid_fork
ffffffff81200000 T native_safe_halt
ffffffff81300000 D some_data
"""


def lab(work, args, env=None, stream_probe=None):
    e = dict(os.environ, PATH=os.path.join(work, "bin") + ":" + os.environ["PATH"],
             CIDKIT_KERNEL_CACHE=os.path.join(work, "cache"), **(env or {}))
    argv = [sys.executable, os.path.join(work, "lab.py"), LAB, "run",
            "--kernel", os.path.join(work, "bzImage"), "--arch", "x86_64"] + args
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e,
                         start_new_session=True)
    first = None
    if stream_probe:
        line = p.stdout.readline()
        first = (line, time.monotonic() - t0, p.poll() is None)
    out, err = p.communicate(timeout=300)
    left = not reaped(p.pid, 30)
    return p.returncode, out, err.decode("utf-8", "replace"), time.monotonic() - t0, left, first


why = sandbox_works()
if why:
    print(f"1..0 # SKIP no user namespaces for the stand-in machine: {why}")
    sys.exit(0)

print("1..13")

# The pieces without a machine: a KASLR slide undone with the boot's
# _text, and arm64's PC= lines.
sys.path.insert(0, os.path.join(os.path.dirname(LAB), "kernel_lab"))
sys.path.insert(0, os.path.dirname(LAB))
from kernel_lab import monitor, symbols  # noqa: E402
with tempfile.TemporaryDirectory() as t:
    with open(os.path.join(t, "kallsyms"), "w") as f:
        f.write(SYSTEM_MAP.replace("ffffffff81", "ffffffffad"))  # a boot moved by KASLR
    syms = symbols.lookup(os.path.join(t, "vmlinuz"), "x86_64")
    slide_text = 0xffffffff9c000000  # another boot's _text
    got = syms.name(slide_text + 0x100040, slide_text) if syms else None
    ok(got == "mm_cid_get+0x40" and symbols.link_text("x86_64", syms) == 0xffffffff81000000,
       f"kallsyms of one boot maps another boot's address through its _text (got {got})")
arm = ("CPU#0\n PC=ffff800080123456 X00=0000000000000000\nCPU#1\n"
       " PC=0000aaaab0001000 X00=0000000000000001\n")
ok(monitor.parse_registers(arm, "arm64") == {0: 0xffff800080123456, 1: 0xaaaab0001000},
   "arm64's 'info registers -a': each vCPU's PC")
work = workdir("kernel-lab-hangs.", FAKE)
try:
    with open(os.path.join(work, "System.map"), "w") as f:
        f.write(SYSTEM_MAP)

    # CMD prints, then hangs.  (nokaslr: the sandbox's /proc/kallsyms
    # hides _text, so the map's own addresses stand.)
    rc, out, err, secs, left, _ = lab(
        work, ["--timeout", "5", "--cmdline", "nokaslr", "--", "sh", "-c",
               "echo line one; echo to stderr >&2; echo line two; sleep 1000"],
        env={"FAKE_QEMU_IPS": "ffffffff81100040 ffffffff81200010 ffffffff81100210"})
    labl = [l for l in err.splitlines() if l.startswith("kernel-lab: ")]
    ok(rc == 124 and len(labl) == 1 and "timeout" in labl[0] and 5 <= secs < 60,
       f"CMD that hangs: exit {rc} after {secs:.0f} s (--timeout 5), one 'kernel-lab:' line")
    ok(out == b"line one\nline two\n",
       f"what CMD printed before it hung comes back on stdout (got {out!r})")
    ok("to stderr" in err, "and what it printed on stderr, on stderr")
    vcpu = [l.strip() for l in err.splitlines() if l.strip().startswith("vCPU ")]
    want = ["vCPU 0: mm_cid_get (3/3)", "vCPU 1: native_safe_halt (3/3)",
            "vCPU 2: sched_mm_cid_fork (3/3)"]
    ok(len(vcpu) == 3 and all(v.startswith(w) for v, w in zip(vcpu, want)),
       "each vCPU's instruction pointer from the monitor, mapped through System.map")
    if len(vcpu) != 3:
        diag(err, "stderr")
    ok(not left, "no process left after the hang (the stand-in's sandbox killed)")

    # Boots that never reach /init: two, then one that does.
    hang = os.path.join(work, "hang")
    with open(hang, "w") as f:
        f.write("2\n")
    rc, out, err, secs, left, _ = lab(
        work, ["--timeout", "60", "--boot-timeout", "2", "--", "sh", "-c",
               "printf 'exact\\0bytes'; exit 7"], env={"FAKE_QEMU_HANG_BOOTS": hang})
    notes = [l for l in err.splitlines() if "never reached /init" in l]
    ok(rc == 7 and out == b"exact\0bytes" and len(notes) == 2 and
       notes[0].startswith("[kernel-lab] boot 1 of 3") and "booting again" in notes[1],
       f"two boots that never reach /init are booted again, each said; the third "
       f"boot's CMD status and stdout come back exact (exit {rc}, {len(notes)} notes)")
    if rc != 7:
        diag(err, "stderr")
    ok(not left, "no process left after the hung boots")

    with open(hang, "w") as f:
        f.write("3\n")
    rc, out, err, secs, left, _ = lab(
        work, ["--timeout", "60", "--boot-timeout", "2", "--", "true"],
        env={"FAKE_QEMU_HANG_BOOTS": hang})
    labl = [l for l in err.splitlines() if l.startswith("kernel-lab: ")]
    ok(rc == 125 and len(labl) == 1 and "boot failure" in labl[0] and
       "Probing EDD" in err and 6 <= secs < 60,
       f"three boots that never reach /init: exit {rc} after {secs:.0f} s, one "
       "'boot failure' line after the console's last lines")
    if rc != 125:
        diag(err, "stderr")

    # A boot that panics before /init (TCG at load): booted again, said.
    panic = os.path.join(work, "panic")
    with open(panic, "w") as f:
        f.write("1\n")
    rc, out, err, secs, left, _ = lab(
        work, ["--timeout", "60", "--", "sh", "-c", "echo after; exit 3"],
        env={"FAKE_QEMU_PANIC_BOOTS": panic})
    notes = [l for l in err.splitlines() if "never reached /init" in l]
    ok(rc == 3 and out == b"after\n" and len(notes) == 1 and
       "the kernel panicked first" in notes[0] and "booting again" in notes[0],
       f"a boot that panics before /init is booted again and said; the next "
       f"boot's CMD result comes back (exit {rc}, {len(notes)} notes)")
    if rc != 3:
        diag(err, "stderr")

    # --stream: the first line arrives while CMD still runs.
    rc, out, err, secs, left, first = lab(
        work, ["--timeout", "60", "--stream", "--", "sh", "-c",
               "echo early; sleep 3; echo late"], stream_probe=True)
    line, at, running = first
    ok(line == b"early\n" and running and rc == 0,
       f"--stream: CMD's first line reaches stdout at {at:.1f} s, while it runs "
       f"(exit {rc})")
    ok(out == b"late\n", f"--stream: the rest follows, once (got {out!r})")
finally:
    shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failures() else 0)
