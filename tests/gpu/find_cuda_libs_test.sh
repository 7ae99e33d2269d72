#!/usr/bin/env bash
# CTest for find_cuda_libs.sh, run here without a GPU: hinted folders come first, CUDA 12
# builds are rejected (by path, and a cuDNN whose engines need libcublas.so.12), and a
# missing library is reported as MISSING with a non-zero exit.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo 'void f(void) {}' >"$T/e.c"
so() { cc -shared -fPIC -o "$1" "$T/e.c" -Wl,-soname,"$(basename "$1")" "${@:2}"; }
mkdir -p "$T/cu12-wheel/lib" "$T/cudnn-for-12" "$T/good"
for n in libcudnn.so.9 libcublas.so.13 libcublasLt.so.13 libnvrtc.so.13; do
  so "$T/cu12-wheel/lib/$n"
  so "$T/good/$n"
done
so "$T/cudnn-for-12/libcublas.so.12"
so "$T/cudnn-for-12/libcudnn.so.9"
so "$T/cudnn-for-12/libcudnn_ops.so.9" -Wl,--no-as-needed "$T/cudnn-for-12/libcublas.so.12"

source "$HERE/find_cuda_libs.sh"
export EMBER_NO_FIND=1
EMBER_CUDA_LIB_HINTS="$T/cu12-wheel/lib:$T/cudnn-for-12:$T/good" find_cuda_libs
echo "$CUDA_LIB_REPORT"
grep -q "found libcudnn.so.9: $T/good/libcudnn.so.9" <<<"$CUDA_LIB_REPORT"
grep -q "found libnvrtc.so.13: $T/good/libnvrtc.so.13" <<<"$CUDA_LIB_REPORT"
[[ $CUDA_LIB_DIRS == "$T/good" ]] || { echo "dirs: $CUDA_LIB_DIRS"; exit 1; }
# Only CUDA 12 builds on offer (and no system copy found through hints): reported, not used.
CUDA_LIBS=(libcudnn.so.9)
_candidates() { echo "$T/cu12-wheel/lib/libcudnn.so.9"; echo "$T/cudnn-for-12/libcudnn.so.9"; }
find_cuda_libs
echo "$CUDA_LIB_REPORT"
grep -q "MISSING libcudnn.so.9 (rejected as CUDA 12 builds: $T/cu12-wheel/lib/libcudnn.so.9 $T/cudnn-for-12/libcudnn.so.9)" <<<"$CUDA_LIB_REPORT"
echo "find_cuda_libs: 3 passed, 0 failed"
