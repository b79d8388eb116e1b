#!/usr/bin/env python3
"""Turn one benchmark run into docs/performance.md, its plot and its JSON lines.

Usage:
  python3 samples/bench/report.py RUN_DIR [--date YYYY-MM-DD] [--md docs/performance.md]
                                  [--plot docs/images/performance-h100.png] [--jsonl docs/performance.jsonl]

RUN_DIR is the OUT folder of samples/bench/run_gpu.sh: report.py reads its
vksort.jsonl (vksort and CPU rows) and cub.jsonl (CUB rows, and the rows of
CUB held to one block per SM). It writes
  --jsonl  the two files' lines, concatenated, unchanged;
  --plot   keys/s against N for u32 keys (compare.plot: needs matplotlib,
           Debian python3-matplotlib);
  --md     the page: where and how the run was made, one table with every
           vksort row beside CUB's, and, where the run has rows with a
           "workload" (run_gpu.sh set (f)), the engine workloads table, and with
           "segments" (set (g)), the segmented sorts table.
Rows are read and joined by compare.py (load, group_key, ratio, ...), so the
page and compare.md always agree. The date is not in the rows: give the day
the run was made with --date (default: today).
"""

import argparse
import datetime
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (samples/bench/compare.py)

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUDGET = compare.BUDGET_PREFIX  # "cub DeviceRadixSort, carveout": CUB held to one block per SM


def fmt_n(n):
    """2^k for large powers of two, else the count with thousands separators."""
    if n >= 1 << 17 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return f"{n:,}"


def legacy_path(row, rows):
    """The path name (vksortPathName) of a row written before the bench had a `path` field.

    Such rows name the kernel: "bitonic without index C", "bitonic C", "portable",
    "one-workgroup WxK" and "onesweep WxK". An onesweep row in the sorter's large
    tile (the first two fields of `tuning`) is "onesweep", in another tile "mid-size
    onesweep"; a one-workgroup row twice as wide as the narrowest one-workgroup or
    mid-size tile of the same key and value types is "wide one workgroup".
    """
    kernel = row.get("kernel", "")
    if kernel.startswith("bitonic without index"):
        return "bitonic keys-only"
    if kernel.startswith("bitonic"):
        return "bitonic"
    if kernel == "portable":
        return "portable"
    if not (kernel.startswith("one-workgroup ") or kernel.startswith("onesweep ")):
        return kernel
    width, keys = (int(x) for x in kernel.split()[-1].split("x"))
    large = row.get("tuning", "").split(",")[:2]
    if kernel.startswith("onesweep "):
        return "onesweep" if large == [str(width), str(keys)] else "mid-size onesweep"
    narrow = width
    for r in rows.values():
        k = r.get("kernel", "")
        if r["key"] == row["key"] and r["value"] == row["value"] and \
                (k.startswith("one-workgroup ") or (k.startswith("onesweep ") and legacy_path(r, rows) != "onesweep")):
            narrow = min(narrow, int(k.split()[-1].split("x")[0]))
    return "wide one workgroup" if width >= 2 * narrow else "one workgroup"


def path_of(row, rows):
    if row is None:
        return ""
    return row["path"] if "path" in row else legacy_path(row, rows)


def group_label(g):
    key, value, dist, desc, begin, end, indirect, _ = g
    s = key if value == "none" else f"{key} ({'index' if value == 'index' else value})"
    if dist != "uniform":
        s += f", {dist}"
    if desc:
        s += ", descending"
    if (begin, end) != (0, compare.KEY_BITS.get(key, 32)):
        s += f", bits [{begin}, {end})"
    if indirect:
        s += f", indirect count, maxCount {fmt_n(indirect)}"
    return s


def bold_if_faster(r):
    """A speed ratio (CUB time / vksort time), bold where vksort is faster."""
    return f"**{r}**" if r and float(r) > 1.0 else r


def table(rows):
    """The main table: every vksort and CUB row but the workloads, joined, one line per (types, N)."""
    groups = sorted({g for a, g, _ in rows if a in (compare.VKSORT, compare.CUB) and not g[7]}, key=compare.sort_group)
    lines = ["| keys (values) | N | vksort path | vksort µs | vksort G keys/s | CUB µs | CUB G keys/s | vksort / CUB "
             "| CUB, one block per SM, µs | vksort / that |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for g in groups:
        budget = sorted({a for a, gg, _ in rows if gg == g and a.startswith(BUDGET)})
        for n in sorted({n for a, gg, n in rows if gg == g and a in (compare.VKSORT, compare.CUB)}):
            vk, cb = rows.get((compare.VKSORT, g, n)), rows.get((compare.CUB, g, n))
            held = rows.get((budget[0], g, n)) if budget else None
            lines.append(f"| {group_label(g)} | {fmt_n(n)} | {path_of(vk, rows)} | {compare.us(vk)} | {compare.gk(vk)} "
                         f"| {compare.us(cb)} | {compare.gk(cb)} | {bold_if_faster(compare.ratio(cb, vk))} "
                         f"| {compare.us(held)} | {compare.ratio(held, vk)} |")
    return lines


def engine_range(rows):
    """u32 keys and u32 pairs from 4,096 to 2^22 keys, where a sort is bound by latency, and the sorts with an
    indirect count: vksort, CUB and their ratio."""
    def group(value, indirect=0):
        return ("u32", value, "uniform", False, 0, 32, indirect, "")

    lines = ["| N | u32 keys: vksort µs | CUB µs | vksort / CUB | u32 + u32: vksort µs | CUB µs | vksort / CUB |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    sizes = sorted({n for a, g, n in rows if a == compare.VKSORT and g in (group("none"), group("u32"))
                    and 4096 <= n <= 1 << 22})
    for n in sizes:
        cells = []
        for value in ("none", "u32"):
            vk, cb = rows.get((compare.VKSORT, group(value), n)), rows.get((compare.CUB, group(value), n))
            cells += [compare.us(vk), compare.us(cb), bold_if_faster(compare.ratio(cb, vk)) if vk and cb else ""]
        lines.append(f"| {fmt_n(n)} | " + " | ".join(cells) + " |")
    indirect = []
    for (a, g, n), r in sorted(rows.items(), key=lambda kv: (kv[0][1][1], kv[0][1][6], kv[0][2])):
        if a == compare.VKSORT and g[0] == "u32" and g[2] == "uniform" and g[6] and not g[7]:
            types = "u32 keys" if g[1] == "none" else f"u32 keys + {g[1]} values"
            indirect.append(f"| {types} | {n:,} of {fmt_n(g[6])} | {compare.us(r)} |")
    if indirect:
        lines += ["", "With an indirect count (the live count read from a buffer, the sort recorded for the maximum):",
                  "", "| types | live count of maxCount | vksort µs |", "|---|---:|---:|"] + indirect
    return lines if sizes else []


SEGMENT_WORKLOADS = ["65536x16", "16384x64", "1024x1024", "512x4096", "16x65536", "256x16384", "powerlaw4096",
                     "1x4194304"]
SEGMENTED_CUB = ("cub DeviceSegmentedSort::StableSort", "cub DeviceSegmentedRadixSort::Sort")


def segmented(rows):
    """The segmented sorts (run_gpu.sh set (g), rows with "segments"): per value type and workload, vksort's
    segmented sort, the same segments sorted without it (the segment index in the high key bits), CUB's two
    segmented sorts, and vksort's speed against the faster of them."""
    found = {}
    for (a, g, n), r in rows.items():
        if "segments" in r and r.get("workload"):
            found.setdefault((r["value"], r["workload"]), {})[a] = r
    if not found:
        return []
    lines = ["| keys (values) | segments x keys | N | vksort segmented µs | vksort without segmented sorts µs "
             "| CUB DeviceSegmentedSort µs | CUB DeviceSegmentedRadixSort µs | vksort / faster CUB |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    order = lambda k: (k[0] != "u32", SEGMENT_WORKLOADS.index(k[1]) if k[1] in SEGMENT_WORKLOADS else 99, k[1])
    for value, workload in sorted(found, key=order):
        e = found[(value, workload)]
        vk = next((r for a, r in e.items() if a.endswith(" segmented")), None)
        plain = next((r for a, r in e.items() if a.startswith("vksort") and not a.endswith(" segmented")), None)
        cubs = [next((r for a, r in e.items() if a.startswith(prefix)), None) for prefix in SEGMENTED_CUB]
        times = [c for c in cubs if c]
        best = min(times, key=lambda r: r["median_ms"]) if times else None
        n = (vk or plain or best or {}).get("N", 0)
        types = "u32" if value == "none" else f"u32 + {value}"
        how = " (one plain sort)" if plain and plain["algorithm"].endswith("one plain sort") else ""
        lines.append(f"| {types} | {workload} | {n:,} | {compare.us(vk)} | {compare.us(plain)}{how} "
                     f"| {compare.us(cubs[0])} | {compare.us(cubs[1])} | {bold_if_faster(compare.ratio(best, vk))} |")
    return lines


def first(rows, algorithm_prefix, field):
    for (a, _, _), r in sorted(rows.items(), key=lambda kv: str(kv[0])):
        if a.startswith(algorithm_prefix) and r.get(field):
            return str(r[field])
    return "?"


def crossover(rows):
    """The smallest N (u32 keys, uniform) where vksort beats the faster one-thread CPU sort."""
    g = ("u32", "none", "uniform", False, 0, 32, 0, "")  # compare.group_key of a direct sort
    cpus = sorted({a for a, gg, _ in rows if gg == g and a.startswith(compare.CPU_PREFIX)})
    for n in sorted({n for a, gg, n in rows if gg == g and a == compare.VKSORT}):
        vk = rows[(compare.VKSORT, g, n)]
        times = [rows[(a, g, n)]["median_ms"] for a in cpus if (a, g, n) in rows]
        if times and vk.get("verified", True) and vk["median_ms"] < min(times):
            return n
    return None


def page(rows, date, plot_rel, jsonl_rel, jsonl_shown):
    vk_rows = [r for (a, _, _), r in rows.items() if a == compare.VKSORT]
    temps = sorted({r["temp_only_bytes"] for r in vk_rows
                    if "temp_only_bytes" in r and path_of(r, rows) in ("onesweep", "mid-size onesweep")})
    held = sorted({a for a, _, _ in rows if a.startswith(BUDGET)})
    cross = crossover(rows)
    counts = sorted({r["runs"] for (a, _, _), r in rows.items()
                     if "runs" in r and (a in (compare.VKSORT, compare.CUB) or a.startswith(BUDGET))})
    runs = " to ".join(str(c) for c in (counts[:1] + counts[-1:] if len(counts) > 1 else counts)) or "the"
    out = [
        "# Performance",
        "",
        "vksort against CUB's `DeviceRadixSort` on the same GPU, in the same run. This page is written by",
        "`samples/bench/report.py` from the run's JSON lines; do not edit it by hand.",
        "",
        f"- **GPU:** {first(rows, compare.VKSORT, 'device')}, Vulkan driver {first(rows, compare.VKSORT, 'driver')}.",
        f"- **CUDA and CUB:** {first(rows, compare.CUB, 'driver')}.",
        f"- **vksort commit:** `{first(rows, compare.VKSORT, 'commit')}`. **Date:** {date}.",
        f"- **CPU** (the one-thread sorts in the plot): {first(rows, compare.CPU_PREFIX, 'device')}, "
        f"{first(rows, compare.CPU_PREFIX, 'driver')}.",
        f"- **Data:** [`{jsonl_shown}`]({jsonl_rel}): every row of the run, vksort, CPU and CUB.",
        "",
        "## How the figures are made",
        "",
        f"Each figure is the median of {runs} timed runs on fresh random keys that the GPU generates before every",
        "run. vksort is timed with Vulkan timestamps around the recorded sort only, CUB with CUDA events around",
        "`DeviceRadixSort` only, with its temporary storage allocated beforehand. Both use the same key generator",
        "and seeds. Every row is verified: against `std::stable_sort` up to 2^22 keys, and above that by a check",
        "of order, permutation and stability. [`samples/bench/README.md`](../samples/bench/README.md) describes",
        "the bench.",
        "",
        "On a machine with an NVIDIA GPU, `nvcc` and the NVIDIA Vulkan driver, from the repository root:",
        "",
        "```sh",
        "cmake -S . -B build-rel -G Ninja -DCMAKE_BUILD_TYPE=Release -DVKSORT_BUILD_TESTS=OFF",
        "cmake --build build-rel --target vksort_bench",
        "OUT=bench-out bash samples/bench/run_gpu.sh",
        f"python3 samples/bench/report.py bench-out --date {date}",
        "```",
        "",
        "## CUB held to one block per SM",
        "",
    ]
    if held:
        out += [
            "Through Vulkan, this driver gives a compute pipeline 48 KiB of shared memory per SM; CUDA gives the",
            "same SM 228 KiB, and CUB's onesweep kernel runs two blocks per SM. vksort's tiles for 32-bit keys alone",
            "(512 x 16 keys, staged through shared memory in two rounds) run two per SM, its 1024-invocation tiles",
            "for pairs and 64-bit keys one per SM. The columns \"CUB, one block per SM\" run CUB's own kernel with",
            f"the shared memory that Vulkan would give it (`cub_bench --carveout 14`, rows \"{held[0]}\"), which",
            "leaves it one block per SM.",
        ]
    else:
        out += ["This run has no rows of CUB held to one block per SM (`cub_bench --carveout 14`)."]
    out += [
        "",
        "## Results",
        "",
        f"![keys/s against N for u32 keys: vksort, CUB, CUB held to one block per SM, and the CPU]({plot_rel})",
        "",
        "Speed ratios are CUB's time over vksort's: above 1.00 (bold) vksort is faster. The path is the one",
        "`vksortGetSortPlan` reports for that sort ([`design.md`](design.md) describes each).",
        "",
    ]
    out += table(rows)
    out.append("")
    if len(temps) == 1:
        out.append(f"Temporary memory besides the ping-pong buffers, on the Onesweep paths: {temps[0]:,} bytes at "
                   "every N and for every type.")
    if cross is not None:
        out.append(f"GPU/CPU crossover (u32 keys): N = {cross:,} is the smallest N measured where vksort beats the "
                   "faster one-thread CPU sort; it moves with the host CPU.")
    out.append("")
    engine = engine_range(rows)
    if engine:
        out += [
            "## The engine range: 4,096 to 2^22 keys",
            "",
            "Engines sort a few thousand to a few million keys per frame. There a sort is bound by latency, not",
            "bandwidth: the chain of dependent dispatches and the time one tile takes per pass. The rows below",
            "are those of the table above.",
            "",
        ]
        out += engine
        out.append("")
    seg = segmented(rows)
    if seg:
        out += [
            "## Segmented sorts",
            "",
            "Many lists in one sort (`vksortRecordSegmentedSort`): u32 keys and u32 values in segments given by",
            "CSR offsets, ascending. The workloads are S segments of K keys (S x K), and `powerlaw4096`: 4,096",
            "segments of 2^22 keys in all with power-law sizes (`samples/bench/segment_workloads.h`). Beside each:",
            "the same segments sorted with one plain vksort sort of u64 keys whose high word is the segment index",
            "(bits [0, 32 + log2 S); one segment: a plain u32 sort), and CUB's `DeviceSegmentedSort::StableSortPairs`",
            "and `DeviceSegmentedRadixSort::SortPairs` (`StableSortKeys`, `SortKeys` for keys alone) in the same run.",
            "Every row is checked segment by segment against `std::stable_sort`.",
            "",
        ]
        out += seg
        out.append("")
    workloads = compare.workload_table(rows, bold_if_faster)
    if workloads:
        out += [
            "## Engine workloads",
            "",
            "The sorts a game engine runs every frame, each at one size: particles (u32 depth keys and their",
            "indices, with the live count that a culling pass writes into a count buffer), Gaussian splats (an",
            "argsort of f32 depths, indirect count), a BVH build (30-bit Morton codes and indices) and a tile",
            "rasterizer (u64 keys of which bits [0, 45) count, with u32 values). CUB has no indirect count: where",
            "vksort reads the live count from a buffer, CUB sorts the live keys with a direct count (column \"CUB",
            "sorts\"). The shares are the medians over one frame at 60 fps (16.67 ms).",
            "",
        ]
        out += workloads
        out.append("")
    return "\n".join(out)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="a run_gpu.sh OUT folder (vksort.jsonl, cub.jsonl)")
    p.add_argument("--date", default=datetime.date.today().isoformat(), help="the day the run was made")
    p.add_argument("--md", default=os.path.join(ROOT, "docs", "performance.md"))
    p.add_argument("--plot", default=os.path.join(ROOT, "docs", "images", "performance-h100.png"))
    p.add_argument("--jsonl", default=os.path.join(ROOT, "docs", "performance.jsonl"))
    args = p.parse_args(argv[1:])
    inputs = [os.path.join(args.run, f) for f in ("vksort.jsonl", "cub.jsonl")]
    for path in inputs:
        if not os.path.exists(path):
            sys.exit(f"report.py: {path} not found")
    rows = compare.load(inputs)
    if not any(a == compare.VKSORT for a, _, _ in rows):
        sys.exit("report.py: no vksort rows")

    for path in (args.md, args.plot, args.jsonl):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(args.jsonl, "w", encoding="utf-8") as out:
        for path in inputs:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        out.write(line if line.endswith("\n") else line + "\n")
    if not compare.plot(rows, args.plot, "u32", "none", "uniform"):
        print("report.py: no plot; the page links to it anyway", file=sys.stderr)
    md_dir = os.path.dirname(os.path.abspath(args.md))
    rel = lambda path: os.path.relpath(os.path.abspath(path), md_dir)
    jsonl_shown = os.path.relpath(os.path.abspath(args.jsonl), ROOT)
    with open(args.md, "w", encoding="utf-8") as f:
        f.write(page(rows, args.date, rel(args.plot), rel(args.jsonl), jsonl_shown))
    print(f"report.py: wrote {args.md}, {args.plot}, {args.jsonl}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
