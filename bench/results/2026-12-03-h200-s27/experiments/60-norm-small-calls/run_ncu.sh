#!/usr/bin/env bash
# Session 27: ncu of small calls (5th launch of each), stall sampling per SASS instruction.
set -u
cd "$(dirname "$0")"
out=${OUT:-./ncu-out}
mkdir -p "$out"
i=0
while read -r op dt rows cols; do
  i=$((i + 1))
  tag="${i}_${op}_${dt}_${rows}x${cols}"
  timeout 120 ncu --clock-control none --section SourceCounters --section WarpStateStats --section SpeedOfLight \
      --section LaunchStats --section Occupancy --warp-sampling-interval 0 \
      --launch-skip 4 --launch-count 1 -f -o "$out/$tag" ./probe_ncu "$op" "$dt" "$rows" "$cols" > "$out/$tag.run.txt" 2>&1
  timeout 60 ncu -i "$out/$tag.ncu-rep" --page details > "$out/$tag.details.txt" 2>&1
  timeout 60 ncu -i "$out/$tag.ncu-rep" --page source --csv --print-source sass > "$out/$tag.sass.csv" 2>&1
done <<'LIST'
layer_norm fp32 128 4096
rms_norm fp32 128 4096
softmax fp32 128 4096
layer_norm fp32 1 8192
layer_norm fp32 1 4096
layer_norm bf16 128 4096
LIST
ls -la "$out"
