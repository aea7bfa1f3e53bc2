#!/usr/bin/env python3
"""Summarise `nvcc -Xptxas -v` output: one line per kernel with registers, spills, stack, smem.

Usage: nvcc ... -Xptxas -v 2> ptxas.log; python3 scripts/ptxas_report.py ptxas.log [--spills-only]
"""
import re
import subprocess
import sys


def demangle(names):
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout
        return out.splitlines()
    except OSError:
        return names


def main():
    path = sys.argv[1]
    spills_only = "--spills-only" in sys.argv
    rows, current, arch = [], None, "?"
    for line in open(path, errors="replace"):
        m = re.search(r"Compiling entry function '(\w+)' for '(\w+)'", line)
        if m:
            current, arch = m.group(1), m.group(2)
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and current:
            stack, st, ld = map(int, m.groups())
            rows.append([current, arch, stack, st, ld, None, None])
            continue
        m = re.search(r"Used (\d+) registers.*?(?:(\d+) bytes smem)?", line)
        if m and rows and rows[-1][5] is None:
            rows[-1][5] = int(m.group(1))
            sm = re.search(r"(\d+) bytes smem", line)
            rows[-1][6] = int(sm.group(1)) if sm else 0
    names = demangle([r[0] for r in rows])
    for r, name in zip(rows, names):
        if spills_only and r[3] == 0 and r[4] == 0:
            continue
        short = re.sub(r"rowwise::kernels::", "", name)
        short = re.sub(r"\(rowwise.*", "", short)
        print(f"{r[1]} regs={r[5]:>3} smem={r[6]:>5} stack={r[2]:>4} spill_st={r[3]:>4} spill_ld={r[4]:>4}  {short}")


if __name__ == "__main__":
    main()
