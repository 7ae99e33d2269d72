#!/usr/bin/env bash
# The installed headers are two sets: the user set (ember.h and what it includes) and the
# opt-in extension set (extend.h, extend/). This checks that no user-set header reaches an
# extension header; that Backend, autograd's Node and TensorImpl are defined only under
# extend/; that the internal headers are not installed; and that every nn/ and data/ source
# (which sit on the two sets) compiles against the installed include folder, with only their
# own folder's uninstalled helpers (nn/parallel/transport.h, data/unicode.h, ...), core/io's
# private IO stack (json.h, gzip.h, utf8.h, io_error.h, file_io.h) and core's other private
# helpers that they share (core_helpers, below) beside it. nn/parallel/mpi_*.cpp need MPI's
# headers too and are left out.
#
#   .ci/public_api_check.sh INSTALL_PREFIX
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=$1
installed=$PREFIX/include/ember
core_helpers="core/checked_math.h core/module_tag.h"
for internal in core/ops/window.h core/dtype_dispatch.h core/tensor_impl_access.h $core_helpers \
  core/io/file_io.h core/io/json.h core/io/gzip.h core/io/utf8.h core/io/io_error.h core/io/file_mode.h \
  data/token_table.h nn/parallel/transport.h kernels; do
  if [[ -e $installed/$internal ]]; then
    echo "public API check: $internal is installed" >&2
    exit 1
  fi
done
if grep -rn 'EMBER_DISPATCH_\|TensorImplAccess::' "$installed" >&2; then
  echo "public API check: an installed header defines the dtype dispatch or reaches into TensorImpl" >&2
  exit 1
fi
for umbrella in ember.h extend.h extend; do
  if [[ ! -e $installed/$umbrella ]]; then
    echo "public API check: $umbrella is not installed" >&2
    exit 1
  fi
done
# The user set: ember.h's closure over the installed folder.
user_set=() pending=(ember.h)
while ((${#pending[@]})); do
  h=${pending[0]} pending=("${pending[@]:1}")
  [[ " ${user_set[*]} " == *" $h "* ]] && continue
  user_set+=("$h")
  if [[ $h == extend/* ]]; then
    echo "public API check: the user set (ember.h) reaches the extension header $h" >&2
    exit 1
  fi
  pending+=($(sed -n 's|^#include "ember/\([^"]*\)".*|\1|p' "$installed/$h"))
done
# A definition (not a forward declaration) of the extension set's classes outside extend/.
if grep -rnE '^\s*(class|struct)\s+(EMBER_API\s+)?(Backend|Node|TensorImpl)\b[^;]*$' "$installed" \
  --include='*.h' --exclude-dir=extend >&2; then
  echo "public API check: Backend, Node or TensorImpl is defined outside extend/" >&2
  exit 1
fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
cp -r "$installed" "$root/ember"
mkdir -p "$root/ember/core/io"
for h in core/io/*.h nn/*.h nn/models/*.h nn/parallel/*.h data/*.h $core_helpers; do
  [[ -e $root/ember/$h ]] || cp "$h" "$root/ember/$h"
done
n=0
for src in nn/*.cpp nn/models/*.cpp nn/parallel/*.cpp data/*.cpp; do
  [[ $src == nn/parallel/mpi_* ]] && continue
  if ! ${CXX:-g++} -std=c++17 -fsyntax-only -I"$root" "$src"; then
    echo "public API check: $src does not compile against the installed headers" >&2
    exit 1
  fi
  n=$((n + 1))
done
echo "public API check: $(find "$installed" -name '*.h' | wc -l) installed headers (${#user_set[@]} in ember.h's" \
  "user set, $(find "$installed/extend" -name '*.h' | wc -l) under extend/); $n nn/ and data/ sources compile against them"
