#!/usr/bin/env bash
# Every tracked C++ and CUDA file is formatted as .clang-format says (clang-format 16, which
# Debian 12 ships): prints the files that are not and fails. Fix with
#   clang-format-16 -i $(git ls-files '*.h' '*.cpp' '*.cu' '*.cuh')
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.h' '*.cpp' '*.cu' '*.cuh')
bad=()
for f in "${files[@]}"; do
  clang-format-16 --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  printf 'not formatted (clang-format-16 -i FILE): %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "format check: ${#files[@]} files formatted as .clang-format says"
