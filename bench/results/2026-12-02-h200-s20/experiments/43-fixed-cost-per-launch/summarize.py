"""Mean over rounds of each probe log line's times, per build tag (lib / variant): R (256 MiB), 4R,
the fixed cost and per-row rate; graph shapes per call. Usage: python3 summarize.py LOG"""
import re, sys, collections
large = collections.defaultdict(list); graph = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"\[(\D+)\d\] (\S+)\s+(\S+)\s+(\d+): R=\s*(\d+) ([\d.]+) us .*4R ([\d.]+) us\s+fixed ([\d.-]+) us\s+per-row (\d+)", line)
    if m:
        tag, op, dt, cols = m.group(1), m.group(2), m.group(3), int(m.group(4))
        large[(op, dt, cols)].append((tag, float(m.group(6)), float(m.group(7)), float(m.group(8)), float(m.group(9))))
        continue
    m = re.match(r"\[(\D+)\d\] graph (\S+)\s+(\S+)\s+(\d+) x\s+(\d+): ([\d.]+) us", line)
    if m:
        graph[(m.group(2), m.group(3), int(m.group(4)), int(m.group(5)))].append((m.group(1), float(m.group(6))))
def mean(v): return sum(v) / len(v) if v else float("nan")
tags = sorted({t for v in large.values() for t, *_ in v} | {t for v in graph.values() for t, _ in v})
print("| op | dtype | cols | " + " | ".join(f"{t}: R us / fixed us / per-row GB/s" for t in tags) + " |")
print("|---|---|---|" + "---|" * len(tags))
for k in sorted(large):
    cells = []
    for t in tags:
        r = [x for x in large[k] if x[0] == t]
        cells.append(f"{mean([x[1] for x in r]):.2f} / {mean([x[3] for x in r]):.2f} / {mean([x[4] for x in r]):.0f}")
    print(f"| {k[0]} | {k[1]} | {k[2]} | " + " | ".join(cells) + " |")
if graph:
    print("\n| graph shape | " + " | ".join(f"{t} us" for t in tags) + " |")
    print("|---|" + "---|" * len(tags))
    for k in sorted(graph):
        print(f"| {k[0]} {k[1]} {k[2]} x {k[3]} | " + " | ".join(f"{mean([x[1] for x in graph[k] if x[0] == t]):.3f}" for t in tags) + " |")
