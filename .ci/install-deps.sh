#!/usr/bin/env bash
# Installs what vksort needs to build, test and run on Debian (bookworm or
# later): the compiler and build tools, the Vulkan headers and loader, volk,
# glslang, SPIRV-Tools, doctest, and for running without a GPU, lavapipe
# (mesa-vulkan-drivers) with the Khronos validation layer.
#   .ci/install-deps.sh        what building, testing and the demo need
#   .ci/install-deps.sh --ci   also clang and clang-format, for the CI checks
#                              (.ci/build-matrix.sh, .ci/check-format.sh)
set -euo pipefail
pkgs=(cmake ninja-build g++ git pkg-config libvulkan-dev libvulkan-volk-dev glslang-tools spirv-tools doctest-dev
      mesa-vulkan-drivers vulkan-validationlayers)
if [ "${1:-}" = --ci ]; then
  pkgs+=(clang clang-format)
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
