#!/bin/bash
# One device call: build here (nvcc is on the H200 image), then each shape plainly and under
# synccheck. Writes to $OUT (or ./out).
set -u
cd "$(dirname "$0")"
out="${OUT:-./out}"; mkdir -p "$out"
nvcc -O3 -std=c++17 -arch=sm_90 -I../../../include probe_push16.cu -o probe_push16 || exit 1
# block cluster clusters steps: clusters of 16 that must share SMs (many small CTAs; a full GPU of
# 160 / 256-thread CTAs at two or three per SM), one that cannot (512 threads), and clusters of 8.
for a in "128 16 2 9" "32 16 64 9" "128 16 58 9" "160 16 24 9" "256 16 16 9" "256 16 16 1" "512 16 7 9" "256 8 32 9" "160 8 48 9"; do
  echo -n "plain: ";     timeout 60 ./probe_push16 $a
  echo -n "synccheck: "; timeout 120 compute-sanitizer --tool synccheck ./probe_push16 $a 2>&1 | grep -v COMPUTE-SANITIZER | head -3 | tr '\n' ' '; echo
done 2>&1 | tee "$out/probe_push16.txt"
