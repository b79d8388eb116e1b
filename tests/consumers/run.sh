#!/usr/bin/env bash
# Builds and runs the consumer projects in tests/consumers/, one for each way
# an engine takes vksort in: add_subdirectory, FetchContent, find_package after
# `cmake --install` (into a temporary prefix), volk, and the loader's
# prototypes in a build without exceptions or RTTI. Each consumer sorts a few
# thousand keys on the default Vulkan device (lavapipe where there is no GPU)
# and checks the result. Prints one line per route; exits nonzero if any
# route failed. The logs stay in the work directory.
#
#   tests/consumers/run.sh [--build-only] [route ...]
#
# Routes: install add_subdirectory fetchcontent find_package volk prototypes
# (default: all; find_package, volk and prototypes need install).
# The install route installs a Release and a Debug build side by side; the
# find_package route builds RelWithDebInfo and checks that it links the
# Release one.
# CC and CXX pick the compiler, as for cmake. VKSORT_CONSUMERS_CMAKE_ARGS adds
# arguments to every cmake configure (a cross toolchain, Vulkan_INCLUDE_DIR;
# .ci/windows.sh uses it). VKSORT_CONSUMERS_DIR is the work directory
# (default: build-consumers in the repository, emptied first).
# Needs the packages .ci/install-deps.sh installs.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/consumers
work=${VKSORT_CONSUMERS_DIR:-$root/build-consumers}
jobs=${VKSORT_JOBS:-2}
run=1
read -r -a extra <<<"${VKSORT_CONSUMERS_CMAKE_ARGS:-}"
routes=()
for a in "$@"; do
  case $a in
    --build-only) run=0 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) routes+=("$a") ;;
  esac
done
[ ${#routes[@]} -eq 0 ] && routes=(install add_subdirectory fetchcontent find_package volk prototypes)

rm -rf "$work"
mkdir -p "$work"
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
# Known issue (README): lavapipe runs single-threaded until its concurrent
# look-back failures are fixed. No effect on GPU drivers.
export LP_NUM_THREADS=${LP_NUM_THREADS:-1}

# consumer NAME [cmake arguments]: configures, builds and (unless
# --build-only) runs tests/consumers/NAME.
consumer() {
  local name=$1
  shift
  cmake -S "$here/$name" -B "$work/$name" -G Ninja "${extra[@]}" "$@" &&
    cmake --build "$work/$name" -j "$jobs" &&
    if [ $run -eq 1 ]; then "$work/$name/consumer"; fi
}

# Release and Debug into one prefix: the Debug library has its own name
# (vksortd) and the package one file per configuration.
route_install() {
  local config
  for config in Release Debug; do
    cmake -S "$root" -B "$work/vksort-$config" -G Ninja "${extra[@]}" -DCMAKE_BUILD_TYPE=$config \
      -DVKSORT_BUILD_TESTS=OFF -DVKSORT_BUILD_SAMPLES=OFF &&
      cmake --build "$work/vksort-$config" -j "$jobs" &&
      cmake --install "$work/vksort-$config" --prefix "$prefix" || return 1
  done
  ls -R "$prefix"
  for f in lib/cmake/vksort/vksortTargets-release.cmake lib/cmake/vksort/vksortTargets-debug.cmake; do
    [ -f "$prefix/$f" ] || { echo "install: $f is missing"; return 1; }
  done
  [ "$(find "$prefix/lib" -maxdepth 1 -name '*vksort.*' | wc -l)" -eq 1 ] &&
    [ "$(find "$prefix/lib" -maxdepth 1 -name '*vksortd.*' | wc -l)" -eq 1 ] ||
    { echo "install: expected one Release (vksort) and one Debug (vksortd) library in $prefix/lib"; return 1; }
}
# No build type on purpose: the consumer checks that vksort leaves it alone.
route_add_subdirectory() { consumer add_subdirectory -DVKSORT_SOURCE_DIR="$root"; }
route_fetchcontent() {
  # A clean checkout is fetched by git at its HEAD commit; a working tree
  # with changes is used in place, so that those changes are what is tested.
  if [ -z "$(git -C "$root" status --porcelain 2>/dev/null || echo dirty)" ]; then
    echo "fetching file://$root at $(git -C "$root" rev-parse HEAD)"
    consumer fetchcontent -DCMAKE_BUILD_TYPE=Release -DVKSORT_GIT_REPOSITORY="file://$root" \
      -DVKSORT_GIT_TAG="$(git -C "$root" rev-parse HEAD)"
  else
    echo "uncommitted changes: using the working tree through FETCHCONTENT_SOURCE_DIR_VKSORT"
    consumer fetchcontent -DCMAKE_BUILD_TYPE=Release -DFETCHCONTENT_SOURCE_DIR_VKSORT="$root"
  fi
}
# RelWithDebInfo, which was not installed: it must link the Release library
# (vksort), not the Debug one (vksortd).
route_find_package() {
  consumer find_package -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_PREFIX_PATH="$prefix" &&
    if grep -Eq 'vksortd\.(a|lib)' "$work/find_package/build.ninja" ||
      ! grep -Eq 'vksort\.(a|lib)' "$work/find_package/build.ninja"; then
      echo "find_package: a RelWithDebInfo build does not link the Release library"
      return 1
    fi
}
route_volk() { consumer volk -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix"; }
route_prototypes() { consumer prototypes -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix"; }

failed=0
for r in "${routes[@]}"; do
  if ! declare -F "route_$r" >/dev/null; then
    echo "unknown route: $r (see --help)"
    failed=1
    continue
  fi
  log=$work/$r.log
  start=$(date +%s%N)
  if "route_$r" >"$log" 2>&1; then status=PASS; else status=FAIL; failed=1; fi
  ms=$((($(date +%s%N) - start) / 1000000))
  seconds=$((ms / 1000)).$((ms % 1000 / 100))
  if [ $status = PASS ]; then
    printf 'PASS %-17s %5s s\n' "$r" "$seconds"
  else
    printf 'FAIL %-17s %5s s   log: %s\n' "$r" "$seconds" "$log"
    tail -n 20 "$log" | sed 's/^/     | /'
  fi
done
exit $failed
