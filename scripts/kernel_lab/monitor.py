"""A wedged guest seen from outside: QEMU's human monitor (HMP) on a unix
socket (-monitor unix:PATH,server=on,wait=off).

Under TCG a kernel whose CPUs all spin with interrupts off says nothing
(no soft-lockup, RCU-stall or hung-task message: the timers that would
report them never fire), so the lab asks QEMU where each vCPU is:
`stop`, `info registers -a` (every vCPU's registers: RIP= on x86-64, PC=
on arm64), `cont`, a few times apart, so that a CPU spinning in one
function shows the same function in every sample."""
import re
import socket
import time

SAMPLES = 3
GAP = 0.5  # seconds between samples
PROMPT = b"(qemu) "
IP_RE = {"x86_64": re.compile(r"\bRIP=([0-9a-f]{16})"),
         "arm64": re.compile(r"\bPC=([0-9a-f]{16})")}


def _ask(sock, cmd, timeout=10.0):
    """Send one command; its answer up to the next prompt (escapes gone)."""
    if cmd:
        sock.sendall(cmd.encode() + b"\n")
    buf = b""
    end = time.monotonic() + timeout
    while not buf.endswith(PROMPT):
        sock.settimeout(max(0.1, end - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        buf += chunk
    text = buf.decode("utf-8", "replace")
    return re.sub(r"\x1b\[[0-9;]*[A-Za-z]|\r", "", text)


def parse_registers(text, arch):
    """`info registers -a` output -> {cpu index: instruction pointer}."""
    ips = {}
    for block in re.split(r"(?m)^CPU#(?=\d)", text)[1:]:
        n = int(re.match(r"\d+", block).group(0))
        m = IP_RE[arch].search(block)
        if m:
            ips[n] = int(m.group(1), 16)
    return ips


def dump(path, arch, samples=SAMPLES):
    """The guest's vCPUs' instruction pointers, `samples` times: a list of
    {cpu: ip}; empty when the monitor cannot be reached."""
    out = []
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(path)
            _ask(s, None)
            for i in range(samples):
                _ask(s, "stop")
                ips = parse_registers(_ask(s, "info registers -a"), arch)
                _ask(s, "cont")
                if ips:
                    out.append(ips)
                if i + 1 < samples:
                    time.sleep(GAP)
    except OSError:
        pass
    return out


def describe(samples, syms, text, monitor_ok=True):
    """The samples as stderr lines: per vCPU its symbol(s) over the
    samples, most frequent first, and the raw addresses."""
    if not samples:
        why = "no answer" if monitor_ok else "no monitor"
        return f"[kernel-lab] vCPUs: {why}\n".encode()
    cpus = sorted(set().union(*samples))
    lines = [f"[kernel-lab] vCPUs ({len(samples)} samples of QEMU's monitor, "
             f"{syms.what if syms else 'no symbol map'}"
             f"{', _text unknown (KASLR)' if text is None else '' if text == 'map' else f', _text {text:x}'}):"]
    for c in cpus:
        ips = [s[c] for s in samples if c in s]
        names = [syms.name(ip, text) if syms and text is not None else None for ip in ips]
        counts = {}
        for n in names:
            if n:
                fn = n.split("+")[0]
                counts[fn] = counts.get(fn, 0) + 1
        top = ", ".join(f"{fn} ({k}/{len(ips)})" for fn, k in
                        sorted(counts.items(), key=lambda x: -x[1]))
        lines.append(f"  vCPU {c}: {top or '?'}  ip " +
                     " ".join(f"{ip:x}" for ip in ips))
    return "".join(l + "\n" for l in lines).encode()
