#!/usr/bin/env python3
"""Differential test of `cidkit cpulist` against a plain Python reference
of the kernel's parsers (lib/bitmap-str.c: bitmap_parselist, bitmap_parse)
and printers (%*pbl, %*pb), and of taskset's single hex word, on random
strings.  Speaks TAP."""
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from tap import diag, done, ok  # noqa: E402

INT_MAX = 2**32 - 1


class Bad(Exception):
    pass


def is_sep(c):
    return c != "" and c in " \t\n\v\f\r,"


def end_of_str(c):
    return c in ("", "\n")


def end_of_region(c):
    return is_sep(c) or end_of_str(c)


def at(s, i):
    return s[i] if i < len(s) else ""


def getnum(s, i, lastbit):
    if at(s, i) == "N":
        return lastbit, i + 1
    j = i
    while at(s, j) != "" and at(s, j) in "0123456789":
        j += 1
    if j == i:
        raise Bad("einval")
    n = int(s[i:j])
    if n > INT_MAX:
        raise Bad("erange")
    return n, j


def parselist(s, nbits):
    bits = set()
    lastbit = nbits - 1 if nbits else INT_MAX
    i = 0
    while True:
        while is_sep(at(s, i)):
            i += 1
        if end_of_str(at(s, i)):
            return bits
        last = False
        if s[i:i + 3].lower() == "all":
            start, end = 0, lastbit
            i += 3
            pattern = True
        else:
            start, i = getnum(s, i, lastbit)
            if end_of_region(at(s, i)):
                end = start
                pattern = False
            elif at(s, i) != "-":
                raise Bad("einval")
            else:
                end, i = getnum(s, i + 1, lastbit)
                pattern = True
        if pattern and not end_of_region(at(s, i)):
            if at(s, i) != ":":
                raise Bad("einval")
            off, i = getnum(s, i + 1, lastbit)
            if at(s, i) != "/":
                raise Bad("einval")
            glen, i = getnum(s, i + 1, lastbit)
        else:
            off = glen = end + 1
            last = end_of_str(at(s, i))
        if start > end or glen == 0 or off > glen:
            raise Bad("einval")
        if end >= nbits:
            raise Bad("erange")
        b = start
        while b <= end:
            for k in range(b, min(end + 1, b + off)):
                bits.add(k)
            b += glen
        if last:
            return bits


def parsehex(s, nbits):
    s = s.split("\n", 1)[0]
    chunks = (nbits + 31) // 32
    end = len(s) - 1
    val = 0
    chunk = 0
    while True:
        while end >= 0 and is_sep(s[end]):
            end -= 1
        if end < 0:
            break
        if chunk >= chunks:
            raise Bad("erange")
        word = 0
        for k in range(9):
            if end < 0 or is_sep(s[end]):
                break
            c = s[end]
            if c == "" or c not in "0123456789abcdefABCDEF":
                raise Bad("einval")
            if k == 8:
                raise Bad("erange")
            word |= int(c, 16) << (4 * k)
            end -= 1
        val |= word << (32 * chunk)
        chunk += 1
    if val >> nbits:
        raise Bad("erange")
    return {b for b in range(nbits) if val >> b & 1}


def fmt_list(bits):
    out, b = [], sorted(bits)
    i = 0
    while i < len(b):
        j = i
        while j + 1 < len(b) and b[j + 1] == b[j] + 1:
            j += 1
        out.append(str(b[i]) if i == j else "%d-%d" % (b[i], b[j]))
        i = j + 1
    return ",".join(out)


def fmt_hex(bits, nbits):
    val = sum(1 << b for b in bits)
    nch = (nbits + 31) // 32
    parts = []
    for c in range(nch - 1, -1, -1):
        width = nbits % 32 if (c == nch - 1 and nbits % 32) else 32
        parts.append("%0*x" % ((width + 3) // 4, (val >> (32 * c)) & 0xffffffff))
    return ",".join(parts)


def parsetaskset(s, nbits):
    """taskset's one hex word: 0x optional, a trailing newline and nothing
    after it; leading zeros any number, a set bit >= nbits is ERANGE."""
    if "\n" in s:
        s, tail = s.split("\n", 1)
        if tail:
            raise Bad("einval")
    if s[:2] in ("0x", "0X"):
        s = s[2:]
    if not s or any(c not in "0123456789abcdefABCDEF" for c in s):
        raise Bad("einval")
    val = int(s, 16)
    if val >> nbits:
        raise Bad("erange")
    return {b for b in range(nbits) if val >> b & 1}


def fmt_taskset(bits):
    return "0x%x" % sum(1 << b for b in bits)


def rand_taskset(r):
    atoms = ["0x", "0X", "f", "0", "1", "ff", "80000000", "3", "A", "g", " ",
             ",", "\n", "00000000", "x", "8"]
    return "".join(r.choice(atoms) for _ in range(r.randint(0, 5)))


def rand_list(r):
    atoms = ["0", "1", "3", "7", "8", "15", "31", "32", "63", "64", "100",
             "N", "all", "ALL", "4294967296", "-", ",", ",", ",", " ", "\n",
             ":", "/", "2", "4", "x", ":1/2", ":2/4", "-5", "-N"]
    return "".join(r.choice(atoms) for _ in range(r.randint(0, 7)))


def rand_hex(r):
    atoms = ["f", "0", "1", "ff", "ffffffff", "00000001", "123456789", ",",
             " ", "\n", "g", "x", "80000000", "3", "A"]
    return "".join(r.choice(atoms) for _ in range(r.randint(0, 5)))


def main():
    cidkit = sys.argv[1]
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else 1500
    r = random.Random(2026)
    for case in range(cases):
        hexin = case % 3 == 2
        nbits = r.choice([1, 2, 8, 23, 32, 33, 64, 65, 100, 128])
        s = rand_hex(r) if hexin else rand_list(r)
        to_hex = r.random() < 0.5
        try:
            bits = parsehex(s, nbits) if hexin else parselist(s, nbits)
            want = fmt_hex(bits, nbits) if to_hex else fmt_list(bits)
        except Bad:
            want = None
        p = subprocess.run([cidkit, "cpulist", "--nbits", str(nbits),
                            "--from", "hex" if hexin else "list",
                            "--to", "hex" if to_hex else "list", "--", s],
                           capture_output=True, text=True)
        if want is None:
            good = (p.returncode == 2 and p.stdout == "" and
                    p.stderr.startswith("cidkit: ") and p.stderr.count("\n") == 1)
        else:
            good = p.returncode == 0 and p.stdout == want + "\n"
        if not good:
            ok(False, "nbits=%d %s %r -> %r (got rc %d %r %r)" %
               (nbits, "hex" if hexin else "list", s, want,
                p.returncode, p.stdout, p.stderr))
        else:
            ok(True, "nbits=%d %r" % (nbits, s))
    # taskset's single word, in and out (its own stream: the cases above
    # stay the same strings); 1 in 3 of the number above.
    r = random.Random(14)
    accepted = 0
    for case in range(cases // 3):
        nbits = r.choice([1, 2, 8, 23, 32, 33, 64, 65, 100, 128])
        from_ts = case % 2 == 0
        s = rand_taskset(r) if from_ts else rand_list(r)
        to = r.choice(["list", "hex", "taskset"]) if from_ts else "taskset"
        try:
            bits = parsetaskset(s, nbits) if from_ts else parselist(s, nbits)
            want = {"list": fmt_list, "taskset": fmt_taskset}.get(
                to, lambda b: fmt_hex(b, nbits))(bits)
        except Bad:
            want = None
        p = subprocess.run([cidkit, "cpulist", "--nbits", str(nbits),
                            "--from", "taskset" if from_ts else "list",
                            "--to", to, "--", s],
                           capture_output=True, text=True)
        if want is None:
            good = (p.returncode == 2 and p.stdout == "" and
                    p.stderr.startswith("cidkit: ") and p.stderr.count("\n") == 1)
        else:
            accepted += 1
            good = p.returncode == 0 and p.stdout == want + "\n"
        if not good:
            ok(False, "nbits=%d taskset %r -> %r (got rc %d %r %r)" %
               (nbits, s, want, p.returncode, p.stdout, p.stderr))
        else:
            ok(True, "nbits=%d %s -> %s %r" % (nbits, "taskset" if from_ts else "list", to, s))
    diag("taskset cases: %d, %d accepted" % (cases // 3, accepted))
    return done()


sys.exit(main())
