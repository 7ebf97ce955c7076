"""The kernel's own mm_cid code for `cidkit check --policy kernel`.

Three steps, each at run time on the user's machine (kernel code, GPL-2.0,
never enters our MIT tree; what is built from it stays in the cache):

  fetch    Debian's linux-source-X.Y package through the kernel lab's
           private apt configuration (kernels.Apt: the machine's own mirror
           URI, read at run time), only the files we read extracted, into
           CACHE/sources/linux-source-X.Y_VERSION/ (CACHE: the kernel lab's
           cache folder, CIDKIT_KERNEL_CACHE, default ~/.cache/cidkit/kernels).
  extract  the `#ifdef CONFIG_SCHED_MM_CID` blocks of kernel/sched/core.c and
           kernel/sched/sched.h, and of include/linux/rseq_types.h and
           include/linux/mm_types.h, found by text (the #ifdef, its matching
           #else/#endif), never by line number; each block keeps its file
           and line through #line, so the checker's trace names the kernel's
           own lines.
  build    one translation unit: our stand-in headers (check/kernel/kstub.h,
           kstub2.h), the blocks, our call context (check/kernel/kcontext.c),
           compiled by cc into a shared object the checker loads.

Known layouts: 7.2 and 7.3 (tested; the per-mm user list, sched_mm_cid_fork
static, mm_cid_switch_to in sched.h), and 7.2 with the 2026-03 fixes
reverted (6.19's task-list walk: layout() tells the call context).  A tree whose blocks lack what the
call context calls fails with one line naming what is missing.
"""
import glob
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import tempfile

from . import kernels
from .kernels import LabError

FILES = ["kernel/sched/core.c", "kernel/sched/sched.h",
         "include/linux/rseq_types.h", "include/linux/mm_types.h"]
# Not extracted, kept for patches that touch them (the fixes' call sites)
# and for the call context's choice of the fork call site.
EXTRA = ["kernel/fork.c", "include/linux/sched.h", "kernel/exit.c"]
# What the call context (kcontext.c) calls or names: a tree without one of
# these is a layout we do not know.
NEEDED = ["sched_mm_cid_fork", "sched_mm_cid_exit", "mm_cid_switch_to",
          "mm_update_cpus_allowed", "mm_init_cid", "struct mm_mm_cid",
          "struct sched_mm_cid", "struct mm_cid_pcpu", "mm_cidmask",
          "mm_cid_work_fn"]
KNOWN = "7.2 and 7.3"


def sources_dir():
    return os.path.join(kernels.cache_dir(), "sources")


def resolve_source(apt, spec):
    """VERSION (a line 7.2, an upstream 7.2.13, a package version 7.2.13-1)
    -> (package, version): the newest linux-source-X.Y matching it."""
    m = re.match(r"^(\d+)\.(\d+)", spec)
    if not m:
        raise LabError(f"--kernel-source {spec}: a version like 7.2 or 7.2.13 expected")
    pkg = f"linux-source-{m.group(1)}.{m.group(2)}"
    r = apt.run(["apt-cache", "madison", pkg])
    vers = sorted({f[1].strip() for f in (l.split("|") for l in r.stdout.splitlines())
                   if len(f) == 3}, key=kernels.vercmp_key)
    line = re.fullmatch(r"\d+\.\d+", spec)
    cand = [v for v in vers if line or spec in (v, v.split("-")[0])]
    rel = [v for v in cand if "~rc" not in v and "~exp" not in v]
    if not (rel or cand):
        have = ", ".join(vers) or "none"
        raise LabError(f"--kernel-source {spec}: no {pkg} package of that version "
                       f"(the package lists have: {have})")
    return pkg, (rel or cand)[-1]


def cached_source(spec):
    """Offline: a fetched tree whose version matches spec, else None."""
    best = None
    for d in sorted(glob.glob(os.path.join(sources_dir(), "linux-source-*_*"))):
        ver = os.path.basename(d).partition("_")[2]
        up = ver.split("-")[0]
        if (spec in (ver, up) or up.startswith(spec + ".")) and \
                os.path.exists(os.path.join(d, "ok")):
            if not best or kernels.vercmp_key(ver) > kernels.vercmp_key(best[1]):
                best = (d, ver)
    return best[0] if best else None


def fetch(spec, log=None):
    """The tree of linux-source for spec, downloaded and extracted once."""
    apt = kernels.Apt()
    try:
        apt.update()
        pkg, ver = resolve_source(apt, spec)
    except LabError:
        d = cached_source(spec)
        if d:
            return d
        raise
    d = os.path.join(sources_dir(), f"{pkg}_{ver}".replace(":", "%"))
    if os.path.exists(os.path.join(d, "ok")) and \
            all(os.path.exists(os.path.join(d, f)) for f in EXTRA):
        return d
    if log:
        log(f"fetching {pkg} {ver} (about 160 MB, once; then cached in {d})")
    deb = apt.download(pkg, "amd64", ver, os.path.join(apt.root, "debs"))
    tmp = tempfile.mkdtemp(dir=apt.root, prefix="extract.")
    try:
        subprocess.run(["sh", "-c", 'dpkg-deb --fsys-tarfile "$1" | tar -x -C "$2" '
                        "--wildcards './usr/src/linux-source-*.tar.xz'", "-", deb, tmp],
                       check=True, stderr=subprocess.DEVNULL)
        tars = glob.glob(os.path.join(tmp, "usr", "src", "linux-source-*.tar.xz"))
        if len(tars) != 1:
            raise LabError(f"no source tarball in {os.path.basename(deb)}")
        top = os.path.basename(tars[0])[:-len(".tar.xz")]
        want = [f"{top}/{f}" for f in FILES + EXTRA + ["Makefile"]]
        r = subprocess.run(["tar", "-xJf", tars[0], "-C", tmp] + want,
                           stderr=subprocess.PIPE, text=True)
        if r.returncode:
            raise LabError(f"{os.path.basename(tars[0])}: {r.stderr.strip().splitlines()[0]}")
        if os.path.exists(d):
            shutil.rmtree(d)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        shutil.move(os.path.join(tmp, top), d)
        open(os.path.join(d, "ok"), "w").close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        os.unlink(deb)
    return d


def tree_version(tree):
    """'7.2.13' from the tree's top Makefile, or '?'."""
    try:
        text = open(os.path.join(tree, "Makefile"), errors="replace").read(2000)
    except OSError:
        return "?"
    v = {k: re.search(rf"^{k}\s*=\s*(\S*)", text, re.M) for k in
         ("VERSION", "PATCHLEVEL", "SUBLEVEL")}
    if not all(v.values()):
        return "?"
    return ".".join(v[k].group(1) for k in ("VERSION", "PATCHLEVEL", "SUBLEVEL"))


def blocks(text):
    """The `#ifdef CONFIG_SCHED_MM_CID` blocks of text: (first line number,
    lines) for the part before the matching #else/#endif.  Nested #if's are
    followed; an unterminated block is an error."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        if re.match(r"^\s*#\s*ifdef\s+CONFIG_SCHED_MM_CID\b", lines[i]) or \
                re.match(r"^\s*#\s*if\s+defined\(CONFIG_SCHED_MM_CID\)\s*$", lines[i]):
            depth, j, body = 1, i + 1, []
            taking = True
            while j < len(lines) and depth:
                l = lines[j]
                if re.match(r"^\s*#\s*if", l):
                    depth += 1
                elif re.match(r"^\s*#\s*endif", l):
                    depth -= 1
                    if not depth:
                        break
                elif depth == 1 and re.match(r"^\s*#\s*(else|elif)", l):
                    taking = False
                if taking:
                    body.append(l)
                j += 1
            if depth:
                raise LabError(f"an #ifdef CONFIG_SCHED_MM_CID at line {i + 1} has no #endif")
            out.append((i + 2, body))
            i = j + 1
        else:
            i += 1
    return out


def extract(tree):
    """The translation unit's kernel parts, keyed by file: a list of
    '#line'-annotated text blocks.  One line of error when the tree cannot
    be read or lacks the blocks."""
    if not os.path.isdir(tree):
        raise LabError(f"--kernel-tree {tree}: no such directory")
    parts = {}
    for f in FILES:
        p = os.path.join(tree, f)
        try:
            text = open(p, errors="replace").read()
        except OSError as e:
            raise LabError(f"--kernel-tree {tree}: cannot read {f} ({e.strerror}); "
                           "a kernel source tree expected")
        bs = blocks(text)
        if not bs:
            raise LabError(f"--kernel-tree {tree}: {f} has no #ifdef CONFIG_SCHED_MM_CID "
                           f"block (the extractor knows kernels {KNOWN})")
        parts[f] = "".join(f'#line {n} "{f}"\n' + "\n".join(body) + "\n"
                           for n, body in bs)
    allk = "".join(parts.values())
    missing = [n for n in NEEDED if not re.search(r"\b" + re.escape(n) + r"\b", allk)]
    if missing:
        raise LabError(f"--kernel-tree {tree}: the mm_cid blocks lack {', '.join(missing)}: "
                       f"a layout this extractor does not know (it knows kernels {KNOWN})")
    return parts


def layout(tree, parts):
    """What the call context must know of the tree, as #defines: whether the
    walk uses the per-mm user list (7.0-rc4 on: "sched/mmcid: Avoid full
    tasklist walks") and where fork calls sched_mm_cid_fork(): in
    sched_post_fork() once the child is visible (the FORK fix, "sched/mmcid:
    Prevent CID stalls due to concurrent forks", 7.0-rc4) or in copy_mm()
    before (6.19)."""
    d = []
    if re.search(r"\buser_list\b", parts["include/linux/rseq_types.h"]):
        d.append("#define KCHK_USER_LIST 1")
    try:
        fork_c = open(os.path.join(tree, "kernel/fork.c"), errors="replace").read()
    except OSError:
        fork_c = ""
    m = re.search(r"^static int copy_mm\(.*?^}$", fork_c, re.S | re.M)
    if m and re.search(r"\bsched_mm_cid_fork\(", m.group(0)):
        d.append("#define KCHK_FORK_IN_COPY_MM 1")
    return "".join(l + "\n" for l in d)


def unit(parts, stubdir, defines=""):
    """The translation unit: stand-ins, blocks in the kernel's include order,
    the call context."""
    return ("/* generated by scripts/kernel-source at run time: kernel code\n"
            " * (GPL-2.0) between our stand-ins; never installed, never shipped */\n"
            + defines + '#include "kstub.h"\n' + parts["include/linux/rseq_types.h"] +
            '#include "kstub2.h"\n' + parts["include/linux/mm_types.h"] +
            parts["kernel/sched/sched.h"] + parts["kernel/sched/core.c"] +
            '#line 1 "kcontext.c"\n#include "kcontext.c"\n')


def patch_tree(tree, patches, out):
    """A copy of tree's FILES with patches applied (PATH, or -PATH for a
    reverse one), in out/tree.  Every hunk must apply (kernel/fork.c's say
    where fork calls into mm_cid)."""
    dst = os.path.join(out, "tree")
    if os.path.exists(dst):
        shutil.rmtree(dst)
    for f in FILES + EXTRA + ["Makefile"]:
        s = os.path.join(tree, f)
        if os.path.exists(s):
            os.makedirs(os.path.dirname(os.path.join(dst, f)), exist_ok=True)
            shutil.copy(s, os.path.join(dst, f))
    for p in patches:
        rev = p.startswith("-")
        path = p[1:] if rev else p
        if not os.path.isfile(path):
            raise LabError(f"--kernel-patch {path}: no such file")
        r = subprocess.run(["patch", "-p1", "-f", "-d", dst] + (["-R"] if rev else []) +
                           ["-i", os.path.abspath(path)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            rej = re.findall(r"saving rejects to file (\S+)\.rej", r.stdout)
            first = (f"hunks of {', '.join(sorted(set(rej)))} failed" if rej else
                     (r.stdout.strip().splitlines() or ["patch failed"])[-1])
            raise LabError(f"--kernel-patch {p}: does not apply to {tree}: {first}")
    return dst


def build(tree, stubdir, incdirs, out, cc="cc", patches=(), plant=None, plain=False):
    """Extract, write, compile: the shared object's path (rebuilt only when
    its inputs changed)."""
    if patches:
        tree = patch_tree(tree, patches, out)
    parts = extract(tree)
    if plant:
        parts = plant_line(parts, plant)
    src = unit(parts, stubdir, layout(tree, parts))
    ver = tree_version(tree)
    flags = ["-std=gnu11", "-O1", "-g", "-fPIC", "-shared", "-DCIDK_CHECKER",
             f'-DKCHK_VERSION="{ver}"', "-Wall", "-Wno-unused-function",
             "-Wno-unused-variable", "-I", stubdir] + \
        [a for d in incdirs for a in ("-I", d)]
    h = hashlib.sha256(src.encode())
    for f in sorted(glob.glob(os.path.join(stubdir, "*"))):
        h.update(open(f, "rb").read())
    if plain:  # every plain access a point (check/kernel/ktsan.c)
        flags += ["-fsanitize=thread", "-Wno-tsan", "-DKCHK_PLAIN"]
    h.update(" ".join([cc] + flags).encode())
    key = h.hexdigest()[:16]
    os.makedirs(out, exist_ok=True)
    so = os.path.join(out, f"kernel-{ver}-{key}.so")
    if os.path.exists(so):
        return so, ver
    c = os.path.join(out, f"kernel-{ver}-{key}.c")
    with open(c, "w") as f:
        f.write(src)
    if plain:
        base = [f for f in flags if f not in ("-shared", "-fsanitize=thread")]
        steps = [shlex.split(cc) + flags[:] + ["-c", "-o", so + ".o", c],
                 shlex.split(cc) + base + ["-c", "-o", so + ".t.o",
                                           os.path.join(stubdir, "ktsan.c")],
                 shlex.split(cc) + ["-shared", "-o", so + ".tmp", so + ".o", so + ".t.o"]]
        steps[0].remove("-shared")
    else:
        steps = [shlex.split(cc) + flags + ["-o", so + ".tmp", c]]
    for cmd in steps:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            break
    if r.returncode:
        errs = [l for l in r.stdout.splitlines() if "error" in l]
        raise LabError(f"the mm_cid code of {tree} does not compile against the "
                       f"stand-ins ({len(errs)} errors, the first: "
                       f"{errs[0] if errs else r.stdout.strip()[:200]}); {c} has it all")
    os.replace(so + ".tmp", so)
    return so, ver


def plant_line(parts, spec):
    """--kernel-plant 'FILE:OLD=>NEW': the first line of FILE's blocks that
    contains OLD gets it replaced by NEW (a one-line change, for showing
    that the checker finds one)."""
    f, _, rest = spec.partition(":")
    old, sep, new = rest.partition("=>")
    if f not in parts or not sep or not old:
        raise LabError(f"--kernel-plant {spec!r}: FILE:OLD=>NEW expected, FILE one of "
                       f"{', '.join(FILES)}")
    lines = parts[f].split("\n")
    for i, l in enumerate(lines):
        if old in l and not l.startswith("#line"):
            lines[i] = l.replace(old, new, 1)
            return dict(parts, **{f: "\n".join(lines)})
    raise LabError(f"--kernel-plant: no line of {f}'s mm_cid blocks contains {old!r}")
