#!/usr/bin/env python3
"""Summarise a rowwise benchmark JSON as the README's two performance tables (Markdown).

Usage: perf_summary.py RESULTS.json

Large shapes (names <op>/<dtype>/<rows>/<cols>): per op and dtype the median and minimum of
pct_of_floor over the columns, and every column's figure; the same shapes with their matrices one
element past a 16-byte boundary (names ending in /offset1) as a second table of the same form. Graph shapes (names ending in /graph):
the time per call in microseconds (the harness reports the per-call time as real_time, in the
unit the JSON names). Copy benchmarks (copy/bytes/N) are listed as the floor.
"""
import json
import statistics
import sys
from collections import OrderedDict

UNIT_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        data = json.load(f)
    large = OrderedDict()
    large_offset = OrderedDict()
    small = OrderedDict()
    small_cols = []
    floor = []
    for b in data.get("benchmarks", []):
        if b.get("run_type") == "aggregate" or b.get("error_occurred"):
            continue
        parts = b["name"].split("/")
        if parts[0] == "copy":
            floor.append((int(parts[2]), b.get("GBps", b.get("bytes_per_second", 0) / 1e9)))
            continue
        op, dtype, rows, cols = parts[0], parts[1], int(parts[2]), int(parts[3])
        if "graph" in parts:
            us = b["real_time"] * UNIT_US[b.get("time_unit", "ns")]
            shape = f"{rows} x {cols}"
            if shape not in small_cols:
                small_cols.append(shape)
            small.setdefault((op, dtype), {})[shape] = us
        else:
            table = large_offset if "offset1" in parts else large
            table.setdefault((op, dtype), []).append((cols, b["pct_of_floor"]))
    for title, table in (("", large), ("Offset by one element:", large_offset)):
        if not table:
            continue
        if title:
            print(title)
            print()
        print("| op | dtype | median | min | per cols |")
        print("|---|---|---|---|---|")
        for (op, dtype), rows in table.items():
            pcts = [p for _, p in rows]
            per = ", ".join(f"{c}: {p:.0f}" for c, p in rows)
            print(f"| {op} | {dtype} | {statistics.median(pcts):.0f} % | {min(pcts):.0f} % | {per} |")
        print()
    small_cols.sort(key=lambda s: (int(s.split(" x ")[1]), int(s.split(" x ")[0])))
    print("| op | dtype | " + " | ".join(small_cols) + " |")
    print("|---|---|" + "---|" * len(small_cols))
    for (op, dtype), shapes in small.items():
        cells = [f"{shapes[s]:.2f}" if s in shapes else "" for s in small_cols]
        print(f"| {op} | {dtype} | " + " | ".join(cells) + " |")
    if floor:
        print()
        print("Copy floor in the same run: " +
              ", ".join(f"{n >> 20} MiB: {g:.0f} GB/s" for n, g in sorted(floor)) + ".")


if __name__ == "__main__":
    main()
