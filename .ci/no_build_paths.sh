#!/usr/bin/env bash
# The built library holds no path of the machine that built it: no string in it names the
# source tree or the build tree (a compiled-in data folder, __FILE__ without the
# -ffile-prefix-map of cmake/EmberCodegen.cmake, an RPATH into the build tree). Each offending
# string is printed with its count. CI runs it on the Release builds' libraries (stages 1, 2
# and 4), not on the sanitizer builds': AddressSanitizer and UndefinedBehaviorSanitizer record
# source files as given to the compiler, which no prefix map changes, and those libraries are
# never shipped.
#
#   .ci/no_build_paths.sh SOURCE_DIR BUILD_DIR LIBRARY...
set -euo pipefail
(($# >= 3)) || { echo "usage: no_build_paths.sh SOURCE_DIR BUILD_DIR LIBRARY..." >&2; exit 2; }
# Each tree as given (absolute) and with its links resolved.
trees=()
for dir in "$1" "$2"; do
  [[ -d $dir ]] || { echo "no-build-paths check: $dir is not a folder" >&2; exit 2; }
  trees+=("$(cd "$dir" && pwd -L)" "$(cd "$dir" && pwd -P)")
done
shift 2
mapfile -t trees < <(printf '%s\n' "${trees[@]}" | sort -u)
patterns=()
for t in "${trees[@]}"; do patterns+=(-e "$t"); done
status=0
for lib in "$@"; do
  [[ -f $lib ]] || { echo "no-build-paths check: $lib does not exist" >&2; exit 2; }
  found=$(strings -a "$lib" | grep -F "${patterns[@]}" || true)
  if [[ -n $found ]]; then
    echo "no-build-paths check: $lib holds $(wc -l <<<"$found") strings naming the source or the build tree" \
      "(${trees[*]}):" >&2
    sort <<<"$found" | uniq -c | sort -rn | head -40 >&2
    status=1
  else
    echo "no-build-paths check: $lib names neither tree"
  fi
done
exit $status
