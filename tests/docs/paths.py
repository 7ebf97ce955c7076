#!/usr/bin/env python3
"""Every repository path that the docs and the code comments name exists.

  paths.py ROOT               TAP: one line per file that names a path (a
                              "not ok" lists each missing path as
                              FILE:LINE: names PATH), one for the whole
                              scan, and the docs index
  paths.py --self-test ROOT   TAP: the scanner itself, on a tree it makes:
                              planted missing paths fail, globs pass
  paths.py --list ROOT        every path named, with where (to fix the
                              references after a file moved)

What is scanned: README.md, docs/*.md, man/*.scd, and the comments of the
code (C and C++ comments in *.c, *.h, *.cc; '#' comments and Python
docstrings in *.py, *.sh, *.scn, meson.build, Makefile and the scripts
without an extension).

What counts as a path, conservatively: a token that starts with a top
folder of the tree (bench/ check/ docs/ examples/ include/ lib/ man/
scripts/ sim/ tests/ tools/ trace/, and any other folder at the top)
right after a space, a quote, a backquote, a bracket, '=' or ',' -- so
/sys/..., ../x and build/cidkit are not paths of the tree -- and that looks
like dir/file.ext or dir/sub/: sim/ref (a ratio) and lib/cid are not
checked.  `*`, `<arch>`, `{a,b}` and the placeholders N, D, NAME, ARCH
are globs: at least one file must match each.  A stem that names files
with more suffixes (tests/data/traces/cid-threads3-6.18 for its .dat.xz
and .report.xz) passes.  The kernel's and librseq's paths (include/linux/,
include/rseq/, tools/testing/, lib/bitmap-str.c) cite another tree and
are not checked.  In Markdown, a link to a relative file (`[x](abi.md)`)
must exist, and a link to a heading (`[x](check.md#memory-models)`,
`[x](#verdicts)`) must name a heading of that page.

A name that is not a path of this tree yet (a file another branch adds)
is exempted on its line by the words "paths: not in tree" (in Markdown,
an HTML comment); take the words out once the file is there.

The docs index: docs/README.md links every page of docs/, and README.md
links docs/README.md and docs/design.md.
"""
import glob
import os
import re
import sys

TOPS = ("bench", "check", "docs", "examples", "include", "lib", "man",
        "scripts", "sim", "tests", "tools", "trace")
PATH = None  # the token pattern, made by set_tops() from the tree's folders
LINK = re.compile(r"\]\(([^)\s#:]+)(?:#[^)]*)?\)")
ANCHOR = re.compile(r"\]\(([^)\s#:]*)#([^)\s]+)\)")
EXEMPT = "paths: not in tree"
# Paths of other trees that share our top folders' names: the kernel's
# (include/linux/, tools/testing/, lib/bitmap-str.c, ...) and librseq's
# (include/rseq/).  Named to cite where an idea comes from, never checked.
FOREIGN = re.compile(r"^(include/(linux|uapi|asm[\w-]*|rseq|trace)/"
                     r"|tools/(testing|include|lib|perf|sched_ext)/"
                     r"|lib/(bitmap|cpumask|find_bit)[\w.-]*$)")
# Placeholders in a name: docs/figures/data/bench-lease-N.json
PLACEHOLDER = re.compile(r"(?<![A-Za-z])(N|D|M|NAME|ARCH|VERSION|POLICY)"
                         r"(?![A-Za-z])")
# The scan of this tree finds some 930 paths in the docs, 285 in C
# comments and 230 in '#' comments: far fewer of a kind means its
# scanner broke, not that the tree stopped naming files.
FLOOR = {"md": 700, "code": 200, "hash": 150}
SKIP_DIRS = {".git", "__pycache__", "corpus", "data", "figures"}
CODE_EXT = {".c", ".h", ".cc"}
HASH_EXT = {".py", ".sh", ".ini", ".scn", ".txt"}
HASH_NAMES = {"meson.build", "Makefile", "meson_options.txt"}


def tops(root):
    """The top folders: the ones above, and any other folder at the top
    of the tree (a new one counts as soon as it exists), never build*."""
    found = {d for d in os.listdir(root)
             if os.path.isdir(os.path.join(root, d)) and
             not d.startswith((".", "build", "__"))}
    return tuple(sorted(found | set(TOPS)))


def set_tops(root):
    """A token is a top folder, a slash, then path characters, braces
    and <placeholders>; before it, the start of a line or one of
    whitespace ` ' " ( [ < = ,."""
    global PATH, TOPS
    TOPS = tops(root)
    PATH = re.compile(
        r"(?:(?<=^)|(?<=[\s`'\"(\[<=,]))"
        r"((?:%s)/(?:[A-Za-z0-9_.\-*/]|\{[A-Za-z0-9_.,\-]*\}|<[a-z_-]+>)*)"
        % "|".join(map(re.escape, TOPS)), re.M)


def slugs(path):
    """The anchors of a Markdown page's headings, as GitHub makes them:
    lower case, punctuation dropped, spaces to '-', '-1', '-2' after
    a repeat.  Fenced blocks are not headings."""
    out, seen, fence = set(), {}, False
    for l in open(path, encoding="utf-8").read().split("\n"):
        if l.startswith("```"):
            fence = not fence
        if fence or not re.match(r"#{1,6} ", l):
            continue
        s = re.sub(r"[^\w\- ]", "", l.lstrip("#").strip().lower())
        s = s.replace(" ", "-")
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out


def expand_braces(s):
    m = re.search(r"\{([^{}]*)\}", s)
    if not m:
        return [s]
    out = []
    for alt in m.group(1).split(","):
        out += expand_braces(s[:m.start()] + alt + s[m.end():])
    return out


def clean(tok):
    """The token without the sentence's punctuation after it."""
    while tok and tok[-1] in ".,-":
        tok = tok[:-1]
    return tok


def is_path(tok):
    """Conservatively, a claim about a file of this tree: the last part
    has an extension (dir/file.ext), or the token ends with a slash
    (a folder); not a path of the kernel's or librseq's tree."""
    last = tok.rstrip("/").rsplit("/", 1)[-1]
    if FOREIGN.match(tok) or tok.rstrip("/") in TOPS:
        return False
    return tok.endswith("/") or "." in last.strip(".")


def exists(root, tok):
    tok = PLACEHOLDER.sub("*", re.sub(r"<[a-z_-]+>", "*", tok))
    pats = expand_braces(tok)
    for p in pats:
        full = os.path.join(root, p)
        if any(c in p for c in "*?"):
            if not glob.glob(full):
                return False
        elif p.endswith("/"):
            if not os.path.isdir(full):
                return False
        elif not os.path.exists(full) and not glob.glob(full + ".*"):
            return False  # (a stem: cid-threads3-6.18 for .dat.xz, ...)
    return True


def c_comments(text):
    """(line number, comment text) of each C/C++ comment line."""
    out, i, n, line = [], 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in "\"'":
            j = i + 1  # a string or character literal: skip it
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((line, text[i:j]))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            for k, l in enumerate(text[i:j].split("\n")):
                out.append((line + k, l))
            line += text.count("\n", i, j)
            i = j + 2
        else:
            i += 1
    return out


def hash_comments(text):
    """(line number, text) of each '#' comment, and of Python docstrings."""
    out, in_doc = [], None
    for no, l in enumerate(text.split("\n"), 1):
        s = l.strip()
        if in_doc:
            out.append((no, l))
            if in_doc in l:
                in_doc = None
            continue
        for q in ('"""', "'''"):
            if s.startswith(q) or s.startswith("r" + q):
                out.append((no, l))
                if s.count(q) == 1:
                    in_doc = q
                break
        else:
            k = l.find("#")
            if k >= 0 and not l.startswith("#!"):
                out.append((no, l[k:]))
    return out


def sources(root):
    """(relative path, kind) of every file scanned: 'md' (the whole text),
    'code' (C comments) or 'hash' ('#' comments, docstrings)."""
    yield "README.md", "md"
    for p in sorted(glob.glob(os.path.join(root, "docs", "*.md"))):
        yield os.path.relpath(p, root), "md"
    for p in sorted(glob.glob(os.path.join(root, "man", "*.scd"))):
        yield os.path.relpath(p, root), "md"
    for name in ("Makefile", "meson.build", "meson_options.txt"):
        if os.path.exists(os.path.join(root, name)):
            yield name, "hash"
    for top in TOPS:
        if top in ("docs", "man"):
            continue
        for d, subs, files in os.walk(os.path.join(root, top)):
            subs[:] = sorted(s for s in subs if s not in SKIP_DIRS)
            for f in sorted(files):
                rel = os.path.relpath(os.path.join(d, f), root)
                ext = os.path.splitext(f)[1]
                if ext in CODE_EXT:
                    yield rel, "code"
                elif ext in HASH_EXT or f in HASH_NAMES:
                    yield rel, "hash"
                elif ext == "" and rel.startswith("scripts/"):
                    yield rel, "hash"


def named(root, rel, kind):
    """[(line, token, exists)] for every path named in one file."""
    text = open(os.path.join(root, rel), encoding="utf-8",
                errors="replace").read()
    if kind == "code":
        lines = c_comments(text)
    elif kind == "hash":
        lines = hash_comments(text)
    else:
        lines = list(enumerate(text.split("\n"), 1))
    out = []
    for no, l in lines:
        if EXEMPT in l:
            continue
        for m in PATH.finditer(l):
            tok = clean(m.group(1))
            if not is_path(tok):
                continue
            out.append((no, tok, exists(root, tok)))
        if kind == "md" and rel.endswith(".md"):
            for m in LINK.finditer(l):
                t = m.group(1)
                if t.startswith(("http", "mailto", "/")):
                    continue
                full = os.path.normpath(os.path.join(
                    os.path.dirname(rel), t))
                out.append((no, full, os.path.exists(
                    os.path.join(root, full))))
            for m in ANCHOR.finditer(l):
                t, a = m.groups()
                if t.startswith(("http", "mailto", "/")):
                    continue
                full = os.path.normpath(os.path.join(
                    os.path.dirname(rel), t or os.path.basename(rel)))
                page = os.path.join(root, full)
                if full.endswith(".md") and os.path.exists(page):
                    out.append((no, f"{full}#{a}", a in slugs(page)))
    return sorted(set(out), key=lambda x: (x[0], x[1]))


def check(root, floor=None):
    """One TAP line per file that names a path, and one for the whole
    scan: at least @floor[kind] paths named of each kind (a scanner that
    finds nothing must not pass)."""
    set_tops(root)
    res, files = [], 0
    total = {"md": 0, "code": 0, "hash": 0}
    for rel, kind in sources(root):
        got = named(root, rel, kind)
        if not got:
            continue
        total[kind] += len(got)
        files += 1
        bad = [(no, tok) for no, tok, ok in got if not ok]
        if bad:
            res.append((False, f"{rel}: {len(bad)} of {len(got)} named "
                        "paths do not exist",
                        [f"{rel}:{no}: names {tok}, which does not exist"
                         for no, tok in bad]))
        else:
            res.append((True, f"{rel}: {len(got)} named paths exist", []))
    floor = floor or {}
    res.append((all(total[k] >= floor.get(k, 0) for k in total),
                f"{sum(total.values())} paths named in {files} files: "
                + ", ".join(f"{total[k]} in {k} (at least {floor.get(k, 0)})"
                            for k in sorted(total)), []))
    return res


def index(root):
    """docs/README.md links every page of docs/, and the top README.md
    links the index and the design page."""
    res = []
    pages = sorted(os.path.basename(p) for p in
                   glob.glob(os.path.join(root, "docs", "*.md")))
    idx = os.path.join(root, "docs", "README.md")
    text = open(idx, encoding="utf-8").read() if os.path.exists(idx) else ""
    linked = set(LINK.findall(text))
    missing = [p for p in pages if p != "README.md" and p not in linked]
    res.append((bool(text) and not missing,
                f"docs/README.md indexes every page of docs/ ({len(pages) - 1})",
                ["docs/README.md does not exist"] if not text else
                [f"docs/README.md: no line links docs/{p}" for p in missing]))
    top = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    linked = set(LINK.findall(top))
    missing = [p for p in ("docs/README.md", "docs/design.md")
               if p not in linked]
    res.append((not missing, "README.md links docs/README.md and "
                "docs/design.md", [f"README.md: no link to {p}"
                                   for p in missing]))
    return res


def self_test(root):
    """A planted missing path fails, named with its file and line; globs,
    braces, <arch>, folders and relative links that exist pass."""
    import shutil
    import tempfile
    res = []
    tmp = tempfile.mkdtemp()
    try:
        for f in ("labutil/prng.c", "labutil/stats.c", "include/x/a.h",
                  "docs/a.md", "scripts/tool", "lib/cid/x.c"):
            os.makedirs(os.path.dirname(os.path.join(tmp, f)), exist_ok=True)
            open(os.path.join(tmp, f), "w").close()
        open(os.path.join(tmp, "README.md"), "w").write(
            "See `labutil/{prng,stats}.c`, include/x/<arch>.h, `lib/cid/`,\n"
            "lib/cid/*.c, scripts/tool, [a](docs/a.md), /sys/lib/nope.c,\n"
            "build/cidkit and ../lib/nope.c.\n")
        open(os.path.join(tmp, "docs", "a.md"), "w").write(
            "# A heading, `x` (y)\n[r](../README.md), labutil/prng.c, "
            "[h](#a-heading-x-y), [h](a.md#a-heading-x-y).\n")
        r = check(tmp)
        res.append((all(ok for ok, _, _ in r),
                    "existing paths, globs, braces, <arch>, folders, "
                    "links and headings pass; /sys/, build/ and ../ are not paths of the "
                    "tree", [d for _, l, dd in r for d in [l] + dd]))
        with open(os.path.join(tmp, "lib", "cid", "y.c"), "w") as f:
            f.write("/* as lib/cid/gone.c does */\n"
                    "static const char *s = \"lib/cid/not-a-comment.c\";\n")
        with open(os.path.join(tmp, "docs", "a.md"), "a") as f:
            f.write("See labutil/{prng,gone}.c and [b](b.md), [c](#nope).\n")
        r = check(tmp)
        det = [d for _, _, dd in r for d in dd]
        want = ["lib/cid/y.c:1: names lib/cid/gone.c, which does not exist",
                "docs/a.md:3: names labutil/{prng,gone}.c, which does not "
                "exist",
                "docs/a.md:3: names docs/b.md, which does not exist",
                "docs/a.md:3: names docs/a.md#nope, which does not exist"]
        res.append((sorted(det) == sorted(want),
                    "a missing path in a comment, in a brace, in a link and "
                    "a missing heading each fail, named with file and line; a string literal "
                    "in code is not a comment", det))
    finally:
        shutil.rmtree(tmp)
    return res


def tap(res):
    failed = 0
    for n, (ok, label, detail) in enumerate(res, 1):
        print(f"{'ok' if ok else 'not ok'} {n} - {label}")
        if not ok:
            failed += 1
            for d in detail:
                print("#   " + d)
    print(f"1..{len(res)}")
    return 1 if failed or not res else 0


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    root = os.path.abspath(args[0] if args else ".")
    if "--self-test" in argv:
        return tap(self_test(root))
    if "--list" in argv:
        set_tops(root)
        for rel, kind in sources(root):
            for no, tok, ok in named(root, rel, kind):
                print(f"{rel}:{no}: {tok}{'' if ok else '   MISSING'}")
        return 0
    res = check(root, FLOOR) + index(root)
    rc = tap(res)
    if rc:
        print("# a file moved or was renamed: fix the references above "
              "(or mark a line that is not a path of the tree with "
              f"'{EXEMPT}')")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
