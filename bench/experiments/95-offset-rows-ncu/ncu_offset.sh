#!/usr/bin/env bash
# Experiment 95 (prepared in session 43, not yet run): where rows one element past a 16-byte
# boundary lose, read off the hardware's counters rather than guessed. ncu of the one kernel of a
# benchmark's 4th launch, aligned against offset by one, at the shapes that lose most (an H100,
# session 42: 16-bit softmax 32 columns 32 % of aligned, 128 62-65 %, 512 72-78 %; 16-bit
# layer_norm 4096 41-44 %, 16-bit rms_norm 12288 64-68 %).
#
# Two ncu runs per benchmark: the counters session 41 used (time, instructions, issue, requests,
# DRAM bytes) and the sections that break the rest down: WarpStateStats (what the warps stall on:
# lg_throttle = the LSU queue, long_scoreboard = waiting for memory), MemoryWorkloadAnalysis_Tables
# (L1 wavefronts and L2 requests per access kind: narrow partial stores show as many L2 write
# requests per sector), LaunchStats.
#
# Usage (device, repo root): bash bench/experiments/95-offset-rows-ncu/ncu_offset.sh PACKDIR OUTDIR [BENCH...]
#   PACKDIR holds rowwise_bench and its libraries (scripts/h200_pack.sh); one text file per
#   benchmark and run goes to OUTDIR. BENCH: benchmark names without /iterations (default below).
set -uo pipefail
pack=${1:?PACKDIR}; out=${2:?OUTDIR}; shift 2
mkdir -p "$out"
export LD_LIBRARY_PATH=$pack:${LD_LIBRARY_PATH:-}
ncu_bin=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
metrics=gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__shared_mem_per_block_dynamic
benches=("$@")
if ((${#benches[@]} == 0)); then
  benches=(softmax/bf16/2097152/32 softmax/bf16/2097152/32/offset1
           softmax/bf16/524288/128 softmax/bf16/524288/128/offset1
           softmax/bf16/131072/512 softmax/bf16/131072/512/offset1
           layer_norm/bf16/16384/4096 layer_norm/bf16/16384/4096/offset1
           rms_norm/bf16/5461/12288 rms_norm/bf16/5461/12288/offset1)
fi
for b in "${benches[@]}"; do
  f=$(echo "$b" | tr / _)
  timeout 90 "$ncu_bin" --kernel-name regex:_kernel --launch-skip 3 --launch-count 1 --metrics "$metrics" \
    --print-kernel-base mangled "$pack/rowwise_bench" --benchmark_filter="^$b/iter" > "$out/counters_$f.txt" 2>&1
  echo "$b counters: rc $?"
  timeout 120 "$ncu_bin" --kernel-name regex:_kernel --launch-skip 3 --launch-count 1 --section WarpStateStats \
    --section MemoryWorkloadAnalysis_Tables --section LaunchStats --print-kernel-base mangled \
    "$pack/rowwise_bench" --benchmark_filter="^$b/iter" > "$out/sections_$f.txt" 2>&1
  echo "$b sections: rc $?"
done
