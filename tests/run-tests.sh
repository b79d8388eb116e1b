#!/usr/bin/env bash
# The README's test command: installs dependencies, builds vksort and its
# tests, and runs them with ctest on the default Vulkan device (lavapipe where
# there is no GPU) with the Khronos validation layer on.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/.ci/install-deps.sh"
build=${VKSORT_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVKSORT_BUILD_TESTS=ON
cmake --build "$build"
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
cd "$build"
ctest --output-on-failure "$@"
