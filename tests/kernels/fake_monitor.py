#!/usr/bin/env python3
"""A stand-in for QEMU's human monitor on a unix socket (fake_qemu.sh).

  fake_monitor.py PATH IP...

Answers `stop`, `cont` and `info registers -a` as QEMU 7.2 does for an
x86-64 machine whose vCPU n sits at the n-th IP (hex), with the prompt
and the echo of the command; anything else: 'unknown command'."""
import socket
import sys

path, ips = sys.argv[1], sys.argv[2:]
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
srv.listen(1)
while True:
    c, _ = srv.accept()
    f = c.makefile("rwb", buffering=0)
    f.write(b"QEMU 7.2.22 monitor - type 'help' for more information\r\n(qemu) ")
    for line in f:
        cmd = line.decode().strip()
        out = ""
        if cmd == "info registers -a":
            for n, ip in enumerate(ips):
                out += (f"\r\nCPU#{n}\r\nRAX=0000000000000000 RBX=0000000000000001\r\n"
                        f"RIP={int(ip, 16):016x} RFL=00000046 [---Z-P-] CPL=0 II=0 A20=1 SMM=0 HLT=0\r\n")
        elif cmd not in ("stop", "cont"):
            out = f"unknown command: '{cmd}'\r\n"
        f.write(f"{cmd}\r\n{out}(qemu) ".encode())
    c.close()
