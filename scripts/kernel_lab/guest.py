"""One guest: our programs built for its architecture, an initramfs, QEMU.

How CMD's results come back: the guest's /init runs CMD with its stdout and
stderr in files (in the initramfs's RAM), then writes them to the console
gzip-compressed and base64-encoded, each line tagged with a token drawn for
this run, followed by each stream's byte count and CMD's exit status; the kernel's console
output is turned down (printk level 1) before.  This needs only the one
serial port both machines (pc, virt) always have, and no guest driver
beyond the console; a torn or missing frame is reported, never guessed.
"""
import base64
import fcntl
import gzip
import lzma
import os
import re
import secrets
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

from . import monitor, symbols
from .kernels import LabError

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# What the guests get on PATH (built statically, per architecture): the
# command and the test programs that run in guests (tests/kernels/).
GUEST_TARGETS = [
    "cidkit",
    "tests/unit/test_percpu_api",
    "tests/unit/test_rseq_cpu",
    "tests/unit/test_rseq_mm_cid",
    "tests/stress/test_percpu_sums",
    "tests/stress/test_rseq_threads",
    "tests/stress/test_percpu_fence",
    "tests/unit/test_percpu_ops",
    "tests/stress/test_percpu_ops_stress",
    "examples/percpu_freelist",
    "examples/percpu_slab",
]

QEMU = {
    "x86_64": dict(bin="qemu-system-x86_64", machine="pc", cpu="max",
                   console="ttyS0"),
    "arm64": dict(bin="qemu-system-aarch64", machine="virt,gic-version=3",
                  # pauth-impdef: QEMU's own pointer-auth hash, much faster
                  # under TCG than the architected QARMA one
                  cpu="max,pauth-impdef=on", console="ttyAMA0"),
    # virt with OpenSBI (QEMU's -bios default) as the SBI firmware
    "riscv64": dict(bin="qemu-system-riscv64", machine="virt", cpu="rv64",
                    console="ttyS0"),
    # pseries (SLOF); POWER9, which every ppc64el kernel runs on
    "ppc64le": dict(bin="qemu-system-ppc64", machine="pseries", cpu="power9",
                    console="hvc0"),
    # the SCLP line console; -kernel is IPLed directly
    "s390x": dict(bin="qemu-system-s390x", machine="s390-ccw-virtio",
                  cpu="max", console="ttysclp0"),
}

# Meson cross files (scripts/kernel_lab/*.ini) of the guests not like the host.
CROSS = {"arm64": "aarch64-linux-gnu.ini", "riscv64": "riscv64-linux-gnu.ini",
         "ppc64le": "powerpc64le-linux-gnu.ini", "s390x": "s390x-linux-gnu.ini"}


def guest_build_dir(arch):
    return os.environ.get(f"CIDKIT_GUEST_BUILD_{arch.upper()}") or \
        os.path.join(REPO, f"build-guest-{arch}")


def build_programs(arch):
    """Configure (once) and build the guest programs statically; return
    their paths."""
    d = guest_build_dir(arch)
    os.makedirs(os.path.dirname(d) or ".", exist_ok=True)
    with open(d + ".lock", "w") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        log = d + ".log"
        if not os.path.exists(os.path.join(d, "build.ninja")):
            args = ["meson", "setup", d, REPO, "-Dc_link_args=-static",
                    "-Dbuildtype=debugoptimized"]
            if arch in CROSS:
                args.append("--cross-file=" + os.path.join(HERE, CROSS[arch]))
            with open(log, "w") as f:
                if subprocess.run(args, stdout=f, stderr=f).returncode:
                    raise LabError(f"cannot configure the {arch} guest build (see {log})")
        with open(log, "w") as f:
            if subprocess.run(["ninja", "-C", d] + GUEST_TARGETS,
                              stdout=f, stderr=f).returncode:
                raise LabError(f"cannot build the {arch} guest programs (see {log})")
    return [os.path.join(d, t) for t in GUEST_TARGETS]


def qemu_image(path, arch, workdir):
    """The image as QEMU's -kernel takes it.  x86_64: the bzImage.  arm64:
    QEMU loads a raw Image (and gzip), and the EFI zboot container only in
    newer versions, so a zboot image ('MZ' ... 'zimg') is unpacked here:
    its header gives the payload's offset, size and compression."""
    if arch not in ("arm64", "riscv64"):
        return path
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:2] == b"\x1f\x8b":
            f.seek(0)
            data = gzip.decompress(f.read())
        elif head[:2] == b"MZ" and head[4:8] == b"zimg":
            off = int.from_bytes(head[8:12], "little")
            size = int.from_bytes(head[12:16], "little")
            comp = head[24:32].rstrip(b"\0").decode()
            f.seek(off)
            payload = f.read(size)
            if comp == "gzip":
                data = gzip.decompress(payload)
            elif comp in ("xzkern", "xz", "lzma"):
                data = lzma.decompress(payload)
            elif comp == "zstd22" or comp == "zstd":
                data = subprocess.run(["zstd", "-dc"], input=payload,
                                      stdout=subprocess.PIPE, check=True).stdout
            else:
                raise LabError(f"{path}: EFI zboot image compressed with {comp!r}")
        else:
            return path
    out = os.path.join(workdir, "Image")
    with open(out, "wb") as f:
        f.write(data)
    return out


class Cpio:
    """A newc archive (what the kernel unpacks as initramfs), written here
    so that no root and no cpio tool are needed, device nodes included."""

    def __init__(self, path):
        self.f = open(path, "wb")
        self.ino = 1
        self.dirs = set()

    def _entry(self, name, mode, data=b"", rdev=(0, 0)):
        name = name.lstrip("/").encode() + b"\0"
        self.ino += 1
        fields = [self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1],
                  len(name), 0]
        hdr = b"070701" + b"".join(b"%08X" % v for v in fields)
        self.f.write(hdr + name + b"\0" * (-(len(hdr) + len(name)) % 4))
        self.f.write(data + b"\0" * (-len(data) % 4))

    def mkdir(self, path):
        parts = path.strip("/").split("/")
        for i in range(1, len(parts) + 1):
            p = "/".join(parts[:i])
            if p and p not in self.dirs:
                self.dirs.add(p)
                self._entry(p, stat.S_IFDIR | 0o755)

    def file(self, path, data, mode=0o644):
        self.mkdir(os.path.dirname(path))
        self._entry(path, stat.S_IFREG | mode, data)

    def host(self, src, dest):
        """A host file or directory (recursively), modes kept."""
        if os.path.isdir(src):
            self.mkdir(dest)
            for n in sorted(os.listdir(src)):
                self.host(os.path.join(src, n), dest.rstrip("/") + "/" + n)
        else:
            with open(src, "rb") as f:
                self.file(dest, f.read(), os.stat(src).st_mode & 0o777)

    def node(self, path, major, minor):
        self.mkdir(os.path.dirname(path))
        self._entry(path, stat.S_IFCHR | 0o600, rdev=(major, minor))

    def close(self):
        self._entry("TRAILER!!!", 0)
        self.f.close()


INIT = r"""#!/bin/busybox sh
# The kernel lab's /init (written by scripts/kernel-lab).
/bin/busybox mkdir -p /proc /sys /dev /tmp /sbin /usr/bin /usr/sbin /root
/bin/busybox --install -s
export PATH=/cidkit/bin:/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
T=$(cat /lab/token)
echo
# /init reached (the boot is over: a hang from here on is CMD's), and
# where the kernel's text is this boot (KASLR), for a wedged guest's
# instruction pointers.
echo "$T:init $(cut -d' ' -f1 /proc/uptime)"
echo "$T:text $(grep -m1 ' _text$' /proc/kallsyms 2>/dev/null | cut -d' ' -f1)"
echo "[kernel-lab /init] running CMD at $(cut -d' ' -f1 /proc/uptime) s of uptime"
cd /root
# CMD's streams go to files (returned byte for byte at the end) and, line
# by line as they come, to the console (kept when CMD never ends).
live() { while IFS= read -r l || [ -n "$l" ]; do echo "$T:$1 $l"; done; }
if [ -e /lab/quiet ]; then
	sh /lab/cmd </dev/null >/lab/out 2>/lab/err
	rc=$?
else
	mkfifo /lab/of /lab/ef
	tee /lab/out </lab/of | live o &
	tee /lab/err </lab/ef | live e &
	sh /lab/cmd </dev/null >/lab/of 2>/lab/ef
	rc=$?
	wait
fi
echo 1 >/proc/sys/kernel/printk
emit() { gzip -c "$2" | base64 | sed "s/^/$T:$1 /"; echo "$T:$1. $(wc -c <"$2")"; }
emit O /lab/out
emit E /lab/err
if [ -e /lab/want-dmesg ]; then dmesg >/lab/dmesg; emit D /lab/dmesg; fi
echo "$T:rc $rc"
# A reset ends QEMU at once (-no-reboot) on both machines, with no ACPI
# or PSCI power-off path to depend on.
reboot -f
"""


def make_initramfs(path, arch, busybox, programs, argv, files, token, dmesg,
                   live=True):
    c = Cpio(path)
    c.node("/dev/console", 5, 1)
    c.node("/dev/null", 1, 3)
    with open(busybox, "rb") as f:
        c.file("/bin/busybox", f.read(), 0o755)
    for p in programs:
        with open(p, "rb") as f:
            c.file("/cidkit/bin/" + os.path.basename(p), f.read(), 0o755)
    for src, dest in files:
        c.host(src, dest)
    c.file("/init", INIT.encode(), 0o755)
    c.file("/lab/token", token.encode())
    c.file("/lab/cmd", ("exec " + " ".join(shlex.quote(a) for a in argv) + "\n").encode())
    if dmesg:
        c.file("/lab/want-dmesg", b"")
    if not live:
        c.file("/lab/quiet", b"")
    c.mkdir("/root")
    c.close()


def qemu_args(arch, image, initrd, smp, numa, cpu, mem, cmdline, monitor=None):
    q = QEMU[arch]
    if shutil.which(q["bin"]) is None:
        raise LabError(f"{q['bin']} is missing (scripts/bootstrap.sh installs it)")
    a = [q["bin"], "-M", q["machine"], "-accel", "tcg,thread=multi",
         "-cpu", cpu or q["cpu"], "-smp", smp,
         "-nodefaults", "-nographic", "-no-reboot", "-serial", "stdio",
         "-monitor", f"unix:{monitor},server=on,wait=off" if monitor else "none",
         "-kernel", image, "-initrd", initrd,
         "-append", f"console={q['console']} panic=-1 loglevel=4 {cmdline}".strip()]
    if numa:
        per = mem // len(numa)
        if per < 64:
            raise LabError(f"--mem {mem}: too little for {len(numa)} NUMA nodes")
        for i, cpus in enumerate(numa):
            a += ["-object", f"memory-backend-ram,id=m{i},size={per}M",
                  "-numa", f"node,nodeid={i},memdev=m{i}," +
                  ",".join("cpus=" + r for r in cpus.split(","))]
        mem = per * len(numa)
    a += ["-m", str(mem)]
    return a


# A boot that never reaches /init (a lab failure, not CMD's) is tried at
# most twice more.
BOOTS = 3
BOOT_TIMEOUT = 150  # seconds from QEMU's start to /init, unless told


def run(arch, image, argv, smp="2", numa=None, cpu=None, mem=1024, cmdline="",
        timeout=300, dmesg_file=None, files=(), busybox=None,
        boot_timeout=None, on_line=None, live=True):
    """Boot, run argv, power off.  Returns (stdout bytes, stderr bytes,
    status) with status as the runner exits (CMD's, 124, 125).

    A boot that has not reached /init within boot_timeout seconds (default
    the smaller of BOOT_TIMEOUT and timeout) is killed and booted again,
    at most BOOTS times in all, each such boot a '[kernel-lab] boot ...'
    line on stderr; after the last, status 125.  CMD that has not ended
    when timeout seconds have passed since QEMU's start: status 124, and
    what CMD printed so far comes back (its complete lines: a last line
    without its newline is lost), the wedged guest's vCPUs (QEMU's monitor: each
    one's instruction pointer and its symbol) on stderr.  on_line(tag,
    text), when given, gets CMD's lines as they come ('o' stdout, 'e'
    stderr) and CMD's streams are then not returned.  live=False: CMD's
    streams only at its end (a large or binary output: no live copy)."""
    programs = build_programs(arch)
    bt = min(boot_timeout or BOOT_TIMEOUT, timeout)
    notes = b""
    for boot in range(1, BOOTS + 1):
        kind, res = boot_once(arch, image, programs, argv, smp, numa, cpu, mem,
                              cmdline, timeout, bt, dmesg_file, files, busybox,
                              on_line, live)
        if kind not in ("boot-hang", "boot-panic"):
            out, err, rc = res
            return out, notes + err, rc
        why = (f"within {bt} s" if kind == "boot-hang" else
               "(the kernel panicked first)")
        notes += (f"[kernel-lab] boot {boot} of {BOOTS} never reached /init {why} "
                  f"(a lab failure, not CMD's)"
                  f"{'; booting again' if boot < BOOTS else ''}\n").encode()
        last = res
    return (b"", notes + last + f"kernel-lab: boot failure: none of {BOOTS} boots "
            f"reached /init within {bt} s (its last console lines and vCPUs above)\n"
            .encode(), 125)


class Console:
    """The console file as QEMU writes it, read as it grows: /init's
    marks and CMD's live lines."""

    def __init__(self, path, token, on_line):
        self.f = open(path, "rb")
        self.token = token + ":"
        self.on_line = on_line
        self.rest = b""
        self.init = None    # /init's uptime when it started CMD
        self.text = None    # _text's address this boot
        self.live = {"o": [], "e": []}

    def poll(self):
        data = self.f.read()
        if not data:
            return
        lines = (self.rest + data).split(b"\n")
        self.rest = lines.pop()
        for raw in lines:
            l = raw.replace(b"\r", b"").decode("utf-8", "replace")
            # /init's first mark may follow the firmware's last line
            # ("Probing EDD ... ok" has no newline before the kernel's quiet)
            i = l.find(self.token)
            if i < 0:
                continue
            l = l[i:]
            tag, _, rest = l[len(self.token):].partition(" ")
            if tag == "init":
                self.init = rest
            elif tag == "text" and re.fullmatch(r"[0-9a-f]{8,16}", rest):
                self.text = int(rest, 16) or None  # 0: kallsyms hides it
            elif tag in self.live:
                self.live[tag].append(rest)
                if self.on_line:
                    self.on_line(tag, rest)

    def close(self):
        self.f.close()


def boot_once(arch, image, programs, argv, smp, numa, cpu, mem, cmdline,
              timeout, boot_timeout, dmesg_file, files, busybox, on_line, live):
    """One boot: ("boot-hang", stderr bytes) or ("done", run()'s triple)."""
    work = tempfile.mkdtemp(prefix="kernel-lab.")
    try:
        token = "@@KL-" + secrets.token_hex(4)
        img = qemu_image(image, arch, work)
        initrd = os.path.join(work, "initramfs.cpio")
        make_initramfs(initrd, arch, busybox, programs, argv, files, token,
                       dmesg_file is not None, live)
        mon = os.path.join(work, "monitor")
        args = qemu_args(arch, img, initrd, smp, numa, cpu, mem, cmdline, monitor=mon)
        if os.environ.get("KERNEL_LAB_VERBOSE"):
            print("kernel-lab: " + " ".join(shlex.quote(x) for x in args), file=sys.stderr)
        con_path = os.path.join(work, "console")
        outcome, vcpus = None, []
        with open(con_path, "wb") as con, open(os.path.join(work, "qemu.err"), "wb") as qe:
            p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=con, stderr=qe,
                                 start_new_session=True)
            watch = Console(con_path, token, on_line)
            t0 = time.monotonic()
            try:
                while True:
                    try:
                        p.wait(timeout=0.25)
                        break
                    except subprocess.TimeoutExpired:
                        pass
                    watch.poll()
                    now = time.monotonic() - t0
                    if watch.init is None and now >= boot_timeout:
                        outcome = "boot-hang"
                    elif now >= timeout:
                        outcome = "timeout"
                    if outcome:
                        vcpus = monitor.dump(mon, arch)
                        break
            finally:
                # Also when we are stopped (SIGTERM, ^C): never leave a guest
                # running (QEMU and, for a stand-in, all it started).
                if p.poll() is None:
                    try:
                        os.killpg(p.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    p.wait()
                watch.poll()
                watch.close()
        with open(con_path, "rb") as f:
            console = f.read().replace(b"\r", b"").decode("utf-8", "replace").splitlines()
        with open(os.path.join(work, "qemu.err"), "rb") as f:
            qerr = f.read().decode("utf-8", "replace").strip().splitlines()
        text = watch.text
        syms = symbols.lookup(image, arch)
        if text is None and re.search(r"(^|\s)nokaslr(\s|$)", cmdline):
            text = symbols.link_text(arch, syms)  # not moved
        where = monitor.describe(vcpus, syms, text,
                                 monitor_ok=os.path.exists(mon))
        if outcome == "boot-hang":
            return "boot-hang", tail(console, token) + where
        if outcome is None and watch.init is None and \
                any("Kernel panic" in l for l in console):
            # a panic before /init (TCG at load: "Fatal exception in
            # interrupt" while the secondary CPUs start) is the boot's,
            # not CMD's: booted again like a hang
            return "boot-panic", tail(console, token)
        if outcome == "timeout":
            out = b"" if on_line else "".join(l + "\n" for l in watch.live["o"]).encode()
            err = b"" if on_line else "".join(l + "\n" for l in watch.live["e"]).encode()
            return "done", (out, err + tail(console, token) + where +
                            f"kernel-lab: timeout: CMD did not end within {timeout} s of "
                            f"QEMU's start (killed; /init had started it at {watch.init} s "
                            "of uptime; CMD's output so far, its last console lines and "
                            "vCPUs above)\n".encode(), 124)
        res = parse(console, token, p.returncode, qerr, dmesg_file)
        if on_line and res[2] not in (124, 125):
            res = (b"", b"", res[2])
        return "done", res
    finally:
        shutil.rmtree(work, ignore_errors=True)


def tail(console, token, n=20):
    """The console's last lines without frames, escapes and control bytes
    (the firmware's screen codes)."""
    lines = [re.sub(r"\x1b(\[[0-9;?]*[A-Za-z]|.)|[\x00-\x08\x0b-\x1f\x7f]", "", l)
             for l in console if not l.startswith(token)]
    lines = [l for l in lines if l.strip()]
    return "".join(l + "\n" for l in lines[-n:]).encode()


def parse(console, token, qrc, qerr, dmesg_file):
    streams = {"O": [], "E": [], "D": []}
    ends = {}
    rc = None
    for l in console:
        if not l.startswith(token + ":"):
            continue
        tag, _, rest = l[len(token) + 1:].partition(" ")
        if tag in streams:
            streams[tag].append(rest)
        elif tag.endswith(".") and tag[:-1] in streams:
            ends[tag[:-1]] = int(rest)
        elif tag == "rc":
            rc = int(rest)
    if rc is None:
        if not any(l.startswith(token) for l in console) and qrc and qerr:
            raise LabError("qemu: " + qerr[-1])
        return (b"", tail(console, token) +
                b"kernel-lab: the guest stopped without CMD's exit status "
                b"(a kernel panic or a failed /init: its last console lines above)\n", 125)
    data = {}
    for k, v in streams.items():
        try:
            data[k] = gzip.decompress(base64.b64decode("".join(v), validate=True))
        except (ValueError, EOFError, OSError):
            data[k] = None
        if k in ends and (data[k] is None or len(data[k]) != ends[k]):
            return (b"", f"kernel-lab: CMD's {'stdout' if k == 'O' else 'stderr' if k == 'E' else 'dmesg'}"
                    " came back torn on the console\n".encode(), 125)
    if dmesg_file is not None:
        with open(dmesg_file, "wb") as f:
            f.write(data["D"] or b"")
    return data["O"], data["E"], rc
