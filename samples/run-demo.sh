#!/usr/bin/env bash
# The README's main job: installs dependencies, builds vksort, then sorts
# fresh random keys on the default Vulkan device (lavapipe where there is no
# GPU), verifies every result against a CPU sort and reports keys/s.
# Extra arguments go to vksort_bench (e.g. --sizes 1048576 --runs 30).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/.ci/install-deps.sh"
build=${VKSORT_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
"$build/samples/bench/vksort_bench" "$@"
