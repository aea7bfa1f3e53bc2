#!/usr/bin/env bash
# Benchmark rowwise on this machine's GPU.
#
#   scripts/bench.sh [RESULTS.json] [extra Google Benchmark args...]
#   BENCH_FILTER=softmax scripts/bench.sh          # --benchmark_filter=softmax
#
# Uses preset `h200` on an sm_90 GPU, else preset `native` (CMAKE_CUDA_ARCHITECTURES=native);
# builds rowwise_bench, runs it with JSON output to RESULTS.json (default
# build/<preset>/bench-<UTC date>.json) and prints a table (name, GB/s, % of floor).
# Without a GPU: prints one line and exits 2.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! gpus=$(nvidia-smi -L 2>/dev/null) || [[ -z "$gpus" ]]; then
  echo "bench: no CUDA GPU on this machine; nothing to measure"
  exit 2
fi

cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 2>/dev/null | head -n1 | tr -d '[:space:]' || true)
if [[ "$cc" == "9.0" ]]; then preset=h200; else preset=native; fi
echo "bench: $(head -n1 <<<"$gpus") (compute capability ${cc:-unknown}) -> preset $preset"

if [[ -z "${CMAKE_GENERATOR:-}" && ! -f "build/$preset/CMakeCache.txt" ]] && command -v ninja >/dev/null 2>&1; then
  export CMAKE_GENERATOR=Ninja
fi
jobs=$(nproc 2>/dev/null || echo 2)

results="${1:-build/$preset/bench-$(date -u +%Y%m%dT%H%M%SZ).json}"
shift || true
mkdir -p "$(dirname "$results")"

cmake --preset "$preset"
cmake --build --preset "$preset" --target rowwise_bench -j "$jobs"

args=(--benchmark_out="$results" --benchmark_out_format=json)
[[ -n "${BENCH_FILTER:-}" ]] && args+=(--benchmark_filter="$BENCH_FILTER")

rc=0
"build/$preset/bench/rowwise_bench" "${args[@]}" "$@" || rc=$?

if [[ -s "$results" ]]; then
  echo
  python3 scripts/bench_table.py "$results" || true
  echo "bench: results in $results"
fi
if [[ $rc -ne 0 ]]; then
  echo "bench: rowwise_bench exited $rc" >&2
fi
exit $rc
