#!/bin/bash
# A/B on one machine: old = 1e7b756 (PTX of 44d03c3; unpacked into /tmp/ab/old by the previous call), new = 961a1c3.
# Graph shapes twice alternated, then the full sweep of each.
here="$(cd "$(dirname "$0")" && pwd)"
[[ -x /tmp/ab/old/gpu-pack/rowwise_bench ]] || { echo "no /tmp/ab/old"; exit 1; }
mkdir -p /tmp/ab/new && tar xzf "$here/new.tgz" -C /tmp/ab/new
run() { (cd /tmp/ab/$1 && LD_LIBRARY_PATH=gpu-pack ./gpu-pack/rowwise_bench --benchmark_filter="$2" --benchmark_out=$OUT/$1-$3.json --benchmark_out_format=json > $OUT/$1-$3.log 2>&1); echo "$1 $3 rc $?"; }
for r in 1 2; do run old graph g$r; run new graph g$r; done
run new . full; run old . full
