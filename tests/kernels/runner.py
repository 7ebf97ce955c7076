#!/usr/bin/env python3
"""scripts/kernel-lab itself: its exits and its streams (TAP).

  runner.py KERNEL-LAB [KERNEL]

Bad arguments, an unknown version and a kernel that cannot be had (no
mirror reachable, nothing cached) each give exactly one 'kernel-lab: '
line, nothing on stdout and exit 2; a guest that never powers off is
killed at its --timeout with exit 124 and the console's last lines, and
leaves no process behind, nor does kernel-lab stopped by SIGTERM; the
machine shape (--smp sockets, --numa, --cpu), --cmdline and --dmesg reach
the guest, with the scheduler domains in debugfs and the rseq_update event
in tracefs; CMD's exit status, stdout and stderr come back
separately and byte for byte, and --file brings a host file in.  The
guests boot KERNEL (default sid) on x86_64.
"""
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from fake_lab import reaped  # noqa: E402
from tap import diag, failures, ok  # noqa: E402

def lab(args, env=None, timeout=600, term_after=None):
    """Run kernel-lab in its own process group (SIGTERM to kernel-lab alone
    after term_after seconds); also report whether any process of that
    group (QEMU) outlived it."""
    t0 = time.monotonic()
    p = subprocess.Popen([LAB] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=dict(os.environ, **(env or {})), start_new_session=True)
    try:
        out, err = p.communicate(timeout=term_after or timeout)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=timeout)
    left = not reaped(p.pid, 20)  # a killed QEMU may take a moment
    return p.returncode, out, err, time.monotonic() - t0, left


def one_line(rc, out, err, what, want_in_line):
    lines = err.decode("utf-8", "replace").splitlines()
    good = (rc == 2 and out == b"" and len(lines) == 1 and
            lines[0].startswith("kernel-lab: ") and want_in_line in lines[0])
    ok(good, f"{what}: exit 2, one 'kernel-lab:' line naming {want_in_line!r}")
    if not good:
        diag(str(rc), "exit")
        diag(err, "stderr")


LAB = sys.argv[1]
KERNEL = sys.argv[2] if len(sys.argv) > 2 else "sid"

BAD = [
    (["run", "--kernel", KERNEL, "--arch", "sparc", "--", "true"], "sparc"),
    (["run", "--arch", "x86_64", "--", "true"], "--kernel"),
    (["run", "--kernel", KERNEL, "--arch", "x86_64"], "CMD"),
    (["run", "--kernel", KERNEL, "--arch", "x86_64", "--smp", "0", "--", "true"], "--smp"),
    (["run", "--kernel", KERNEL, "--arch", "x86_64", "--smp", "4;x", "--", "true"], "--smp"),
    (["run", "--kernel", KERNEL, "--arch", "x86_64", "--timeout", "ten", "--", "true"], "--timeout"),
    (["run", "--kernel", KERNEL, "--arch", "x86_64", "--numa", "0-1;a", "--", "true"], "--numa"),
    (["run", "--kernel", KERNEL, "--arch", "x86_64", "--file", "/nonexistent/x", "--", "true"], "/nonexistent/x"),
    (["run", "--kernel", "/nonexistent/vmlinuz", "--arch", "x86_64", "--", "true"], "/nonexistent/vmlinuz"),
    (["frobnicate"], "frobnicate"),
    ([], "subcommand"),
    (["list", "--arch", "mips"], "mips"),
]

print(f"1..{len(BAD) + 12}")
for args, word in BAD:
    rc, out, err, _, _ = lab(args)
    one_line(rc, out, err, "kernel-lab " + " ".join(args), word)

# A version no suite has (the lists are fetched or cached by then).
rc, out, err, _, _ = lab(["run", "--kernel", "9.99.999", "--arch", "x86_64", "--", "true"])
one_line(rc, out, err, "a version that does not exist", "9.99.999")

# No network and nothing cached: an empty cache and a mirror nobody serves.
with tempfile.TemporaryDirectory() as empty:
    rc, out, err, _, _ = lab(["run", "--kernel", KERNEL, "--arch", "x86_64", "--", "true"],
                             env={"CIDKIT_KERNEL_CACHE": empty,
                                  "CIDKIT_KERNEL_MIRROR": "http://127.0.0.1:9/debian"})
    one_line(rc, out, err, "no mirror reachable, nothing cached", "no network")

# A guest that never powers off: CMD's hang (exit 124) once /init ran it;
# under load the guest may not reach /init in 20 s, and that is a boot
# failure (3 boots, exit 125), not CMD's.
rc, out, err, secs, left = lab(["run", "--kernel", KERNEL, "--arch", "x86_64",
                                "--timeout", "20", "--", "sleep", "1000"])
lines = err.decode("utf-8", "replace").splitlines()
labl = [l for l in lines if l.startswith("kernel-lab: ")]
reached = any("running CMD" in l for l in lines)
ok(len(labl) == 1 and lines[-1] == labl[0] and
   ((rc == 124 and reached and "timeout" in labl[0] and 20 <= secs < 200) or
    (rc == 125 and not reached and "boot failure" in labl[0] and 60 <= secs < 400)) and
   out == b"",  # killed long before sleep 1000 ends
   f"sleep 1000 with --timeout 20: exit {rc} after {secs:.0f} s, one "
   f"'kernel-lab:' line, the last ({'/init had started CMD: a timeout' if reached else 'never reached /init: a boot failure'})")
if rc not in (124, 125):
    diag(err, "stderr")
ok(len(lines) > 1 and all(l.strip() and "\x1b" not in l for l in lines[:-1]),
   "the guest's last console lines come before it, without escape codes")
ok(not left, "no process of the run is left after the timeout (QEMU killed)")

# kernel-lab itself stopped (SIGTERM to it alone, as a test harness's
# timeout may do): it goes, and takes its guest with it.
rc, out, err, secs, left = lab(["run", "--kernel", KERNEL, "--arch", "x86_64",
                                "--", "sleep", "1000"], term_after=8)
ok(rc == 128 + signal.SIGTERM and not left,
   f"kernel-lab stopped by SIGTERM: exit {rc}, no process of the run left")

# The machine shape and the kernel's own answers reach CMD: --smp with
# sockets, --numa, --cpu, --cmdline, --dmesg; debugfs and tracefs mounted.
with tempfile.TemporaryDirectory() as t:
    dm = os.path.join(t, "dmesg")
    script = ("cat /sys/devices/system/node/online; "
              "cat /sys/devices/system/cpu/cpu2/topology/physical_package_id; "
              "grep -c Skylake /proc/cpuinfo; grep -o sched_verbose /proc/cmdline; "
              "cat /sys/kernel/debug/sched/domains/cpu0/domain0/name; "
              "ls /sys/kernel/tracing/events/rseq")
    rc, out, err, secs, left = lab(["run", "--kernel", KERNEL, "--arch", "x86_64",
                                    "--smp", "4,sockets=2,cores=2,threads=1",
                                    "--numa", "0-1;2-3", "--cpu", "Skylake-Server",
                                    "--cmdline", "sched_verbose", "--dmesg", dm,
                                    "--", "sh", "-c", script])
    got = out.decode("utf-8", "replace").split()
    want = ["0-1", "1", "4", "sched_verbose"]
    ok(rc == 0 and got[:4] == want,
       f"--numa 0-1;2-3 gives nodes 0-1, --smp 4,sockets=2 puts CPU 2 in package 1, "
       f"--cpu Skylake-Server is what 4 CPUs report, --cmdline reaches the kernel (got {got[:4]})")
    ok(len(got) > 4 and got[4] in ("SMT", "CLS", "MC", "PKG", "NUMA") and "rseq_update" in got,
       "debugfs holds the scheduler domains (cpu0's lowest: "
       f"{got[4] if len(got) > 4 else '?'}), tracefs the rseq_update event")
    text = open(dm, errors="replace").read() if os.path.exists(dm) else ""
    ok("CPU0 attaching sched-domain" in text and "Linux version" in text,
       f"--dmesg saved the guest's kernel log ({len(text)} bytes, sched_verbose's spans in it)")
    if rc != 0:
        diag(err, "stderr")

# Status, stdout, stderr, byte for byte, and a host file brought in.
with tempfile.NamedTemporaryFile("wb", suffix=".bin") as f:
    payload = bytes(range(256)) * 3
    f.write(payload)
    f.flush()
    script = ("printf 'to stdout\\n'; printf 'to stderr, no newline' >&2; "
              "cat /root/payload.bin; sha=$(sha256sum /root/payload.bin); "
              "printf '\\n%s' \"${sha%% *}\" >&2; exit 3")
    rc, out, err, secs, left = lab(["run", "--kernel", KERNEL, "--arch", "x86_64",
                                    "--file", f.name + ":/root/payload.bin",
                                    "--", "sh", "-c", script])

ok(rc == 3, f"CMD's exit status comes back (exit 3, got {rc})")
ok(out == b"to stdout\n" + payload, "CMD's stdout comes back alone, byte for byte "
   "(a line, then a 768-byte binary file copied in with --file)")
ok(err == b"to stderr, no newline\n" + hashlib.sha256(payload).hexdigest().encode(),
   "CMD's stderr comes back alone, byte for byte (the guest's sha256 of the file)")
if rc != 3 or not out.startswith(b"to stdout"):
    diag(err, "stderr")
sys.exit(1 if failures() else 0)
