#!/usr/bin/env python3
"""Docs that cannot go stale: the command outputs shown in docs/*.md are
what the commands print now, byte for byte (cram-style).

  cram.py CIDKIT DOC|DIR...            TAP: check every block (make check)
  cram.py --update CIDKIT DOC|DIR...   rewrite the blocks with what the
                                       commands print now (after a model
                                       change: then read the diff)
  cram.py --slow ...                   also the blocks marked slow
  cram.py --self-test CIDKIT DOC|DIR...  TAP: the checker itself catches a
                                       changed digit, --update restores it,
                                       an undated sample is refused

A fenced block (``` ... ```) whose first line starts with "$ build/cidkit"
is checked.  In it, each line starting with "$ " is a command (run by
sh -c from the top of the tree, "build/cidkit" replaced by CIDKIT); the
lines after it, up to the next "$ " line or the closing fence, are its
standard output, compared whole (a command's wall clock goes to its
standard error).  The exit status is part of the output, as in cram: a
command that exits N != 0 shows "[N]" as its last line; a command shown
without it must exit 0.  A block preceded by the line

  <!-- docs-test: slow -->

is run only with --slow (make check stays fast; the TAP line says so).

A block whose first line starts with "$ cidkit" is a sample from a real
machine (benchmarks, anything that is not a pure function of its
arguments): not run, but its first line must say the date (YYYY-MM-DD)
and the machine of the run, e.g.
  $ cidkit bench lease   # 2026-12-01, 2-vCPU AMD EPYC VM (load 8)
"""
import difflib
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import tap as T  # noqa: E402

SLOW_MARK = "<!-- docs-test: slow -->"
DATE = re.compile(r"\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b")


class Block:
    """One fenced block: lines[start] is the opening fence, lines[end] the
    closing one; cmds: (line index, command, expected output lines)."""

    def __init__(self, path, start, end, lines, slow):
        self.path, self.start, self.end, self.slow = path, start, end, slow
        self.first = lines[start + 1] if start + 1 < end else ""
        self.cmds = []
        for i in range(start + 1, end):
            if lines[i].startswith("$ "):
                self.cmds.append([i, lines[i][2:], []])
            elif self.cmds:
                self.cmds[-1][2].append(lines[i])

    @property
    def checked(self):
        return self.first.startswith("$ build/cidkit")

    @property
    def sample(self):
        return self.first.startswith("$ cidkit")


def blocks(path, text):
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            if j == len(lines):
                break  # an unclosed fence: nothing to check after it
            slow = i > 0 and lines[i - 1].strip() == SLOW_MARK
            out.append(Block(path, i, j, lines, slow))
            i = j + 1
        else:
            i += 1
    return lines, out


def run(cmd, cidkit, root):
    """The command's standard output as lines (no trailing empty line)."""
    line = re.sub(r"(^|[\s|;&(])build/cidkit(?=\s|$)",
                  lambda m: m.group(1) + shlex.quote(cidkit), cmd)
    env = dict(os.environ, LC_ALL="C")
    r = subprocess.run(["sh", "-c", line], cwd=root, capture_output=True,
                       text=True, env=env, check=False)
    out = r.stdout.split("\n")
    if out and out[-1] == "":
        out.pop()
    if r.returncode:
        out.append(f"[{r.returncode}]")
    return out, r.returncode, r.stderr


def check_file(path, cidkit, root, update=False, slow=False, only=None):
    """[(label, status, detail lines)] with status "ok", "not ok", "skip";
    with update, the file is rewritten with the outputs of now."""
    text = open(path, encoding="utf-8").read()
    lines, bl = blocks(path, text)
    rel = os.path.relpath(path, root)
    res, new = [], list(lines)
    for b in reversed(bl):  # from the end: replacing keeps earlier indices
        label = f"{rel}:{b.start + 1}: {b.first}"
        if only is not None and only not in b.first:
            continue
        if b.sample:
            dated = bool(DATE.search(b.first))
            res.append((label, "ok" if dated else "not ok",
                        [] if dated else
                        ["a sample (not run): its first line must give the "
                         "date (YYYY-MM-DD) and the machine of the run"]))
            continue
        if not b.checked:
            continue
        if b.slow and not slow:
            res.append((label, "skip", ["slow: not run by make check; "
                        f"python3 tests/docs/cram.py --slow build/cidkit {rel}"]))
            continue
        detail, good = [], True
        for k in reversed(range(len(b.cmds))):
            idx, cmd, want = b.cmds[k]
            nxt = b.cmds[k + 1][0] if k + 1 < len(b.cmds) else b.end
            got, rc, err = run(cmd, cidkit, root)
            if got == want:
                continue
            good = False
            detail.append(f"$ {cmd}   (exit {rc}; - shown in {rel}, + printed now)")
            detail += [l.rstrip("\n") for l in
                       difflib.unified_diff(want, got, "shown", "printed",
                                            lineterm="", n=1)][2:]
            if err.strip():
                detail.append("stderr: " + err.strip().split("\n")[0])
            new[idx + 1:nxt] = got
        res.append((label, "ok" if good else "not ok", detail))
    if update:
        out = "\n".join(new)
        if out != text:
            open(path, "w", encoding="utf-8").write(out)
    res.reverse()
    return res


def docs(args):
    for a in args:
        if os.path.isdir(a):
            yield from sorted(glob.glob(os.path.join(a, "*.md")))
        else:
            yield a


def tap(results):
    for label, status, detail in results:
        if status == "skip":
            T.ok(True, label, "SKIP " + detail[0])
        else:
            T.ok(status == "ok", label, detail=detail[:400])
    T.plan(T.count())
    return T.count(), T.failures()


def self_test(cidkit, paths, root):
    """The checker catches a changed digit; --update restores the file."""
    results = []

    def ok(cond, what, detail=()):
        results.append((what, "ok" if cond else "not ok", list(detail)))

    # The cheapest real block with a digit in its output: the smallest one.
    cands = []
    for p in paths:
        _, bl = blocks(p, open(p, encoding="utf-8").read())
        for b in bl:
            if b.checked and not b.slow and len(b.cmds) == 1 and \
               any(re.search(r"[0-9]", l) for l in b.cmds[0][2]):
                cands.append((sum(map(len, b.cmds[0][2])), p, b))
    ok(bool(cands), f"a checked block with a digit among {len(paths)} pages")
    if not cands:
        return results
    _, path, b = min(cands, key=lambda c: c[0])
    orig = open(path, encoding="utf-8").read()
    tmp = tempfile.mkdtemp()
    try:
        copy = os.path.join(tmp, os.path.basename(path))
        # the unchanged copy passes
        open(copy, "w", encoding="utf-8").write(orig)
        r = check_file(copy, cidkit, root, only=b.first)
        ok(len(r) == 1 and r[0][1] == "ok",
           f"{os.path.basename(path)}:{b.start + 1} unchanged: passes "
           f"({b.first})", r[0][2] if r else [])
        # one digit of a number changed (the last digit of the output, a
        # measurement rather than a name): fails, and the diff shows it
        lines = orig.split("\n")
        for i in reversed(range(b.cmds[0][0] + 1, b.end)):
            m = None
            for m in re.finditer(r"[0-9]", lines[i]):
                pass
            if m:
                d = m.group(0)
                bad = lines[i][:m.start()] + str((int(d) + 1) % 10) + \
                    lines[i][m.end():]
                good, lines[i] = lines[i], bad
                break
        open(copy, "w", encoding="utf-8").write("\n".join(lines))
        r = check_file(copy, cidkit, root, only=b.first)
        shown = r[0][2] if r else []
        ok(len(r) == 1 and r[0][1] == "not ok" and ("-" + bad) in shown and
           ("+" + good) in shown,
           f"one digit changed ({good.strip()[-40:]!r} -> {bad.strip()[-40:]!r}): "
           "fails, the diff shows both lines", shown)
        # --update restores the page byte for byte
        check_file(copy, cidkit, root, update=True, only=b.first)
        ok(open(copy, encoding="utf-8").read() == orig,
           "--update rewrites the block back to the page as committed")
        # a line too many, a line missing
        lines = orig.split("\n")
        lines.insert(b.end, "an extra line")
        open(copy, "w", encoding="utf-8").write("\n".join(lines))
        r = check_file(copy, cidkit, root, only=b.first)
        ok(len(r) == 1 and r[0][1] == "not ok", "an extra output line: fails")
        # an undated sample is refused, a dated one accepted
        open(copy, "w", encoding="utf-8").write(
            "```\n$ cidkit bench lease   # on my laptop\nx 1.0\n```\n"
            "```\n$ cidkit bench lease   # 2026-12-01, 2-vCPU VM\nx 1.0\n```\n")
        r = check_file(copy, cidkit, root)
        ok([s for _, s, _ in r] == ["not ok", "ok"],
           "a benchmark sample must give its date: undated refused, dated "
           "accepted")
        # the exit status is part of the output: "[3]" shown and exit 3
        # passes; the same output without it, or exit 0 with it, fails
        ex = "```\n$ build/cidkit cpulist --nbits 8 0-3; exit %d\n0-3\n%s```\n"
        res = []
        for rc, shown in ((3, "[3]\n"), (3, ""), (0, "[3]\n"), (0, "")):
            open(copy, "w", encoding="utf-8").write(ex % (rc, shown))
            res.append(check_file(copy, cidkit, root)[0][1])
        ok(res == ["ok", "not ok", "not ok", "ok"],
           "exit status: [3] shown for exit 3 passes, missing fails, shown for "
           f"exit 0 fails, absent for exit 0 passes ({res})")
        # a slow block is skipped unless --slow
        open(copy, "w", encoding="utf-8").write(
            f"{SLOW_MARK}\n```\n$ build/cidkit cpulist --nbits 8 0-3\n0-2\n```\n")
        r = check_file(copy, cidkit, root)
        r2 = check_file(copy, cidkit, root, slow=True)
        ok([s for _, s, _ in r] == ["skip"] and [s for _, s, _ in r2] == ["not ok"],
           "a slow block: skipped by default, run (and here failing) with --slow")
    finally:
        shutil.rmtree(tmp)
    return results


def main(argv):
    update = "--update" in argv
    slow = "--slow" in argv
    selftest = "--self-test" in argv
    args = [a for a in argv if a not in ("--update", "--slow", "--self-test")]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cidkit = os.path.abspath(args[0])
    paths = list(docs(args[1:]))
    root = os.path.dirname(os.path.dirname(os.path.abspath(paths[0]))) \
        if paths else "."
    if selftest:
        n, failed = tap(self_test(cidkit, paths, root))
        return 1 if failed or not n else 0
    results = []
    for p in paths:
        results += check_file(p, cidkit, root, update=update, slow=slow)
    if update:
        for label, status, detail in results:
            if status == "not ok" and detail and detail[0].startswith("$"):
                print(f"updated {label}")
            elif status == "not ok":
                print(f"{label}: {detail[0]}", file=sys.stderr)
        return 0
    n, failed = tap(results)
    if failed:
        print("# refresh the outputs after a deliberate change: "
              "python3 tests/docs/cram.py --update build/cidkit docs")
    return 1 if failed or not n else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
