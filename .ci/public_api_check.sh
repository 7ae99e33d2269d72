#!/usr/bin/env bash
# nn/ and data/ sit on Ember's public API: every one of their sources must compile against the
# installed include folder, with only their own folder's uninstalled helpers
# (nn/parallel/transport.h, data/unicode.h, ...) and core/io's private IO stack (json.h, gzip.h,
# utf8.h, io_error.h) beside it. The installed folder must not hold the internal headers.
# nn/parallel/mpi_*.cpp need MPI's headers too and are left out.
#
#   .ci/public_api_check.sh INSTALL_PREFIX
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=$1
installed=$PREFIX/include/ember
for internal in core/ops/window.h core/dtype_dispatch.h core/tensor_impl_access.h \
  core/io/json.h core/io/gzip.h core/io/utf8.h core/io/io_error.h core/io/file_mode.h \
  nn/parallel/transport.h kernels; do
  if [[ -e $installed/$internal ]]; then
    echo "public API check: $internal is installed" >&2
    exit 1
  fi
done
if grep -rn 'EMBER_DISPATCH_\|TensorImplAccess::' "$installed" >&2; then
  echo "public API check: an installed header defines the dtype dispatch or reaches into TensorImpl" >&2
  exit 1
fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
cp -r "$installed" "$root/ember"
for h in core/io/*.h nn/*.h nn/models/*.h nn/parallel/*.h data/*.h; do
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
echo "public API check: $(find "$installed" -name '*.h' | wc -l) installed headers; $n nn/ and data/ sources compile against them"
