#!/usr/bin/env bash
# Run the packed GPU binaries on the lent H200 (see scripts/h200_pack.sh), from the repo root:
#
#   bash scripts/h200_run.sh [extra rowwise_bench args...]
#
# Environment:
#   OUT           where results go (default ./gpu-out)
#   GPU_PACK      the pack (default: this script's folder if it holds the binaries, else ./gpu-pack)
#   STEPS         steps to run (default "tests compute80 memcheck racecheck synccheck bench"; compute80:
#                 rowwise_gpu_compute80_tests: rowwise built for compute_80 PTX, JIT-compiled here, beside
#                 an sm_90 build in the same program)
#   GPU_TESTS_ARGS  extra Catch2 args for the full test run (e.g. a test spec)
#   TEST_JOBS     run the GPU test cases as that many processes at once (default 1): the device
#                 machine has 16 cores and the host fp64 references dominate the suite's time
#   SANITIZE_SPEC Catch2 test spec for the sanitizer runs (default "[sanitize]")
#   BENCH_FILTER  passed as --benchmark_filter; BENCH_ARGS: more rowwise_bench args
#   STEP_TIMEOUT_S  per-step time limit in seconds (default: none)
#
# Writes $OUT/env.txt, gpu_tests.log, gpu_compute80_tests.log, sanitizer_<tool>.log, bench.log,
# bench.json, summary.txt.
# Every step runs even if an earlier one failed; exits non-zero if any step failed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ -n "${GPU_PACK:-}" ]]; then
  pack=$(cd "$GPU_PACK" && pwd)
elif [[ -x "$here/rowwise_gpu_tests" || -x "$here/rowwise_gpu_compute80_tests" || -x "$here/rowwise_bench" ]]; then
  pack="$here"
else
  pack="$(pwd)/gpu-pack"
fi
OUT="${OUT:-$(pwd)/gpu-out}"
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$pack${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
STEPS="${STEPS:-tests compute80 memcheck racecheck synccheck bench}"
SANITIZE_SPEC="${SANITIZE_SPEC:-[sanitize]}"
# synccheck leaves out the cases tagged [no_synccheck]: synccheck stops with an illegal address (and
# no error reported) on the push exchange once two clusters of 16 share a GPC, which these grids do;
# plain runs, memcheck and racecheck pass them (bench/NOTES.md session 34 a, experiment 83).
SYNCCHECK_SPEC="${SYNCCHECK_SPEC:-$SANITIZE_SPEC~[no_synccheck]}"

table_script=scripts/bench_table.py
[[ -f "$table_script" ]] || table_script="$pack/bench_table.py"

sanitizer=""
for c in "$(command -v compute-sanitizer 2>/dev/null)" /usr/local/cuda/bin/compute-sanitizer \
         /usr/local/cuda/compute-sanitizer/compute-sanitizer "$pack/compute-sanitizer/compute-sanitizer"; do
  if [[ -n "$c" && -x "$c" ]]; then sanitizer="$c"; break; fi
done

# --- environment ----------------------------------------------------------------------------
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  echo "kernel: $(uname -srm)"
  # The binaries' commit is the one the pack recorded where it was built; the git state of the
  # tree copied to this machine says nothing about them.
  if [[ -f "$pack/COMMIT" ]]; then
    echo "commit: $(head -n1 "$pack/COMMIT") (gpu-pack/COMMIT)"
  elif commit=$(git rev-parse HEAD 2>/dev/null); then
    [[ -n "$(git status --porcelain 2>/dev/null)" ]] && commit="$commit-dirty"
    echo "commit: $commit (git)"
  else
    echo "commit: unknown"
  fi
  [[ -f "$pack/COMMIT" ]] && echo "pack: $(sed -n 2p "$pack/COMMIT")"
  echo "gpu pack: $pack"
  echo "compute-sanitizer: ${sanitizer:-not found}"
  [[ -n "$sanitizer" ]] && "$sanitizer" --version 2>&1 | tail -n 2
  echo "nvcc: $(nvcc --version 2>/dev/null | tail -n1 || echo 'not installed')"
  echo "cudart in pack: $(cd "$pack" && ls libcudart.so* 2>/dev/null | tr '\n' ' ')"
  echo "--- nvidia-smi --query-gpu"
  nvidia-smi --query-gpu=index,name,driver_version,compute_cap,memory.total,clocks.max.sm,clocks.max.mem,power.limit \
    --format=csv 2>&1
  echo "--- nvidia-smi"
  nvidia-smi 2>&1
} > "$OUT/env.txt"

# --- steps ----------------------------------------------------------------------------------
declare -a names results logs
failed=0

record() {  # name result log
  names+=("$1"); results+=("$2"); logs+=("$3")
  [[ "$2" == PASS || "$2" == "PASS (spec "* ]] || failed=1  # a PASS that names its narrower spec
  echo "h200_run: $1: $2 ($3)"
}

run_logged() {  # log cmd... -> exit status
  local log="$1"; shift
  if [[ -n "${STEP_TIMEOUT_S:-}" ]]; then
    timeout --signal=TERM --kill-after=10 "$STEP_TIMEOUT_S" "$@" > "$log" 2>&1
  else
    "$@" > "$log" 2>&1
  fi
}

has_step() { [[ " $STEPS " == *" $1 "* ]]; }

describe() {  # rc -> result word
  case "$1" in
    0) echo PASS ;;
    77) echo "FAIL (skipped: no CUDA device)" ;;
    124|137) echo "FAIL (timeout after ${STEP_TIMEOUT_S:-?}s)" ;;
    127) echo "FAIL (not found)" ;;
    *) echo "FAIL (exit $1)" ;;
  esac
}

tests_bin="$pack/rowwise_gpu_tests"
compute80_bin="$pack/rowwise_gpu_compute80_tests"
bench_bin="$pack/rowwise_bench"

if has_step tests; then
  log="$OUT/gpu_tests.log"
  if [[ -x "$tests_bin" ]]; then
    if [[ "${TEST_JOBS:-1}" -gt 1 ]]; then
      # One process per test case (names escaped for Catch's test-spec syntax), TEST_JOBS at
      # once; the per-case logs are joined into one (only a few files come back from $OUT).
      cases=$(mktemp -d)
      # shellcheck disable=SC2086
      "$tests_bin" --list-test-names-only ${GPU_TESTS_ARGS:-} | grep -v '^$' > "$cases/names"
      run_case() {  # index (line of $cases/names)
        local name spec
        name=$(sed -n "${1}p" "$cases/names")
        spec=$(printf '%s' "$name" | sed -e 's/\\/\\\\/g' -e 's/,/\\,/g' -e 's/\[/\\[/g' -e 's/\]/\\]/g')
        if [[ -n "${STEP_TIMEOUT_S:-}" ]]; then
          timeout --signal=TERM --kill-after=10 "$STEP_TIMEOUT_S" "$tests_bin" "$spec" -w NoTests > "$cases/$1.log" 2>&1
        else
          "$tests_bin" "$spec" -w NoTests > "$cases/$1.log" 2>&1
        fi
        echo "$? $name" > "$cases/$1.rc"
      }
      export -f run_case
      export tests_bin cases STEP_TIMEOUT_S
      seq 1 "$(wc -l < "$cases/names")" | xargs -P "$TEST_JOBS" -I{} bash -c 'run_case {}'
      rc=0
      : > "$log"
      for f in $(ls "$cases"/*.rc | sort -V); do
        read -r code name < "$f"
        echo "== [exit $code] $name" >> "$log"
        cat "${f%.rc}.log" >> "$log"
        [[ "$code" == 0 ]] || rc=1
      done
      echo "== $(grep -c '^== \[exit 0\]' "$log") of $(wc -l < "$cases/names") test cases passed" >> "$log"
      rm -rf "$cases"
      record tests "$(describe $rc)" "$log"
    else
      # shellcheck disable=SC2086
      run_logged "$log" "$tests_bin" ${GPU_TESTS_ARGS:-}
      record tests "$(describe $?)" "$log"
    fi
  else
    echo "no $tests_bin" > "$log"; record tests "FAIL (binary missing)" "$log"
  fi
fi

if has_step compute80; then
  log="$OUT/gpu_compute80_tests.log"
  if [[ -x "$compute80_bin" ]]; then
    run_logged "$log" "$compute80_bin" -w NoTests
    record compute80 "$(describe $?)" "$log"
  else
    echo "no $compute80_bin" > "$log"; record compute80 "FAIL (binary missing)" "$log"
  fi
fi

for tool in memcheck racecheck synccheck; do
  has_step "$tool" || continue
  log="$OUT/sanitizer_$tool.log"
  if [[ -z "$sanitizer" ]]; then
    echo "compute-sanitizer not found (PATH, /usr/local/cuda, gpu-pack)" > "$log"
    record "$tool" "FAIL (compute-sanitizer not found)" "$log"
  elif [[ ! -x "$tests_bin" ]]; then
    echo "no $tests_bin" > "$log"; record "$tool" "FAIL (binary missing)" "$log"
  else
    spec="$SANITIZE_SPEC"
    [[ "$tool" == synccheck ]] && spec="$SYNCCHECK_SPEC"
    # -w NoTests: a spec that matches nothing is an error, not a silent pass.
    run_logged "$log" "$sanitizer" --tool "$tool" --error-exitcode 99 "$tests_bin" "$spec" -w NoTests
    rc=$?
    result=$(describe $rc)
    [[ $rc -eq 99 ]] && result="FAIL (sanitizer errors)"
    grep -q "No test cases matched" "$log" && result="FAIL (no test matches $spec)"
    [[ "$spec" != "$SANITIZE_SPEC" && "$result" == PASS* ]] && result="$result (spec $spec)"
    record "$tool" "$result" "$log"
  fi
done

if has_step bench; then
  log="$OUT/bench.log"
  json="$OUT/bench.json"
  if [[ -x "$bench_bin" ]]; then
    args=(--benchmark_out="$json" --benchmark_out_format=json)
    [[ -n "${BENCH_FILTER:-}" ]] && args+=(--benchmark_filter="$BENCH_FILTER")
    # shellcheck disable=SC2206
    [[ -n "${BENCH_ARGS:-}" ]] && args+=(${BENCH_ARGS})
    run_logged "$log" "$bench_bin" "${args[@]}" "$@"
    rc=$?
    result=$(describe $rc)
    if [[ $rc -eq 0 ]] && grep -q '"error_occurred": true' "$json" 2>/dev/null; then
      result="FAIL (some benchmarks reported errors)"
    fi
    record bench "$result" "$log"
  else
    echo "no $bench_bin" > "$log"; record bench "FAIL (binary missing)" "$log"
  fi
fi

# --- summary ----------------------------------------------------------------------------------
{
  echo "== h200_run summary ($(grep -m1 '^commit:' "$OUT/env.txt" | cut -d' ' -f2-))"
  head -n 3 "$OUT/gpu_tests.log" 2>/dev/null | grep -m1 '^device' || true
  for i in "${!names[@]}"; do
    printf '%-10s %-45s %s\n' "${names[$i]}" "${results[$i]}" "$(basename "${logs[$i]}")"
  done
  if [[ -f "$OUT/gpu_tests.log" ]]; then
    echo "-- tests: $(grep -E '^(All tests passed|test cases:)' "$OUT/gpu_tests.log" | tail -n1)"
  fi
  if [[ -s "$OUT/bench.json" ]]; then
    echo "-- bench ($OUT/bench.json)"
    python3 "$table_script" "$OUT/bench.json" 2>&1 || true
  fi
  if ((failed)); then echo "h200_run: FAILED"; else echo "h200_run: all steps passed"; fi
} | tee "$OUT/summary.txt"

exit $failed
