#!/usr/bin/env bash
# Finds the CUDA 13 libraries Ember's CUDA build needs at run time on a GPU machine: cuDNN 9,
# cuBLAS/cuBLASLt 13 and NVRTC 13 (cuDNN's runtime-fusion engines load it). Looks where the
# loader and NVIDIA's packages put them, in order: the loader cache (ldconfig -p), the usual
# CUDA folders, pip's nvidia/* wheels, and only then a bounded `find -xdev` (60 s). Builds for
# CUDA 12 are rejected: a cuDNN 9 whose engines need libcublas*.so.12, or a path naming cu12.
# EMBER_CUDA_LIB_HINTS (folders, colon-separated) are searched first.
#
#   source tests/gpu/find_cuda_libs.sh; find_cuda_libs   # sets CUDA_LIB_DIRS and CUDA_LIB_REPORT
#   tests/gpu/find_cuda_libs.sh                          # prints what it found (a dry run)

CUDA_LIBS=(libcudnn.so.9 libcublas.so.13 libcublasLt.so.13 libnvrtc.so.13)

# True when the library at $1 is part of a CUDA 12 build.
_is_cu12() {
  local path=$1 dir sib
  [[ $path == *cu12* || $path == *cuda-12* ]] && return 0
  dir=$(dirname "$path")
  if [[ $(basename "$path") == libcudnn.so.9 ]]; then
    for sib in "$dir"/libcudnn_ops.so.9 "$dir"/libcudnn_engines_precompiled.so.9; do
      [[ -e $sib ]] && readelf -d "$sib" 2>/dev/null | grep -q 'NEEDED.*libcublas\(Lt\)\?\.so\.12' && return 0
    done
  fi
  return 1
}

# Prints the candidate paths for library $1, best first.
_candidates() {
  local name=$1 d
  local -a first
  IFS=: read -r -a first <<<"${EMBER_CUDA_LIB_HINTS:-}"
  for d in "${first[@]}"; do [[ -n $d && -e $d/$name ]] && echo "$d/$name"; done
  ldconfig -p 2>/dev/null | awk -v n="$name" '$1 == n { print $NF }'
  for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda-13*/lib64 /usr/local/cuda-13*/lib \
    /usr/local/cuda-13*/targets/x86_64-linux/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /opt/nvidia/*/lib* \
    /usr/local/lib/python3*/dist-packages/nvidia/*/lib /usr/lib/python3*/dist-packages/nvidia/*/lib \
    /usr/local/lib/python3*/site-packages/nvidia/*/lib /opt/conda/lib /opt/conda/lib/python3*/site-packages/nvidia/*/lib \
    "$HOME"/.local/lib/python3*/site-packages/nvidia/*/lib; do
    [[ -e $d/$name ]] && echo "$d/$name"
  done
  return 0
}

_bounded_find() {
  timeout 60 find / -xdev \( -path /proc -o -path /sys -o -path /dev \) -prune -o -name "$1" -print 2>/dev/null
  return 0
}

find_cuda_libs() {
  CUDA_LIB_DIRS=""
  CUDA_LIB_REPORT=""
  local name path found rejected
  for name in "${CUDA_LIBS[@]}"; do
    found="" rejected=""
    while IFS= read -r path; do
      [[ -z $path || ! -e $path ]] && continue
      if _is_cu12 "$path"; then rejected+=" $path"; continue; fi
      found=$path
      break
    done < <(_candidates "$name"; [[ -n ${EMBER_NO_FIND:-} ]] || _bounded_find "$name")
    if [[ -n $found ]]; then
      local d
      d=$(dirname "$(readlink -f "$found")")
      [[ ":$CUDA_LIB_DIRS:" == *":$d:"* ]] || CUDA_LIB_DIRS=${CUDA_LIB_DIRS:+$CUDA_LIB_DIRS:}$d
      CUDA_LIB_REPORT+="found $name: $found"$'\n'
    else
      CUDA_LIB_REPORT+="MISSING $name${rejected:+ (rejected as CUDA 12 builds:$rejected)}"$'\n'
    fi
  done
  export CUDA_LIB_DIRS CUDA_LIB_REPORT
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  find_cuda_libs
  printf '%s' "$CUDA_LIB_REPORT"
  echo "LD_LIBRARY_PATH would gain: $CUDA_LIB_DIRS"
  grep -q MISSING <<<"$CUDA_LIB_REPORT" && exit 1
  exit 0
fi
