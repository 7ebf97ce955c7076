#!/usr/bin/env python3
"""CMD's exit status through the kernel lab, every one of them (TAP).

  status.py KERNEL-LAB FAKE-QEMU

A command's status is the lab's most important output: make
check-kernels, the guest suites and every check built on the lab trust
it.  Here each status 0..255 (`exit N`) and death by each deadly signal
N (CMD a `sleep` killed by another process; the guest's shell reports
128 + N, as every shell does) must come back unchanged as kernel-lab's
own exit status, with CMD's stdout and stderr beside it.  The whole path is the real one: kernel-lab's argument
parsing, the initramfs it writes, its /init (the guest's shell, the
static busybox kernel-lab puts in the archive, capturing the status and
framing it on the console), the console parser and kernel-lab's exit.
Only the machine is a stand-in (fake_qemu.sh: no kernel, the initramfs's
/init run in namespaces on this machine), so that 280 boots take two
minutes and no network; tests/kernels/runner.py checks a status through
a real guest.  (kernel-lab's build of the guest programs is left out:
they only ride along on PATH.)  Without user namespaces the test is
skipped, saying so.
"""
import concurrent.futures
import os
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from fake_lab import sandbox_works, workdir  # noqa: E402
from tap import diag, failures, ok  # noqa: E402

LAB = os.path.abspath(sys.argv[1])
FAKE = os.path.abspath(sys.argv[2])

# The signals whose default action ends a process (not the ones that stop
# it, nor the ignored ones).
SIGNALS = [s for s in signal.Signals
           if s not in (signal.SIGSTOP, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU,
                        signal.SIGCHLD, signal.SIGCONT, signal.SIGURG, signal.SIGWINCH)
           and 1 <= s <= 31]


def run(work, script):
    env = dict(os.environ, PATH=os.path.join(work, "bin") + ":" + os.environ["PATH"],
               CIDKIT_KERNEL_CACHE=os.path.join(work, "cache"))
    p = subprocess.run([sys.executable, os.path.join(work, "lab.py"), LAB, "run",
                        "--kernel", os.path.join(work, "bzImage"), "--arch", "x86_64",
                        "--timeout", "120", "--", "sh", "-c", script],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    return p.returncode, p.stdout, p.stderr


why = sandbox_works()
if why:
    print(f"1..0 # SKIP no user namespaces for the stand-in machine: {why}")
    sys.exit(0)

print(f"1..{256 + len(SIGNALS)}")
work = workdir("kernel-lab-status.", FAKE)
try:

    cases = [(f"printf 'out %d' {n}; printf 'err %d' {n} >&2; exit {n}",
              n, f"out {n}".encode(), f"err {n}".encode(), f"exit {n}")
             for n in range(256)]
    # CMD becomes sleep (exec), killed from behind: a shell would ignore
    # SIGQUIT.  The killer waits until the exec happened (/proc/PID/comm;
    # at most 10 s): a fixed 0.5 s once fell before the exec at load, the
    # shell ignored SIGQUIT and sleep ran out with status 0.  ulimit -c 0:
    # no core for this machine's core handler.
    cases += [(f"ulimit -c 0; printf 'before {s.value}'; "
               f"(i=0; while [ $i -lt 100 ] && [ \"$(cat /proc/$$/comm 2>/dev/null)\" != sleep ]; "
               f"do sleep 0.1; i=$((i + 1)); done; kill -{s.value} $$) & exec sleep 30",
               128 + s.value, f"before {s.value}".encode(), None,
               f"killed by {s.name} ({s.value})")
              for s in SIGNALS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = pool.map(lambda c: run(work, c[0]), cases)
        for (script, want, want_out, want_err, what), (rc, out, err) in zip(cases, results):
            good = rc == want and out == want_out and (want_err is None or err == want_err)
            ok(good, f"CMD {what}: kernel-lab exits {want} (got {rc}), "
               f"CMD's stdout{'' if want_err is None else ' and stderr'} beside it")
            if not good:
                diag(repr(out), "stdout")
                diag(err, "stderr")
finally:
    shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failures() else 0)
