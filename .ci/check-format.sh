#!/usr/bin/env bash
# Checks that C and C++ sources match .clang-format (clang-format 14, as on
# Debian bookworm; other versions format some constructs differently).
#   .ci/check-format.sh              every tracked *.h, *.hpp, *.cpp and *.cu file
#   .ci/check-format.sh FILE ...     only these files
# The GLSL shaders (*.comp, *.glsl) are not checked. Fix a file with
# `clang-format -i FILE`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
clang_format=${CLANG_FORMAT:-clang-format}
if ! command -v "$clang_format" >/dev/null; then
  echo "check-format: $clang_format not found (bash .ci/install-deps.sh --ci installs it)" >&2
  exit 2
fi
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git -C "$root" ls-files '*.h' '*.hpp' '*.cpp' '*.cu' | sed "s|^|$root/|")
fi
bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || { echo "check-format: no such file: $f" >&2; exit 2; }
  "$clang_format" --style="file:$root/.clang-format" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
version=$("$clang_format" --version | grep -o '[0-9][0-9.]*' | head -n 1)
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} of ${#files[@]} file(s) differ from .clang-format (clang-format $version);" \
    "fix with clang-format -i:"
  printf '  %s\n' "${bad[@]#"$root/"}"
  exit 1
fi
echo "check-format: ${#files[@]} file(s) match .clang-format (clang-format $version)"
