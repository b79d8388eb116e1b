#!/usr/bin/env bash
# Installs what vksort needs to build, test and run on Debian (bookworm or
# later): the compiler and build tools, the Vulkan headers and loader, volk,
# glslang, SPIRV-Tools, doctest, and for running without a GPU, lavapipe
# (mesa-vulkan-drivers) with the Khronos validation layer; for the samples,
# GLFW, Dear ImGui (whose libimgui.a holds the GLFW and Vulkan backends) and
# stb (PNG writing; libimgui-dev depends on it too).
#   .ci/install-deps.sh        what building, testing, the demo and the samples need
#   .ci/install-deps.sh --ci   also clang and clang-format, for the CI checks
#                              (.ci/build-matrix.sh, .ci/check-format.sh),
#                              Xvfb (xvfb, xauth) for the windowed viewer run
#                              (samples/run-samples.sh), and for the Windows
#                              builds (.ci/windows.sh) MinGW-w64 and clang-cl
#                              with LLVM's linker and librarian
set -euo pipefail
pkgs=(cmake ninja-build g++ git pkg-config libvulkan-dev libvulkan-volk-dev glslang-tools spirv-tools doctest-dev
      mesa-vulkan-drivers vulkan-validationlayers libglfw3-dev libimgui-dev libstb-dev)
if [ "${1:-}" = --ci ]; then
  pkgs+=(clang clang-format xvfb xauth g++-mingw-w64-x86-64 clang-tools lld llvm)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
