#!/bin/bash
# One device call: each shape plainly and under synccheck. Writes to $OUT (or ./out).
# BIN=<folder> uses binaries built beforehand (probe_push16 from this folder, probe_sync from
# bench/results/2026-12-04-h200-s33/verify-2fc9a50/synccheck-probes/probe_sync.cu); without it,
# probe_push16 is built here (nvcc is on the H200 image) and the library control is skipped.
set -u
cd "$(dirname "$0")"
out="${OUT:-./out}"; mkdir -p "$out"
bin="${BIN:-}"
if [ -z "$bin" ]; then
  nvcc -O3 -std=c++17 -arch=sm_90 -I../../../include probe_push16.cu -o probe_push16 || exit 1
  bin=.
fi
both() {  # $1 label, rest: the command
  local label=$1; shift
  echo -n "plain $label: ";     timeout 60 "$@" 2>&1 | tail -1
  echo -n "synccheck $label: "; timeout 180 compute-sanitizer --tool synccheck "$@" 2>&1 | grep -v "^========= *$" | head -4 | tr '\n' ' '; echo
}
{
# block cluster clusters steps [mode]: clusters of 16 that must share SMs (many small CTAs; a full
# GPU of 160 / 256-thread CTAs at two or three per SM), one that cannot (512 threads), clusters of 8.
for a in "128 16 2 9" "32 16 64 9" "128 16 58 9" "160 16 24 9" "256 16 16 9" "256 16 16 1" "512 16 7 9" "256 8 32 9" "160 8 48 9"; do
  both "push $a" "$bin/probe_push16" $a 0
done
# Session 34: the same sums through cluster barriers (mode 1), and the push with row traffic (mode 2).
for a in "128 16 58 9" "160 16 24 9" "256 16 16 9" "512 16 7 9"; do
  both "barrier $a" "$bin/probe_push16" $a 1
  both "push+rows $a" "$bin/probe_push16" $a 2
done
# The library control (failed in session 33): softmax fp32 16 x 131072, rms_norm fp32 139 x 98304.
if [ -x "$bin/probe_sync" ]; then
  both "library softmax fp32 16x131072" "$bin/probe_sync" softmax fp32 16 131072 0
  both "library rms fp32 139x98304" "$bin/probe_sync" rms fp32 139 98304 0
fi
} 2>&1 | tee "$out/probe_push16.txt"
