#!/usr/bin/env python3
"""cidkit stress --json on stdin -> shell assignments (tests/cli/stress.sh):
j_NAME (verdict) and d_NAME (detail) per invariant, j_FIELD per count."""
import json
import shlex
import sys

try:
    r = json.load(sys.stdin)
except ValueError:
    r = {"invariants": {}}
for k in ("uniqueness", "bound", "progress", "compaction"):
    i = r["invariants"].get(k, {})
    print("j_%s=%s" % (k, shlex.quote(i.get("verdict", "?"))))
    print("d_%s=%s" % (k, shlex.quote(i.get("detail", "?"))))
for k in ("ok", "phases", "clone_vm_children", "forks", "affinity_changes", "reads"):
    print("j_%s=%s" % (k, shlex.quote(str(r.get(k, 0)))))
for kind, c in r.get("affinity_widen", {}).items():  # affinity-widen's swaps
    for k in ("task", "cpu", "other"):
        print("j_aw_%s_%s=%s" % (kind, k, c[k]))
