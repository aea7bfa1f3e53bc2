#!/usr/bin/env bash
# Experiment 96 (session 50): ncu --set full, with the warp-state sampling per SASS instruction, of
# one kernel of each benchmark (its 4th launch), on the device machine. Writes, per benchmark, the
# report's details page and its source page (SASS, CSV) into /tmp/s50ncu/r and packs those text
# files (not the .ncu-rep: too large to fetch) into $OUT/ncu_full.tgz. Read the CSVs here with
# sass_prof.py (per opcode and the top instructions by samples) and sass_range.py (a range of
# instructions with their two main stall reasons).
#   bash bench/experiments/96-ncu-source-sampling/ncu_full.sh PACK.tgz BENCH...
#   PACK.tgz: scripts/h200_pack.sh's bench tarball; BENCH: names without /iterations.
set -uo pipefail
tgz=${1:?pack}; shift
OUT=${OUT:-$PWD/gpu-out}; mkdir -p "$OUT"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv; date -u; } > "$OUT/gpu.txt" 2>&1
work=/tmp/s50ncu; rm -rf "$work"; mkdir -p "$work/p" "$work/r"
tar xf "$tgz" -C "$work/p"; pack=$(dirname "$(find "$work/p" -name rowwise_bench | head -1)")
export LD_LIBRARY_PATH=$pack:${LD_LIBRARY_PATH:-}
ncu_bin=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for b in "$@"; do
  f=$(echo "$b" | tr / _)
  timeout 150 "$ncu_bin" --kernel-name regex:_kernel --launch-skip 3 --launch-count 1 --set full \
    --import-source no -o "$work/r/$f" "$pack/rowwise_bench" --benchmark_filter="^$b/iter" > "$work/r/$f.log" 2>&1
  echo "$b full: rc $?"
  "$ncu_bin" --import "$work/r/$f.ncu-rep" --page details > "$work/r/$f.details.txt" 2>&1
  "$ncu_bin" --import "$work/r/$f.ncu-rep" --page source --print-source sass --csv > "$work/r/$f.sass.csv" 2>&1
  echo "$b pages: rc $? $(wc -c < "$work/r/$f.sass.csv")"
done
(cd "$work/r" && tar czf "$OUT/ncu_full.tgz" ./*.details.txt ./*.sass.csv ./*.log)
