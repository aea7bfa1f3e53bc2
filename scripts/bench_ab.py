#!/usr/bin/env python3
"""ab.py A1.json[,A2.json] B1.json[,B2.json]: per benchmark mean pct_of_floor of each side, then per
(op, dtype, aligned/offset1) median / min of each side, and the largest per-benchmark differences."""
import json, statistics, sys
from collections import defaultdict

def load(spec):
    acc = defaultdict(list)
    for f in spec.split(","):
        for b in json.load(open(f))["benchmarks"]:
            if b.get("run_type") == "aggregate" or b.get("error_occurred"): continue
            if "pct_of_floor" not in b: continue
            acc[b["name"]].append(b["pct_of_floor"])
    return {k: sum(v) / len(v) for k, v in acc.items()}

a, b = load(sys.argv[1]), load(sys.argv[2])
common = sorted(set(a) & set(b))
groups = defaultdict(list)
for n in common:
    p = n.split("/")
    if "graph" in p: continue
    key = (p[0], p[1], "offset1" if "/offset1" in n else "aligned")
    groups[key].append((a[n], b[n]))
print("%-22s %-5s %-8s %14s %14s" % ("op", "dtype", "layout", "A med/min", "B med/min"))
for k in sorted(groups):
    xs = [x for x, _ in groups[k]]; ys = [y for _, y in groups[k]]
    print("%-22s %-5s %-8s %6.1f / %5.1f %6.1f / %5.1f" % (k + (statistics.median(xs), min(xs), statistics.median(ys), min(ys))))
d = sorted(((b[n] - a[n], n) for n in common if "graph" not in n), key=lambda t: t[0])
print("\nlargest losses B-A:"); [print("  %+6.1f %s (%.1f -> %.1f)" % (x, n, a[n], b[n])) for x, n in d[:12]]
print("largest gains B-A:"); [print("  %+6.1f %s (%.1f -> %.1f)" % (x, n, a[n], b[n])) for x, n in d[-12:]]
al = [x for x, n in d if "/offset1" not in n]
print("aligned mean diff %+.2f over %d" % (sum(al) / len(al), len(al)))
