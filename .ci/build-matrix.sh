#!/usr/bin/env bash
# Builds everything (library, samples, tests) with warnings as errors
# (VKSORT_WERROR=ON), once per compiler, then builds and runs the consumer
# projects (tests/consumers/run.sh) with the same compiler.
#   .ci/build-matrix.sh [g++|clang++ ...]      (default: both)
# Build directories: build-ci-<compiler> and build-ci-<compiler>-consumers.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/.ci/install-deps.sh" --ci
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
compilers=("$@")
[ ${#compilers[@]} -eq 0 ] && compilers=(g++ clang++)
for cxx in "${compilers[@]}"; do
  case $cxx in
    g++) cc=gcc name=gcc ;;
    clang++) cc=clang name=clang ;;
    *) echo "build-matrix: unknown compiler $cxx (g++ or clang++)" >&2; exit 2 ;;
  esac
  build=$root/build-ci-$name
  start=$(date +%s)
  echo "== $cxx: vksort, samples and tests with -Werror ($build)"
  CC=$cc CXX=$cxx cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVKSORT_WERROR=ON \
    -DVKSORT_BUILD_TESTS=ON -DVKSORT_BUILD_SAMPLES=ON >/dev/null
  cmake --build "$build" -j "${VKSORT_JOBS:-2}"
  echo "== $cxx: build finished in $(($(date +%s) - start)) s"
  start=$(date +%s)
  echo "== $cxx: consumers (tests/consumers/run.sh)"
  CC=$cc CXX=$cxx VKSORT_CONSUMERS_DIR=$build-consumers bash "$root/tests/consumers/run.sh"
  echo "== $cxx: consumers finished in $(($(date +%s) - start)) s"
done
