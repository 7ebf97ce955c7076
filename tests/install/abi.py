#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/install/abi.py - the ABI a user sees, three ways that must agree.

  abi.py SOURCE_ROOT LIBCIDKIT_SO CIDKIT     the test (TAP)
  abi.py --write-api SOURCE_ROOT             rewrite docs/api.md

1. `nm -D --defined-only libcidkit.so` (the symbols that leave the .so)
   equals the CIDK_EXPORT declarations of the installed headers
   (include/cidkit/*.h but the lab's sim.h, whose symbols must not leave);
   nothing internal (cidk__*) or unprefixed is exported.  An installed
   header declares no function (or extern variable) without CIDK_EXPORT:
   what it declares, a user can call.  The lab's interface
   (lib/internal/cidkit_lab.h, not installed) is in libcidkit.a, hidden,
   and not one of its functions leaves the .so.
2. docs/api.md is what --write-api makes from the headers: one line per
   exported symbol (its declaration) and per public inline function, grouped
   by header; so it lists exactly what nm -D shows, with the headers' types.
3. The man pages: cidkit.1 has a section for every command and
   subcommand of `cidkit --help`, naming every option its --help names and
   no other; every cidk_* name in libcidkit.3 exists in a header.
4. README.md's table of subcommands has a row for each, naming only
   options its --help has.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import tap  # noqa: E402

HIDDEN_HEADERS = {"sim.h", "trace.h"}  # the lab's: not installed, not in the .so


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    # preprocessor lines, with their continuations
    return re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)


def one_line(decl):
    decl = re.sub(r"\s+", " ", decl).strip()
    decl = re.sub(r"\( ", "(", decl)
    decl = re.sub(r" \)", ")", decl)
    return re.sub(r"\*\s+(?=\w)", "*", decl)


def decl_name(decl):
    m = re.search(r"(\w+)\s*\(", decl)
    if m and not decl.lstrip().startswith("extern"):
        return m.group(1)
    m = re.search(r"(\w+)\s*(\[\s*\])?\s*$", decl)
    return m.group(1)


def header_summary(text):
    """The header's first comment sentence: 'cidkit/x.h - what it is.'"""
    m = re.search(r"/\*\s*\n \* (cidkit/\w+\.h - .*?)(?:\n \*\s*\n|\*/)", text, re.S)
    s = re.sub(r"\s*\n \*\s*", " ", m.group(1)).strip()
    s = s.split(". ")[0].rstrip(".").split(" - ", 1)[1]
    return s[0].upper() + s[1:] + "."


def parse_header(path):
    """(summary, [(name, exported decl)], [(name, inline prototype)])"""
    raw = open(path).read()
    text = strip_comments(raw)
    exports = []
    for m in re.finditer(r"\bCIDK_EXPORT\b(.*?);", text, re.S):
        decl = m.group(1)
        exports.append((decl_name(decl), one_line(decl) + ";"))
    inlines = []
    for m in re.finditer(r"(?:static inline|CIDK__PERCPU_INLINE)\s+([^;{]*?\))\s*\{",
                         text, re.S):
        proto = one_line(m.group(1))
        name = decl_name(proto)
        if not name.startswith("cidk__"):
            inlines.append((name, proto + ";"))
    return header_summary(raw), exports, inlines


def toplevel_statements(text):
    """The file-scope statements of comment- and preprocessor-free C text:
    brace bodies (structs, enums, inline functions) dropped, a function
    definition dropped whole, extern "C" blocks opened."""
    text = text.replace('extern "C" {', " ")
    out, cur, depth = [], "", 0
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
            if depth == 0 and cur.rstrip().endswith(")"):
                cur = ""  # the end of a function definition
        elif depth:
            continue
        elif ch == ";":
            out.append(" ".join(cur.split()))
            cur = ""
        else:
            cur += ch
    # a statement-less macro (CIDK__CXX_FLEX_END) glues onto the next one
    out = [re.sub(r"^(CIDK__[A-Z_]+\s+)+", "", st) for st in out]
    return [st for st in out if st]


def declared_functions(path):
    """[(name, statement)]: every file-scope function declaration and
    extern variable of a header, exported or not."""
    decls = []
    for st in toplevel_statements(strip_comments(open(path).read())):
        if re.match(r"(typedef|struct|union|enum|_Static_assert|static_assert)\b", st):
            continue
        if re.search(r"\w\s*\(.*\)\s*$", st) or re.match(r"(CIDK_EXPORT\s+)?extern\b", st):
            decls.append((decl_name(st.replace("CIDK_EXPORT", "")), st))
    return decls


def installed_headers(src):
    d = os.path.join(src, "include", "cidkit")
    return [h for h in sorted(os.listdir(d))
            if h.endswith(".h") and h not in HIDDEN_HEADERS]


def api_md(src):
    out = ["# The ABI of libcidkit.so",
           "",
           "What a program linked with `-lcidkit` sees: every symbol the shared",
           "library exports (`nm -D --defined-only libcidkit.so`), one line each,",
           "grouped by the header that declares it, and the header's inline",
           "functions, which compile into the program and are not in the `.so`.",
           "Each declaration's contract (arguments, returns, errors, MT-safety) is",
           "the comment above it in the header. `cidkit/sim.h` is the simulator's",
           "header: the simulator is linked into the `cidkit` command, not into the",
           "library, and the header is not installed. What the lab (the simulator,",
           "the checker, the benchmarks, the command, the tests) uses beyond this",
           "page -- the CID policies' scheduler events, the invariant checker, the",
           "kernel-fix flags, the topology presets and reference checks -- is",
           "declared in `lib/internal/cidkit_lab.h`: compiled into the library",
           "hidden, not exported, not installed.",
           "",
           "The soname is `libcidkit.so.1`: it changes when a symbol below goes",
           "away or changes type, or a public struct changes layout.",
           "[docs/abi-policy.md](abi-policy.md) is the policy: what the soname",
           "promises, which layouts the inline functions below freeze, and how",
           "the ABI may change (minor: add symbols; major: anything inline code",
           "reads).",
           "",
           "Generated by `python3 tests/install/abi.py --write-api .`; the test",
           "`abi` (suite `install`) fails when this page, the headers and `nm -D`",
           "disagree.",
           ""]
    for h in installed_headers(src):
        summary, exports, inlines = parse_header(os.path.join(src, "include", "cidkit", h))
        if not exports and not inlines:
            continue
        out += ["## `<cidkit/%s>`" % h, "", summary, ""]
        if exports:
            out += ["```c"] + [d for _, d in exports] + ["```", ""]
        if inlines:
            out += ["Inline:", "", "```c"] + [d for _, d in inlines] + ["```", ""]
    arch = sorted(os.listdir(os.path.join(src, "include", "cidkit", "arch")))
    out += ["## `<cidkit/arch/*.h>`", "",
            "Installed with the others and included by `<cidkit/percpu.h>`: one "
            "header per architecture with rseq critical sections, internal "
            "(no exports, only `cidk__` inline helpers): " +
            ", ".join("`arch/%s`" % h for h in arch if h.endswith(".h")) + ".", ""]
    return "\n".join(out)


class Tap:
    """tests/support/tap.py's ok(); a failure shows 30 lines of @detail."""

    def ok(self, cond, what, detail=""):
        tap.ok(cond, what, detail=str(detail).splitlines()[:30])


def help_options(text):
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))


def man_sections(scd):
    """{"cidkit topo": text, "cidkit sim scan": text, ...} from cidkit.1.scd"""
    secs = {}
    for m in re.finditer(r"^## (cidkit [\w-]+)\n(.*?)(?=^## |^# |\Z)", scd, re.M | re.S):
        body = m.group(2)
        parts = re.split(r"^(?=\*%s [\w-]+\* )" % re.escape(m.group(1)), body, flags=re.M)
        secs[m.group(1)] = parts[0]
        for p in parts[1:]:
            sub = re.match(r"\*(cidkit [\w-]+ [\w-]+)\*", p).group(1)
            secs[sub] = p
    return secs


def commands(cidkit, prefix):
    r = subprocess.run([cidkit] + prefix + ["--help"], capture_output=True, text=True)
    block = r.stdout.split("commands:", 1)[1].split("\n\n", 1)[0]
    return [l.split()[0] for l in block.splitlines() if l.strip()]


def main():
    if sys.argv[1] == "--write-api":
        src = sys.argv[2]
        with open(os.path.join(src, "docs", "api.md"), "w") as f:
            f.write(api_md(src))
        return 0
    src, so, cidkit = sys.argv[1:4]
    t = Tap()

    nm = subprocess.run(["nm", "-D", "--defined-only", so],
                        capture_output=True, text=True, check=True).stdout
    # GCC's target_clones ifuncs add a NAME.resolver symbol: not an API.
    exported = {l.split()[-1] for l in nm.splitlines()
                if l.split() and not l.split()[-1].endswith(".resolver")}

    declared, where = set(), {}
    for h in installed_headers(src):
        _, exports, _ = parse_header(os.path.join(src, "include", "cidkit", h))
        for name, _ in exports:
            declared.add(name)
            where[name] = h
    hidden = set()
    for h in HIDDEN_HEADERS:
        _, exports, _ = parse_header(os.path.join(src, "include", "cidkit", h))
        hidden |= {n for n, _ in exports}

    t.ok(len(exported) > 100, "nm -D lists the library's symbols (%d)" % len(exported))
    t.ok(not exported - declared,
         "every exported symbol is a CIDK_EXPORT declaration of an installed header",
         "exported, not declared: %s" % sorted(exported - declared))
    t.ok(not declared - exported,
         "every CIDK_EXPORT declaration of an installed header is exported",
         "declared, not exported: %s" % sorted(declared - exported))
    bad = {s for s in exported if not s.startswith("cidk_") or s.startswith("cidk__")}
    t.ok(not bad, "nothing unprefixed or internal (cidk__) leaves the .so", sorted(bad))
    t.ok(hidden and not hidden & exported,
         "the lab's sim.h symbols stay out of the .so", sorted(hidden & exported))

    # An installed header declares only what the .so exports: a function
    # declared without CIDK_EXPORT would compile in a user's program and
    # fail at link time.
    bare = ["%s: %s" % (h, st) for h in installed_headers(src)
            for _, st in declared_functions(os.path.join(src, "include", "cidkit", h))
            if not st.startswith("CIDK_EXPORT")]
    t.ok(not bare, "the installed headers declare no function without CIDK_EXPORT",
         "\n".join(bare))
    # The lab's interface: in the archive the lab links, never in the .so.
    lab = {n for n, _ in declared_functions(os.path.join(src, "lib", "internal", "cidkit_lab.h"))}
    archive = os.path.join(os.path.dirname(so), "libcidkit.a")
    syms = subprocess.run(["readelf", "-sW", archive], capture_output=True,
                          text=True, check=True).stdout
    defined = {f[7] for f in (l.split() for l in syms.splitlines())
               if len(f) >= 8 and f[4] in ("GLOBAL", "WEAK") and f[6] != "UND"}
    t.ok(len(lab) > 10 and lab <= defined,
         "lib/internal/cidkit_lab.h: its %d functions are defined in libcidkit.a" % len(lab),
         "not in libcidkit.a: %s" % sorted(lab - defined))
    t.ok(not lab & exported, "lib/internal/cidkit_lab.h: none of them leaves the .so",
         sorted(lab & exported))
    t.ok(not lab & declared, "lib/internal/cidkit_lab.h: none of them is in an installed header",
         sorted(lab & declared))

    doc = open(os.path.join(src, "docs", "api.md")).read()
    want = api_md(src)
    diff = subprocess.run(["diff", "-u", "-", os.path.join(src, "docs", "api.md")],
                          input=want, capture_output=True, text=True).stdout
    t.ok(doc == want, "docs/api.md is up to date (python3 tests/install/abi.py "
         "--write-api . rewrites it)", diff)
    listed = set()
    for sec in re.split(r"^## ", doc, flags=re.M)[1:]:
        if sec.startswith("`<cidkit/arch/"):  # internal headers: no symbols
            continue
        header = re.match(r"`<cidkit/(\w+\.h)>`", sec).group(1)
        exported_part = sec.split("Inline:")[0]
        for line in re.findall(r"^[^#`\n].*;$", exported_part, re.M):
            name = decl_name(line.rstrip(";"))
            listed.add(name)
            if where.get(name) != header:
                t.ok(False, "docs/api.md lists %s under %s" % (name, header))
    t.ok(listed == exported, "docs/api.md lists exactly the symbols of nm -D (%d)" % len(listed),
         "only in api.md: %s\nonly in nm -D: %s" % (sorted(listed - exported),
                                                   sorted(exported - listed)))

    # cidkit(1): every command and subcommand, every option, no stale one.
    scd = open(os.path.join(src, "man", "cidkit.1.scd")).read()
    secs = man_sections(scd)
    cmds = []
    for c in commands(cidkit, []):
        cmds.append([c])
        if c in ("sim", "bench", "trace"):
            cmds += [[c, s] for s in commands(cidkit, [c])]
    for c in cmds:
        name = "cidkit " + " ".join(c)
        r = subprocess.run([cidkit] + c + ["--help"], capture_output=True, text=True)
        sec = secs.get(name)
        t.ok(sec is not None, "cidkit.1 has a section for %s" % name)
        if sec is None:
            continue
        opts = help_options(r.stdout) - {"--help"}
        if len(c) == 1 and c[0] in ("sim", "bench", "trace"):
            continue  # options belong to the subcommands
        inman = help_options(sec)
        t.ok(opts <= inman and inman <= opts | {"--help"},
             "cidkit.1, %s: the options of its --help (%d)" % (name, len(opts)),
             "missing: %s\nnot in --help: %s" % (sorted(opts - inman),
                                                 sorted(inman - opts - {"--help"})))
    extra = set(secs) - {"cidkit " + " ".join(c) for c in cmds}
    t.ok(not extra, "cidkit.1 describes no command that does not exist", sorted(extra))

    # README's table of subcommands: every command there, no option that
    # its --help does not have (the table is a summary: it may leave some out).
    readme = open(os.path.join(src, "README.md")).read()
    rows = {}
    for m in re.finditer(r"^\| `cidkit ([a-z-]+(?: [a-z-]+)?)([^`]*)`", readme, re.M):
        words = m.group(1).split()
        if words[0] not in ("sim", "bench", "trace"):
            words = words[:1]
        rows.setdefault(" ".join(words), set()).update(re.findall(r"--[a-z][a-z-]*", m.group(2)))
    for c in cmds:
        if len(c) == 1 and c[0] in ("sim", "bench", "trace"):
            continue
        name = " ".join(c)
        r = subprocess.run([cidkit] + c + ["--help"], capture_output=True, text=True)
        opts = help_options(r.stdout)
        t.ok(name in rows and rows[name] <= opts,
             "README.md: cidkit %s is in the table with real options" % name,
             "not in README's table" if name not in rows else
             "not in --help: %s" % sorted(rows[name] - opts))

    # libcidkit(3): every cidk_* name it mentions is real.
    man3 = open(os.path.join(src, "man", "libcidkit.3.scd")).read().replace("\\_", "_")
    headers_text = "".join(open(os.path.join(src, "include", "cidkit", h)).read()
                           for h in installed_headers(src))
    known = set(re.findall(r"\bcidk_\w+", headers_text))
    named = {n for n in re.findall(r"\bcidk_[a-z0-9_]*[a-z0-9]\b", man3)}
    t.ok(named and named <= known,
         "libcidkit.3 names only identifiers of the installed headers (%d)" % len(named),
         sorted(named - known))

    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
