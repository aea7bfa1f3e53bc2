#!/usr/bin/env bash
# Build the GPU binaries here (no GPU needed) and pack them for the lent H200.
#
#   scripts/h200_pack.sh                       # every target (those with sources)
#   PACK_TARGETS=rowwise_gpu_tests scripts/h200_pack.sh   # only some
#
# Configures + builds preset `h200` (Release, sm_90: rowwise_gpu_tests and rowwise_bench; and
# rowwise_gpu_compute80_tests, a compute_80 PTX build and an sm_90 build of rowwise in one program), then fills gpu-pack/ (git-ignored) with the
# binaries, the shared libraries they need that a bare machine may lack (libbenchmark, libcudart),
# h200_run.sh, bench_table.py and a COMMIT file.
# Then, on the H200, from the repo root (gpu-pack carried along):
#   bash scripts/h200_run.sh          # writes $OUT (default ./gpu-out)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
pack="$root/gpu-pack"

if [[ -z "${CMAKE_GENERATOR:-}" && ! -f build/h200/CMakeCache.txt ]] && command -v ninja >/dev/null 2>&1; then
  export CMAKE_GENERATOR=Ninja
fi

targets=()
if [[ -n "${PACK_TARGETS:-}" ]]; then
  read -r -a targets <<<"$PACK_TARGETS"   # e.g. PACK_TARGETS=rowwise_gpu_tests
else
  if compgen -G "tests/gpu/*.cu" >/dev/null || compgen -G "tests/gpu/*.cpp" >/dev/null; then
    targets+=(rowwise_gpu_tests)
  fi
  if compgen -G "tests/gpu_compute80/*.cu" >/dev/null; then
    targets+=(rowwise_gpu_compute80_tests)
  fi
  if compgen -G "bench/*.cu" >/dev/null; then
    targets+=(rowwise_bench)
  fi
fi
if ((${#targets[@]} == 0)); then
  echo "h200_pack: no tests/gpu sources and no bench/*.cu: nothing to pack" >&2
  exit 1
fi

start=$(date +%s)
cmake --preset h200
cmake --build --preset h200 --target "${targets[@]}"
echo "h200_pack: built ${targets[*]} in $(( $(date +%s) - start ))s"

rm -rf "$pack"
mkdir -p "$pack"
bins=()
for t in "${targets[@]}"; do
  case "$t" in
    rowwise_gpu_tests) bin=build/h200/tests/rowwise_gpu_tests ;;
    rowwise_gpu_compute80_tests) bin=build/h200/tests/rowwise_gpu_compute80_tests ;;
    rowwise_bench) bin=build/h200/bench/rowwise_bench ;;
  esac
  cp "$bin" "$pack/"
  bins+=("$pack/$t")
done

# Shared libraries a bare GPU machine may not have: Google Benchmark and the CUDA runtime.
# Copied under the name the binaries ask for (their SONAME), symlinks resolved.
for lib in /usr/lib/x86_64-linux-gnu/libbenchmark.so.1*; do
  [[ -e "$lib" ]] && cp -L "$lib" "$pack/"
done
for bin in "${bins[@]}"; do
  ldd "$bin" 2>/dev/null | awk '$1 ~ /^lib(benchmark|cudart)\.so/ && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r soname path; do
  cp -L "$path" "$pack/$soname"
done

cp scripts/h200_run.sh scripts/bench_table.py "$pack/"
if commit=$(git rev-parse HEAD 2>/dev/null); then
  [[ -n "$(git status --porcelain 2>/dev/null)" ]] && commit="$commit-dirty"
else
  commit=unknown
fi
{
  echo "$commit"
  echo "packed $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname) with $(nvcc --version 2>/dev/null | tail -n1)"
} > "$pack/COMMIT"

echo "h200_pack: gpu-pack/ ($(du -sh "$pack" | cut -f1)):"
ls -l "$pack"
size_kb=$(du -sk "$pack" | cut -f1)
# A device call carries at most 64 MiB: the tracked tree (bench/results grows each session) plus
# what `carry` names. Over that, one tarball per binary, each in a folder of its own under
# build-carry/ (git-ignored), so that a call carries exactly one (h200_run.sh reports the other
# binary's steps as missing); start from an empty gpu-pack/ there (a warm machine keeps the last).
tree_kb=$(git ls-files -z 2>/dev/null | du -ck --files0-from=- 2>/dev/null | tail -n1 | cut -f1)
tree_kb=${tree_kb:-0}
# Stale tarballs of an earlier pack (this layout's and the older build-carry/gpu-pack-*.tgz) go
# either way, so that no call carries binaries of another commit; nothing else there is touched.
rm -rf build-carry/gpu_tests build-carry/bench
rm -f build-carry/gpu-pack-*.tgz
if (( size_kb + tree_kb > 60 * 1024 )); then
  # The compute_80 test binary (PTX only, small) travels with rowwise_gpu_tests when both are packed.
  with_tests() { [[ "$1" == rowwise_gpu_compute80_tests && " ${targets[*]} " == *" rowwise_gpu_tests "* ]]; }
  for t in "${targets[@]}"; do
    with_tests "$t" && continue
    exclude=()
    for other in "${targets[@]}"; do
      [[ "$other" == "$t" ]] && continue
      [[ "$t" == rowwise_gpu_tests ]] && with_tests "$other" && continue
      exclude+=("--exclude=gpu-pack/$other")
    done
    mkdir -p "build-carry/${t#rowwise_}"
    tar czf "build-carry/${t#rowwise_}/gpu-pack.tgz" "${exclude[@]}" gpu-pack
  done
  echo "h200_pack: gpu-pack is $((size_kb / 1024)) MiB and the tracked tree $((tree_kb / 1024)) MiB: over what one call carries; per binary:" >&2
  ls -l build-carry/*/gpu-pack.tgz >&2
  echo "h200_pack: carry [\"build-carry/<gpu_tests|bench>\"] and run: rm -rf gpu-pack && tar xzf build-carry/<gpu_tests|bench>/gpu-pack.tgz && bash scripts/h200_run.sh" >&2
fi
echo "h200_pack: on the H200, from the repo root: bash scripts/h200_run.sh   (OUT=<dir>, BENCH_FILTER=<regex>)"
