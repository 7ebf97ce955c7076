#!/usr/bin/env python3
"""--state-cache against the stateless search it shortens (issue 26):
every scenario of the library under every policy (and ownership:v6.19,
the published bugs, and each published fix taken out on its own), and
every mutant of the checker's mutation table (scripts/mutate.py TABLE,
each its own build, run through CIDKIT_CHECK) under its policy, searched with
and without the cache.  The reference is the search without it
(`check/explore.c` with chk_opts.state_cache off, the engine before the
cache), and the expectation is what the cache promises (statecache.h):
only schedules that visit states explored before are left out, so

  - the same verdict, property, reason, trace, replay line and final
    state (the first violation of the fewest explorer switches, then the
    shortest: the same one);
  - the same distinct states (a state the cache skips was reached before)
    and the same executions cut by --max-steps (the cache never skips
    above one);
  - no more schedules nor steps, and a cut left by the bound on both
    sides or on neither ("exhaustive" the same).

  statecache.py CIDKIT [--quick]   TAP
  --quick (make check): ownership and ownership:v6.19 (every fix, and
  the published bugs' violations), and every fourteenth mutant; the whole set is the command without it (about 4 minutes
  of CPU, docs/check.md).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from tap import done, ok, skip_all  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
MUTATE = os.path.join(ROOT, "scripts", "mutate.py")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import mutate  # noqa: E402  (the table's data: ids and policies)

POLICIES = ["bitmap", "lazy", "lazy-batched", "cache-local", "inherit",
            "ownership", "ownership:v6.19"] + [
            "ownership:-" + f for f in ("W1", "W2", "W3", "W4", "FEB", "FORK",
                                       "VFORK")]
SAME = ["verdict", "property", "why", "trace", "replay", "state", "states",
        "bound_reached", "exhaustive", "step_cuts", "starved_cycles",
        "preemptions"]


def run(cidkit, args, env=None):
    r = subprocess.run([cidkit, "check", "--json"] + args,
                       capture_output=True, text=True, check=False, env=env)
    return r.returncode, {s["scenario"]: s for s in json.loads(r.stdout)}


def mutants():
    """(id, policy) of the table's mutants."""
    return [(t[0], t[3]) for t in mutate.TABLE]


def mutant_env(cidkit, mid, tmp):
    """The environment that runs mutant MID's checker (built from the
    build of CIDKIT), or None when it does not build."""
    r = subprocess.run([sys.executable, MUTATE, "build", mid, tmp, "--build",
                        os.path.dirname(os.path.abspath(cidkit))],
                       capture_output=True, text=True)
    if r.returncode:
        return None
    return dict(os.environ, CIDKIT_CHECK=r.stdout.strip())


def compare(cidkit, label, args, n, totals, seen=None, env=None):
    rc0, old = run(cidkit, args, env)
    rc1, new = run(cidkit, args + ["--state-cache"], env)
    if seen is not None:
        seen.update(new)
    bad = []
    if rc0 != rc1:
        bad.append(f"exit {rc0} without the cache, {rc1} with it")
    if sorted(old) != sorted(new) or not old:
        bad.append(f"scenarios {sorted(old)} vs {sorted(new)}")
    for name in sorted(old):
        o, c = old[name], new.get(name, {})
        for k in SAME:
            if o.get(k) != c.get(k):
                bad.append(f"{name}: {k} {str(o.get(k))[:80]!r} vs "
                           f"{str(c.get(k))[:80]!r}")
        for k in ("schedules", "steps"):
            if c.get(k, 0) > o[k]:
                bad.append(f"{name}: {k} {o[k]} -> {c.get(k)}")
        if (o["cut_schedules"] > 0) != (c.get("cut_schedules", 0) > 0):
            bad.append(f"{name}: cut {o['cut_schedules']} vs "
                       f"{c.get('cut_schedules')}")
        totals[0] += o["schedules"]
        totals[1] += c.get("schedules", 0)
        totals[2] += o["verdict"] == "violation"
    return ok(not bad, f"{label}: the same verdicts, traces and states with "
              f"--state-cache ({len(old)} scenarios)", detail=bad[:20])


def main():
    cidkit = sys.argv[1]
    quick = "--quick" in sys.argv
    r = subprocess.run([cidkit, "check", "--scenario", "switch-race",
                        "--state-cache"], capture_output=True, text=True)
    if "state cache:" not in r.stderr:
        skip_all("no state cache in this build (ASan's fake "
                 "stacks or no x86-64 switch: chk_state_cache_available)")
    n, good, totals = 0, True, [0, 0, 0]
    quick_policies = ["ownership", "ownership:v6.19"]
    seen = {}
    for p in quick_policies if quick else POLICIES:
        n += 1
        good &= compare(cidkit, f"--policy {p}", ["--policy", p], n, totals,
                        seen if p == "ownership" else None)
    # the counts with the cache are the scenario's alone: the same in a
    # process that ran other searches before (the malloc history moved
    # the mm, and addresses are in the fingerprint, until reset kept it)
    n += 1
    diff = []
    names = list(seen)[-4:]
    for name in names:
        _, one = run(cidkit, ["--policy", "ownership", "--scenario", name,
                              "--state-cache"])
        for k in ("schedules", "steps", "states"):
            if one.get(name, {}).get(k) != seen[name][k]:
                diff.append(f"{name}: {k} {seen[name][k]} after the others, "
                            f"{one.get(name, {}).get(k)} alone")
    ok(not diff and len(names) == 4, "--state-cache: the same schedules, "
       f"steps and states alone as after the other scenarios "
       f"({', '.join(names)})", detail=diff[:10])
    tmp = tempfile.mkdtemp(prefix="cidkit-statecache-")
    for m, p in mutants()[::14] if quick else mutants():
        n += 1
        env = mutant_env(cidkit, m, tmp)
        if not ok(env is not None, f"mutant {m}: builds"):
            continue
        compare(cidkit, f"mutant {m} --policy {p}", ["--policy", p], n,
                totals, env=env)
    shutil.rmtree(tmp, ignore_errors=True)
    for extra in (["--jobs", "2"], ["--shard", "1/2"], ["--random", "5"],
                  ["--memory", "tso"]):
        n += 1
        r = subprocess.run([cidkit, "check", "--scenario", "switch-race",
                            "--state-cache"] + extra, capture_output=True,
                           text=True)
        ok(r.returncode == 2 and r.stderr.startswith("cidkit: check:"),
           f"--state-cache {' '.join(extra)}: refused (exit {r.returncode}: "
           f"{r.stderr.strip()[:100]})")
    ok(totals[2] > 0 and totals[1] < totals[0], "the cache left out schedules "
       f"({totals[0]} -> {totals[1]}) and the runs found violations "
       f"({totals[2]}): the comparison compared something")
    return done()


sys.exit(main())
