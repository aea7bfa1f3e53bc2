#!/bin/bash
cd "$(dirname "$0")" && tar xJf bins.txz
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section LaunchStats --section Occupancy"
M="--metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__inst_executed.sum"
for a in "1 0 2048 16384 0" "5 0 8192 4096 0" "0 0 8192 4096 0"; do
  for v in 0 6; do
    echo "== ncu one$v $a" >> $OUT/ncu.log
    timeout 200 ncu --launch-skip 2 --launch-count 1 $S $M ./one$v $a 3 >> $OUT/ncu.log 2>&1
  done
done
