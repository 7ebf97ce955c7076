"""TAP for the kernel-lab tests (tests/kernels/*.py): numbered ok lines,
# diagnostics, and the count of failures for the exit status.

  from tap import ok, diag, failures
  ok(cond, "what")              -> "ok 1 - what" / "not ok 1 - what"
  ok(cond, "what", "SKIP why")  -> the same with " # SKIP why"
  ok(cond, "what", "TODO why")  -> a failure that is not counted (TAP's TODO)
  diag(text[, label])           -> each line as "# text" ("# label: text");
                                   bytes are decoded as UTF-8, replacing
  failures()                    -> how many ok() calls failed so far
"""
import sys

_n = 0
_failed = 0


def ok(cond, what, directive=""):
    global _n, _failed
    _n += 1
    if not cond and not directive.startswith("TODO"):
        _failed += 1
    print(f"{'ok' if cond else 'not ok'} {_n} - {what}{' # ' + directive if directive else ''}")
    sys.stdout.flush()


def diag(text, label=None):
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    for line in text.splitlines():
        print(f"# {label}: {line}" if label else "# " + line)


def failures():
    return _failed
