#!/usr/bin/env python3
"""Compare vksort benchmark results with the CUB baseline (and the CPU sorts).

Usage:
  python3 compare.py FILE.jsonl [FILE.jsonl ...] [--plot out.png]
                     [--plot-key u32] [--plot-value none] [--plot-dist uniform]

Inputs are JSON lines as written by vksort_bench --json (rows with algorithm
"vksort onesweep", and "cpu std::sort" / "cpu radix" with --cpu) and by
cub_bench --json ("cub DeviceRadixSort"), in any number of files and any
order. Rows are joined on (key, value, dist, N) -- and on the order and bit
range, so descending or --bits rows never meet ascending full-key ones -- and
printed as one markdown table per combination: both medians, both keys/s and
the speed ratio CUB time / vksort time (> 1.00 means vksort is faster).
Rows of cub_bench --carveout ("cub DeviceRadixSort, carveout P%": CUB held
to the shared memory per SM that Vulkan gives, see cub_bench.cu) add two
columns to their combination's table: that CUB's median and the ratio of
its time to vksort's.
Where CPU rows exist, a second table compares vksort with the faster CPU sort
and names the GPU/CPU crossover.
Rows with a "workload" (--workload NAME: one named sort, such as an engine's
particles or splats) stay out of those tables. They are joined on the name
and N instead, so that a vksort sort with an indirect count meets the CUB sort
of its live count, and go into one "Engine workloads" table: what each bench
sorted, both medians, the speed ratio and each sort's share of a 60 fps frame.

Rows from the earlier schema ("impl", "payload", "n") are read too.

--plot draws keys/s against N (log2 axis), one line per algorithm, for one
combination (default u32 keys, no values, uniform). It needs matplotlib; if
that is missing the tables are still printed and the plot is skipped with a
message.
"""

import argparse
import json
import sys

VKSORT = "vksort onesweep"
CUB = "cub DeviceRadixSort"
CPU_PREFIX = "cpu "
BUDGET_PREFIX = CUB + ", carveout"
KEY_BITS = {"u32": 32, "i32": 32, "f32": 32, "u64": 64, "i64": 64, "f64": 64}
FRAME_MS = 1000.0 / 60  # one frame at 60 fps


def normalize(row, where):
    """Map a row of either schema onto the current field names."""
    r = dict(row)
    if "algorithm" not in r or r.get("impl") in ("vksort", "cub"):
        impl = r.get("impl")
        if impl == "vksort":
            r["algorithm"] = VKSORT
        elif impl == "cub":
            r["algorithm"] = CUB
        elif "algorithm" not in r:
            sys.exit(f"{where}: row has no 'algorithm'")
    if "N" not in r and "n" in r:
        r["N"] = r["n"]
    if "value" not in r and "payload" in r:
        r["value"] = r["payload"]
    r.setdefault("value", "none")
    r.setdefault("dist", "uniform")
    r.setdefault("descending", False)
    r.setdefault("begin_bit", 0)
    r.setdefault("end_bit", KEY_BITS.get(r.get("key"), 32))
    if "median_ms" not in r and "median_us" in r:
        r["median_ms"] = r["median_us"] * 1e-3
    missing = [k for k in ("algorithm", "key", "N", "median_ms") if k not in r]
    if missing:
        sys.exit(f"{where}: missing fields {missing}")
    return r


def load(paths):
    """All rows of all files: {(algorithm, join key): row}, later rows win."""
    rows = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                where = f"{path}:{lineno}"
                try:
                    row = normalize(json.loads(line), where)
                except json.JSONDecodeError as e:
                    sys.exit(f"{where}: invalid JSON: {e}")
                k = (row["algorithm"], group_key(row), row["N"])
                if k in rows:
                    print(f"warning: {where}: a second {row['algorithm']} row for {label(group_key(row))}, "
                          f"N = {row['N']}; using the later one", file=sys.stderr)
                rows[k] = row
    return rows


def group_key(row):
    """The join key; indirect_max: the maxCount of a sort with an indirect count (N is then the live count), 0 if
    none; workload: the name of a named sort (--workload), "" if none."""
    return (row["key"], row["value"], row["dist"], bool(row["descending"]), int(row["begin_bit"]),
            int(row["end_bit"]), int(row.get("indirect_max") or 0), str(row.get("workload") or ""))


def label(g):
    key, value, dist, desc, b, e, indirect, workload = g
    s = f"key={key} value={value} dist={dist}"
    if desc:
        s += " descending"
    if (b, e) != (0, KEY_BITS.get(key, 32)):
        s += f" bits=[{b},{e})"
    if indirect:
        s += f" indirect_max={indirect}"
    if workload:
        s += f" workload={workload}"
    return s


def kps(row):
    v = row.get("keys_per_s")
    if v is None and row["median_ms"] > 0:
        v = row["N"] / (row["median_ms"] * 1e-3)
    return v


def us(row):
    """Median µs, marked when the row failed its check."""
    if row is None:
        return ""
    s = f"{row['median_ms'] * 1e3:.1f}"
    return s if row.get("verified", True) else s + " (WRONG)"


def gk(row):
    return "" if row is None or kps(row) is None else f"{kps(row) / 1e9:.3f}"


def ratio(slow, fast):
    """slow time / fast time, or blank."""
    if slow is None or fast is None or fast["median_ms"] <= 0:
        return ""
    return f"{slow['median_ms'] / fast['median_ms']:.2f}"


def describe(rows, algorithms):
    out = []
    for algo in algorithms:
        seen = []
        commits = set()
        for (a, _, _), r in rows.items():
            if a != algo:
                continue
            d = (str(r.get("device", "?")), str(r.get("driver", "?")))
            if d not in seen:
                seen.append(d)
            if r.get("commit"):
                commits.add(str(r["commit"]))
        line = f"- {algo}: " + "; ".join(f"device `{dv}`, driver `{dr}`" for dv, dr in seen)
        if commits:
            line += ", commit " + ", ".join(f"`{c}`" for c in sorted(commits))
        out.append(line)
    return out


def sort_group(g):
    key, value, dist, desc, b, e, indirect, workload = g
    order = ["u32", "i32", "f32", "u64", "i64", "f64"]
    values = ["none", "u32", "u64", "index"]
    dists = ["uniform", "lowentropy", "morton", "presorted"]
    idx = lambda lst, x: lst.index(x) if x in lst else len(lst)
    return (dists.index(dist) if dist in dists else len(dists), idx(order, key), idx(values, value), str(dist),
            str(key), str(value), desc, b, e, indirect, workload)


def tables(rows):
    algorithms = sorted({a for a, _, _ in rows}, key=lambda a: (a != VKSORT, a != CUB, a))
    lines = describe(rows, algorithms)
    if any(r.get("verified") is False for r in rows.values()):
        lines.append("")
        lines.append("**Some rows failed verification (marked WRONG): their times are not results.**")
    groups = sorted({g for _, g, _ in rows if not g[7]}, key=sort_group)
    for g in groups:
        ns = sorted({n for a, gg, n in rows if gg == g})
        get = lambda algo, n: rows.get((algo, g, n))
        budget = sorted({a for a, gg, _ in rows if gg == g and a.startswith(BUDGET_PREFIX)})
        if any(get(VKSORT, n) or get(CUB, n) for n in ns):
            head = ("| N | vksort median µs | vksort G keys/s | CUB median µs | CUB G keys/s "
                    "| vksort/CUB speed ratio |")
            for a in budget:
                head += f" {a[len(CUB) + 2:]}: CUB median µs | vksort/that ratio |"
            lines += ["", label(g), "", head, "|---:|---:|---:|---:|---:|---:|" + "---:|---:|" * len(budget)]
            for n in ns:
                vk, cb = get(VKSORT, n), get(CUB, n)
                if vk is None and cb is None:
                    continue
                line = f"| {n} | {us(vk)} | {gk(vk)} | {us(cb)} | {gk(cb)} | {ratio(cb, vk)} |"
                for a in budget:
                    line += f" {us(get(a, n))} | {ratio(get(a, n), vk)} |"
                lines.append(line)
        cpu_algos = sorted({a for a, gg, _ in rows if gg == g and a.startswith(CPU_PREFIX)})
        if not cpu_algos:
            continue
        lines += ["", label(g) + ": vksort and the CPU (one thread)", "",
                  "| N | vksort median µs | " + " | ".join(f"{a} median µs" for a in cpu_algos) +
                  " | best CPU / vksort |",
                  "|---:|---:|" + "---:|" * len(cpu_algos) + "---:|"]
        crossover = None
        for n in ns:
            vk = get(VKSORT, n)
            cpus = [get(a, n) for a in cpu_algos]
            good = [c for c in cpus if c is not None and c.get("verified", True)]
            best = min(good, key=lambda c: c["median_ms"]) if good else None
            if not good:
                continue
            r = ratio(best, vk)
            if vk is not None and vk.get("verified", True) and crossover is None and \
                    vk["median_ms"] < best["median_ms"]:
                crossover = n
            lines.append(f"| {n} | {us(vk)} | " + " | ".join(us(c) for c in cpus) + f" | {r} |")
        lines.append("")
        if crossover is None:
            lines.append("GPU/CPU crossover: vksort beat the best CPU sort at no N measured with both.")
        else:
            lines.append(f"GPU/CPU crossover: N = {crossover} is the smallest N where vksort beats the best "
                         "CPU sort.")
    workload_lines = workload_table(rows)
    if workload_lines:
        lines += ["", "Engine workloads", ""] + workload_lines
    return lines


def workloads(rows):
    """The named sorts: [(workload, N, vksort row, CUB row)] in the order they first appear; either row may be None.
    Rows join on the name and N only: CUB sorts the live count of a vksort sort with an indirect count directly."""
    joined = {}
    for (algo, g, n), r in rows.items():
        if not g[7] or algo not in (VKSORT, CUB):
            continue
        entry = joined.setdefault((g[7], n), {})
        if algo in entry:
            print(f"warning: workload {g[7]}, N = {n}: a second {algo} row ({label(g)}); using the first",
                  file=sys.stderr)
            continue
        entry[algo] = r
    return [(w, n, e.get(VKSORT), e.get(CUB)) for (w, n), e in joined.items()]


def sorts(row):
    """What a row sorted: types, bit range, order, count (and maxCount with an indirect count)."""
    s = row["key"] if row["value"] == "none" else f"{row['key']} + {row['value']}"
    s += f", bits [{row['begin_bit']}, {row['end_bit']})"
    if row["dist"] != "uniform":
        s += f", {row['dist']}"
    if row["descending"]:
        s += ", descending"
    indirect = int(row.get("indirect_max") or 0)
    if indirect:
        return s + f", {row['N']:,} of maxCount {indirect:,} (indirect count)"
    return s + f", {row['N']:,} (direct count)"


def cub_sorts(vk, cb):
    """What CUB sorted, said against vksort's sort where that is shorter."""
    if cb is None:
        return ""
    if vk is None:
        return sorts(cb)
    if sorts(cb) == sorts(vk):
        return "the same"
    if sorts(cb) == sorts(dict(vk, indirect_max=0)):
        return f"the {cb['N']:,} live keys, direct count"
    return sorts(cb)


def frame_share(row):
    """The row's median as a share of a 60 fps frame (16.67 ms)."""
    if row is None:
        return ""
    s = f"{100 * row['median_ms'] / FRAME_MS:.2f}%"
    return s if row.get("verified", True) else s + " (WRONG)"


def workload_table(rows, emphasize=lambda r: r):
    """The engine workloads table (markdown lines), or [] without workload rows. `emphasize` formats the speed
    ratio (report.py makes it bold where vksort is faster)."""
    found = workloads(rows)
    if not found:
        return []
    lines = ["| workload | sorts | vksort µs | CUB µs | CUB sorts | vksort/CUB speed ratio | vksort, share of a 60 fps "
             "frame | CUB, share of a 60 fps frame |",
             "|---|---|---:|---:|---|---:|---:|---:|"]
    for w, n, vk, cb in found:
        what = sorts(vk) if vk is not None else sorts(cb)
        lines.append(f"| {w} | {what} | {us(vk)} | {us(cb)} | {cub_sorts(vk, cb)} | {emphasize(ratio(cb, vk))} "
                     f"| {frame_share(vk)} | {frame_share(cb)} |")
    return lines


def plot(rows, path, key, value, dist):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"compare.py: matplotlib is not installed, so no plot was drawn ({path}); "
              "the tables above are complete. Install it with: python3 -m pip install matplotlib",
              file=sys.stderr)
        return False
    g = (key, value, dist, False, 0, KEY_BITS.get(key, 32) if dist != "morton" else 30, 0, "")
    series = {}
    for (algo, gg, n), r in rows.items():
        if gg == g and r.get("verified", True) and kps(r):
            series.setdefault(algo, []).append((n, kps(r) / 1e9))
    if not series:
        print(f"compare.py: no verified rows for {label(g)}: no plot drawn", file=sys.stderr)
        return False
    fig, ax = plt.subplots(figsize=(8, 5))
    styles = {VKSORT: "o-", CUB: "s-"}
    for algo in sorted(series, key=lambda a: (a != VKSORT, a != CUB, a)):
        pts = sorted(series[algo])
        ax.plot([p[0] for p in pts], [p[1] for p in pts], styles.get(algo, "^--"), label=algo)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")  # the CPU sorts are 100x slower
    ax.set_xlabel("N (keys)")
    ax.set_ylabel("G keys/s (median)")
    ax.set_title(label(g))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"compare.py: plot written to {path}", file=sys.stderr)
    return True


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+", help="JSON lines files from vksort_bench and cub_bench")
    p.add_argument("--plot", metavar="OUT.png", help="draw keys/s vs N for one combination")
    p.add_argument("--plot-key", default="u32")
    p.add_argument("--plot-value", default="none")
    p.add_argument("--plot-dist", default="uniform")
    args = p.parse_args(argv[1:])
    rows = load(args.files)
    print("\n".join(tables(rows)))
    if args.plot:
        plot(rows, args.plot, args.plot_key, args.plot_value, args.plot_dist)


if __name__ == "__main__":
    main(sys.argv)
