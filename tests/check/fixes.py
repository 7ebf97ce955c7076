#!/usr/bin/env python3
"""Each published 2026 fix of the ownership policy shown necessary on its
own: for every fix the model reaches, `cidkit check` finds a violation on
the fix's scenario with exactly that fix taken out (`--policy
ownership:-FIX`: exit 1, verdict "violation", the property and the words
this file expects) and none with every fix applied (exit 0, "pass").  The
fixes it cannot reach are searched for on the transition scenarios, and
nothing must be found.

  fixes.py CIDKIT            print the table (markdown) docs/check-results.md shows
  fixes.py CIDKIT DOC        TAP: the pairs above, and the table in DOC
                             (between <!-- fixes --> and <!-- /fixes -->)
                             is what the command gives now

The expectations (which scenario, which property, which words) are this
file's, written from each fix's change log, not read from the tool; the
schedule counts and preemptions in the table are the tool's own (a
docs-freshness check only).
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from tap import done, ok  # noqa: E402

# fix, change log title (kernel commit), date, scenario, property, words
# in the violation's reason -- or, for a fix the model cannot reach, None
# and the reason.
FIXES = [
    ("W1", "Prevent live lock on task to CPU mode transition", "4327fb13fa47",
     "2026-02-02", "livelock-3cpu", "liveness", "spins in get_cid", None),
    ("W2", "Protect transition on weakly ordered systems", "47ee94efccf6",
     "2026-02-02", "livelock-3cpu", "liveness", "spins in get_cid", None),
    ("W3", "Drop per CPU CID immediately when switching to per task mode",
     "007d84287c74", "2026-02-02", "exit-switch-back", "quiescence",
     "leaked", None),
    ("W4", "Optimize transitional CIDs when scheduling out", "4463c7aa11a6",
     "2026-02-02", None, None, None,
     "no property fails: by its change log an optimisation (a transit CID "
     "kept at switch-out instead of given back), it changes what a switch "
     "costs, not who owns a CID; a per-task CID-stability property would "
     "see it"),
    ("FEB", "Don't assume CID is CPU owned on mode switch", "1e83ccd5921a",
     "2026-02-10", "exit-in-transit", "quiescence", "given back out of range",
     None),
    ("FORK", "Prevent CID stalls due to concurrent forks", "b2e48c429ec5",
     "2026-03-10", "concurrent-forks", "liveness", "spins in get_cid", None),
    ("VFORK", "Handle vfork()/CLONE_VM correctly", "28b5a1395036",
     "2026-03-10", "vfork-walk", "liveness", "spins in get_cid", None),
]

# The fixes found only under a weak memory model (check/memory.h): the
# model.  W2's cover letter ([WOES] V2 0/4, 2026-02-02): "Weakly ordered
# architectures can observe inconsistent state which causes them to make
# the wrong decision. That leads to the same problem as with #1" -- W1's
# live lock, which sequential consistency and TSO (stores seen in order)
# cannot show: the fix must pass under those with W2 taken out.
MEMORY = {"W2": "rc11"}
OTHER_MODELS = {"rc11": ["sc", "tso"]}
ALL_MODELS = ["sc", "tso", "rc11"]

# Where an unreachable fix is searched for: the scenarios with a mode
# transition (the published ones but the 4-CPU live lock, whose 3-CPU
# twin is here, and the fix scenarios).
SEARCHED = ["livelock-3cpu", "concurrent-forks", "switch-back",
            "fork-walk-migrate", "exit-switch-back", "exit-in-transit",
            "vfork-walk"]


def check(cidkit, scenario, policy, memory=None):
    mem = ["--memory", memory] if memory else []
    r = subprocess.run([cidkit, "check", "--scenario", scenario, "--policy",
                        policy, "--json"] + mem, capture_output=True,
                       text=True, check=False)
    try:
        res = json.loads(r.stdout)[0]
    except (ValueError, IndexError):
        res = {}
    return r.returncode, res


def run(cidkit):
    """The table's rows and the TAP lines."""
    rows, tap = [], []
    for fix, title, commit, date, scn, prop, words, reason in FIXES:
        source = f'"sched/mmcid: {title}" ({commit}, {date})'
        if scn is None:
            found = []
            for s in SEARCHED:
                rc, res = check(cidkit, s, f"ownership:-{fix}")
                if rc != 0 or res.get("verdict") != "pass":
                    found.append(s)
            tap.append((not found,
                        f"{fix}: not reachable, and ownership:-{fix} passes "
                        f"{len(SEARCHED)} transition scenarios"
                        + (f" (violation on {found})" if found else "")))
            rows.append(f"| {fix} | {source} | — | {reason} | — | — |")
            continue
        mem = MEMORY.get(fix)
        rc, res = check(cidkit, scn, f"ownership:-{fix}", mem)
        # the reason without its source lines (they move with every edit)
        why = re.sub(r" \(lib/[^)]*\)", "", res.get("why", ""))
        good = (rc == 1 and res.get("verdict") == "violation" and
                res.get("property") == prop and words in why)
        tap.append((good, f"{fix}: {scn} on ownership:-{fix}: exit {rc}, "
                    f"{res.get('verdict')}, {res.get('property')} "
                    f"(want exit 1, violation, {prop}: '{words}')"))
        for m in ALL_MODELS if mem else [None]:
            rc2, res2 = check(cidkit, scn, "ownership", m)
            tap.append((rc2 == 0 and res2.get("verdict") == "pass",
                        f"{fix}: {scn} on ownership (every fix)"
                        + (f", --memory {m}" if m else "") + f": exit {rc2}, "
                        f"{res2.get('verdict')} (want exit 0, pass)"))
        for m in OTHER_MODELS.get(mem, []):
            rc3, res3 = check(cidkit, scn, f"ownership:-{fix}", m)
            tap.append((rc3 == 0 and res3.get("verdict") == "pass",
                        f"{fix}: {scn} on ownership:-{fix}, --memory {m}: "
                        f"exit {rc3}, {res3.get('verdict')} (want exit 0, "
                        "pass: only a weaker model shows it)"))
        where = f"`{scn}`" + (f" (`--memory {mem}`)" if mem else "")
        rows.append(f"| {fix} | {source} | {where} | {prop}: {why} | "
                    f"{res.get('preemptions', '?')} | "
                    f"{res.get('schedules', 0):,} |")
    head = ["| fix | source (kernel commit, date) | scenario | "
            "violation found with the fix taken out | preemptions | "
            "schedules |", "|---|---|---|---|---:|---:|"]
    return "\n".join(head + rows), tap


def main():
    text, tap = run(sys.argv[1])
    if len(sys.argv) == 2:
        print(text)
        return 0
    doc = open(sys.argv[2]).read()
    shown = doc.split("<!-- fixes -->\n", 1)[1].split("\n<!-- /fixes -->", 1)[0]
    same = shown.strip() == text.strip()
    tap.append((same, "docs/check-results.md: the fix table shown is the command's "
                "output now"))
    for good, what in tap[:-1]:
        ok(good, what)
    ok(same, tap[-1][1], detail=text)
    return done()


sys.exit(main())
