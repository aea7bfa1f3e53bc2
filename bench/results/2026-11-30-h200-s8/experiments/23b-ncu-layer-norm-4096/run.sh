#!/usr/bin/env bash
cd "$(dirname "$0")"
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats --section Occupancy --section InstructionStats --section SchedulerStats --section SourceCounters"
for spec in "base layer_norm" "v3 layer_norm" "base rms_norm"; do
  set -- $spec; tag="$1_$2"
  timeout 150 ncu $S --kernel-name regex:"registers_kernel" --launch-skip 1 --launch-count 1 -o $OUT/$tag ./one_$1 $2 bf16 16384 4096 > $OUT/$tag.log 2>&1
  ncu -i $OUT/$tag.ncu-rep --page details > $OUT/$tag.details.txt 2>&1
  ncu -i $OUT/$tag.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $OUT/$tag.sass.csv.gz
  rm -f $OUT/$tag.ncu-rep
done
cd $OUT && tar czf all.tgz *_* && find . -type f ! -name all.tgz -delete
