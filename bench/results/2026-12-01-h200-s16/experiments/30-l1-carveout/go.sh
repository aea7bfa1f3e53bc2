#!/bin/bash
cd "$(dirname "$0")" && tar xJf bins.txz
for i in 1 2; do for v in a b c d; do echo "== variant $v" >> $OUT/run.log; ./p$v >> $OUT/run.log 2>&1; done; done
./pa wide > $OUT/wide.log 2>&1
K="-k regex:registers_kernel --launch-skip 1 --launch-count 1"
M="--section LaunchStats --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section SpeedOfLight --metrics launch__shared_mem_config_size,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
for args in "0 0 512 65536" "4 0 512 65536" "1 0 512 65536" "0 0 2048 16384" "0 1 1024 65536"; do
  echo "== ncu $args" >> $OUT/ncu.log
  ncu $K $M ./onea $args 0 3 >> $OUT/ncu.log 2>&1
done
