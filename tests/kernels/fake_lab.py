"""The fake kernel lab of the kernel-lab tests (hangs.py, status.py,
runner.py): scripts/kernel-lab itself, run against tests/kernels/
fake_qemu.sh instead of QEMU.

  sandbox_works()          None when this machine can make fake_qemu.sh's
                           sandbox, else why not
  workdir(prefix, fake)    a fresh folder with bin/qemu-system-x86_64 (the
                           fake), lab.py (kernel-lab as its own __main__,
                           the guest programs' build left out: they play
                           no part in what these tests judge) and a
                           bzImage that is no kernel
  reaped(pid, tries)       whether process group @pid is gone within
                           @tries tenths of a second (a killed QEMU may
                           take a moment); kills what is left
"""
import os
import signal
import subprocess
import tempfile
import time

WRAPPER = """\
import os, runpy, sys
lab = sys.argv[1]
sys.path.insert(0, os.path.dirname(lab))
from kernel_lab import guest
guest.build_programs = lambda arch: []
sys.argv = [lab] + sys.argv[2:]
runpy.run_path(lab, run_name="__main__")
"""


def sandbox_works():
    cmd = ["unshare", "--map-root-user", "--mount", "--pid", "--net", "--fork", "true"]
    if os.geteuid() == 0:
        cmd = ["setpriv", "--reuid=100000", "--regid=100000", "--clear-groups"] + cmd
    try:
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except OSError as e:
        return str(e)
    return None if r.returncode == 0 else r.stderr.decode(errors="replace").strip()


def workdir(prefix, fake):
    work = tempfile.mkdtemp(prefix=prefix)
    os.makedirs(os.path.join(work, "bin"))
    os.symlink(fake, os.path.join(work, "bin", "qemu-system-x86_64"))
    with open(os.path.join(work, "lab.py"), "w") as f:
        f.write(WRAPPER)
    with open(os.path.join(work, "bzImage"), "w") as f:
        f.write("not a kernel: fake_qemu.sh boots none\n")
    return work


def reaped(pid, tries):
    for _ in range(tries):
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    os.killpg(pid, signal.SIGKILL)
    return False
