#!/usr/bin/env bash
# Builds Ember's CUDA parity suite, the benchmarks and the MNIST example here (no GPU
# needed) for Hopper and fills .gpu/ (git-ignored) with what tests/gpu/run.sh needs on a GPU
# machine: the binaries (gzipped), libbenchmark, the bundled MNIST sample and review corpus,
# and a kit to rebuild there if the binaries do not start (Eigen headers, GoogleTest
# sources, zlib, cuDNN headers, Ember's sources).
#
#   tests/gpu/prepare.sh            # build in build-gpu/, fill .gpu/
#   EMBER_GPU_ARCH=90 EMBER_GPU_BUILD=/tmp/b tests/gpu/prepare.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BUILD=${EMBER_GPU_BUILD:-$ROOT/build-gpu}
DEST=$ROOT/.gpu
NVCC=${CMAKE_CUDA_COMPILER:-/usr/local/cuda/bin/nvcc}
ARCH=${EMBER_GPU_ARCH:-90}
LIBDIR=/usr/lib/x86_64-linux-gnu
LIMIT_MIB=60

# Portable code (no -march=native: the GPU machine's processor differs), sm_90 SASS plus
# PTX, GoogleTest (Debian ships only libgtest.a), the CUDA runtime, libstdc++ and libgcc
# linked statically (the GPU machine's may be older than Debian 12's).
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=ON -DCMAKE_CUDA_COMPILER="$NVCC" \
  -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DEMBER_NATIVE=OFF -DEMBER_WERROR=ON -DEMBER_BUILD_TESTS=ON \
  -DEMBER_BUILD_BENCH=ON -DEMBER_BUILD_EXAMPLES=ON \
  -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >/dev/null

targets=(ember_cuda_tests)
all_targets=$(ninja -C "$BUILD" -t targets all)
for t in ember_bench_ops ember_bench_train ember_bench_text mnist text_classifier; do
  if grep -q "^$t:" <<<"$all_targets"; then targets+=("$t"); else echo "prepare.sh: no target $t in this tree (skipped)"; fi
done
ninja -C "$BUILD" "${targets[@]}"

rm -rf "$DEST"
mkdir -p "$DEST/bin" "$DEST/lib" "$DEST/kit"
for t in "${targets[@]}"; do
  bin=$(find "$BUILD" -maxdepth 3 -type f -name "$t" -perm -u+x | head -1)
  [[ -n $bin ]] || { echo "prepare.sh: built $t but cannot find it" >&2; exit 1; }
  if ldd "$bin" | grep -q 'libcuda\.so'; then echo "prepare.sh: $t links the driver (libcuda)" >&2; exit 1; fi
  # Google Benchmark and utf8proc (and, should they be missing there, OpenMP's and zlib's
  # runtimes) are carried as the files the binary asks for (their sonames), as plain files.
  for lib in $(readelf -d "$bin" | sed -n 's/.*Shared library: \[\(\(libbenchmark\|libgomp\|libz\|libutf8proc\)\.so[^]]*\)\].*/\1/p'); do
    cp -L "$LIBDIR/$lib" "$DEST/lib/$lib"
  done
  strip --strip-unneeded -o "$DEST/bin/$t" "$bin"
  gzip -9 "$DEST/bin/$t"
done
# The bundled data (examples/data) as data/: run.sh links it beside the unpacked binaries, where
# the examples and benchmarks look first (examples/common/bundled_data.h).
if [[ -d examples/data/mnist-sample ]]; then
  mkdir -p "$DEST/data" && cp -r examples/data/mnist-sample "$DEST/data/"
else
  echo "prepare.sh: no examples/data/mnist-sample in this tree (skipped)"
fi
if [[ -d examples/data/reviews ]]; then
  mkdir -p "$DEST/data/reviews" &&
    cp examples/data/reviews/reviews.tsv.gz examples/data/reviews/vocab.txt "$DEST/data/reviews/"
else
  echo "prepare.sh: no examples/data/reviews in this tree (skipped)"
fi
cp tests/gpu/run.sh tests/gpu/find_cuda_libs.sh examples/common/compare_devices.py bench/bert_twin.py \
  bench/torch_models.py "$DEST/"

# The rebuild kit: everything CMake needs there besides a CUDA toolkit with nvcc.
tar -czf "$DEST/kit/ember-src.tar.gz" --files-from <(git ls-files -co --exclude-standard)
tar -czf "$DEST/kit/eigen.tar.gz" -C / usr/include/eigen3 usr/share/eigen3/cmake
tar -czf "$DEST/kit/googletest.tar.gz" -C /usr/src googletest
tar -czf "$DEST/kit/zlib.tar.gz" -C / usr/include/zlib.h usr/include/zconf.h "${LIBDIR#/}/libz.a"
tar -czf "$DEST/kit/utf8proc.tar.gz" -C / usr/include/utf8proc.h "${LIBDIR#/}/libutf8proc.a"
(cd /usr/local/cuda/include && tar -czf "$DEST/kit/cudnn-include.tar.gz" cudnn*.h)

{
  echo "commit $(git rev-parse HEAD)$(git diff --quiet HEAD -- . ':!.gpu' || echo ' (with uncommitted changes)')"
  echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) for sm_$ARCH with nvcc $("$NVCC" --version | grep -o 'release [0-9.]*')"
  echo "binaries ${targets[*]}"
} >"$DEST/manifest.txt"

size_mib=$(du -sm "$DEST" | cut -f1)
echo "prepare.sh: .gpu/ holds ${size_mib} MiB:"
(cd "$DEST" && find . -type f | sort | xargs ls -la | awk '{printf "  %10d  %s\n", $5, $9}')
if ((size_mib > LIMIT_MIB)); then
  echo "prepare.sh: .gpu/ is over ${LIMIT_MIB} MiB" >&2
  exit 1
fi
