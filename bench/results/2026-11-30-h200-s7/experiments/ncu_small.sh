#!/usr/bin/env bash
cd "$(dirname "$0")"
S="--section SpeedOfLight --section WarpStateStats --section LaunchStats --section InstructionStats --section SourceCounters"
for b in one_long one_long_new; do
 for shape in "softmax fp32 64 32000" "softmax fp32 2048 16384"; do
  tag="${b}_$(echo $shape | tr ' ' '_')"
  timeout 120 ncu $S --kernel-name regex:"(registers|chunked|staged)_kernel" --launch-skip 1 --launch-count 1 -o $OUT/$tag ./$b $shape > $OUT/$tag.log 2>&1
  ncu -i $OUT/$tag.ncu-rep --page details > $OUT/$tag.details.txt 2>&1
  ncu -i $OUT/$tag.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $OUT/$tag.sass.csv.gz
  rm -f $OUT/$tag.ncu-rep
 done
done
cd $OUT && tar czf all.tgz one_long* && find . -type f ! -name all.tgz -delete; ls -la
