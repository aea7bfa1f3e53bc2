#!/usr/bin/env bash
# on the H200: ncu of the library's own plan for long-row shapes
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/env.txt
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy --section InstructionStats --section SourceCounters"
i=0
while read -r op dt rows cols; do
  i=$((i+1)); tag="${i}_${op}_${dt}_${rows}x${cols}"
  timeout 120 ncu $S --kernel-name regex:"(registers|chunked|staged)_kernel" --launch-skip 1 --launch-count 1 -o $OUT/$tag ./one_long $op $dt $rows $cols > $OUT/$tag.log 2>&1
  ncu -i $OUT/$tag.ncu-rep --page details > $OUT/$tag.details.txt 2>&1
  ncu -i $OUT/$tag.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $OUT/$tag.sass.csv.gz
  rm -f $OUT/$tag.ncu-rep
done <<'LIST'
softmax fp32 221 152064
softmax fp32 128 262144
softmax bf16 442 152064
softmax bf16 4096 16384
layer_norm bf16 5462 12288
rms_norm bf16 5462 12288
layer_norm bf16 2048 65536
LIST
cd $OUT && tar czf all.tgz *_* env.txt && find . -type f ! -name all.tgz -delete; ls -la $OUT
