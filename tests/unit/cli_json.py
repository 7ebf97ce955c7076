#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The command's JSON writer (tools/cli/json.c), read back by Python's
json module: every string - all 255 single bytes, quotes, backslashes,
control bytes, well-formed UTF-8 at each length boundary, ill-formed
UTF-8 (overlong, surrogates, above U+10FFFF, cut short, stray
continuation bytes) and 3,000 random byte strings - must parse, decode to
what Python's surrogateescape makes of the same bytes, and encode back
(os.fsencode) to those bytes; the output itself must be strict UTF-8.
And one document that uses every call of the writer must parse to the
expected value, with its line breaks where the layout puts them.

usage: cli_json.py path/to/json_dump
"""
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from tap import done, ok  # noqa: E402

dump = sys.argv[1]


def roundtrip(cases, what):
    """Write @cases (bytes, no NUL) through the writer; check each."""
    bad = []
    for start in range(0, len(cases), 500):
        chunk = cases[start:start + 500]
        out = subprocess.run([dump, "strings"] + [c.hex() for c in chunk],
                             stdout=subprocess.PIPE, check=True).stdout
        try:
            out.decode("utf-8")  # strict: the writer emits only UTF-8
            got = json.loads(out)["strings"]
        except ValueError as e:
            bad.append(("unparsable", chunk[0], str(e)))
            continue
        for b, s in zip(chunk, got):
            if s != b.decode("utf-8", "surrogateescape") or os.fsencode(s) != b:
                bad.append((b, s))
        if len(got) != len(chunk):
            bad.append(("count", len(got), len(chunk)))
    ok(not bad, "%s: %d strings read back to their bytes%s" %
       (what, len(cases), "" if not bad else " (first bad: %r)" % (bad[0],)))


singles = [bytes([b]) for b in range(1, 256)]
roundtrip(singles, "every single byte")
roundtrip([b'"', b"\\", b'a"b\\c', b'\\"', b"\\u0041", b"\x01\x1f\x7f",
           b"tab\tnl\ncr\rff\x0cbs\x08", b"/etc/x y", b'q"\\\x01\xffz'],
          "quotes, backslashes, control bytes")
well = [c.encode() for c in ["\u0080", "\u07ff", "\u0800", "\uffff", "\U00010000",
                              "\U0010ffff", "\ud7ff", "\ue000", "é", "€", "😀",
                              "caf\u00e9/\u20ac"]]
roundtrip(well, "well-formed UTF-8 at each length boundary")
ill = [b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xe0\x9f\xbf",
       b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf0\x80\x80\x80",
       b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80",
       b"\xff", b"\xfe", b"\x80", b"\xbf", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98",
       b"a\xc3", b"\xe2\x82a", b"\xc3\xa9\xa9", b"\xf0\x9f\x98\x80\x80"]


def strict(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


ok(not any(strict(b) for b in ill) and all(strict(b) for b in well),
   "the ill-formed cases are ill-formed to Python too, the well-formed ones not")
roundtrip(ill, "ill-formed UTF-8 (overlong, surrogate, > U+10FFFF, cut, stray)")
rng = random.Random(16)
rand = []
for i in range(3000):
    length = rng.randrange(1, 24)
    pool = range(1, 256) if i % 2 else [0x22, 0x5c, 0x0a, 0x41, 0x80, 0xbf,
                                         0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xed,
                                         0xa0, 0xf0, 0x9f, 0xf4, 0x90, 0xff]
    rand.append(bytes(rng.choice(pool) for _ in range(length)))
roundtrip(rand, "random byte strings (half from UTF-8's edge bytes)")

out = subprocess.run([dump, "shape"], stdout=subprocess.PIPE,
                     check=True).stdout.decode()
try:
    doc = json.loads(out)
except ValueError as e:
    doc = None
    print("# %s\n# %r" % (e, out))
row = {"empty": [], "nested": [[{}], "x"]}
want = {"u": 2**64 - 1, "i": -2**63, "fixed": 0.667, "g": 1e300, "inf": None,
        "nan": None, "t": True, "f": False, "null": None,
        "rows": [dict(r=r, **row) for r in range(3)],
        'key "quoted"\\': "last"}
ok(doc == want, "every call of the writer: the value expected (inf, nan -> null)")
lines = out.split("\n")
ok(len(lines) == 7 and lines[1].startswith(' "rows": [') and
   lines[2].startswith('  {"r": 0,') and lines[4].endswith("},") is False and
   lines[5].startswith("]") and lines[6] == "",
   "line breaks where jw_break() put them, none elsewhere: %r" % lines[:2])
sys.exit(done())
