#!/usr/bin/env python3
"""Print a table (name, GB/s, % of copy floor) from a Google Benchmark JSON file.

Usage: bench_table.py RESULTS.json [--markdown]

Reads the counters rowwise's harness reports: bytes_per_second (B/s; GBps as a fallback)
and pct_of_floor (a percentage). Aggregates, when the run used repetitions, are shown as the
median (else the mean) instead of each repetition. Failed or skipped benchmarks are listed
with their message.
"""
import argparse
import json
import sys

CONTEXT_KEYS = ("date", "device_name", "compute_capability", "cuda_driver_version",
                "cuda_runtime_version", "nvidia_driver", "rowwise_version", "rowwise_commit")


def pick_rows(benchmarks):
    """One row per run: its median aggregate if any, else its mean, else the iteration rows."""
    aggregates = {}
    for b in benchmarks:
        if b.get("run_type") == "aggregate":
            aggregates.setdefault(b.get("run_name", b.get("name")), {})[b.get("aggregate_name")] = b
    rows = []
    for b in benchmarks:
        run = b.get("run_name", b.get("name"))
        if run in aggregates:
            chosen = aggregates[run].get("median") or aggregates[run].get("mean")
            if b is chosen:
                rows.append(b)
        elif b.get("run_type", "iteration") == "iteration":
            rows.append(b)
    return rows


def fmt(value, spec):
    return format(value, spec) if isinstance(value, (int, float)) else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json_file")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()

    try:
        with open(args.json_file) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        print(f"bench_table: cannot read {args.json_file}: {e}", file=sys.stderr)
        return 1

    context = data.get("context", {})
    header = [f"{k}: {context[k]}" for k in CONTEXT_KEYS if k in context]
    if header:
        print(("; ".join(header)))

    table = []
    errors = 0
    for b in pick_rows(data.get("benchmarks", [])):
        name = b.get("name", "?")
        if b.get("error_occurred") or b.get("skipped"):
            errors += 1
            table.append((name, "ERROR", b.get("error_message", b.get("skip_message", ""))))
            continue
        bps = b.get("bytes_per_second")
        gbs = bps / 1e9 if isinstance(bps, (int, float)) else b.get("GBps")
        table.append((name, fmt(gbs, ".1f"), fmt(b.get("pct_of_floor"), ".1f")))

    if not table:
        print("bench_table: no benchmarks in the file")
        return 1

    titles = ("benchmark", "GB/s", "% of floor")
    if args.markdown:
        print("| " + " | ".join(titles) + " |")
        print("|---|---:|---:|")
        for row in table:
            print("| " + " | ".join(row) + " |")
    else:
        w = max(len(titles[0]), max(len(r[0]) for r in table))
        print(f"{titles[0]:<{w}}  {titles[1]:>9}  {titles[2]:>10}")
        for name, gbs, pct in table:
            if gbs == "ERROR":
                print(f"{name:<{w}}  ERROR: {pct}")
            else:
                print(f"{name:<{w}}  {gbs:>9}  {pct:>10}")
    if errors:
        print(f"bench_table: {errors} benchmark(s) failed or were skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
