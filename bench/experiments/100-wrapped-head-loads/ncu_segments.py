#!/usr/bin/env python3
"""Experiment 100 (session 56): an ncu source page (ncu_full.sh's CSV) cut into runs of consecutive
SASS instructions executed equally often, with their warp-state samples: a run executed once per
row by one lane (the row's head lane) stands apart from the runs every warp executes, so a path
that only the head lane takes, and what it costs, can be read off without the source.

  ncu_segments.py CSV [MIN_SAMPLES]
Prints each run with at least MIN_SAMPLES samples (default 50): first-last instruction index,
executions, average active threads, samples, and its memory / barrier / shuffle opcodes."""
import collections
import csv
import sys


def num(x):
    try:
        return float(x.replace(',', ''))
    except ValueError:
        return 0.0


def main():
    path = sys.argv[1]
    min_samples = float(sys.argv[2]) if len(sys.argv) > 2 else 50.0
    rows = list(csv.reader(open(path)))
    hdr = rows[1]
    data = [dict(zip(hdr, r)) for r in rows[2:] if len(r) == len(hdr)]
    total = sum(num(r['# Samples']) for r in data)
    runs = []
    for i, r in enumerate(data):
        ex = int(num(r['Instructions Executed']))
        op = (r['Source'].split() or [''])[0]
        if op.startswith('@'):
            op = (r['Source'].split() + ['', ''])[1]
        if runs and runs[-1]['ex'] == ex:
            run = runs[-1]
            run['last'] = i
        else:
            run = {'first': i, 'last': i, 'ex': ex, 'thr': r['Avg. Threads Executed'], 'samples': 0.0,
                   'ops': collections.Counter()}
            runs.append(run)
        run['samples'] += num(r['# Samples'])
        if op.startswith(('LDG', 'STG', 'LDS', 'STS', 'LDL', 'STL', 'BAR', 'SHFL', 'SYNCS', 'STAS', 'UCGA')):
            run['ops'][op] += 1
    print(f"# {path}: {int(total)} samples")
    for run in runs:
        if run['samples'] >= min_samples:
            ops = ' '.join(f"{k}x{v}" for k, v in run['ops'].most_common(6))
            print(f"{run['first']:6d}-{run['last']:6d} ex {run['ex']:8d} thr {run['thr']:>3s} "
                  f"samples {int(run['samples']):5d} ({run['samples'] / total * 100:4.1f} %)  {ops}")


if __name__ == '__main__':
    main()
