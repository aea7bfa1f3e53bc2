#!/bin/bash
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
for b in base new; do cuobjdump -sass probe_$b > /tmp/sass_$b.txt; echo "$b kernels: $(grep -c 'Function :' /tmp/sass_$b.txt)"; awk '/Function :/{f=$3} /CALL/{print f}' /tmp/sass_$b.txt | sort -u > $OUT/calls_$b.txt; echo "$b kernels with CALL: $(wc -l < $OUT/calls_$b.txt)"; done
for i in 1 2; do
  for b in base new; do echo "== $b $i"; ./probe_$b; done
done > $OUT/probe_ab.log 2>&1
python3 compare.py $OUT/probe_ab.log > $OUT/compare.txt
cat $OUT/compare.txt
