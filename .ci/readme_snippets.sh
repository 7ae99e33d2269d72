#!/usr/bin/env bash
# Compiles and links every ```cpp block of README.md against a build tree, so that the
# README's examples stay true. usage: readme_snippets.sh BUILD_DIR [CXX...] (default: g++, and
# clang++-16 when installed). Each compiler gets its own small CMake project that finds Ember
# through BUILD_DIR's package (find_package(Ember) with Ember_DIR, as examples/embed does).
#
# The convention, for whoever edits README.md:
#   - a block that contains `int main` is compiled as it is;
#   - any other block is a fragment: its leading #include / using lines stay at file scope,
#     the rest becomes the body of main(), and <ember/ember.h> with `using namespace ember;`
#     come first;
#   - a fragment that uses names it does not declare (the reader's own model, image, ...)
#     gets them from an HTML comment (invisible on GitHub) on the line just above its fence:
#       <!-- snippet context: std::vector<float> load_my_image() { return {}; } -->
#     which is placed at file scope, after the includes;
#   - a block with the comment `// not compiled` in it is skipped.
# The snippets are compiled, linked, and never run. Errors point at README.md's own lines
# (#line directives), e.g. "README.md:52:24: error: ...".
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=$(realpath "${1:?usage: readme_snippets.sh BUILD_DIR [CXX...]}")
shift
COMPILERS=("$@")
if ((${#COMPILERS[@]} == 0)); then
  COMPILERS=(g++)
  command -v clang++-16 >/dev/null && COMPILERS+=(clang++-16)
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Writes $WORK/src/snippet_<line>.cpp for each block; prints "<line> skipped" for skipped ones.
mkdir -p "$WORK/src"
awk -v dir="$WORK/src" -v readme="$ROOT/README.md" '
  function flush(   f, i, head, line) {
    f = dir "/snippet_" start ".cpp"
    if (body ~ /\/\/ not compiled/) { print start " skipped (// not compiled)"; return }
    if (body ~ /int main/) {
      printf "#line %d \"%s\"\n%s", start, readme, body > f
      close(f)
      return
    }
    # Leading #include, using and blank lines stay at file scope.
    head = 0
    for (i = 1; i <= n; ++i) {
      if (lines[i] ~ /^[[:space:]]*(#include|using |$)/) head = i; else break
    }
    printf "#include <ember/ember.h>\nusing namespace ember;\n" > f
    printf "#line %d \"%s\"\n", start, readme > f
    for (i = 1; i <= head; ++i) print lines[i] > f
    if (context != "") printf "#line %d \"%s\"\n%s\n", context_line, readme, context > f
    printf "int main() {\n#line %d \"%s\"\n", start + head, readme > f
    for (i = head + 1; i <= n; ++i) print lines[i] > f
    printf "}\n" > f
    close(f)
  }
  in_block && /^```[[:space:]]*$/ { in_block = 0; flush(); context = ""; next }
  in_block { lines[++n] = $0; body = body $0 "\n"; next }
  /^```cpp[[:space:]]*$/ {
    in_block = 1; start = NR + 1; n = 0; body = ""
    if (prev ~ /^<!-- snippet context: .* -->$/) {
      context = prev; sub(/^<!-- snippet context: /, "", context); sub(/ -->$/, "", context)
      context_line = NR - 1
    }
    next
  }
  { prev = $0 }
  END { if (in_block) { print "README.md: a ```cpp block opened at line " start - 1 " is never closed"; exit 1 } }
' README.md

mapfile -t SNIPPETS < <(cd "$WORK/src" && ls snippet_*.cpp 2>/dev/null | sort -t_ -k2 -n)
((${#SNIPPETS[@]})) || { echo "readme_snippets: README.md has no C++ block to compile" >&2; exit 1; }
{
  echo 'cmake_minimum_required(VERSION 3.25)'
  echo 'project(readme_snippets LANGUAGES CXX)'
  echo 'set(CMAKE_CXX_STANDARD 17)'
  echo 'find_package(Ember CONFIG REQUIRED)'
  for s in "${SNIPPETS[@]}"; do
    echo "add_executable(${s%.cpp} src/$s)"
    echo "target_link_libraries(${s%.cpp} PRIVATE Ember::ember Ember::distributed)"
  done
} >"$WORK/CMakeLists.txt"

status=0
for cxx in "${COMPILERS[@]}"; do
  out="$WORK/build-${cxx//[^A-Za-z0-9]/_}"
  if ! log=$(cmake -S "$WORK" -B "$out" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DEmber_DIR="$BUILD" 2>&1); then
    echo "$log" >&2
    echo "readme_snippets: configuring the snippets' project with $cxx failed" >&2
    exit 1
  fi
  if cmake --build "$out" -j "${JOBS:-2}" -- -k 0 >"$out.log" 2>&1; then
    echo "readme_snippets: ${#SNIPPETS[@]} README.md C++ blocks (at lines ${SNIPPETS[*]//[^0-9 ]/}) compile and link with $cxx"
  else
    grep -E 'README\.md:[0-9]+' "$out.log" >&2 || cat "$out.log" >&2
    echo "readme_snippets: a README.md C++ block does not compile with $cxx (lines above)" >&2
    status=1
  fi
done
exit $status
