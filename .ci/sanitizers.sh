#!/usr/bin/env bash
# Builds vksort and its tests with AddressSanitizer and UndefinedBehaviorSanitizer
# (clang) and runs the test cases that exercise the host code: the plan
# without a GPU, argument checks, error paths, device requirements, every
# key/value type at small sizes, the integration and threading cases.
# lavapipe itself is not instrumented.
#   .ci/sanitizers.sh [doctest test-case filter]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/.ci/install-deps.sh" --ci
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
build=$root/build-ci-sanitizers
flags="-fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=all -fno-omit-frame-pointer -g"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DVKSORT_BUILD_TESTS=ON -DVKSORT_BUILD_SAMPLES=OFF >/dev/null
cmake --build "$build" -j "${VKSORT_JOBS:-2}" --target vksort_tests vksort_plan_tests
# Driver and layer libraries are not built with ASan; their allocations at exit
# are not ours to report.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
filter=${1:-"bad*,creation*,device requirements*,the temporary*,floats*,indirect*,a sort between*,two sorts*,one sorter*,sorts every dist*"}
# The plan and the tuning checks without a GPU (absurd tunings among them).
"$build/tests/vksort_plan_tests"
"$build/tests/vksort_tests" --test-case="$filter"
