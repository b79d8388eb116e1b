#!/usr/bin/env bash
# Builds the samples and runs each one as CI does, on the default Vulkan device
# (lavapipe where there is no GPU), at sizes that keep the whole run to a
# minute or two on 2 cores:
#   minimal   generate, sort and check 1M keys in one command buffer: PASS
#   lbvh      20000 triangles, the BVH checked on the CPU, a ray-cast PNG
#   viewer    headless: sorted frames must match a CPU-sorted reference
#             composite (--check), and the same frame with the sort off must
#             NOT match (so the check can fail); windowed under Xvfb for a few
#             frames, checked the same way
# Writes its PNGs to $VKSORT_SAMPLES_OUT (default: <build>/samples-out).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/.ci/install-deps.sh" --ci
build=${VKSORT_BUILD_DIR:-$root/build}  # the README's build (tests/run-tests.sh), so CI builds once
out=${VKSORT_SAMPLES_OUT:-$build/samples-out}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVKSORT_BUILD_SAMPLES=ON >/dev/null
cmake --build "$build" -j "${VKSORT_JOBS:-2}" --target vksort_minimal vksort_lbvh vksort_viewer
mkdir -p "$out"
bin=$build/samples
passed=0
failed=0
run() {  # run NAME EXPECTED_STATUS COMMAND...
  local name=$1 want=$2 start status=0
  shift 2
  start=$(date +%s)
  echo "== $name: $*"
  timeout 300 "$@" || status=$?
  if [ "$status" -eq "$want" ]; then
    passed=$((passed + 1))
    echo "== $name: ok (exit $status, $(($(date +%s) - start)) s)"
  else
    failed=$((failed + 1))
    echo "== $name: FAILED (exit $status, wanted $want)"
  fi
}
run "minimal" 0 "$bin/minimal/vksort_minimal"
run "lbvh" 0 "$bin/lbvh/vksort_lbvh" --n 20000 --runs 3 --png "$out/lbvh.png"
viewer=("$bin/viewer/vksort_viewer" --particles 50000 --frames 3 --check)
run "viewer headless, sorted (f32 keys)" 0 "${viewer[@]}" --headless --out "$out/viewer-sorted.png"
run "viewer headless, sorted (u32 keys, 24-bit range)" 0 "${viewer[@]}" --headless --key-bits 24
run "viewer headless, sort off: the check must fail" 1 "${viewer[@]}" --headless --no-sort --out "$out/viewer-unsorted.png"
run "viewer windowed under Xvfb" 0 xvfb-run -a -s "-screen 0 1280x720x24" "${viewer[@]}" --out "$out/viewer-window.png"
echo "samples: PNGs in $out"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
