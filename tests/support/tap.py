"""TAP (version 12) for every Python test of cidkit: numbered ok lines,
# diagnostics, the plan, and the exit status.  The C tests' twin is
tests/support/tap.h.  A test finds this module with

  sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                  "..", "support"))
  from tap import ok, diag, done  # noqa: E402

  ok(cond, "what")              -> "ok 1 - what" / "not ok 1 - what";
                                   returns cond ('#' in what becomes '_',
                                   line breaks spaces)
  ok(cond, "what", "SKIP why")  -> the same with " # SKIP why"
  ok(cond, "what", "TODO why")  -> a failure that is not counted (TAP's TODO)
  ok(cond, "what", detail=L)    -> on failure, each line of L (a string or
                                   an iterable) as "#   line"
  diag(text[, label])           -> each line as "# text" ("# label: text");
                                   bytes are decoded as UTF-8, replacing
  plan(n)                       -> "1..n" first, when the count is known
  skip_all(why)                 -> "1..0 # SKIP why", exit 0 (meson's TAP
                                   parser reports SKIP; exit 77 is an ERROR
                                   under protocol: 'tap')
  failures()                    -> how many ok() calls failed so far
  count()                       -> how many ok() calls so far
  done()                        -> the plan "1..N" (unless plan() printed
                                   one) and the exit status: 1 when any
                                   ok() failed or none was made, else 0.
                                   sys.exit(done())

A test that asserts nothing fails: no test may pass without checking.
"""
import sys

_n = 0
_failed = 0
_planned = False


def ok(cond, what, directive="", detail=()):
    global _n, _failed
    _n += 1
    if not cond and not directive.startswith("TODO"):
        _failed += 1
    # one line per assertion, and no '#' to start a directive (as tap.h)
    what = " ".join(str(what).splitlines()).replace("#", "_")
    print(f"{'ok' if cond else 'not ok'} {_n} - {what}"
          f"{' # ' + directive if directive else ''}")
    if not cond and detail:
        lines = detail.splitlines() if isinstance(detail, str) else detail
        for line in lines:
            print("#   " + str(line))
    sys.stdout.flush()
    return cond


def diag(text, label=None):
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    for line in str(text).splitlines():
        print(f"# {label}: {line}" if label else "# " + line)
    sys.stdout.flush()


def plan(n):
    global _planned
    _planned = True
    print(f"1..{n}")
    sys.stdout.flush()


def skip_all(why):
    print(f"1..0 # SKIP {why}")
    sys.stdout.flush()
    sys.exit(0)


def failures():
    return _failed


def count():
    return _n


def done():
    if not _planned:
        print(f"1..{_n}")
    if not _n:
        print("# no assertions were made")
    sys.stdout.flush()
    return 1 if _failed or not _n else 0
