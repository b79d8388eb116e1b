#!/usr/bin/env python3
"""Compare vksort benchmark results against the CUB baseline.

Usage: python3 compare.py vksort.jsonl cub.jsonl

Both inputs are JSON lines, one object per (key, payload, n, dist) result, as
written by the vksort benchmark and by cub_bench (--json). Rows are joined on
(key, payload, n, dist) and printed as a markdown table. The ratio column is
CUB time / vksort time, so > 1.00 means vksort is faster.

Python 3 standard library only.
"""

import json
import sys

JOIN_KEYS = ("key", "payload", "n", "dist")


def load(path):
    """Return ({join_key: row}, [rows in file order]) for one JSON lines file."""
    rows = {}
    ordered = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"{path}:{lineno}: invalid JSON: {e}")
            missing = [k for k in JOIN_KEYS + ("median_ms",) if k not in row]
            if missing:
                sys.exit(f"{path}:{lineno}: missing keys {missing}")
            jk = tuple(row[k] for k in JOIN_KEYS)
            if jk in rows:
                # Keep the last one: a re-run appended to the same file wins.
                print(f"warning: {path}:{lineno}: duplicate row for "
                      f"{dict(zip(JOIN_KEYS, jk))}, using the later one",
                      file=sys.stderr)
            rows[jk] = row
            ordered.append(row)
    return rows, ordered


def describe(label, ordered):
    """One line naming the device(s)/driver(s) a file was measured on."""
    seen = []
    for r in ordered:
        d = (str(r.get("device", "?")), str(r.get("driver", "?")))
        if d not in seen:
            seen.append(d)
    if not seen:
        return f"- {label}: (no rows)"
    parts = [f"device `{dev}`, driver `{drv}`" for dev, drv in seen]
    line = f"- {label}: " + "; ".join(parts)
    commits = sorted({str(r["commit"]) for r in ordered if "commit" in r})
    if commits:
        line += ", commit " + ", ".join(f"`{c}`" for c in commits)
    return line


def keys_per_s(row):
    # Prefer the value the benchmark wrote; fall back to n / median.
    v = row.get("keys_per_s")
    if v is None and row["median_ms"] > 0:
        v = row["n"] / (row["median_ms"] * 1e-3)
    return v


def cells(row):
    """(median µs, G keys/s) cells for one side, blank if the row is absent."""
    if row is None:
        return "", ""
    kps = keys_per_s(row)
    return f"{row['median_ms'] * 1e3:.1f}", ("" if kps is None else f"{kps / 1e9:.3f}")


def sort_key(jk):
    # Sort by key, payload, n (dist only breaks ties); str() guards against
    # mixed types so a malformed file cannot crash the sort.
    key, payload, n, dist = jk
    return (str(key), str(payload), n if isinstance(n, (int, float)) else float("inf"),
            str(n), str(dist))


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: python3 compare.py vksort.jsonl cub.jsonl")
    vk_rows, vk_ordered = load(argv[1])
    cub_rows, cub_ordered = load(argv[2])

    print(describe("vksort", vk_ordered))
    print(describe("CUB", cub_ordered))
    print()

    all_keys = sorted(set(vk_rows) | set(cub_rows), key=sort_key)
    # The N column alone is ambiguous when several key/payload/dist combinations
    # are present, so print one table per combination, each under a heading.
    groups = []
    for jk in all_keys:
        g = (jk[0], jk[1], jk[3])
        if not groups or groups[-1][0] != g:
            groups.append((g, []))
        groups[-1][1].append(jk)

    for gi, ((key, payload, dist), jks) in enumerate(groups):
        if gi:
            print()
        print(f"key={key} payload={payload} dist={dist}")
        print()
        print("| N | vksort median µs | vksort G keys/s | CUB median µs | CUB G keys/s "
              "| vksort/CUB speed ratio |")
        print("|---:|---:|---:|---:|---:|---:|")
        for jk in jks:
            vk = vk_rows.get(jk)
            cb = cub_rows.get(jk)
            vk_us, vk_g = cells(vk)
            cb_us, cb_g = cells(cb)
            ratio = ""
            if vk is not None and cb is not None and vk["median_ms"] > 0:
                ratio = f"{cb['median_ms'] / vk['median_ms']:.2f}"
            print(f"| {jk[2]} | {vk_us} | {vk_g} | {cb_us} | {cb_g} | {ratio} |")


if __name__ == "__main__":
    main(sys.argv)
