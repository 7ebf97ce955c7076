#!/usr/bin/env python3
"""cidkit topo against the kernel's own scheduler domains, one machine shape.

  topo_shapes.py KERNEL-LAB KERNEL ARCH SHAPE
  topo_shapes.py --list ARCH                 the shapes of ARCH, one a line
  topo_shapes.py --list-quick ARCH           the ones make check boots (QUICK)

Boots KERNEL on ARCH once, with SHAPE's QEMU machine (-smp, NUMA nodes, CPU
model) and sched_verbose, and in that one guest runs `cidkit topo --json
--groups` and reads the domains the kernel built: their names from debugfs
(/sys/kernel/debug/sched/domains/cpuN/domainM/name) and their spans from
the sched_verbose log (dmesg: "CPUn attaching sched-domain(s):" then
"domain-M: span=LIST level=NAME"; debugfs has no span file).

The expected value is the kernel's.  From cidkit's groups this test builds
the domains the kernel's rules make of them (docs/kernels.md, "Topology
against the kernel's own answer"): the arch's table of levels (x86:
x86_topology, arm64: default_topology), each level's mask as the arch
computes it, then kernel/sched/topology.c's build_sched_domains() (stop at
the first domain that spans every CPU, a child not inside its parent
widens the parent) and cpu_attach_domain()'s removal of degenerate domains
(sd_parent_degenerate(): a parent with its child's span; sd_degenerate():
a domain of one CPU).  Every CPU's chain of (name, span) must equal the
kernel's.  TAP out: the kernel's two views agree, then one line per domain
level of the kernel, then the whole chain of every CPU.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from tap import diag, failures, ok  # noqa: E402

# name: (QEMU -smp, --numa or None, --cpu or None, what it shows).
# x86 guests use Skylake-Server: its CPUID leaves 4 and 0x1f tell the
# guest the L3 per die and the dies (QEMU's `max` hid the dies here).
SHAPES = {
    "x86_64": {
        "4cores": ("4,sockets=1,cores=4,threads=1", None, "Skylake-Server",
                   "one socket of 4 cores: one MC (LLC) domain of all"),
        "2sockets": ("4,sockets=2,cores=2,threads=1", None, "Skylake-Server",
                     "2 sockets x 2 cores: MC per socket, PKG = the one node"),
        "2sockets-smt2": ("8,sockets=2,cores=2,threads=2", None, "Skylake-Server",
                          "2 sockets x 2 cores x 2 threads: SMT, MC, PKG"),
        "dies": ("8,sockets=2,dies=2,cores=2,threads=1", None, "Skylake-Server",
                 "2 sockets x 2 dies x 2 cores: L3 per die, so MC per die"),
        "numa2": ("8,sockets=2,cores=4,threads=1", "0-3;4-7", "Skylake-Server",
                  "2 sockets, a node each: MC, PKG (node), NUMA"),
        "numa3-unequal": ("8,sockets=1,cores=8,threads=1", "0-1;2-3;4-7", "Skylake-Server",
                          "one socket cut into nodes of 2, 2 and 4 CPUs"),
        "smt2": ("8,sockets=1,cores=4,threads=2", None, "Skylake-Server",
                 "8 CPUs, 4 cores x 2 threads: SMT under MC"),
        "3cores": ("6,sockets=2,cores=3,threads=1", None, "Skylake-Server",
                   "2 sockets x 3 cores (APIC IDs with holes)"),
    },
    "arm64": {
        "clusters": ("8,sockets=1,clusters=2,cores=4,threads=1", None, None,
                     "one socket, 2 clusters of 4 cores"),
        "sockets": ("8,sockets=2,clusters=1,cores=4,threads=1", None, None,
                    "2 sockets of 4 cores"),
        "numa2": ("8,sockets=2,clusters=1,cores=4,threads=1", "0-3;4-7", None,
                  "2 sockets, a node each"),
        "smt2": ("8,sockets=1,clusters=2,cores=2,threads=2", None, None,
                 "2 clusters x 2 cores x 2 threads"),
    },
}

# make check boots these (SMT, dies, unequal NUMA nodes; clusters, NUMA,
# SMT under clusters); make check-kernels boots every shape.
QUICK = {
    "x86_64": ["2sockets-smt2", "dies", "numa3-unequal"],
    "arm64": ["clusters", "numa2", "smt2"],
}

GUEST = r'''
echo "=== topo"
cidkit topo --json --groups
echo "=== topo-rc $?"
echo "=== debugfs"
for d in /sys/kernel/debug/sched/domains/cpu*/domain*; do
  [ -f "$d/name" ] && echo "${d#/sys/kernel/debug/sched/domains/} $(cat "$d/name")"
done
echo "=== dmesg"
dmesg | grep -E 'attaching|domain-[0-9]+: span=|topology borken|not a subset'
echo "=== end"
'''

def cpus_of(cpulist):
    """frozenset of a cpulist ("0-3,8"); written here, not cidkit's parser."""
    out = set()
    for part in cpulist.strip().split(","):
        if not part:
            continue
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return frozenset(out)


def cpulist(s):
    s = sorted(s)
    runs = []
    for c in s:
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def kernel_domains(out):
    """{cpu: [(name, span)]} from the last sched_verbose attach of each CPU,
    and {cpu: [name]} from debugfs."""
    log = {}
    cur = None
    for line in out.split("=== dmesg\n", 1)[-1].splitlines():
        m = re.search(r"CPU(\d+) attaching (NULL )?sched-domain", line)
        if m:
            cur = int(m.group(1))
            log[cur] = []
            continue
        m = re.search(r"domain-(\d+): span=(\S+) level=(\S+)", line)
        if m and cur is not None:
            log[cur].append((m.group(3), cpus_of(m.group(2))))
    dbg = {}
    for m in re.finditer(r"^cpu(\d+)/domain(\d+) (\S+)$", out, re.M):
        dbg.setdefault(int(m.group(1)), []).append((int(m.group(2)), m.group(3)))
    dbg = {c: [name for _, name in sorted(v)] for c, v in dbg.items()}
    return log, dbg


def cidkit_groups(topo):
    """{level: {cpu: group}} from cidkit topo --json --groups."""
    levels = {}
    for lv in topo["levels"]:
        per_cpu = {}
        for g in lv["groups"]:
            s = cpus_of(g)
            for c in s:
                per_cpu[c] = s
        levels[lv["name"]] = per_cpu
    return levels


def arch_levels(arch, L, cpu, online):
    """The arch's table of domain levels for one CPU, masks as the arch
    computes them from the topology cidkit found.  [(name, mask, source)]."""
    node = L["numa"][cpu] if "numa" in L else online
    smt = L["smt"][cpu]
    clus = L["cluster"][cpu] if "cluster" in L else smt
    llc = L["llc"][cpu] if "llc" in L else None
    pkg = L["pkg"][cpu]
    if arch == "x86_64":
        # arch/x86/kernel/smpboot.c: match_smt(), match_l2c(), match_llc()
        # link two CPUs only through topology_sane(), which refuses CPUs
        # of different nodes; cpu_coregroup_mask() is the LLC mask.
        lv = [("SMT", smt & node, "smt"), ("CLS", clus & node, "cluster"),
              ("MC", (llc if llc is not None else smt) & node, "llc")]
        # build_sched_topology(): no PKG level when a package holds more
        # than one node (x86_has_numa_in_package); PKG is cpu_cpu_mask(),
        # the CPU's node (include/linux/topology.h), not its package.
        numa_in_pkg = "numa" in L and any(
            len({L["numa"][c] for c in L["pkg"][x]}) > 1 for x in online)
        if not numa_in_pkg:
            lv.append(("PKG", node, "numa node"))
    else:
        # drivers/base/arch_topology.c: cpu_coregroup_mask() is the
        # smallest of node, package and LLC that nest, widened to the
        # cluster when it fits inside one; cpu_clustergroup_mask() falls
        # back to the SMT mask when the cluster is not below MC.
        core = node
        if pkg <= core:
            core = pkg
        if llc is not None and llc <= core:
            core = llc
        if core <= clus:
            core = clus
        cls = smt if core <= clus else clus
        lv = [("SMT", smt, "smt"), ("CLS", cls, "cluster"), ("MC", core, "min(numa, pkg, llc)"),
              ("PKG", node, "numa node")]
    if "numa" in L and len(set(L["numa"].values())) > 1:
        # sched_init_numa(): NODE (the node) and one NUMA level per
        # distance; QEMU without -numa dist gives 10 and 20: all CPUs.
        lv += [("NODE", node, "numa node"), ("NUMA", online, "all nodes")]
    return lv


def predict(arch, L, cpu, online):
    """The chain cpu_attach_domain() keeps for cpu: [(name, span, source)]."""
    chain = []
    for name, mask, src in arch_levels(arch, L, cpu, online):
        span = mask & online
        if chain and not chain[-1][1] <= span:
            span = span | chain[-1][1]       # "BUG: arch topology borken"
        chain.append((name, span, src))
        if span == online:                   # build_sched_domains() stops
            break
    kept = []
    for d in chain:
        if len(d[1]) == 1:                   # sd_degenerate(): one CPU
            continue
        if kept and kept[-1][1] == d[1]:     # sd_parent_degenerate()
            continue
        kept.append(d)
    return kept


def shape_groups(arch, smp, numa):
    """{level: [cpulists]} of the machine QEMU is asked for, from -smp and
    --numa alone: QEMU numbers CPUs socket-major, then die or cluster,
    core, thread (the order of the MADT on x86, of the device tree's
    cpu-map on arm64, so Linux's CPU numbers).  The LLC is not here: it
    comes from the CPU model's caches, and the kernel's MC domain checks it.
    Kernel domains cover no die (x86), nor the package where a node spans
    it: this is what checks them."""
    n = int(smp.split(",")[0])
    k = dict(kv.split("=") for kv in smp.split(",")[1:])
    t, c = int(k.get("threads", 1)), int(k.get("cores", 1))
    mid = int(k.get("dies", 1)) * int(k.get("clusters", 1))

    def parts(size):
        return [cpulist(range(i, i + size)) for i in range(0, n, size)]
    want = {"smt": parts(t), "pkg": parts(t * c * mid)}
    if arch == "arm64" and c > 1:
        # arm64's cluster_cpus is the cpu-map cluster (a socket's cores when
        # clusters=1), a level when it differs from the SMT group
        want["cluster"] = parts(t * c)
    if int(k.get("dies", 1)) > 1:
        want["die"] = parts(t * c)
    want["numa"] = [cpulist(cpus_of(x)) for x in numa.split(";")] if numa else [cpulist(range(n))]
    return want


def main():
    if sys.argv[1] in ("--list", "--list-quick"):
        shapes = QUICK if sys.argv[1] == "--list-quick" else SHAPES
        print("\n".join(shapes[sys.argv[2]]))
        return 0
    lab, kernel, arch, shape = sys.argv[1:5]
    smp, numa, cpu_model, what = SHAPES[arch][shape]
    cmd = [lab, "run", "--kernel", kernel, "--arch", arch, "--smp", smp,
           "--cmdline", "sched_verbose", "--timeout", "400"]
    if numa:
        cmd += ["--numa", numa]
    if cpu_model:
        cmd += ["--cpu", cpu_model]
    p = subprocess.run(cmd + ["--", "sh", "-c", GUEST],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    retried = []
    while p.returncode == 125 and len(retried) < 2:
        # The guest stopped before CMD's status: a panic while booting,
        # not a topology answer.  Seen 2 times in about 30 boots of 7.2.13
        # on x86_64 under TCG at load 20-30, with 2 sockets: "Fatal
        # exception in interrupt" from start_secondary, RIP in the middle
        # of an instruction being patched (sched_clock_cpu, then
        # update_sd_lb_stats: `66 <90> e8`, `e9 <9e> 00 00 00`); the same
        # shapes booted fine again.  Boot again, at most twice, and say so.
        retried.append((p.stderr.strip().splitlines() or ["?"])[-1])
        p = subprocess.run(cmd + ["--", "sh", "-c", GUEST],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    where = f"{kernel}/{arch} {shape} (-smp {smp}{' numa ' + numa if numa else ''}" \
            f"{' -cpu ' + cpu_model if cpu_model else ''})"
    if p.returncode != 0 or "=== end" not in p.stdout:
        print("1..1")
        reason = (p.stderr.strip().splitlines() or ["no message"])[-1]
        ok(False, f"{where}: kernel-lab exited {p.returncode}: {reason}"
           f"{f' (boot {len(retried) + 1}; the ones before stopped before CMD too)' if retried else ''}")
        diag(p.stderr)
        return 1
    out = p.stdout
    topo_text = out.split("=== topo\n", 1)[1].split("=== topo-rc", 1)[0]
    try:
        topo = json.loads(topo_text)
    except ValueError:
        print("1..1")
        ok(False, f"{where}: cidkit topo --json --groups printed no JSON")
        diag(out)
        return 1
    log, dbg = kernel_domains(out)
    online = cpus_of(topo["online"])
    L = cidkit_groups(topo)
    levels = [lv["name"] for lv in topo["levels"]]
    borken = [line for line in out.splitlines() if "borken" in line or "not a subset" in line]

    names = sorted({name for chain in log.values() for name, _ in chain},
                   key=lambda x: min(i for ch in log.values()
                                     for i, (nm, _) in enumerate(ch) if nm == x))
    print(f"1..{4 + len(names)}")
    print(f"# {where}: {what}")
    for r in retried:
        print(f"# a boot stopped before CMD ({r}); booted again")
    print(f"# cidkit levels: {' '.join(levels)}")
    for b in borken:
        print("# kernel: " + b.strip())
    ok(set(log) == online and online == cpus_of(
        ",".join(str(c) for c in range(topo["nr_cpus"]))),
       f"{where}: sched_verbose logged the domains of every CPU "
       f"({cpulist(log)}), cidkit saw online {topo['online']} of {topo['nr_cpus']}")
    ok(all(dbg.get(c, []) == [nm for nm, _ in log.get(c, [])] for c in online),
       "the kernel's two views agree: debugfs domain names = sched_verbose levels "
       f"(cpu0: {' '.join(dbg.get(0, [])) or 'none'})")

    want = shape_groups(arch, smp, numa)
    got = {lv["name"]: lv["groups"] for lv in topo["levels"] if lv["name"] != "llc"}
    ok(got == want, "cidkit's levels but llc are the machine QEMU was asked for: " +
       "; ".join(f"{lv} {' '.join(g)}" for lv, g in want.items()))
    if got != want:
        diag(f"cidkit: {got}")

    pred = {c: predict(arch, L, c, online) for c in online}
    for name in names:
        kspans = {s for ch in log.values() for nm, s in ch if nm == name}
        pspans = {s for ch in pred.values() for nm, s, _ in ch if nm == name}
        srcs = sorted({src for ch in pred.values() for nm, _, src in ch if nm == name})
        ok(kspans == pspans,
           f"{name}: kernel spans {' '.join(cpulist(s) for s in sorted(kspans, key=min))}; "
           f"from cidkit's {'/'.join(srcs) or '(no level)'}: "
           f"{' '.join(cpulist(s) for s in sorted(pspans, key=min)) or 'none'}")
    bad = [c for c in sorted(online)
           if [(nm, s) for nm, s, _ in pred[c]] != log.get(c)]
    ok(not bad, f"every CPU's chain of domains, bottom-up, equals the kernel's "
       f"(cpu0: {' < '.join(nm + ' ' + cpulist(s) for nm, s in log.get(0, []))})")
    for c in bad:
        diag(f"cpu{c}: kernel {[(nm, cpulist(s)) for nm, s in log.get(c, [])]}")
        diag(f"cpu{c}: cidkit {[(nm, cpulist(s)) for nm, s, _ in pred[c]]}")
    if failures():
        diag(topo_text)
    return 1 if failures() else 0


if __name__ == "__main__":
    sys.exit(main())
