#!/usr/bin/env bash
# Downloads the full MNIST (60,000 training + 10,000 test digits, IDX .gz) into DIR
# (default: examples/data/mnist, next to this script) and checks each file's MD5 sum. Files
# already present with the right sum are kept. Needs curl or wget and a network.
set -euo pipefail

DIR=${1:-"$(cd "$(dirname "$0")" && pwd)/mnist"}
MIRRORS=(
  "https://ossci-datasets.s3.amazonaws.com/mnist"
  "https://storage.googleapis.com/cvdf-datasets/mnist"
  "http://yann.lecun.com/exdb/mnist"
)
declare -A MD5=(
  [train-images-idx3-ubyte.gz]=f68b3c2dcbeaaa9fbdd348bbdeb94873
  [train-labels-idx1-ubyte.gz]=d53e105ee54ea40749a09fcbcd1e9432
  [t10k-images-idx3-ubyte.gz]=9fb629c4189551a2d022fa330f9573f3
  [t10k-labels-idx1-ubyte.gz]=ec29112dd5afa0611ce80d1b7f02629c
)

fetch() {  # url output
  if command -v curl >/dev/null; then
    curl -fsSL --retry 2 -o "$2" "$1"
  elif command -v wget >/dev/null; then
    wget -q -O "$2" "$1"
  else
    echo "download_mnist.sh: neither curl nor wget is installed" >&2
    exit 1
  fi
}

sum_ok() {  # file expected-md5
  [[ -f $1 ]] && [[ $(md5sum "$1" | cut -d' ' -f1) == "$2" ]]
}

mkdir -p "$DIR"
for name in train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz \
            t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz; do
  out="$DIR/$name"
  if sum_ok "$out" "${MD5[$name]}"; then
    echo "ok       $out (already present)"
    continue
  fi
  done_one=0
  for mirror in "${MIRRORS[@]}"; do
    if fetch "$mirror/$name" "$out.part" 2>/dev/null; then
      if sum_ok "$out.part" "${MD5[$name]}"; then
        mv "$out.part" "$out"
        echo "fetched  $out from $mirror"
        done_one=1
        break
      fi
      echo "$mirror/$name: MD5 $(md5sum "$out.part" | cut -d' ' -f1), expected ${MD5[$name]}" >&2
    fi
    rm -f "$out.part"
  done
  if ((!done_one)); then
    echo "download_mnist.sh: could not fetch $name with MD5 ${MD5[$name]} from any mirror (no network?)" >&2
    exit 1
  fi
done
echo "MNIST is in $DIR: MNIST(\"$DIR\", true) reads it"
