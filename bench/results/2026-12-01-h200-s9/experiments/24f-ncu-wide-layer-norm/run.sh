#!/usr/bin/env bash
cd "$(dirname "$0")"
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy --section InstructionStats --section SchedulerStats --section SourceCounters"
for spec in "layer_norm bf16 16384 4096" "rms_norm bf16 16384 4096" "layer_norm bf16 5461 12288"; do
  set -- $spec; tag="$1_$4"
  timeout 120 ncu $S --kernel-name regex:"registers_kernel" --launch-skip 1 --launch-count 1 -o $OUT/$tag ./one_wide $1 $2 $3 $4 > $OUT/$tag.log 2>&1
  ncu -i $OUT/$tag.ncu-rep --page details > $OUT/$tag.details.txt 2>&1
  ncu -i $OUT/$tag.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $OUT/$tag.sass.csv.gz
  rm -f $OUT/$tag.ncu-rep
done
