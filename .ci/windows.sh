#!/usr/bin/env bash
# Builds vksort for Windows from Linux, as an engine would take it in:
#  1. MinGW-w64 (.ci/mingw-w64.cmake) with a Vulkan-Headers-only include
#     folder and no loader library: a plain top-level configure (tests and
#     samples AUTO, which skip what they lack), the library with -Werror,
#     then samples/minimal and the consumer projects
#     (tests/consumers/run.sh --build-only) with volk vendored the way engines
#     vendor it. vksort and the volk route link no Vulkan library at all. The
#     programs that call the loader's prototypes (samples/minimal and the
#     other routes) link vulkan-1.dll through an import library that this
#     script makes from the headers' prototypes with dlltool, standing in for
#     the Vulkan SDK's vulkan-1.lib.
#  2. clang-cl (.ci/clang-cl.cmake), clang in MSVC mode: the library with /W4
#     /WX, /EHs-c- /GR-, in Release and Debug, installed side by side into one
#     prefix (vksort.lib, vksortd.lib); then the prototypes consumer compiled
#     against that prefix in Debug and RelWithDebInfo, each of which must pick
#     its library (vksortd.lib, vksort.lib). MinGW-w64's C headers and
#     libstdc++ stand in for the MSVC standard library, which is not
#     available here, and nothing is linked.
#   .ci/windows.sh [mingw|clang-cl ...]      (default: both)
# Build directories: build-ci-mingw*, build-ci-clang-cl*.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/.ci/install-deps.sh" --ci
jobs=${VKSORT_JOBS:-2}
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(mingw clang-cl)
# No pkg-config package of the build machine is one of Windows'.
export PKG_CONFIG_LIBDIR=/usr/x86_64-w64-mingw32/lib/pkgconfig

# A Vulkan-Headers-only include folder (vulkan/, vk_video/) and a vendored
# volk (volk.h, volk.c), copied from the Debian packages.
vendor=$root/build-ci-windows-vendor
rm -rf "$vendor"
mkdir -p "$vendor/include" "$vendor/volk" "$vendor/lib"
cp -r /usr/include/vulkan /usr/include/vk_video "$vendor/include/"
cp /usr/include/volk.h /usr/include/volk.c "$vendor/volk/"
# The exports of vulkan-1.dll for the import libraries: every command the
# headers declare.
{
  echo "LIBRARY vulkan-1.dll"
  echo "EXPORTS"
  grep -ho 'VKAPI_CALL vk[A-Za-z0-9]*' "$vendor/include/vulkan/vulkan_core.h" "$vendor/include/vulkan/vulkan_win32.h" |
    sed 's/VKAPI_CALL //' | sort -u
} >"$vendor/lib/vulkan-1.def"
llvm_bin=$(dirname "$(readlink -f "$(command -v clang)")")

mingw() {
  local build=$root/build-ci-mingw
  local args=(-G Ninja -DCMAKE_TOOLCHAIN_FILE="$root/.ci/mingw-w64.cmake" -DVulkan_INCLUDE_DIR="$vendor/include")
  echo "== MinGW-w64: top-level configure with only the Vulkan headers; the library with -Werror"
  rm -rf "$build"
  cmake -S "$root" -B "$build" "${args[@]}" -DVKSORT_WERROR=ON
  cmake --build "$build" -j "$jobs" --target vksort

  x86_64-w64-mingw32-dlltool -d "$vendor/lib/vulkan-1.def" -l "$vendor/lib/libvulkan-1.a"
  args+=(-DVulkan_LIBRARY="$vendor/lib/libvulkan-1.a" -DVOLK_INCLUDE_DIR="$vendor/volk")

  echo "== MinGW-w64: samples/minimal"
  cmake -S "$root" -B "$build" "${args[@]}" -DVKSORT_WERROR=ON -DVKSORT_BUILD_TESTS=OFF -DVKSORT_BUILD_SAMPLES=AUTO
  cmake --build "$build" -j "$jobs" --target vksort_minimal

  echo "== MinGW-w64: consumers (tests/consumers/run.sh --build-only)"
  env -u CC -u CXX VKSORT_CONSUMERS_CMAKE_ARGS="${args[*]}" VKSORT_CONSUMERS_DIR="$build-consumers" \
    bash "$root/tests/consumers/run.sh" --build-only
}

clang_cl() {
  local build=$root/build-ci-clang-cl prefix=$root/build-ci-clang-cl-install config lib
  local args=(-G Ninja -DCMAKE_TOOLCHAIN_FILE="$root/.ci/clang-cl.cmake" -DVKSORT_LLVM_BIN="$llvm_bin"
              -DVulkan_INCLUDE_DIR="$vendor/include")
  rm -rf "$build"-* "$prefix"
  for config in Release Debug; do
    echo "== clang-cl: the library with /W4 /WX ($config)"
    cmake -S "$root" -B "$build-$config" "${args[@]}" -DCMAKE_BUILD_TYPE=$config \
      -DVKSORT_WERROR=ON -DVKSORT_BUILD_TESTS=OFF -DVKSORT_BUILD_SAMPLES=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
    cmake --build "$build-$config" -j "$jobs"
    grep -m 1 '"command": .*src/vksort.cpp' "$build-$config/compile_commands.json"
    cmake --install "$build-$config" --prefix "$prefix"
  done
  for lib in vksort.lib vksortd.lib; do
    [ -f "$prefix/lib/$lib" ] || { echo "clang-cl: $prefix/lib/$lib is missing" >&2; return 1; }
  done
  echo "== clang-cl: installed side by side: $(cd "$prefix/lib" && echo *.lib cmake/vksort/*)"

  # The prototypes consumer (/W4 /WX, /EHs-c- /GR-) against that prefix,
  # compiled but not linked (there are no MSVC runtime libraries here): each
  # configuration must take its library from the package, RelWithDebInfo the
  # Release one.
  "$llvm_bin/llvm-dlltool" -m i386:x86-64 -d "$vendor/lib/vulkan-1.def" -l "$vendor/lib/vulkan-1.lib"
  for config in Debug RelWithDebInfo; do
    echo "== clang-cl: tests/consumers/prototypes, compiled ($config)"
    cmake -S "$root/tests/consumers/prototypes" -B "$build-consumer-$config" "${args[@]}" \
      -DCMAKE_BUILD_TYPE=$config -DCMAKE_PREFIX_PATH="$prefix" -DVulkan_LIBRARY="$vendor/lib/vulkan-1.lib"
    ninja -C "$build-consumer-$config" CMakeFiles/consumer.dir/main.cpp.obj
    lib=vksort.lib
    [ $config = Debug ] && lib=vksortd.lib
    grep -q "LINK_LIBRARIES = .*/lib/$lib " "$build-consumer-$config/build.ninja" ||
      { echo "clang-cl: the $config consumer does not link $lib" >&2; return 1; }
  done
}

for s in "${steps[@]}"; do
  case $s in
    mingw) mingw ;;
    clang-cl) clang_cl ;;
    *) echo "windows.sh: unknown step $s (mingw or clang-cl)" >&2; exit 2 ;;
  esac
done
