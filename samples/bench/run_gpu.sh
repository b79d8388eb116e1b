#!/usr/bin/env bash
# Runs vksort_bench and the CUB baseline on the same NVIDIA GPU in one go and
# writes the vksort/CUB tables and a plot. Run from the repository root.
#   (a) u32 keys, uniform, N = 2^10, 2^12, ..., 2^28, 2^19, and 512, 2,048 and
#       8,192 (where the small-N kernels change), plus the CPU sorts (std::sort,
#       LSD radix; one thread) up to 2^22 and the GPU/CPU crossover
#   (b) u32 keys + u32 values at 1,024, 2,048, 4,096, 8,192, 65,536, 2^18,
#       2^20, 2^22, 2^24, 2^26, 2^28; u64 keys at 1,024, 2,048, 8,192, 2^20,
#       2^24, 2^26, 2^28; u64 keys + u32 values at 2^20, 2^24, 2^26
#   (c) u32 keys at 2^24 and 2^28: lowentropy, morton (bits [0, 30)), presorted
#   (d) CUB held to one onesweep block per SM (cub_bench --carveout 14), as
#       Vulkan's 48 KiB of shared memory per SM would hold it: u32 keys, u32
#       pairs and u64 keys at 2^20, 2^24, 2^26, 2^28 (extra columns in
#       compare.md)
#   (e) vksort alone, u32 keys and u32 pairs with an indirect count (pairs
#       also live 4,096 and 65,536 of maxCount 2^21):
#       maxCount 2^20, live counts 1,024, 65,536 and 2^20
#   (f) engine workloads, each run with --workload NAME on vksort and on CUB
#       (CUB has no indirect count: it sorts the live count directly):
#         particles-64K-of-256K  u32 keys + index, 65,536 live of maxCount 262,144
#         particles-1M-of-2M     u32 keys + index, 2^20 live of maxCount 2^21
#         splats-4M-of-6M        f32 keys + index, 2^22 live of maxCount 6,291,456
#         bvh-morton30-1M        morton keys + index, bits [0, 30), 2^20 keys
#         tiles-u64b45-8M        u64 keys + u32 values, bits [0, 45), 2^23 keys
#   (g) segmented sorts (--segmented) of u32 keys + u32 values over the
#       workloads 65536x16, 16384x64, 1024x1024, 512x4096, 16x65536, 256x16384,
#       powerlaw4096 and 1x4194304 (vksort's rows include the same segments
#       sorted with the segment index in the high key bits; CUB's are
#       DeviceSegmentedSort and DeviceSegmentedRadixSort), and of u32 keys
#       alone over 16384x64
# Every row is verified (bench_common.h); a wrong result fails the script but
# the other sets still run.
#
# Expects a Release build of vksort in ${VKSORT_BUILD:-build-rel} (configured
# and built here if its vksort_bench is missing) and nvcc on PATH.
# Environment:
#   OUT             results folder (default bench-out): vksort.jsonl (vksort and
#                   CPU rows), cub.jsonl, compare.md, plot.png (if matplotlib is
#                   there), log.txt, gpu.txt; tuning.jsonl with VKSORT_TUNINGS
#   RUNS            timed runs per size for both benchmarks (default 30, >= 20)
#   CUB_ARCH        nvcc -arch (default sm_90)
#   CUB_BENCH_FLAGS what cub_bench compiles in (default: only the key and value
#                   types above, ascending, to keep nvcc short; "" = everything)
#   VKSORT_TUNINGS  space-separated --tuning values, e.g.
#                   "workgroupSize=512,keysPerThread=20 keysPerThread=8": also
#                   runs those shapes for u32 keys at 2^24 and 2^28
#                   (tuning.jsonl; not in compare.md)
#   VKSORT_COMMIT   the commit recorded in the rows (default: git HEAD)
#   SETS            which sets to run (default "a b c d e f g"), so that a run can
#                   be split over several calls; merge their vksort.jsonl and
#                   cub.jsonl before report.py
#   CUB_BENCH_BIN   a cub_bench already built with the flags above (default:
#                   build one with nvcc)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${VKSORT_BUILD:-build-rel}
out=${OUT:-bench-out}
runs=${RUNS:-30}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export VKSORT_COMMIT=${VKSORT_COMMIT:-$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
cub_flags=${CUB_BENCH_FLAGS-"-DCUB_BENCH_KEY_MASK=0xD -DCUB_BENCH_VALUE_MASK=0x3 -DCUB_BENCH_DESCENDING=0"}

main() {
  local fail=0 t0=$SECONDS
  # step CMD...: runs it, notes a failure and goes on.
  step() {
    local t=$SECONDS
    echo
    echo "== $*"
    "$@"
    local rc=$?
    echo "== $((SECONDS - t)) s, exit $rc"
    if [ $rc -ne 0 ]; then
      echo "!! FAILED: $*"
      fail=1
    fi
  }

  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
  echo "commit $VKSORT_COMMIT, runs $runs"
  if [ ! -x "$build/samples/bench/vksort_bench" ]; then
    step cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVKSORT_BUILD_TESTS=OFF
    step cmake --build "$build" --target vksort_bench
  fi
  local vkb="$build/samples/bench/vksort_bench" cubb=${CUB_BENCH_BIN:-$tmp/cub_bench}
  # shellcheck disable=SC2086  # cub_flags is a list of flags
  if [ -z "${CUB_BENCH_BIN:-}" ]; then
    step nvcc -O3 -arch="${CUB_ARCH:-sm_90}" -std=c++17 $cub_flags -o "$cubb" "$here/cub_bench.cu"
  fi
  local sets=" ${SETS:-a b c d e f g} "
  # on SET: whether this run includes the set.
  on() { [[ $sets == *" $1 "* ]]; }
  [ -x "$vkb" ] || { echo "!! no $vkb"; return 1; }

  # both NAME ARGS...: the same set on vksort and on CUB.
  both() {
    local name=$1
    shift
    step "$vkb" --runs "$runs" --json "$tmp/vk-$name.jsonl" "$@"
    if [ -x "$cubb" ]; then step "$cubb" --runs "$runs" --json "$tmp/cub-$name.jsonl" "$@"; fi
  }

  # (a) u32 keys, every even power of two; CPU rows up to 2^22 (vksort_bench --cpu).
  local a=512,1024,2048,4096,8192,16384,65536,262144,524288,1048576,4194304,16777216,67108864,268435456
  if on a; then
    step "$vkb" --runs "$runs" --json "$tmp/vk-a.jsonl" --sizes $a --cpu --cpu-max 4194304
    if [ -x "$cubb" ]; then step "$cubb" --runs "$runs" --json "$tmp/cub-a.jsonl" --sizes $a; fi
  fi
  # (b) pairs and 64-bit keys.
  if on b; then
    both b-u32-u32 --key u32 --value u32 \
      --sizes 1024,2048,4096,8192,65536,262144,1048576,4194304,16777216,67108864,268435456
    both b-u64 --key u64 --sizes 1024,2048,8192,1048576,16777216,67108864,268435456
    both b-u64-u32 --key u64 --value u32 --sizes 1048576,16777216,67108864
  fi
  # (c) distributions.
  if on c; then
    for d in lowentropy morton presorted; do
      both "c-$d" --dist "$d" --sizes 16777216,268435456
    done
  fi
  # (e) vksort with an indirect count: buffers and recorded count for 2^20
  # keys, live counts from 1,024 up (no CUB rows).
  if on e; then
    for v in none u32; do
      step "$vkb" --runs "$runs" --json "$tmp/vk-e-$v.jsonl" --value "$v" --indirect-max 1048576 \
        --sizes 1024,65536,1048576
    done
    step "$vkb" --runs "$runs" --json "$tmp/vk-e-u32-2m.jsonl" --value u32 --indirect-max 2097152 --sizes 4096,65536
  fi
  # (f) engine workloads. workload NAME MAXCOUNT ARGS...: vksort with an
  # indirect count for MAXCOUNT keys (0: a direct count) and CUB on the same
  # keys, its count direct. The files are numbered so that the tables list the
  # workloads in this order.
  local nf=0
  workload() {
    local name=$1 max=$2
    shift 2
    local indirect=()
    if [ "$max" != 0 ]; then indirect=(--indirect-max "$max"); fi
    nf=$((nf + 1))
    step "$vkb" --runs "$runs" --json "$tmp/vk-f$nf-$name.jsonl" --workload "$name" "${indirect[@]}" "$@"
    if [ -x "$cubb" ]; then step "$cubb" --runs "$runs" --json "$tmp/cub-f$nf-$name.jsonl" --workload "$name" "$@"; fi
  }
  if on f; then
    workload particles-64K-of-256K 262144 --value index --sizes 65536
    workload particles-1M-of-2M 2097152 --value index --sizes 1048576
    workload splats-4M-of-6M 6291456 --key f32 --value index --sizes 4194304
    workload bvh-morton30-1M 0 --dist morton --bits 0,30 --value index --sizes 1048576
    workload tiles-u64b45-8M 0 --key u64 --value u32 --bits 0,45 --sizes 8388608
  fi
  # (g) segmented sorts.
  if on g; then
    both g-u32-u32 --value u32 --segmented 65536x16,16384x64,1024x1024,512x4096,16x65536,256x16384,powerlaw4096,1x4194304
    both g-u32 --value none --segmented 16384x64
  fi
  # (d) CUB at Vulkan's shared-memory budget.
  if on d && [ -x "$cubb" ]; then
    local d=1048576,16777216,67108864,268435456
    step "$cubb" --runs "$runs" --carveout 14 --json "$tmp/cub-d-u32.jsonl" --sizes $d
    step "$cubb" --runs "$runs" --carveout 14 --json "$tmp/cub-d-u32-u32.jsonl" --value u32 --sizes $d
    step "$cubb" --runs "$runs" --carveout 14 --json "$tmp/cub-d-u64.jsonl" --key u64 --sizes $d
  fi
  for t in ${VKSORT_TUNINGS:-}; do
    step "$vkb" --runs 20 --sizes 16777216,268435456 --tuning "$t" --json "$tmp/tuning-$(echo "$t" | tr ',=' '_-').jsonl"
  done

  cat "$tmp"/vk-*.jsonl >"$out/vksort.jsonl" 2>/dev/null
  cat "$tmp"/cub-*.jsonl >"$out/cub.jsonl" 2>/dev/null
  if compgen -G "$tmp/tuning-*.jsonl" >/dev/null; then cat "$tmp"/tuning-*.jsonl >"$out/tuning.jsonl"; fi
  echo
  echo "== compare.md"
  python3 "$here/compare.py" "$out/vksort.jsonl" "$out/cub.jsonl" --plot "$out/plot.png" >"$out/compare.md" ||
    fail=1
  cat "$out/compare.md"
  echo
  echo "== total $((SECONDS - t0)) s; $([ $fail = 0 ] && echo 'all steps passed' || echo 'SOME STEPS FAILED')"
  return $fail
}

main 2>&1 | tee "$out/log.txt"
exit "${PIPESTATUS[0]}"
