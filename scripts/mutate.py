#!/usr/bin/env python3
"""Source-level mutation testing of lib/cid/ against `cidkit check` alone.

No Debian package ships a C mutation tool (apt-cache search: mull,
dextool, universalmutator: nothing), so this is a small one.  Operators:

  ror    a relational operator moved to its boundary neighbour
         (< <=, > >=, == !=)
  const  an integer literal +1 / -1 (constants, thresholds)
  drop   a one-line statement removed (a store, a re-check, a clear, a call)
  plain  an atomic made plain: cidk__add/cidk__sub as a load then a store,
         cidk__cas as a load, a compare and a store (two steps the checker
         can interleave; under its sequential consistency that is all
         "plain" can mean)
  swap   two adjacent one-line statements exchanged

plus the audit's planted bugs under fixed ids (AUDIT below): audit-a
(`users >= pcpu_thrs` made `>`), audit-b (the per-CPU->task hand-over
without its task-CID re-check), audit-d (convergence removed altogether;
two sites, one mutant).  Not mutated: comments, preprocessor lines,
statistics (cidk__st_add/_max: counters, no behaviour) and ownership.c's
invariant checker (the oracle itself).

Each mutant is built as a separate checker binary (the one mutated object
recompiled, then linked with the build's other checker objects), and
judged by `cidkit-check` alone: every library scenario under each policy
the file serves (2 preemptions), the judge's own scenario files
(tests/check/judge/*.scn, under their own policy), then the generator's
budget; killed when some (scenario, policy) shows a violation the
unmutated build does not.  A mutant that does not compile is stillborn
(not counted).  The judge is made cheap without changing a verdict: gcov
of the unmutated checker (built once more with --coverage -O0) says which
runs execute the mutated line; the others run the very same steps in the
mutant and are skipped; the rest run cheapest first and the first kill
ends it.  A mutant no run reaches survives "unreached" (or "unreached:
v6.19 only" when ownership:v6.19 on the library scenarios reaches it)
without running.  --every-run is the slow judge, for comparison.

  mutate.py list [FILE...] | --table       the mutants, one per line
                                           (--table: the checker's table)
  mutate.py table [--json] [--jobs J]      the checker's mutation table
                                           (TABLE: each mutant built and
                                           run on the library scenarios
                                           under its policy until one
                                           fails); 0 when all are killed
  mutate.py show ID                        the mutant's diff
  mutate.py build ID DIR                   build it, print the binary's path
  mutate.py kill ID                        0 when a library scenario kills
                                           it (no baseline, no generator:
                                           make check's sample)
  mutate.py run [--sample N] [--jobs J] [--ids ID,...] [--out JSON]
                [--gen N] [--build DIR]    judge them
  mutate.py report JSON... [--doc docs/check-results.md] [--load TEXT]
                                           the per-file score (and the
                                           doc's table, between <!-- mutants
                                           --> markers); later JSONs (reruns)
                                           override earlier verdicts
  mutate.py suite JSON --src DIR --build DIR [--suites unit,stress,sim]
                [--tests NAME,...]         judge JSON's survivors by meson
                                           test in a scratch copy DIR of
                                           the tree (git archive): those
                                           suites, or only the tests named
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = {
    "lib/cid/ownership.c": ["ownership"],
    "lib/cid/lazy.c": ["lazy", "lazy-batched", "cache-local"],
    "lib/cid/cache_local.c": ["cache-local"],
}
GEN_SEED = 1

# The audit's planted bugs: (id, file, [(old, new), ...]), exact text.
AUDIT = [
    ("audit-a", "lib/cid/ownership.c",
     [("\tif (users >= mm->pcpu_thrs)\n", "\tif (users > mm->pcpu_thrs)\n")]),
    ("audit-b", "lib/cid/ownership.c",
     [("\t\tif (on_cpu(cpu_cid)) {\n\t\t\tif (on_task(tcid)) {\n",
       "\t\tif (on_cpu(cpu_cid)) {\n\t\t\tif (0) {\n")]),
    ("audit-b2", "lib/cid/ownership.c",
     [("\t\tif (on_task(tcid)) {\n\t\t\tif (on_cpu(cpu_cid)) {\n",
       "\t\tif (1) {\n\t\t\tif (on_cpu(cpu_cid)) {\n")]),
    ("audit-d", "lib/cid/ownership.c",
     [("\t\tif (tcid >= max)\n\t\t\ttcid = converge(mm, sh, tcid, max);\n",
       "\t\t(void)converge;\n"),
      ("\t\tif (own_cid(cpu_cid) >= max)\n"
       "\t\t\tcpu_cid = converge(mm, sh, cpu_cid, max);\n",
       "\t\t(void)converge;\n")]),
    # issue 38's held-out class: the convergence search given a bound one
    # past max_cids, so a switch-in may converge onto CID max_cids itself
    ("audit-e", "lib/cid/ownership.c",
     [("\t\t\ttcid = converge(mm, sh, tcid, max);\n",
       "\t\t\ttcid = converge(mm, sh, tcid, max + 1);\n"),
      ("\t\t\tcpu_cid = converge(mm, sh, cpu_cid, max);\n",
       "\t\t\tcpu_cid = converge(mm, sh, cpu_cid, max + 1);\n")]),
]

# Plants for the properties of check/props.c (tests/check/chkprop.sh): one
# fault each that only that property reports.
PLANTS = [
    ("plant-own-keep", "lib/cid/ownership.c",
     [("\tsl->curr = NULL;\n\tif (in_transit(t->own)",
       "\tsl->curr = NULL;\n"
       "\tif (on_task(t->own) && !(cidk__ld(&mm->mode) & OWN_ONCPU)) {\n"
       "\t\tcidk__cid_put(mm, sh, cid);\n\t\tt->own = OWN_UNSET;\n"
       "\t\trq_unlock(sl);\n\t\treturn;\n\t}\n"
       "\tif (in_transit(t->own)")]),
    ("plant-lazy-compact", "lib/cid/lazy.c",
     [("now - last <= mm->p.expiry_ns)", "now - last <= 2 * mm->p.expiry_ns)")]),
    # cache-local forgets its recent CID (never tries it first)
    ("plant-cl-take", "lib/cid/cache_local.c",
     [("\tcid = cidk__ld(&mm->slots[cpu].recent);\n",
       "\tcid = CIDK_CID_NONE;\n")]),
    # max_cids never stored: it keeps its initial value
    ("plant-own-max", "lib/cid/ownership.c",
     [("\tcidk__st(&mm->max_cids, max);\n", "\t(void)max;\n")]),
    # ownership (own-slot): the per-task switch-in does not record the
    # task's CID in its CPU's slot
    ("plant-own-slot", "lib/cid/ownership.c",
     [("\tsl->cid = tcid;\n\tt->own = tcid;\n", "\tt->own = tcid;\n")]),
    # ownership (own-task-mode): the CPU->task walk leaves the running
    # task's CID CPU-owned
    ("plant-own-task-mode", "lib/cid/ownership.c",
     [("\t\t\t\tcur->own = own_cid(sl->cid) | OWN_TRANSIT;\n", "")]),
    # ownership (own-mode, transitions): per-CPU mode above pcpu_thrs
    # switches "to per-CPU" again (a transition that changes no mode)
    ("plant-own-transition", "lib/cid/ownership.c",
     [("\tif (users >= mm->pcpu_thrs)\n\t\treturn 0;\n",
       "\tif (users >= mm->pcpu_thrs)\n\t\treturn 1;\n")]),
    # ownership (own-transit, switch-in): the slow path during a
    # transition takes a CID without TRANSIT
    ("plant-own-transit-in", "lib/cid/ownership.c",
     [("\t\ttcid |= mode & OWN_TRANSIT;\n", "")]),
    # ownership (own-transit, switch-out): W4 keeps a transit CID equal
    # to max_cids
    ("plant-own-transit-out", "lib/cid/ownership.c",
     [("\t\t\t    cid < cidk__ld(&mm->max_cids)) {",
       "\t\t\t    cid <= cidk__ld(&mm->max_cids)) {")]),
    # ownership (own-fork): a task forked in per-task mode gets no CID
    ("plant-own-fork", "lib/cid/ownership.c",
     [("\t\tt->own = get_cid(mm, sh); /* per-task: it owns one from birth */\n",
       "\t\t; /* per-task: it owns one from birth */\n")]),
    # lazy takes a new CID as cache-local does (spreading, not the lowest)
    ("plant-lazy-take", "lib/cid/lazy.c",
     [("\tif (mm->p.kind == CIDK_CID_CACHE_LOCAL)\n\t\treturn cidk__cache_local_take",
       "\tif (mm->p.kind != CIDK_CID_BITMAP)\n\t\treturn cidk__cache_local_take")]),
]

# The checker's mutation table (`mutate.py table`; until issue 40 these
# were plants compiled into lib/cid, switched on by `cidkit check
# --mutant`): one-line faults, each judged under one policy, killed when a
# library scenario finds a violation (tests/check/check.sh names the
# scenario and property of each).  (id, file, unit, policy, fault, patch):
# a patch of a header is compiled through `unit`, the lib/cid file whose
# code the fault lives in.
TABLE = [
    ("take-test-then-set", "lib/cid/cid_internal.h", "lib/cid/mm.c",
     "bitmap", "a CID bit taken by a load and a store, not one RMW",
     [("\tcidk__st_add(sh, ST_BITMAP_RMW, 1);\n"
       "\treturn cidk__bit_take(mm->cidmask, cid);\n",
       "\tcidk__st_add(sh, ST_BITMAP_RMW, 1);\n"
       "\t/* a test, then a set: two steps another thread can split */\n"
       "\tif (cidk__bitmap_word(mm->cidmask, cidk__bit_word(cid)) &\n"
       "\t    cidk__bit_mask(cid))\n"
       "\t\treturn false;\n"
       "\tcidk__bit_take(mm->cidmask, cid);\n"
       "\treturn true;\n")]),
    ("bitmap-put-early", "lib/cid/bitmap.c", None, "bitmap",
     "the bit given back right after it was taken",
     [("\t\tcidk__cid_note_in(mm, sh, t, cpu, cid);\n\treturn cid;\n",
       "\t\tcidk__cid_note_in(mm, sh, t, cpu, cid);\n"
       "\tif (cid != CIDK_CID_NONE)\n"
       "\t\tcidk__cid_put(mm, sh, cid); /* released before its last use */\n"
       "\treturn cid;\n")]),
    ("inherit-no-put", "lib/cid/inherit.c", None, "inherit",
     "switch-out never gives the CID back",
     [("\tcidk__cid_put(mm, cidk__shard(mm, t->cpu), t->cid);\n", "")]),
    ("inherit-no-bound", "lib/cid/inherit.c", None, "inherit",
     "a last-used CID reused above min(allowed, users)",
     [("\treturn cid < max_cid && cidk__cid_try_take(mm, sh, cid);\n",
       "\treturn cid != CIDK_CID_NONE && cidk__cid_try_take(mm, sh, cid);\n")]),
    ("lazy-scan-busy", "lib/cid/lazy.c", None, "lazy",
     "the scan releases a slot a task is running with",
     [("\t\tif (s & SLOT_BUSY) {\n\t\t\tif (slot_cas(sh, slot, &s, s | SLOT_LAZY_PUT)) {\n",
       "\t\tif ((s & SLOT_BUSY) && 0) {\n\t\t\tif (slot_cas(sh, slot, &s, s | SLOT_LAZY_PUT)) {\n")]),
    ("lazy-put-keeps-slot", "lib/cid/lazy.c", None, "lazy",
     "LAZY_PUT honoured at switch-out, but the CID left in the slot",
     [("\t\t\tif (slot_cas(sh, slot, &s, SLOT_UNSET)) {\n"
       "\t\t\t\tcidk__cid_put(mm, sh, cid);\n",
       "\t\t\tif (slot_cas(sh, slot, &s, cid)) {\n"
       "\t\t\t\tcidk__cid_put(mm, sh, cid);\n")]),
    ("own-no-transit-clear", "lib/cid/ownership.c", None, "ownership",
     "the CPU->task walk never ends the transit phase",
     [("\t\trq_unlock(sl);\n\t}\n\tset_mode(mm, 0);\n}\n",
       "\t\trq_unlock(sl);\n\t}\n}\n")]),
    ("own-walk-drop-running", "lib/cid/ownership.c", None, "ownership",
     "the task->CPU walk drops a running task's CID",
     [("\t\tif (sl->curr == t) {\n", "\t\tif (sl->curr == t && 0) {\n")]),
    ("own-keep-transit", "lib/cid/ownership.c", None, "ownership",
     "switch-out keeps a CID borrowed in transit",
     [("\tif (in_transit(t->own)) {\n\t\tif (fixed(mm, CIDK_CID_FIX_W4)) {\n",
       "\tif (in_transit(t->own) && 0) {\n\t\tif (fixed(mm, CIDK_CID_FIX_W4)) {\n")]),
    ("own-converge-no-put", "lib/cid/ownership.c", None, "ownership",
     "convergence takes a CID below max_cids, keeps the old one",
     [("\tcidk__cid_put(mm, sh, own_cid(orig));\n", "")]),
    ("own-no-rq-recheck", "lib/cid/ownership.c", None, "ownership",
     "task_rq_lock without re-checking the task's CPU",
     [("\t\tif (cidk__ldp(&t->cpu) == cpu)\n\t\t\treturn sl;\n",
       "\t\tif (1 || cidk__ldp(&t->cpu) == cpu)\n\t\t\treturn sl;\n")]),
    ("lease-claim-no-cas", "lib/cid/lease_fast.h", "lib/cid/lazy.c", "lazy",
     "a lease's fast enter claims its slot by a load and a store",
     [("\tif (!cidk__cas(&slot->word, &s, s | SLOT_BUSY))\n\t\treturn false;\n",
       "\tif (cidk__ld(&slot->word) != s)\n\t\treturn false;\n"
       "\tcidk__st(&slot->word, s | SLOT_BUSY);\n")]),
    ("lease-exit-any", "lib/cid/lease_fast.h", "lib/cid/lazy.c", "lazy",
     "a lease's fast leave stores over a slot it does not hold",
     [("\tif (cidk__ld(&slot->word) != (cid | SLOT_BUSY))\n\t\treturn false;\n",
       "\tif (cidk__ld(&slot->word) != (cid | SLOT_BUSY) && 0)\n"
       "\t\treturn false;\n")]),
    ("lazy-migrate-busy", "lib/cid/lazy.c", None, "lazy",
     "migration moves a slot's CID while a task runs with it (BUSY ignored)",
     [("\tif (s != t->last_cid)\n\t\treturn;\n",
       "\tif ((s & ~SLOT_BUSY) != t->last_cid)\n\t\treturn;\n")]),
]

PLAIN_CAS = """
/* mutate.py: an atomic made plain */
static inline bool cidk__mut_cas(_Atomic unsigned int *p, unsigned int *e,
				 unsigned int d)
{
	unsigned int v = cidk__ld(p);

	if (v != *e) {
		*e = v;
		return false;
	}
	cidk__st(p, d);
	return true;
}
"""

ROR = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
ROR_RE = re.compile(r"(?<![<>=!\-])(<=|>=|==|!=|<|>)(?![<>=])")
INT_RE = re.compile(r"(?<![\w.])(\d+)(?![\w.])")
DECL_RE = re.compile(r"^(const |static |unsigned |int |bool |uint64_t |"
                     r"struct \w+ \*?\w|enum |char |size_t |#)")
SKIP_RE = re.compile(r"cidk__st_add|cidk__st_max|atomic_fetch_add_explicit|"
                     r"CIDK__SITE|\bcase\b|\bdefault\b|\bfor\b|\bwhile\b")


def code_lines(path):
    """(index, line, code) of the lines to mutate: code without comments."""
    text = open(os.path.join(ROOT, path)).read().split("\n")
    out, in_comment = [], False
    for i, line in enumerate(text):
        code = line
        if in_comment:
            if "*/" in code:
                code = " " * (code.index("*/") + 2) + code[code.index("*/") + 2:]
                in_comment = False
            else:
                continue
        code = re.sub(r"/\*.*?\*/", lambda m: " " * len(m.group()), code)
        if "/*" in code:
            code = code[:code.index("/*")]
            in_comment = True
        code = re.sub(r'"(\\.|[^"\\])*"', lambda m: " " * len(m.group()), code)
        if "invariant checker's part" in line:
            break  # the oracle: not mutated
        s = code.strip()
        if not s or s.startswith("#") or SKIP_RE.search(code):
            continue
        out.append((i, line, code))
    return text, out


def simple_stmt(code):
    s = code.strip()
    return (s.endswith(";") and s.count("(") == s.count(")") and
            not DECL_RE.match(s) and not re.match(
                r"(return|break|continue|goto|else|if|\})\b", s) and
            "{" not in s and "}" not in s)


def enumerate_file(path):
    text, lines = code_lines(path)
    base = os.path.basename(path)[:-2]
    muts = []

    def add(op, i, k, new_lines, what):
        muts.append({"id": f"{base}:{i + 1}:{op}:{k}", "file": path,
                     "line": i + 1, "op": op, "what": what,
                     "edits": new_lines})

    for idx, (i, line, code) in enumerate(lines):
        for k, m in enumerate(ROR_RE.finditer(code)):
            op = m.group(1)
            new = line[:m.start()] + ROR[op] + line[m.end():]
            add("ror", i, k, {i: new}, f"{op} -> {ROR[op]}")
        if not line.lstrip().startswith(("static", "unsigned int", "bool")) \
                or "=" in code:
            for k, m in enumerate(INT_RE.finditer(code)):
                n = int(m.group(1))
                for d, tag in ((1, "p"), (-1, "m")):
                    if n + d < 0:
                        continue
                    new = line[:m.start()] + str(n + d) + line[m.end():]
                    add("const", i, 2 * k + (d < 0), {i: new},
                        f"{n} -> {n + d}")
        if simple_stmt(code):
            indent = line[:len(line) - len(line.lstrip())]
            add("drop", i, 0, {i: indent + ";"}, "statement dropped")
            m = re.match(r"(\s*)cidk__(add|sub)\((.*), (.*)\);\s*$", line)
            if m:
                sign = "+" if m.group(2) == "add" else "-"
                new = (f"{m.group(1)}cidk__st({m.group(3)}, "
                       f"cidk__ld({m.group(3)}) {sign} ({m.group(4)}));")
                add("plain", i, 0, {i: new}, f"cidk__{m.group(2)} made plain")
            if idx + 1 < len(lines):
                j, line2, code2 = lines[idx + 1]
                if j == i + 1 and simple_stmt(code2) and \
                        line2[:len(line2) - len(line2.lstrip())] == indent:
                    add("swap", i, 0, {i: line2, j: line},
                        "adjacent statements swapped")
        if "cidk__cas(" in code:
            add("plain", i, 1, {i: line.replace("cidk__cas(", "cidk__mut_cas(")},
                "cidk__cas made plain")
    return muts


def all_mutants(files=None):
    muts = []
    for f in (files or FILES):
        muts += enumerate_file(f)
    for mid, f, edits in AUDIT:
        muts.append({"id": mid, "file": f, "line": 0, "op": "audit",
                     "what": "the audit's planted bug", "patch": edits})
    return muts


def plants():
    return [{"id": mid, "file": f, "line": 0, "op": "plant",
             "what": "a plant for a property", "patch": edits}
            for mid, f, edits in PLANTS]


def table_mutants():
    return [{"id": mid, "file": f, "unit": unit or f, "line": 0,
             "op": "table", "policies": [pol], "what": what, "patch": edits}
            for mid, f, unit, pol, what, edits in TABLE]


def find(mid):
    m = [m for m in all_mutants() + plants() + table_mutants()
         if m["id"] == mid]
    return m[0] if m else None


def policies(m):
    """The policies a mutant is judged under: its own (the table's), else
    its file's."""
    return m.get("policies") or FILES[m["file"]]


def apply(m):
    """The mutated text of m's file (None: the patch does not apply)."""
    src = open(os.path.join(ROOT, m["file"])).read()
    if "patch" in m:
        for old, new in m["patch"]:
            if src.count(old) != 1:
                return None
            src = src.replace(old, new)
        return src
    lines = src.split("\n")
    for i, new in m["edits"].items():
        lines[int(i)] = new
    src = "\n".join(lines)
    if "cidk__mut_cas(" in src:
        k = src.index("\n", src.index('#include "cid/cid_internal.h"'))
        src = src[:k + 1] + PLAIN_CAS + src[k + 1:]
    return src


def ninja_commands(build):
    out = subprocess.run(["ninja", "-C", build, "-t", "commands",
                          "check/cidkit-check"], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    compiles, link = {}, None
    for c in out:
        if " -o check/cidkit-check " in c:
            link = c
        m = re.search(r"-c \.\./(lib/cid/\w+\.c)$", c)
        if m and "libchk_engine" in c:
            compiles[m.group(1)] = c
    return compiles, link


def build_mutant(m, build, tmp, cmds):
    """Path of the mutant's binary, or None (does not compile)."""
    compiles, link = cmds
    src = apply(m)
    if src is None:
        return None
    d = os.path.join(tmp, re.sub(r"[^\w.-]", "_", m["id"]))
    os.makedirs(d, exist_ok=True)
    unit = m.get("unit", m["file"])
    cfile = os.path.join(d, os.path.basename(unit))
    if unit == m["file"]:
        open(cfile, "w").write(src)
    else:
        # a header: the mutated copy at D/cid/NAME.h, where the unit's
        # copy at D finds it first ("cid/NAME.h": the includer's folder)
        os.makedirs(os.path.join(d, "cid"), exist_ok=True)
        open(os.path.join(d, "cid", os.path.basename(m["file"])),
             "w").write(src)
        shutil.copy(os.path.join(ROOT, unit), cfile)
    cc = shlex.split(compiles[unit])
    obj_i = cc.index("-o") + 1
    orig_obj = cc[obj_i]
    obj = os.path.join(d, "mut.o")
    cc[obj_i] = obj
    cc[-1] = cfile
    # the file's own includes ("cid/...") resolve through -I../lib
    cc = [a for a in cc if a not in ("-MD", "-Werror")]
    if "-MQ" in cc:
        k = cc.index("-MQ")
        del cc[k:k + 2]
    if "-MF" in cc:
        k = cc.index("-MF")
        del cc[k:k + 2]
    r = subprocess.run(cc, cwd=build, capture_output=True, text=True)
    if r.returncode:
        return None
    ln = shlex.split(link)
    exe = os.path.join(d, "cidkit-check")
    ln[ln.index("-o") + 1] = exe
    objs = sorted(os.path.join("check/libchk_engine.a.p", o) for o in
                  os.listdir(os.path.join(build, "check/libchk_engine.a.p"))
                  if o.endswith(".o"))
    objs = [obj if o == orig_obj else o for o in objs]
    k = ln.index("check/libchk_engine.a")
    ln[k:k + 1] = objs
    r = subprocess.run(ln, cwd=build, capture_output=True, text=True)
    return exe if r.returncode == 0 else None


def scenarios(exe):
    r = subprocess.run([exe, "--list", "--json"], capture_output=True,
                       text=True, check=True)
    return [s["name"] for s in json.loads(r.stdout)]


VIOL_RE = re.compile(r"^(\S+) \(([^,]+), .*: VIOLATION", re.M)


def violations(exe, args, timeout):
    """{(scenario, policy)} with a violation; 'timeout' on a hang."""
    try:
        r = subprocess.run([exe] + args, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    return {(a, b) for a, b in VIOL_RE.findall(r.stdout)}


JUDGE_DIR = os.path.join(ROOT, "tests/check/judge")


def judge_files():
    """The judge's own scenario files (tests/check/judge/*.scn: too costly
    for make check), each run under its own policy only: [(path, policy)]."""
    out = []
    if os.path.isdir(JUDGE_DIR):
        for f in sorted(os.listdir(JUDGE_DIR)):
            if f.endswith(".scn"):
                path = os.path.join(JUDGE_DIR, f)
                m = re.search(r"^policy (\S+)", open(path).read(), re.M)
                out.append((path, m.group(1) if m else ""))
    return out


def base_policy(p):
    """The policy a judge file's spec is a variant of: lazy-batched:2 is
    lazy-batched's (a batch size), ownership:-W3 ownership's (a fix taken
    out); ownership:v6.19 stays its own."""
    return p if p.endswith(":v6.19") else p.split(":")[0]


def pairs_for(policies, names, gen):
    """The judge's runs for a file's policies: (kind, policy, scenario)."""
    out = []
    for p in policies:
        out += [("lib", p, n) for n in names]
        # a judge file may name a variant of the policy (ownership:-W3,
        # lazy-batched:2): it runs under that variant, against that
        # variant's baseline
        out += [("lib", fp, f) for f, fp in judge_files()
                if base_policy(fp) == p]
        if gen:
            out.append(("gen", p, ""))
    return out


def judge_args(path):
    """A judge file's own options ("# judge-args: --preemptions 1"): a
    scenario whose 2-switch search costs minutes where 1 switch kills."""
    if not path.endswith(".scn") or not os.path.isfile(path):
        return []
    m = re.search(r"^# judge-args: (.*)$", open(path).read(), re.M)
    return shlex.split(m.group(1)) if m else []


def run_args(key, gen):
    kind, p, s = key
    if kind == "lib":
        return ["--policy", p, "--scenario", s] + judge_args(s)
    return ["--generate", str(gen), "--seed", str(GEN_SEED), "--policy", p]


def reach(m, key, cov):
    """False when no line m changes runs in the unmutated checker's run
    `key` (gcov): the mutant then runs exactly the same steps there, so the
    run cannot tell it apart.  True when unsure (a patch, a line gcov
    calls not executable, no coverage)."""
    if not cov or "edits" not in m:
        return True
    fc = cov["lines"].get(m["file"])
    if fc is None:
        return True
    lines = [int(i) + 1 for i in m["edits"]]
    if any(ln not in fc["executable"] for ln in lines):
        return True
    ran = cov["runs"].get(json.dumps(list(key)), {}).get(m["file"], ())
    return any(ln in ran for ln in lines)


def unreached_class(m, cov):
    """None when some run of the judge executes m's line(s); else the
    reason class (decided by gcov, not by hand)."""
    if not cov or "edits" not in m:
        return None
    fc = cov["lines"].get(m["file"])
    lines = [int(i) + 1 for i in m["edits"]]
    if fc is None or any(ln not in fc["executable"] for ln in lines):
        return None
    keys = [json.dumps(list(k)) for k in cov["keys"]
            if base_policy(k[1]) in FILES[m["file"]]]
    if any(ln in cov["runs"].get(k, {}).get(m["file"], ())
           for k in keys for ln in lines):
        return None
    if any(ln in cov["v619"].get(m["file"], ()) for ln in lines):
        return "unreached: v6.19 only"
    return "unreached"


def judge(exe, m, names, gen, base, timeout, cov=None, cost=None):
    """(verdict, where): killed / survived / timeout.  The runs the
    mutated line cannot affect (reach()) are skipped, the rest run
    cheapest first, and the first kill ends it: the same verdict as every
    run in turn."""
    keys = pairs_for(FILES[m["file"]], names, gen)
    keys = [k for k in keys if reach(m, k, cov)]
    if cost:
        keys.sort(key=lambda k: cost.get(json.dumps(list(k)), 1e9))
    for k in keys:
        t = timeout if k[0] == "lib" else 4 * timeout
        v = violations(exe, run_args(k, gen), t)
        where = f"{os.path.basename(k[2])} ({k[1]})" if k[0] == "lib" \
            else f"generator ({k[1]})"
        if v == "timeout":
            return "timeout", where
        new = v - base.get(k if k[0] == "lib" else ("gen", k[1]), set())
        if new:
            if k[0] == "gen":
                where = "generator: " + ", ".join(
                    f"{a} ({b})" for a, b in sorted(new))
            return "killed", where
    return "survived", ""


def baseline(exe, names, gen, timeout, cost=None):
    base = {}
    pols = sorted({p for ps in FILES.values() for p in ps})
    for k in pairs_for(pols, names, gen):
        t0 = time.time()
        v = violations(exe, run_args(k, gen),
                       timeout if k[0] == "lib" else 4 * timeout)
        if cost is not None:
            cost[json.dumps(list(k))] = round(time.time() - t0, 3)
        base[k if k[0] == "lib" else ("gen", k[1])] = v
    return base


def gcov_lines(d, objs):
    """{file: (executable lines, executed lines)} from d's .gcda files."""
    out = {}
    for f, o in objs.items():
        gcda = os.path.join(d, o + ".gcda")
        if not os.path.exists(gcda):
            continue
        shutil.copy(os.path.join(d, "..", o + ".gcno"), d)
        r = subprocess.run(["gcov", "-j", "-t", "-o", d, gcda], cwd=d,
                           capture_output=True, text=True, check=True)
        for fj in json.loads(r.stdout.splitlines()[0])["files"]:
            if not fj["file"].endswith(f):
                continue
            out[f] = ({ln["line_number"] for ln in fj["lines"]},
                      {ln["line_number"] for ln in fj["lines"]
                       if ln["count"]})
    return out


def coverage(build, names, gen, timeout, tmp):
    """Which lines of FILES each of the judge's runs executes (gcov, on a
    checker built with --coverage -O0), and which ownership:v6.19 runs of
    the library scenarios execute."""
    compiles, link = ninja_commands(build)
    d = os.path.join(tmp, "coverage")
    os.makedirs(d, exist_ok=True)
    subst, objs = {}, {}
    for f in FILES:
        cc = shlex.split(compiles[f])
        obj_i = cc.index("-o") + 1
        o = "cov_" + os.path.basename(f)[:-2]
        objs[f] = o
        subst[cc[obj_i]] = os.path.join(d, o + ".o")
        cc[obj_i] = subst[cc[obj_i]]
        cc = [("-O0" if a == "-O2" else a) for a in cc
              if a not in ("-MD", "-Werror")] + ["--coverage"]
        for opt in ("-MQ", "-MF"):
            if opt in cc:
                k = cc.index(opt)
                del cc[k:k + 2]
        subprocess.run(cc, cwd=build, check=True, capture_output=True)
    ln = shlex.split(link)
    exe = os.path.join(d, "cidkit-check")
    ln[ln.index("-o") + 1] = exe
    lib = os.path.join(build, "check/libchk_engine.a.p")
    eobjs = sorted(subst.get(os.path.join("check/libchk_engine.a.p", o),
                             os.path.join("check/libchk_engine.a.p", o))
                   for o in os.listdir(lib) if o.endswith(".o"))
    k = ln.index("check/libchk_engine.a")
    ln[k:k + 1] = eobjs
    subprocess.run(ln + ["--coverage"], cwd=build, check=True,
                   capture_output=True)
    pols = sorted({p for ps in FILES.values() for p in ps})
    keys = pairs_for(pols, names, gen)
    todo = [(json.dumps(list(k)), run_args(k, gen)) for k in keys]
    todo.append(("v619", ["--policy", "ownership:v6.19"]))
    runs, lines, v619 = {}, {}, {}
    for i, (key, args) in enumerate(todo):
        pd = os.path.join(d, f"run{i}")
        os.makedirs(pd, exist_ok=True)
        env = dict(os.environ, GCOV_PREFIX=pd, GCOV_PREFIX_STRIP="99")
        try:
            subprocess.run([exe] + args, env=env, capture_output=True,
                           timeout=8 * timeout)
        except subprocess.TimeoutExpired:
            pass
        got = gcov_lines(pd, objs)
        for f, (exe_l, ran) in got.items():
            lines.setdefault(f, set()).update(exe_l)
            if key == "v619":
                v619[f] = sorted(ran)
            else:
                runs.setdefault(key, {})[f] = sorted(ran)
    return {"keys": [list(k) for k in keys], "runs": runs, "v619": v619,
            "lines": {f: {"executable": sorted(v)} for f, v in lines.items()}}


def cmd_run(a):
    build = os.path.abspath(a.build)
    muts = all_mutants()
    if a.ids:
        ids = (open(a.ids[1:]).read() if a.ids.startswith("@") else
               a.ids).strip()  # (a file's last newline is no id's)
        order = {k: i for i, k in enumerate(ids.split(","))}
        muts = sorted((m for m in muts if m["id"] in order),
                      key=lambda m: order[m["id"]])  # in the order given
    elif a.sample:
        rng = random.Random(a.seed)
        picked = []
        for f in FILES:
            fm = [m for m in muts if m["file"] == f and m["op"] != "audit"]
            picked += sorted(rng.sample(fm, min(a.sample, len(fm))),
                             key=lambda m: (m["line"], m["id"]))
        muts = [m for m in muts if m["op"] == "audit"] + picked
    cmds = ninja_commands(build)
    base_exe = os.path.join(build, "check/cidkit-check")
    names = scenarios(base_exe)
    t0 = time.time()
    bfile = a.out + ".baseline" if a.out else None
    cache = {}
    if bfile and os.path.exists(bfile) and \
            os.path.getmtime(bfile) > os.path.getmtime(base_exe) and \
            os.path.getmtime(bfile) > max(os.path.getmtime(
                os.path.join(ROOT, f)) for f in FILES):
        cache = json.load(open(bfile))
    if cache.get("gen") == a.gen and "base" in cache:
        base = {tuple(json.loads(k)): {tuple(x) for x in v}
                for k, v in cache["base"].items()}
    else:
        cache = {"gen": a.gen, "cost": {}}
        base = baseline(base_exe, names, a.gen, a.timeout, cache["cost"])
        cache["base"] = {json.dumps(list(k)): sorted(v) if v != "timeout"
                         else [] for k, v in base.items()}
    tmp = tempfile.mkdtemp(prefix="cidkit-mutants-")
    cov = None
    if not a.every_run:
        if "coverage" not in cache:
            cache["coverage"] = coverage(build, names, a.gen, a.timeout, tmp)
        cov = cache["coverage"]
        for fc in cov["lines"].values():
            fc["executable"] = set(fc["executable"])
        for r in cov["runs"].values():
            for f in r:
                r[f] = set(r[f])
    if bfile:
        json.dump(cache, open(bfile, "w"), default=sorted)
    print(f"baseline and coverage: {round(time.time() - t0)} s", flush=True)
    results = []

    def one(m):
        exe = build_mutant(m, build, tmp, cmds)
        if not exe:
            return dict(m, verdict="stillborn", where="")
        why = unreached_class(m, cov)
        if why:
            v, where = "survived", why
        else:
            v, where = judge(exe, m, names, a.gen, base, a.timeout, cov,
                             None if a.every_run else cache["cost"])
        shutil.rmtree(os.path.dirname(exe), ignore_errors=True)
        return dict(m, verdict=v, where=where)

    def save():
        out = {"date": datetime.date.today().isoformat(),
               "command": " ".join(["scripts/mutate.py"] + sys.argv[1:]),
               "seconds": round(time.time() - t0), "gen": a.gen,
               "done": len(results), "of": len(muts),
               "results": [{k: v for k, v in r.items()
                            if k not in ("edits", "patch")} for r in results]}
        if a.out:
            json.dump(out, open(a.out, "w"), indent=1)

    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for r in ex.map(one, muts):
            results.append(r)
            print(f"{r['id']:28} {r['verdict']:9} {r['what']:28} {r['where']}",
                  flush=True)
            save()  # a partial run still reports what it judged
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


def cmd_suite(a):
    """Judge the survivors of JSON by the test suite: each mutant's file
    written into a scratch copy of the tree (SRC, never this one), its
    build rebuilt, `meson test` run on the chosen suites; the verdict
    (killed / survived / stillborn) is stored as "suite" in JSON."""
    d = json.load(open(a.json))
    src, build = os.path.abspath(a.src), os.path.abspath(a.build)
    t0 = time.time()
    todo = [r for r in d["results"] if r["verdict"] == "survived" and
            "suite" not in r]
    for r in todo:
        m = find(r["id"])
        new = apply(m) if m else None
        path = os.path.join(src, m["file"]) if m else None
        if new is None:
            r["suite"] = "stillborn"
            continue
        old = open(path).read()
        try:
            open(path, "w").write(new)
            b = subprocess.run(["ninja", "-C", build], capture_output=True,
                               text=True)
            if b.returncode:
                r["suite"] = "stillborn"
            else:
                cmd = ["meson", "test", "-C", build, "--no-rebuild",
                       "--num-processes", str(a.jobs)]
                if a.tests:
                    cmd += a.tests.split(",")
                else:
                    for su in a.suites.split(","):
                        cmd += ["--suite", su]
                try:
                    t = subprocess.run(cmd, capture_output=True, text=True,
                                       timeout=a.timeout)
                    fails = re.findall(r"^\s*\d+/\d+ (\S+ / \S+)\s+"
                                       r"(?:FAIL|TIMEOUT|ERROR)", t.stdout,
                                       re.M)
                    r["suite"] = "killed" if t.returncode else "survived"
                    r["suite_where"] = ", ".join(fails[:3])
                except subprocess.TimeoutExpired:
                    r["suite"] = "killed"
                    r["suite_where"] = "timeout"
        finally:
            open(path, "w").write(old)
        print(f"{r['id']:28} {r['suite']:9} {r.get('suite_where', '')}",
              flush=True)
        d["suite_command"] = " ".join(["scripts/mutate.py"] + sys.argv[1:])
        d["suite_suites"] = ("tests " + a.tests) if a.tests else a.suites
        d["suite_seconds"] = d.get("suite_seconds", 0) + 0
        json.dump(d, open(a.json, "w"), indent=1)
    d["suite_seconds"] = round(time.time() - t0) + d.get("suite_seconds", 0)
    subprocess.run(["ninja", "-C", build], capture_output=True)
    json.dump(d, open(a.json, "w"), indent=1)
    return 0


def merge_runs(paths):
    """One result set from several runs: a later run's verdict on a
    mutant replaces an earlier one's (a rerun of the survivors)."""
    d = json.load(open(paths[0]))
    d["commands"] = [(d["command"], d["date"], d["seconds"])]
    by = {r["id"]: i for i, r in enumerate(d["results"])}
    for p in paths[1:]:
        e = json.load(open(p))
        d["commands"].append((e["command"], e["date"], e["seconds"]))
        for r in e["results"]:
            if r["id"] in by:
                old = d["results"][by[r["id"]]]
                for k in ("suite", "suite_where"):
                    if k in old and k not in r:
                        r[k] = old[k]
                d["results"][by[r["id"]]] = r
            else:
                by[r["id"]] = len(d["results"])
                d["results"].append(r)
    d["done"] = len(d["results"])
    return d


def reason(r, expl):
    """Why a survivor survived: tests/check/survivors.txt, else the judge's
    own class (gcov: no run of the judge executes the line)."""
    if r["id"] in expl:
        return expl[r["id"]]
    if r.get("where", "").startswith("unreached"):
        cls = r["where"]
        if cls == "unreached: v6.19 only":
            return ("out of reach: v6.19 only (gcov: no run of the judge "
                    "executes the line; ownership:v6.19 on the library "
                    "scenarios does)")
        return "out of reach: no run of the judge executes the line (gcov)"
    return "not explained yet"


def score_table(d, expl):
    suite = any("suite" in r for r in d["results"])
    head = ("| file | mutants | stillborn | killed by `cidkit check` | "
            "survived | of which unreached (v6.19 only) | equivalent or undefined behaviour | "
            "score: killed / non-equivalent |")
    sep = "|---|---:|---:|---:|---:|---:|---:|---:|"
    if suite:
        head += " survivors killed by the suite | score, check + suite |"
        sep += "---:|---:|"
    rows = [head, sep]
    for f in list(FILES) + ["audit"]:
        rs = [r for r in d["results"] if
              (r["op"] == "audit") == (f == "audit") and
              (f == "audit" or r["file"] == f)]
        if not rs:
            continue
        n = len(rs)
        still = sum(r["verdict"] == "stillborn" for r in rs)
        killed = sum(r["verdict"] in ("killed", "timeout") for r in rs)
        surv = [r for r in rs if r["verdict"] == "survived"]
        unr = sum(r.get("where", "").startswith("unreached") for r in surv)
        v619 = sum(r.get("where", "") == "unreached: v6.19 only"
                   for r in surv)
        eq = sum(reason(r, expl).startswith(("equivalent", "undefined"))
                 for r in surv)
        denom = n - still - eq
        pct = 100 * killed / denom if denom else 0
        row = (f"| {f} | {n} | {still} | {killed} | {len(surv)} | {unr} "
               f"({v619}) | {eq} | {killed} / {denom} = {pct:.0f} % |")
        if suite:
            sk = sum(r.get("suite") == "killed" for r in surv)
            both = killed + sk
            seq = sum(reason(r, expl).startswith(("equivalent", "undefined")) and
                      r.get("suite") != "killed" for r in surv)
            den2 = n - still - seq
            row += (f" {sk} | {both} / {den2} = "
                    f"{100 * both / den2 if den2 else 0:.0f} % |")
        rows.append(row)
    return "\n".join(rows)


def cmd_report(a):
    d = merge_runs(a.json)
    expl = {}
    ef = os.path.join(ROOT, "tests/check/survivors.txt")
    if os.path.exists(ef):
        for line in open(ef):
            if line.strip() and not line.startswith("#"):
                k, _, v = line.partition(" ")
                expl[k] = v.strip()
    part = ""
    if d.get("done", len(d["results"])) < d.get("of", len(d["results"])):
        part = (f" Stopped after {d['done']} of {d['of']} mutants (the rest "
                "not judged).")
    cmds = "; then ".join(f"`{c}` ({dt}, {sec} s wall)"
                          for c, dt, sec in d["commands"])
    text = [f"Command: {cmds}, on this 2-core machine shared with other "
            f"jobs{' (' + a.load + ')' if a.load else ''}; generator "
            f"{d['gen']} scenarios per policy.{part}", ""]
    if any("suite" in r for r in d["results"]):
        sc = [json.load(open(p)).get("suite_command") for p in a.json]
        text += [f"The survivors judged by the test suite: `{[c for c in sc if c][-1]}` "
                 f"(suites {d.get('suite_suites', '?')} of the plain build, "
                 "in a scratch copy of the tree).", ""]
    text += [score_table(d, expl), "", "Survivors, each with why:", ""]
    for r in d["results"]:
        if r["verdict"] == "survived":
            st = ""
            if r.get("suite") == "killed":
                st = f" [killed by the suite: {r.get('suite_where') or 'a test'}]"
            text.append(f"- `{r['id']}` ({r['what']}): {reason(r, expl)}{st}")
    out = "\n".join(text)
    if a.doc:
        doc = open(a.doc).read()
        s, e = "<!-- mutants -->\n", "<!-- /mutants -->"
        if s in doc and e in doc:
            doc = doc[:doc.index(s) + len(s)] + out + "\n" + doc[doc.index(e):]
            open(a.doc, "w").write(doc)
    print(out)
    return 0


def table_row(m, exe, timeout):
    """The first library scenario (not a published bug's) in --list order
    on which m's policy finds a violation: {mutant, policy, killed,
    schedules (summed over the scenarios run), scenario, property, steps}."""
    pol = m["policies"][0]
    r = subprocess.run([exe, "--list", "--json"], capture_output=True,
                       text=True, check=True)
    row = {"mutant": m["id"], "policy": pol, "killed": False, "schedules": 0}
    for sc in json.loads(r.stdout):
        if sc["expect"] == "violation":
            continue  # the published bugs: a violation unmutated
        try:
            out = subprocess.run([exe, "--policy", pol, "--scenario",
                                  sc["name"], "--json"], capture_output=True,
                                 text=True, timeout=timeout).stdout
        except subprocess.TimeoutExpired:
            continue
        res = json.loads(out)[0]
        row["schedules"] += res["schedules"]
        if res["verdict"] == "violation":
            row.update(killed=True, scenario=sc["name"],
                       property=res["property"], steps=len(res["trace"]))
            break
    return row


def cmd_table(a):
    """The checker's mutation table: each TABLE mutant built, then judged
    by the library scenarios under its policy until one fails."""
    build = os.path.abspath(a.build)
    cmds = ninja_commands(build)
    tmp = tempfile.mkdtemp(prefix="cidkit-table-")
    muts = table_mutants()

    def one(m):
        exe = build_mutant(m, build, tmp, cmds)
        if not exe:
            return {"mutant": m["id"], "policy": m["policies"][0],
                    "killed": False, "schedules": 0, "stillborn": True}
        return table_row(m, exe, a.timeout)

    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        rows = list(ex.map(one, muts))
    shutil.rmtree(tmp, ignore_errors=True)
    if a.json:
        print(json.dumps(rows, indent=1))
    else:
        print(f"{'mutant':22} {'policy':10} {'killed by':18} {'steps':>5} "
              f"{'schedules':>9}  fault")
        for m, r in zip(muts, rows):
            if r["killed"]:
                print(f"{r['mutant']:22} {r['policy']:10} {r['scenario']:18} "
                      f"{r['steps']:5} {r['schedules']:9}  {m['what']} "
                      f"({r['property']})")
            else:
                why = "STILLBORN" if r.get("stillborn") else "SURVIVED"
                print(f"{r['mutant']:22} {r['policy']:10} {why:18} "
                      f"{'-':>5} {r['schedules']:9}  {m['what']}")
        print(f"{sum(r['killed'] for r in rows)} of {len(rows)} mutants "
              "killed")
    print(f"time: {time.time() - t0:.0f} s", file=sys.stderr)
    return 0 if all(r["killed"] for r in rows) else 1


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("list")
    p.add_argument("files", nargs="*")
    p.add_argument("--table", action="store_true",
                   help="the checker's mutation table's mutants")
    p = sub.add_parser("show")
    p.add_argument("id")
    p = sub.add_parser("build")
    p.add_argument("id")
    p.add_argument("dir")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p = sub.add_parser("table")
    p.add_argument("--json", action="store_true")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=int, default=300)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p = sub.add_parser("kill")
    p.add_argument("id")
    p.add_argument("--timeout", type=int, default=120)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p = sub.add_parser("run")
    p.add_argument("--sample", type=int, default=0,
                   help="N mutants per file (0: all)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--ids")
    p.add_argument("--out")
    p.add_argument("--gen", type=int, default=8,
                   help="generated scenarios per policy")
    p.add_argument("--timeout", type=int, default=120)
    p.add_argument("--every-run", action="store_true",
                   help="the slow judge: every run of the file's policies "
                   "in turn (no coverage, no ordering)")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p = sub.add_parser("report")
    p.add_argument("json", nargs="+",
                   help="runs, later ones overriding earlier verdicts")
    p.add_argument("--doc")
    p.add_argument("--load", help="the load, said with the command")
    p = sub.add_parser("suite")
    p.add_argument("json")
    p.add_argument("--src", required=True,
                   help="a scratch copy of the tree (git archive)")
    p.add_argument("--build", required=True, help="its plain build")
    p.add_argument("--suites", default="unit,stress,sim")
    p.add_argument("--tests", help="test names, in place of --suites")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=int, default=900)
    a = ap.parse_args()
    if a.cmd == "list":
        for m in (table_mutants() if a.table else
                  all_mutants(a.files or None)):
            print(f"{m['id']:28} {m['what']}")
        return 0
    if a.cmd == "table":
        return cmd_table(a)
    if a.cmd in ("build", "kill"):
        m = find(a.id)
        if not m:
            print(f"mutate.py: no mutant {a.id}", file=sys.stderr)
            return 2
        build = os.path.abspath(a.build)
        tmp = os.path.abspath(a.dir) if a.cmd == "build" else \
            tempfile.mkdtemp(prefix="cidkit-mutant-")
        exe = build_mutant(m, build, tmp, ninja_commands(build))
        if not exe:
            print(f"mutate.py: {a.id} does not build", file=sys.stderr)
            return 2
        if a.cmd == "build":
            print(exe)
            return 0
        # killed by the library scenarios alone (the unmutated build passes
        # them all: tests/check/matrix.py)
        # the smallest machines first (fewest tasks, then CPUs): the
        # first kill ends it, and small scenarios cost least
        r = subprocess.run([exe, "--list", "--json"], capture_output=True,
                           text=True, check=True)
        names = [x["name"] for x in sorted(
            json.loads(r.stdout), key=lambda x: (x["tasks"], x["cpus"]))]
        for p in policies(m):
            for s in names:
                v = violations(exe, ["--policy", p, "--scenario", s],
                               a.timeout)
                if v:
                    print(f"{a.id}: killed by {s} ({p})")
                    shutil.rmtree(tmp, ignore_errors=True)
                    return 0
        print(f"{a.id}: survived")
        shutil.rmtree(tmp, ignore_errors=True)
        return 1
    if a.cmd == "show":
        m = [find(a.id)] if find(a.id) else []
        if not m:
            print(f"mutate.py: no mutant {a.id}", file=sys.stderr)
            return 2
        src = open(os.path.join(ROOT, m[0]["file"])).read()
        new = apply(m[0])
        if new is None:
            print(f"mutate.py: {a.id} does not apply", file=sys.stderr)
            return 2
        import difflib
        sys.stdout.writelines(difflib.unified_diff(
            src.splitlines(True), new.splitlines(True), m[0]["file"],
            m[0]["file"] + " (" + a.id + ")"))
        return 0
    if a.cmd == "run":
        return cmd_run(a)
    if a.cmd == "suite":
        return cmd_suite(a)
    return cmd_report(a)


if __name__ == "__main__":
    sys.exit(main())
