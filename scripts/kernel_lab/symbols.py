"""Kernel symbols for the lab's instruction pointers.

The map of a kernel image lives beside it in the cache: System.map (from
the package, where Debian ships it: the linux-image-* packages before
6.19) or kallsyms (the text symbols of /proc/kallsyms, taken from a boot
of that kernel by `kernel-lab symbols`: Debian's 6.19+ linux-binary-*
packages carry the image alone).  Addresses are taken relative to
_text, so a boot's KASLR slide is undone with that boot's own _text
(which /init reports)."""
import bisect
import os
import re

LINE = re.compile(r"^([0-9a-f]{8,16}) ([tTwW]) (\S+)$")


class Symbols:
    def __init__(self, path):
        self.what = os.path.basename(path)
        addrs = []
        text = None
        with open(path, errors="replace") as f:
            for l in f:
                m = LINE.match(l.rstrip("\n"))
                if not m:
                    continue
                a = int(m.group(1), 16)
                if m.group(3) == "_text":
                    text = a
                addrs.append((a, m.group(3)))
        addrs.sort()
        self.text = text
        self.addrs = [a for a, _ in addrs]
        self.names = [n for _, n in addrs]

    def name(self, ip, text):
        """ip of a boot whose _text was `text` ("map": this map's own) ->
        'symbol+0xoff', or None outside the map."""
        if self.text is None or not self.addrs:
            return None
        a = ip if text == "map" else ip - text + self.text
        i = bisect.bisect_right(self.addrs, a) - 1
        if i < 0 or a - self.addrs[i] > 1 << 20:
            return None
        return f"{self.names[i]}+0x{a - self.addrs[i]:x}"


def map_path(image):
    d = os.path.dirname(os.path.abspath(image))
    for n in ("System.map", "kallsyms"):
        p = os.path.join(d, n)
        if os.path.exists(p):
            return p
    return None


def lookup(image, arch):
    p = map_path(image)
    return Symbols(p) if p else None


# Where _text is linked (a boot with nokaslr keeps it there).
LINK_TEXT = {"x86_64": 0xffffffff81000000}


def link_text(arch, syms):
    """_text of a boot with nokaslr: the map's own when it is the
    package's System.map, else the architecture's link address (a
    kallsyms map was taken from a boot that KASLR moved); None if
    unknown."""
    if syms and syms.what == "System.map":
        return "map"
    return LINK_TEXT.get(arch)
