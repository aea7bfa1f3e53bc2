#!/usr/bin/env python3
"""Per-kernel SASS instruction counts of a translation unit, without a GPU.

Compiles FILE.cu for sm_90 (-O3, -Xptxas -v) against include/ of the working tree and, with
--rev REV, also against REV's include/ (git archive), disassembles the cubins and prints, per
kernel: registers, spill bytes, SASS instructions, and the memory / shuffle / barrier
instructions by kind (LDG.E.128 and narrower global loads, stores, shared-memory and local-memory
accesses). Static counts, not executed ones: they show what a change does to the code (a 16-byte
access that became narrower, spills that moved, a path that doubled), not how often it runs.

The disassembler: $CUOBJDUMP, else cuobjdump on PATH or in the CUDA toolkit, else the copy
fetched once from PyPI (the nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm wheels: cuobjdump
runs nvdisasm) into ~/.cache/rowwise/sass-tools. This machine's toolkit has neither; the device
image has both.

Usage: scripts/sass_counts.py FILE.cu [--rev REV] [--filter SUBSTRING] [--sass DIR]
  FILE.cu     explicit instantiations, e.g.
              template __global__ void rowwise::kernels::registers_kernel<...>(...);
  --rev REV   also compile against REV's include/ and print both, REV first
  --filter S  only kernels whose demangled name contains S
  --sass DIR  keep the disassembly (one .sass file per build) in DIR
"""
import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
CACHE = os.path.expanduser("~/.cache/rowwise/sass-tools")

# Instruction kinds counted, in print order: (column, regular expression on the opcode).
KINDS = [
    ("LDG128", r"^LDG\.E\.128"),
    ("LDGnar", r"^LDG(?!\.E\.128)"),
    ("STG128", r"^STG\.E\.128"),
    ("STGnar", r"^STG(?!\.E\.128)"),
    ("LDS", r"^LDS"),
    ("STS", r"^STS"),
    ("LDL", r"^LDL"),
    ("STL", r"^STL"),
    ("SHFL", r"^SHFL"),
    ("BAR", r"^BAR"),
    ("BRA", r"^BRA"),
]


def cuobjdump():
    for cand in (os.environ.get("CUOBJDUMP"), shutil.which("cuobjdump"), "/usr/local/cuda/bin/cuobjdump"):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    tool = lambda name: glob.glob(os.path.join(CACHE, "nvidia", "*", "bin", name))
    if not (tool("cuobjdump") and tool("nvdisasm")):
        os.makedirs(CACHE, exist_ok=True)
        print("sass_counts: fetching cuobjdump and nvdisasm from PyPI into " + CACHE, file=sys.stderr)
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", d,
                            "nvidia-cuda-cuobjdump", "nvidia-cuda-nvdisasm"], check=True)
            for whl in glob.glob(os.path.join(d, "*.whl")):
                shutil.unpack_archive(whl, CACHE, "zip")
        for t in tool("cuobjdump") + tool("nvdisasm"):
            os.chmod(t, 0o755)  # zip archives keep no modes
    if not (tool("cuobjdump") and tool("nvdisasm")):
        sys.exit("sass_counts: no cuobjdump / nvdisasm found or fetched")
    os.environ["NVDISASM_PATH"] = os.path.dirname(tool("nvdisasm")[0])
    return tool("cuobjdump")[0]


def compile_cubin(source, include, out):
    cmd = ["nvcc", "-std=c++17", "-arch=sm_90", "-O3", "-I" + include, "-cubin", "-o", out, source,
           "-Xptxas", "-v"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("sass_counts: nvcc failed:\n" + r.stderr)
    resources, current = {}, None
    for line in r.stderr.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            current = m.group(1)
            resources[current] = {}
            continue
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and current:
            resources[current]["spill"] = "%s/%s" % m.groups()
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            resources[current]["regs"] = m.group(1)
    return resources


def sass_counts(cubin, keep=None):
    text = subprocess.run([cuobjdump(), "-sass", cubin], capture_output=True, text=True, check=True).stdout
    if keep:
        with open(keep, "w") as f:
            f.write(text)
    counts, current = {}, None
    for line in text.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            current = m.group(1)
            counts[current] = collections.Counter()
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if m and current:
            op = m.group(2)
            if op == "NOP":
                continue
            c = counts[current]
            c["instr"] += 1
            for name, rx in KINDS:
                if re.match(rx, op):
                    c[name] += 1
    return counts


def demangle(names):
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    except OSError:
        return names
    short = []
    for n in out:
        n = re.sub(r"rowwise::abi_[A-Za-z0-9_]+::", "rowwise::", n)
        n = n.replace("rowwise::kernels::", "").replace("__nv_bfloat16", "bf16")
        short.append(re.sub(r"\(.*\)$", "", n))
    return short


def build(source, include, label, workdir, keep_dir):
    cubin = os.path.join(workdir, label + ".cubin")
    res = compile_cubin(source, include, cubin)
    keep = os.path.join(keep_dir, label + ".sass") if keep_dir else None
    return res, sass_counts(cubin, keep)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source")
    ap.add_argument("--rev")
    ap.add_argument("--filter", default="")
    ap.add_argument("--sass")
    a = ap.parse_args()
    if a.sass:
        os.makedirs(a.sass, exist_ok=True)
    source = os.path.abspath(a.source)
    with tempfile.TemporaryDirectory() as work:
        builds = []
        if a.rev:
            tree = os.path.join(work, "rev")
            os.makedirs(tree)
            archive = subprocess.run(["git", "-C", ROOT, "archive", a.rev, "include"], capture_output=True, check=True)
            subprocess.run(["tar", "x", "-C", tree], input=archive.stdout, check=True)
            builds.append((a.rev[:12], build(source, os.path.join(tree, "include"), "rev", work, a.sass)))
        builds.append(("tree", build(source, os.path.join(ROOT, "include"), "tree", work, a.sass)))
    names = sorted({k for _, (_, counts) in builds for k in counts if "code_arch_probe" not in k})
    pretty = dict(zip(names, demangle(names)))
    header = "%-12s %5s %9s %6s " % ("build", "regs", "spill", "instr") + " ".join("%6s" % k for k, _ in KINDS)
    for name in names:
        if a.filter not in pretty[name]:
            continue
        print(pretty[name])
        print("  " + header)
        for label, (res, counts) in builds:
            if name not in counts:
                print("  %-12s (absent)" % label)
                continue
            c, r = counts[name], res.get(name, {})
            print("  %-12s %5s %9s %6d " % (label, r.get("regs", "?"), r.get("spill", "?"), c["instr"]) +
                  " ".join("%6d" % c[k] for k, _ in KINDS))


if __name__ == "__main__":
    main()
