#!/usr/bin/python3
"""scripts/plot.py KIND IN.json [IN.json ...] OUT.svg [--note TEXT]

Draws one figure (SVG) from the --json output of a cidkit command:

  sim-locality      cidkit sim locality --reference --json
                    ns per burst per config and policy, log scale, one
                    panel per delay, the published numbers as markers
  sim-scan          cidkit sim scan --json
                    p50/p99/max latency of a compaction call per batch
                    size, one panel per workload
  sim-scan-scaling  cidkit sim scan --scaling --json
                    worst call and full pass against the CPU count
  bench-topo        cidkit bench topo --json (several --machine)
                    pairwise vs linear vs rebuild against the CPU count
  bench-lease       cidkit bench lease --json (one or more runs)
  bench-percpu      cidkit bench percpu --json (one run per --threads)
                    ns per operation per way, one bar per thread count
  bench-burst       cidkit bench burst --json (one run per --delay-ms)
                    median ns per burst of each mode over cpu's
  bench-mask        cidkit bench mask --json (one run)
                    median ns (min-max whiskers) of each way per scenario
                    and cache state, log scale, ratios under each group

Several inputs are merged (results of the same way and thread count:
the first one is kept).  --note adds a line under the title (the
benchmark figures carry the date and machine there).  The SVG is
byte-stable: the same inputs give the same bytes (fixed hash salt, no
date in the metadata).  Bad input: one line "plot.py: ..." on stderr,
exit 2.
"""
import json
import sys

USAGE = "usage: plot.py KIND IN.json [IN.json ...] OUT.svg [--note TEXT]"


class Bad(Exception):
    pass


# One colour per way, the same in every figure.
COLOURS = {
    "per-cpu": "#4c4c4c", "cpu": "#4c4c4c",
    "bitmap": "#1f77b4", "lazy": "#ff7f0e", "lazy-batched": "#bcbd22",
    "cache-local": "#2ca02c", "inherit": "#9467bd", "ownership": "#d62728",
    "kernel-cid": "#8c564b", "kernel-mm_cid": "#8c564b",
    "mutex": "#17becf", "shared-atomic": "#e377c2",
    "rseq-add:cpu": "#4c4c4c", "rseq-add:mm_cid": "#7f7f7f",
    "atomic-fallback": "#aec7e8", "mm_cid+atomic": "#c49c94",
    "union_count": "#2ca02c", "per_bit_atomic": "#d62728",
    "locked_or_weight": "#17becf", "memcmp": "#7f7f7f",
}


def colour(name):
    base = name.split(":", 1)[1] if name.startswith("lease:") else name
    return COLOURS.get(name, COLOURS.get(base, "#000000"))


def setup():
    try:
        import matplotlib
    except ImportError:
        raise Bad("matplotlib is not installed (Debian: python3-matplotlib)")
    matplotlib.use("svg")
    matplotlib.rcParams.update({
        "svg.hashsalt": "cidkit",   # stable ids for clip paths and glyphs
        "svg.fonttype": "path",     # the same glyphs in every viewer
        "font.family": "DejaVu Sans",
        "font.size": 10,
        "axes.titlesize": 11,
        "axes.labelsize": 10,
        "legend.fontsize": 9,
        "figure.dpi": 100,
        "axes.grid": True,
        "axes.axisbelow": True,
        "grid.alpha": 0.35,
        "grid.linewidth": 0.6,
    })
    import matplotlib.pyplot as plt
    return plt


def need(obj, keys, where):
    if not isinstance(obj, dict):
        raise Bad(f"{where}: expected an object")
    for k in keys:
        if k not in obj:
            raise Bad(f"{where}: no field \"{k}\"")
    return obj


def array(doc, where):
    if not isinstance(doc, list) or not doc:
        raise Bad(f"{where}: expected a non-empty JSON array")
    return doc


def results(docs, key):
    """Concatenate the "results" arrays; first (what, threads) wins."""
    seen, out = set(), []
    for where, doc in docs:
        need(doc, ["results"], where)
        for i, r in enumerate(array(doc["results"], where)):
            need(r, ["what", "threads", key], f"{where}: results[{i}]")
            k = (r["what"], r["threads"])
            if k not in seen:
                seen.add(k)
                out.append(r)
    return out


def ordered(values):
    """Distinct values in first-seen order."""
    out = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


def finish(fig, text, note, legend=None):
    """Title on top; at the bottom the figure legend (handles, labels,
    ncol) if any, and under it the note (date, machine, command) if any;
    then lay the axes out in what is left."""
    h = fig.get_figheight()
    fig.suptitle(text, fontsize=12, fontweight="bold")
    bottom = 0.05 / h
    if note:
        import textwrap
        cols = int(fig.get_figwidth() * 13)   # 9 pt characters per line
        note = "\n".join(textwrap.fill(line, cols, break_on_hyphens=False)
                         for line in note.split("\n"))
        fig.text(0.5, bottom, note, ha="center", va="bottom", fontsize=9,
                 color="#444444", linespacing=1.3)
        bottom += (0.02 + 0.17 * (note.count("\n") + 1)) / h
    if legend:
        handles, labels, ncol = legend
        fig.legend(handles, labels, loc="lower center", ncol=ncol,
                   frameon=False, bbox_to_anchor=(0.5, bottom))
        bottom += 0.3 / h
    fig.tight_layout(rect=(0, bottom, 1, 1))


def log_ticks(axis, lo, hi, fmt=None):
    """Log axis from lo to hi: ticks at 1, 2, 5 x 10^k (only 10^k when it
    spans more than three decades), labelled by fmt or as plain numbers."""
    import matplotlib.ticker as tk
    wide = hi / lo > 1e3
    axis.set_major_locator(tk.LogLocator(base=10,
                                         subs=(1,) if wide else (1, 2, 5)))
    axis.set_minor_locator(tk.LogLocator(base=10, subs=(2, 5))
                           if wide else tk.NullLocator())
    axis.set_minor_formatter(tk.NullFormatter())
    axis.set_major_formatter(tk.FuncFormatter(
        lambda v, _: fmt(v) if fmt else f"{v:g}"))
    if axis.axis_name == "y":
        axis.axes.set_ylim(lo, hi)
    else:
        axis.axes.set_xlim(lo, hi)


def fmt_us(v):
    """A time in µs, with the unit that reads best."""
    if v >= 1e6:
        return f"{v / 1e6:g} s"
    if v >= 1e3:
        return f"{v / 1e3:g} ms"
    if v >= 1:
        return f"{v:g} µs"
    return f"{v * 1e3:g} ns"


def grouped_bars(ax, groups, series, value, width=0.8, log=True):
    """Bars: for each group, one bar per series; value(g, s) or None."""
    n = len(series)
    w = width / n
    for si, s in enumerate(series):
        xs, ys = [], []
        for gi, g in enumerate(groups):
            v = value(g, s)
            if v is not None and (v > 0 or not log):
                xs.append(gi - width / 2 + w * (si + 0.5))
                ys.append(v)
        ax.bar(xs, ys, w, label=s, color=colour(s), edgecolor="white",
               linewidth=0.4)
    ax.set_xticks(range(len(groups)))
    ax.set_xlim(-0.5, len(groups) - 0.5)
    if log:
        ax.set_yscale("log")
    return w


# ---------------------------------------------------------------- sim

def plot_sim_locality(plt, docs, note):
    rows = []
    for where, doc in docs:
        for i, r in enumerate(array(doc, where)):
            rows.append(need(r, ["config", "delay_ms", "policy",
                                 "ns_per_burst"], f"{where}: [{i}]"))
    delays = ordered(r["delay_ms"] for r in rows)
    configs = ordered(r["config"] for r in rows)
    policies = ordered(r["policy"] for r in rows)
    cell = {(r["delay_ms"], r["config"], r["policy"]): r for r in rows}
    fig, axes = plt.subplots(1, len(delays), figsize=(10, 4.6),
                             sharey=True, squeeze=False)
    allv = [r["ns_per_burst"] / 1e3 for r in rows] + \
        [r["reference_ns_per_burst"] / 1e3 for r in rows
         if "reference_ns_per_burst" in r]
    has_ref = False
    for ax, d in zip(axes[0], delays):
        def v(g, s):
            r = cell.get((d, g, s))
            return r["ns_per_burst"] / 1e3 if r else None
        w = grouped_bars(ax, configs, policies, v)
        for gi, g in enumerate(configs):
            for si, s in enumerate(policies):
                r = cell.get((d, g, s))
                if r and "reference_ns_per_burst" in r:
                    has_ref = True
                    x = gi - 0.4 + w * (si + 0.5)
                    y = r["reference_ns_per_burst"] / 1e3
                    ax.plot([x - w * 0.55, x + w * 0.55], [y, y],
                            color="black", linewidth=2.2,
                            solid_capstyle="butt", zorder=5)
        ax.set_xticklabels(configs)
        ax.set_title(f"{d:g} ms between bursts")
        ax.set_xlabel("config: cores (c) or threads (t), L3s (l3)")
        log_ticks(ax.yaxis, min(allv) / 1.4, max(allv) * 1.5)
        ax.grid(axis="x", visible=False)
    axes[0][0].set_ylabel("µs per 16 kB burst (log scale)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    if has_ref:
        from matplotlib.lines import Line2D
        handles.append(Line2D([], [], color="black", linewidth=2.2))
        labels.append("published EPYC 9654 (reference)")
    finish(fig, "sim locality: cache cost of per-CID areas, simulated",
           note,
           (handles, labels, len(labels)))
    return fig


def scan_rows(docs, keys):
    rows = []
    for where, doc in docs:
        for i, r in enumerate(array(doc, where)):
            rows.append(need(r, keys, f"{where}: [{i}]"))
    return rows


def plot_sim_scan(plt, docs, note):
    rows = scan_rows(docs, ["machine", "nr_cpus", "policy", "batch",
                            "workload", "p50_us", "p99_us", "max_us",
                            "has_scan"])
    workloads = ordered(r["workload"] for r in rows)
    scanned = [r for r in rows if r["has_scan"]]
    if not scanned:
        raise Bad("sim-scan: no policy with a compaction scan in the input")
    noscan = ordered(r["policy"] for r in rows if not r["has_scan"])

    def label(r):
        if r["policy"] == "lazy-batched":
            return f"batched\nB={r['batch']}"
        return f"{r['policy']}\n(full pass)"
    cats = ordered(label(r) for r in scanned)
    stats = [("p50", "p50_us", "#9ecae1"), ("p99", "p99_us", "#3182bd"),
             ("max", "max_us", "#08306b")]
    fig, axes = plt.subplots(1, len(workloads), figsize=(10, 4.4),
                             sharey=True, squeeze=False)
    allv = [r[k] for r in scanned for _, k, _ in stats if r[k] > 0]
    for ax, wl in zip(axes[0], workloads):
        cell = {label(r): r for r in scanned if r["workload"] == wl}
        n = len(stats)
        w = 0.8 / n
        for si, (name, key, c) in enumerate(stats):
            xs, ys = [], []
            for ci, cat in enumerate(cats):
                r = cell.get(cat)
                if r and r[key] > 0:
                    xs.append(ci - 0.4 + w * (si + 0.5))
                    ys.append(r[key])
            ax.bar(xs, ys, w, label=name, color=c, edgecolor="white",
                   linewidth=0.4)
        ax.set_xticks(range(len(cats)))
        ax.set_xticklabels(cats)
        ax.set_yscale("log")
        log_ticks(ax.yaxis, min(allv) / 1.4, max(allv) * 1.5)
        ax.set_title(f"{wl} workload")
        ax.grid(axis="x", visible=False)
    r0 = rows[0]
    axes[0][0].set_ylabel("latency one compaction call adds (µs, log)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    sub = f"{r0['machine']}, {r0['nr_cpus']} CPUs"
    if noscan:
        sub += "; " + ", ".join(noscan) + ": no scan"
    finish(fig, f"sim scan: compaction latency per batch size ({sub})",
           note, (handles, labels, 3))
    return fig


def plot_sim_scan_scaling(plt, docs, note):
    rows = scan_rows(docs, ["nr_cpus", "policy", "batch", "max_us",
                            "full_pass_ms", "has_scan"])
    policies = ordered(r["policy"] for r in rows if r["has_scan"])
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4.2))
    calls = [r["max_us"] for r in rows if r["has_scan"] and r["max_us"] > 0]
    passes = [r["full_pass_ms"] * 1000 for r in rows
              if r["has_scan"] and r["max_us"] > 0]
    if not calls:
        raise Bad("sim-scan-scaling: no compaction call in the input")
    for p in policies:
        pts = sorted((r["nr_cpus"], r["max_us"], r["full_pass_ms"],
                      r["batch"]) for r in rows
                     if r["policy"] == p and r["max_us"] > 0)
        if not pts:
            continue
        name = p if p != "lazy-batched" else f"lazy-batched (B={pts[0][3]})"
        xs = [q[0] for q in pts]
        a1.plot(xs, [q[1] for q in pts], marker="o", color=colour(p),
                label=name)
        a2.plot(xs, [q[2] * 1000 for q in pts], marker="o", color=colour(p),
                label=name)
    for ax in (a1, a2):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("CPUs (log scale)")
        ax.set_xticks([r["nr_cpus"] for r in rows])
        ax.xaxis.set_major_formatter(
            __import__("matplotlib").ticker.FuncFormatter(
                lambda v, _: f"{v:g}"))
        ax.legend(frameon=False)
    log_ticks(a1.yaxis, min(calls) / 1.5, max(calls) * 1.5, fmt_us)
    log_ticks(a2.yaxis, min(passes) / 1.5, max(passes) * 1.5, fmt_us)
    a1.set_title("worst latency of one compaction call")
    a1.set_ylabel("latency added (log scale)")
    a2.set_title("time to complete a full pass")
    a2.set_ylabel("simulated time (log scale)")
    finish(fig, "sim scan --scaling: periodic workload, 64 to 8192 CPUs",
           note)
    return fig


# ---------------------------------------------------------------- bench

def plot_bench_topo(plt, docs, note):
    ms = []
    for where, doc in docs:
        need(doc, ["machines"], where)
        for i, m in enumerate(array(doc["machines"], where)):
            ms.append(need(m, ["name", "nr_cpus", "pairwise_ns",
                               "linear_ns", "rebuild_ns"],
                           f"{where}: machines[{i}]"))
    ms.sort(key=lambda m: m["nr_cpus"])
    fig, ax = plt.subplots(figsize=(10, 5))
    xs = [m["nr_cpus"] for m in ms]
    ways = [("pairwise_ns", "pairwise (every pair of CPUs)", "#d62728"),
            ("rebuild_ns", "rebuild without one CPU + linear", "#ff7f0e"),
            ("linear_ns", "linear (one pass per level)", "#2ca02c")]
    for key, name, c in ways:
        ax.plot(xs, [m[key] / 1e3 for m in ms], marker="o", color=c,
                label=name)
    # Guides through the first point: how N and N^2 would grow.
    x0 = xs[0]
    for key, power, name in (("pairwise_ns", 2, "∝ N²"),
                             ("linear_ns", 1, "∝ N")):
        y0 = ms[0][key] / 1e3
        ax.plot([x0, xs[-1]], [y0, y0 * (xs[-1] / x0) ** power],
                linestyle="--", color="#999999", linewidth=1)
        ax.annotate(name, (xs[-1], y0 * (xs[-1] / x0) ** power),
                    textcoords="offset points", xytext=(4, 0),
                    va="center", fontsize=9, color="#666666")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(xs)
    ax.set_xticklabels([f"{x:g}" for x in xs])
    ax.xaxis.set_minor_locator(__import__("matplotlib").ticker.NullLocator())
    ys = [m[k] / 1e3 for m in ms for k, _, _ in ways]
    log_ticks(ax.yaxis, min(ys) / 1.5, max(ys) * 1.5, fmt_us)
    ax.set_xlabel("CPUs of the synthetic machine (log scale)")
    ax.set_ylabel("median time per check (log scale)")
    ax.set_xlim(xs[0] / 1.3, xs[-1] * 1.6)
    ax.legend(frameon=False, loc="upper left")
    finish(fig, "bench topo: span sanity check, pairwise vs linear", note)
    return fig


def plot_bench_ways(plt, docs, note, key, what, unit):
    rs = results(docs, key)
    ways = ordered(r["what"] for r in rs)
    threads = sorted(set(r["threads"] for r in rs))
    cell = {(r["what"], r["threads"]): r[key] for r in rs}
    fig, ax = plt.subplots(figsize=(10, 4.8))
    n = len(threads)
    width = 0.8
    w = width / n
    shades = ["#c6dbef", "#6baed6", "#2171b5", "#08306b", "#041a3a"]
    for ti, t in enumerate(threads):
        xs, ys = [], []
        for wi, way in enumerate(ways):
            v = cell.get((way, t))
            if v is not None and v > 0:
                xs.append(wi - width / 2 + w * (ti + 0.5))
                ys.append(v)
        ax.bar(xs, ys, w, label=f"{t} thread{'s' if t != 1 else ''}",
               color=shades[ti % len(shades)], edgecolor="white",
               linewidth=0.4)
    ax.set_xticks(range(len(ways)))
    ax.set_xticklabels(ways, rotation=30, ha="right")
    ax.set_xlim(-0.5, len(ways) - 0.5)
    ax.set_yscale("log")
    vs = [v for v in cell.values() if v > 0]
    log_ticks(ax.yaxis, min(vs) / 1.4, max(vs) * 1.4)
    ax.set_ylabel(f"{unit} (median, log scale)")
    ax.grid(axis="x", visible=False)
    handles, labels = ax.get_legend_handles_labels()
    finish(fig, what, note, (handles, labels, n))
    return fig


def plot_bench_lease(plt, docs, note):
    return plot_bench_ways(plt, docs, note, "ns_per_pair",
                           "bench lease: CID lease enter + exit vs a mutex",
                           "ns per enter/exit pair")


def plot_bench_percpu(plt, docs, note):
    return plot_bench_ways(plt, docs, note, "ns_per_op",
                           "bench percpu: one per-CPU counter increment",
                           "CPU ns per increment")


def plot_bench_burst(plt, docs, note):
    runs = []
    for where, doc in docs:
        need(doc, ["delay_ms", "modes", "threads"], where)
        ms = []
        for i, m in enumerate(array(doc["modes"], where)):
            need(m, ["mode", "available"], f"{where}: modes[{i}]")
            if m["available"]:
                ms.append(need(m, ["ratio_to_cpu", "median_ns"],
                               f"{where}: modes[{i}]"))
        runs.append((doc, ms))
    runs.sort(key=lambda r: r[0]["delay_ms"])
    modes = ordered(m["mode"] for _, ms in runs for m in ms)
    fig, ax = plt.subplots(figsize=(10, 4.8))
    n = len(runs)
    width = 0.8
    w = width / n
    shades = ["#08306b", "#2171b5", "#6baed6", "#c6dbef", "#deebf7"]
    for ri, (doc, ms) in enumerate(runs):
        by = {m["mode"]: m for m in ms}
        xs, ys = [], []
        for mi, mode in enumerate(modes):
            if mode in by:
                xs.append(mi - width / 2 + w * (ri + 0.5))
                ys.append(by[mode]["ratio_to_cpu"])
        cpu = by.get("cpu")
        lab = f"{doc['delay_ms']:g} ms idle"
        if cpu:
            lab += f" (cpu: {cpu['median_ns']:g} ns)"
        ax.bar(xs, ys, w, label=lab, color=shades[ri % len(shades)],
               edgecolor="white", linewidth=0.4)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(modes)))
    ax.set_xticklabels(modes, rotation=30, ha="right")
    ax.set_xlim(-0.5, len(modes) - 0.5)
    top = max([m["ratio_to_cpu"] for _, ms in runs for m in ms] + [1.0])
    ax.set_ylim(0, top * 1.1)
    ax.set_ylabel("median ns per burst, ratio to cpu")
    ax.grid(axis="x", visible=False)
    handles, labels = ax.get_legend_handles_labels()
    d0 = runs[0][0]
    finish(fig, f"bench burst: {d0['bytes']} B bursts, {d0['threads']} "
           f"threads one at a time, ratio to the cpu_id area", note,
           (handles, labels, min(n, 4)))
    return fig


def plot_bench_mask(plt, docs, note):
    if len(docs) != 1:
        raise Bad("bench-mask draws one run (one IN.json)")
    where, doc = docs[0]
    need(doc, ["bits", "grow", "runs"], where)
    ways = ["union_count", "locked_or_weight", "per_bit_atomic", "memcmp"]
    runs = [need(r, ["scenario", "cache", "locked_over_union",
                     "per_bit_over_union", "union_over_memcmp"] + ways,
                 f"{where}: runs[{i}]")
            for i, r in enumerate(array(doc["runs"], where))]
    fig, ax = plt.subplots(figsize=(10, 5))
    n, width = len(ways), 0.8
    w = width / n
    for wi, way in enumerate(ways):
        xs = [gi - width / 2 + w * (wi + 0.5) for gi in range(len(runs))]
        med = [r[way]["median_ns"] for r in runs]
        lo = [m - r[way]["min_ns"] for m, r in zip(med, runs)]
        hi = [r[way]["max_ns"] - m for m, r in zip(med, runs)]
        ax.bar(xs, med, w, label=way, color=colour(way), edgecolor="white",
               linewidth=0.4, yerr=[lo, hi], capsize=2,
               error_kw={"elinewidth": 0.7, "ecolor": "#333333"})
    ax.set_xticks(range(len(runs)))
    ax.set_xticklabels([
        f"{r['scenario']}, {r['cache']}\n"
        f"locked / union {r['locked_over_union']:.2f}x\n"
        f"per-bit / union {r['per_bit_over_union']:.0f}x\n"
        f"union / memcmp {r['union_over_memcmp']:.2f}x" for r in runs],
        fontsize=8)
    ax.set_xlim(-0.5, len(runs) - 0.5)
    ax.set_yscale("log")
    vs = [r[way][k] for r in runs for way in ways
          for k in ("min_ns", "max_ns") if r[way][k] > 0]
    log_ticks(ax.yaxis, min(vs) / 1.5, max(vs) * 1.5,
              lambda v: fmt_us(v / 1e3))
    ax.set_ylabel("time per fold (median, min-max; log scale)")
    ax.grid(axis="x", visible=False)
    handles, labels = ax.get_legend_handles_labels()
    finish(fig, f"bench mask: fold a full mask into the union, "
           f"{doc['bits']} bits (growing: {doc['grow']} new bits)", note,
           (handles, labels, n))
    return fig


KINDS = {
    "sim-locality": plot_sim_locality,
    "sim-scan": plot_sim_scan,
    "sim-scan-scaling": plot_sim_scan_scaling,
    "bench-topo": plot_bench_topo,
    "bench-lease": plot_bench_lease,
    "bench-percpu": plot_bench_percpu,
    "bench-burst": plot_bench_burst,
    "bench-mask": plot_bench_mask,
}


def main(argv):
    note = None
    args = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--note":
            if i + 1 >= len(argv):
                raise Bad("--note needs a TEXT")
            note = argv[i + 1]
            i += 2
            continue
        if a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        args.append(a)
        i += 1
    if len(args) < 3:
        raise Bad("expected KIND IN.json OUT.svg (" + USAGE + ")")
    kind, ins, out = args[0], args[1:-1], args[-1]
    if kind not in KINDS:
        raise Bad(f"unknown KIND '{kind}' (one of: {', '.join(KINDS)})")
    if not out.endswith(".svg"):
        raise Bad(f"OUT '{out}' must end in .svg")
    docs = []
    for path in ins:
        try:
            with (sys.stdin if path == "-" else open(path)) as f:
                docs.append((path, json.load(f)))
        except OSError as e:
            raise Bad(f"{path}: {e.strerror}")
        except (ValueError, UnicodeDecodeError) as e:
            raise Bad(f"{path}: not JSON ({str(e).splitlines()[0]})")
    plt = setup()
    try:
        fig = KINDS[kind](plt, docs, note)
    except (TypeError, KeyError, ValueError, ZeroDivisionError) as e:
        raise Bad(f"{kind}: unexpected input ({type(e).__name__}: {e})")
    try:
        fig.savefig(out, format="svg", metadata={"Date": None})
    except OSError as e:
        raise Bad(f"{out}: {e.strerror}")
    plt.close(fig)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Bad as e:
        print(f"plot.py: {e}", file=sys.stderr)
        sys.exit(2)
