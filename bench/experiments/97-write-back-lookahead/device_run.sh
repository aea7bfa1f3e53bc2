#!/usr/bin/env bash
# Device runs of sessions 50-51 (experiment 97). From the repo root on the device machine:
#   bash bench/experiments/97-write-back-lookahead/device_run.sh stash FILE NAME       # keep FILE as /tmp/s50stash/NAME (a warm machine keeps /tmp)
#   REPS=2 [NCU=1 NCU_BENCHES="a b"] bash bench/experiments/97-write-back-lookahead/device_run.sh ab NAME=PACK.tgz NAME=PACK.tgz [...]
#        interleaved sweeps of every pack; bench_ab.py of each later pack against the first
#   bash bench/experiments/97-write-back-lookahead/device_run.sh tests PACK.tgz        # GPU tests + sanitizers (STEPS)
set -uo pipefail
mode=${1:?mode}; shift
OUT=${OUT:-$PWD/gpu-out}; mkdir -p "$OUT"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv; date -u; } > "$OUT/gpu.txt" 2>&1
work=/tmp/s50run
unpack() { rm -rf "$work/$2"; mkdir -p "$work/$2"; tar xf "$1" -C "$work/$2"; local p; p=$(dirname "$(find "$work/$2" -name h200_run.sh | head -1)"); echo "$p"; }
case "$mode" in
  stash)
    mkdir -p /tmp/s50stash && cp "$1" "/tmp/s50stash/$2" && ls -la /tmp/s50stash
    ;;
  tests)
    # Straight into $OUT, so that what finished comes back even if the call runs out of time.
    p=$(unpack "$1" t)
    STEPS="${STEPS:-tests memcheck racecheck synccheck}" TEST_JOBS=${TEST_JOBS:-14} GPU_PACK="$p" OUT="$OUT/tests" \
      bash "$p/h200_run.sh" > "$OUT/tests_run.log" 2>&1
    echo "tests rc $?" >> "$OUT/tests_run.log"
    tail -n 15 "$OUT/tests/summary.txt"
    ;;
  ab)
    rm -rf "$work/ab" "$work/ncu"
    names=(); declare -A dirs
    for a in "$@"; do n=${a%%=*}; f=${a#*=}; names+=("$n"); dirs[$n]=$(unpack "$f" "pk_$n"); cat "${dirs[$n]}/COMMIT" | head -1; done
    for r in $(seq 1 "${REPS:-2}"); do
      order=("${names[@]}")
      if (( r % 2 == 0 )); then order=(); for ((i=${#names[@]}-1; i>=0; i--)); do order+=("${names[$i]}"); done; fi
      for n in "${order[@]}"; do  # alternate the order: the build swept second read ~1 point lower (NOTES 51 a)
        STEPS=bench GPU_PACK="${dirs[$n]}" OUT="$work/ab/$n$r" BENCH_FILTER="${BENCH_FILTER:-}" bash "${dirs[$n]}/h200_run.sh" > /dev/null 2>&1
        echo "$n$r rc $?"
      done
    done
    if [[ -n "${NCU:-}" ]]; then
      for n in "${names[@]}"; do
        # shellcheck disable=SC2086
        bash bench/experiments/95-offset-rows-ncu/ncu_offset.sh "${dirs[$n]}" "$work/ncu/$n" ${NCU_BENCHES:-} > /dev/null
      done
      tar czf "$OUT/ncu.tgz" -C "$work" ncu
    fi
    [[ -d "$work/ab" ]] && tar czf "$OUT/ab.tgz" -C "$work" ab
    b=${names[0]}
    for n in "${names[@]:1}"; do
      python3 scripts/bench_ab.py "$(ls "$work"/ab/$b[0-9]*/bench.json | paste -sd,)" "$(ls "$work"/ab/$n[0-9]*/bench.json | paste -sd,)" > "$OUT/ab_${b}_vs_$n.txt"
      echo "== $b vs $n"; head -45 "$OUT/ab_${b}_vs_$n.txt"
    done
    ;;
esac
