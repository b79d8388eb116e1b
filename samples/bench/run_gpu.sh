#!/usr/bin/env bash
# Runs vksort_bench and the CUB baseline on the same NVIDIA GPU in one go and
# prints the vksort/CUB table. Expects a Release build of vksort in
# ${VKSORT_BUILD:-build-rel} and nvcc on PATH. Results go to ${OUT:-bench-out}.
#   VKSORT_TUNINGS="256,15 512,20" also runs those shapes at 2^24 and 2^28.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${VKSORT_BUILD:-build-rel}
out=${OUT:-bench-out}
mkdir -p "$out"
runs=${RUNS:-30}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
nvcc -O3 -arch=sm_90 -std=c++17 -o "$out/cub_bench" "$here/cub_bench.cu"

"$build/samples/bench/vksort_bench" --runs "$runs" --json "$out/vksort.jsonl"
"$out/cub_bench" --runs "$runs" --json "$out/cub.jsonl"
for t in ${VKSORT_TUNINGS:-}; do
  echo "== tuning $t"
  "$build/samples/bench/vksort_bench" --runs 20 --sizes 16777216,268435456 --tuning "$t" \
    --json "$out/tuning-${t//,/_}.jsonl"
done
rm -f "$out/cub_bench"
python3 "$here/compare.py" "$out/vksort.jsonl" "$out/cub.jsonl" | tee "$out/compare.md"
