#!/usr/bin/env bash
# Runs Ember's GPU checks in one go on a machine with a GPU, from the
# .gpu/ folder that tests/gpu/prepare.sh filled: finds cuBLAS, cuDNN and NVRTC (rejecting CUDA 12
# builds; find_cuda_libs.sh), records the GPU and
# the versions, runs the CUDA parity suite with EMBER_REQUIRE_GPU=1, one epoch of the MNIST
# example on cuda:0 and the benchmarks (with the BERT step and inference against PyTorch eager,
# bench/bert_twin.py, when PyTorch is there), writes full logs to $OUT, and prints a short
# summary table last. If the carried binaries
# do not start there (a missing library, an older libstdc++), it rebuilds the parity suite
# there from the kit in .gpu/kit (cmake, ninja and nvcc must exist; the benchmarks need
# Google Benchmark and are not rebuilt). Plan: under 5 minutes.
#
#   OUT=/some/dir tests/gpu/run.sh        (or .gpu/run.sh; OUT defaults to ./gpu-out)
#   EMBER_GPU_FORCE_REBUILD=1             rebuild there even if the binaries start
#   EMBER_BENCH_FILTER=regex              which benchmarks to run (default: cuda, the GPU rows)
#   MNIST_LIMIT=N, TEXT_LIMIT=N           shorter example runs (the emulated dry run's)
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
if [[ -f $HERE/manifest.txt ]]; then KIT=$HERE; else KIT=$(cd "$HERE/../.." && pwd)/.gpu; fi
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
WORK=$(mktemp -d)
T0=$SECONDS
LOG=$OUT/run.log
: >"$LOG"
log() { echo "[run.sh +$((SECONDS - T0))s] $*" | tee -a "$LOG"; }
declare -A ROW
ROW[binaries]="carried"

if [[ ! -f $KIT/manifest.txt ]]; then
  log "no .gpu/manifest.txt next to this script or in the repository: run tests/gpu/prepare.sh first"
  exit 2
fi
log "kit: $KIT ($(tr '\n' ';' <"$KIT/manifest.txt"))"
# The PyTorch fixtures that the transformer parity cases read (the kit sits in the checkout's .gpu/).
if [[ -z ${EMBER_SOURCE_DIR:-} && -d $KIT/../tests/parity/fixtures ]]; then
  EMBER_SOURCE_DIR=$(cd "$KIT/.." && pwd)
  export EMBER_SOURCE_DIR
fi

# ---- libraries: cuDNN, cuBLAS and NVRTC are the machine's (hundreds of MiB, never carried) ----
# shellcheck source=find_cuda_libs.sh
source "$HERE/find_cuda_libs.sh"
find_cuda_libs
while IFS= read -r line; do [[ -n $line ]] && log "$line"; done <<<"$CUDA_LIB_REPORT"
export LD_LIBRARY_PATH="${CUDA_LIB_DIRS:+$CUDA_LIB_DIRS:}$KIT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
log "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
CUDNN_SO=$(sed -n 's/^found libcudnn.so.9: //p' <<<"$CUDA_LIB_REPORT")

# ---- the machine ----
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -a)"
  nvidia-smi 2>&1 || echo "nvidia-smi failed"
  nvcc --version 2>&1 || echo "no nvcc on PATH"
} >"$OUT/machine.txt"
ROW[gpu]=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -2 |
  tr '\n' ';' | sed 's/;$//')
[[ -n ${ROW[gpu]} ]] || ROW[gpu]="nvidia-smi failed (no driver?)"
ROW[cuda]=$(nvidia-smi 2>/dev/null | grep -o 'CUDA Version: [0-9.]*' | head -1)
log "GPU: ${ROW[gpu]} (${ROW[cuda]:-driver CUDA version unknown})"

# ---- the binaries: carried, or rebuilt here ----
BIN=$WORK/bin
mkdir -p "$BIN"
# The kit's data/ beside the binaries: the examples and benchmarks look there first.
[[ -d $KIT/data ]] && ln -s "$KIT/data" "$BIN/data"
for f in "$KIT"/bin/*.gz; do
  [[ -e $f ]] || continue
  gunzip -c "$f" >"$BIN/$(basename "$f" .gz)" && chmod +x "$BIN/$(basename "$f" .gz)"
done

starts() { [[ -x $1 ]] && "$1" --gtest_list_tests >"$OUT/start-check.log" 2>&1; }

rebuild() {
  log "rebuilding the parity suite here"
  local src=$WORK/src deps=$WORK/deps jobs
  jobs=$(nproc 2>/dev/null || echo 8)
  mkdir -p "$src" "$deps"
  tar -xzf "$KIT/kit/ember-src.tar.gz" -C "$src" || return 1
  tar -xzf "$KIT/kit/eigen.tar.gz" -C "$deps" || return 1
  tar -xzf "$KIT/kit/googletest.tar.gz" -C "$deps" || return 1
  tar -xzf "$KIT/kit/zlib.tar.gz" -C "$deps" || return 1
  tar -xzf "$KIT/kit/utf8proc.tar.gz" -C "$deps" || return 1
  local cudnn_inc
  if [[ -f /usr/local/cuda/include/cudnn.h ]]; then
    cudnn_inc=/usr/local/cuda/include
  else
    cudnn_inc=$deps/cudnn-include
    mkdir -p "$cudnn_inc" && tar -xzf "$KIT/kit/cudnn-include.tar.gz" -C "$cudnn_inc" || return 1
  fi
  local nvcc
  nvcc=$(command -v nvcc || find / \( -path /proc -o -path /sys \) -prune -o -name nvcc -type f -print 2>/dev/null | head -1)
  [[ -n $nvcc ]] || { log "no nvcc: cannot rebuild"; return 1; }
  log "GoogleTest from sources"
  cmake -S "$deps/googletest" -B "$deps/gtest-build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_GMOCK=OFF \
    -DCMAKE_INSTALL_PREFIX="$deps/gtest" >>"$OUT/rebuild.log" 2>&1 &&
    cmake --build "$deps/gtest-build" -j "$jobs" >>"$OUT/rebuild.log" 2>&1 &&
    cmake --install "$deps/gtest-build" >>"$OUT/rebuild.log" 2>&1 || { log "GoogleTest build failed"; return 1; }
  log "Ember (ember_cuda_tests, mnist, text_classifier) with $nvcc"
  cmake -S "$src" -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=ON \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=90 -DEMBER_NATIVE=OFF \
    -DEMBER_BUILD_BENCH=OFF -DEMBER_BUILD_EXAMPLES=ON \
    -DEigen3_DIR="$deps/usr/share/eigen3/cmake" -DGTest_DIR="$deps/gtest/lib/cmake/GTest" \
    -DZLIB_INCLUDE_DIR="$deps/usr/include" -DZLIB_LIBRARY="$(find "$deps/usr/lib" -name libz.a | head -1)" \
    -DUTF8PROC_INCLUDE_DIR="$deps/usr/include" -DUTF8PROC_LIBRARY="$(find "$deps/usr/lib" -name libutf8proc.a | head -1)" \
    -DCUDNN_INCLUDE_DIR="$cudnn_inc" -DCUDNN_LIBRARY="${CUDNN_SO:-cudnn-NOTFOUND}" \
    >>"$OUT/rebuild.log" 2>&1 || { log "configure failed (see rebuild.log)"; return 1; }
  ninja -C "$WORK/build" -j "$jobs" ember_cuda_tests mnist text_classifier >>"$OUT/rebuild.log" 2>&1 ||
    { log "build failed (see rebuild.log)"; return 1; }
  cp "$WORK/build/tests/ember_cuda_tests" "$BIN/ember_cuda_tests"
  cp "$WORK/build/examples/mnist" "$BIN/mnist"
  cp "$WORK/build/examples/text_classifier" "$BIN/text_classifier"
  ROW[binaries]="rebuilt here ($((SECONDS - T0))s in)"
}

if [[ ${EMBER_GPU_FORCE_REBUILD:-0} == 1 ]] || ! starts "$BIN/ember_cuda_tests"; then
  [[ ${EMBER_GPU_FORCE_REBUILD:-0} == 1 ]] || log "the carried ember_cuda_tests does not start: $(head -3 "$OUT/start-check.log" | tr '\n' ' ')"
  if rebuild && starts "$BIN/ember_cuda_tests"; then :; else ROW[binaries]="carried ones do not start; rebuild failed"; fi
fi

# ---- the parity suite ----
PARITY_RC=-1
if starts "$BIN/ember_cuda_tests"; then
  log "parity suite (EMBER_REQUIRE_GPU=1)"
  EMBER_REQUIRE_GPU=1 timeout 240 "$BIN/ember_cuda_tests" --gtest_output="xml:$OUT/parity.xml" >"$OUT/parity.log" 2>&1
  PARITY_RC=$?
  # The failing cases (once each) and the first mismatches, for a quick look; all in parity.log.
  failed=$(grep -E '^\[  FAILED  \] [A-Za-z]' "$OUT/parity.log" | grep -v ' ms)$' | sed 's/, where GetParam.*//' | sort -u)
  if [[ -n $failed ]]; then
    echo "failing cases ($(wc -l <<<"$failed")):"
    head -40 <<<"$failed"
    grep -E 'first mismatch|C\+\+ exception|EMBER_REQUIRE_GPU=1|Which is' "$OUT/parity.log" | head -30
  fi
  # A sticky CUDA error fails every case after the one that caused it: rerun the failing
  # cases with synchronous launches, so the first failure names its culprit.
  if ((PARITY_RC != 0)) && [[ -n $failed ]]; then
    filter=$(sed 's/^\[  FAILED  \] //; s/ .*//' <<<"$failed" | paste -sd: -)
    log "rerunning the failing cases with CUDA_LAUNCH_BLOCKING=1"
    CUDA_LAUNCH_BLOCKING=1 EMBER_REQUIRE_GPU=1 timeout 120 "$BIN/ember_cuda_tests" --gtest_filter="$filter" \
      >"$OUT/parity-blocking.log" 2>&1
    ROW[blocking]="rerun of $(wc -l <<<"$failed") failing cases with CUDA_LAUNCH_BLOCKING=1: exit $? (parity-blocking.log)"
    grep -E 'first mismatch|C\+\+ exception|CudaError|Failure' "$OUT/parity-blocking.log" | head -20
  fi
  ROW[parity]="$(grep -o 'CUDA parity suite: .*' "$OUT/parity.log" | tail -1)"
  [[ -n ${ROW[parity]} ]] || ROW[parity]="no summary line"
  ROW[parity]="${ROW[parity]} [exit $PARITY_RC]"
  ROW[versions]=$(grep -o '^\[ember\] CUDA runtime.*' "$OUT/parity.log" | head -1 | sed 's/^\[ember\] //')
else
  ROW[parity]="not run: ember_cuda_tests does not start (see start-check.log, rebuild.log)"
fi

# ---- the tutorial CNN on the GPU: one epoch on the bundled sample, on the cpu and on cuda:0
# from the same seed: the first 20 losses within 1e-4 relative (same Philox streams, TF32
# off), the accuracy within 1 point (examples/common/compare_devices.py, as CI's emulated run);
# MNIST_LIMIT=N trains on the first N images only (the dry run makes it short)
MNIST_ARGS=()
[[ ${MNIST_LIMIT:-0} -gt 0 ]] && MNIST_ARGS=(--arg=--limit "--arg=$MNIST_LIMIT")
if [[ -x $BIN/mnist && -d $KIT/data/mnist-sample && -f $KIT/compare_devices.py ]] && command -v python3 >/dev/null; then
  log "mnist, one epoch on the cpu and on cuda:0, compared"
  timeout 240 python3 "$KIT/compare_devices.py" --data "$KIT/data/mnist-sample" "${MNIST_ARGS[@]}" "$BIN/mnist" "$OUT/mnist" cuda:0 \
    >"$OUT/mnist.log" 2>&1
  rc=$?
  ROW[mnist]="exit $rc: $(grep -E '^(cpu|cuda:0):' "$OUT/mnist.log" | tr '\n' ' ')"
  ((rc == 0)) || ROW[mnist]+=" $(tail -2 "$OUT/mnist.log" | tr '\n' ' ')"
else
  ROW[mnist]="not run (no mnist binary, data/mnist-sample in the kit, compare_devices.py or python3)"
fi

# ---- the text classifier on the GPU: its first steps (TEXT_LIMIT reviews, batches of 32,
# max length 64) on the cpu and on cuda:0 from the same seed, the losses within 1e-4
# relative (BERT's embeddings, attention, layer norm, gelu, AdamW and clipping on cuBLAS and
# Ember's kernels); the dry run makes it short
REVIEWS=$KIT/data/reviews
TEXT_LIMIT=${TEXT_LIMIT:-512}
text_steps=$((TEXT_LIMIT / 32 < 16 ? TEXT_LIMIT / 32 : 16))
if [[ -x $BIN/text_classifier && -f $REVIEWS/reviews.tsv.gz && -f $KIT/compare_devices.py ]] &&
  command -v python3 >/dev/null; then
  log "text_classifier, $text_steps steps on the cpu and on cuda:0, compared"
  timeout 240 python3 "$KIT/compare_devices.py" --data "$REVIEWS/reviews.tsv.gz" --steps "$text_steps" \
    --arg=--vocab "--arg=$REVIEWS/vocab.txt" --arg=--limit "--arg=$TEXT_LIMIT" --arg=--max-length --arg=64 \
    "$BIN/text_classifier" "$OUT/text_classifier" cuda:0 >"$OUT/text_classifier.log" 2>&1
  rc=$?
  ROW[text]="exit $rc: $(grep -E '^(cpu|cuda:0):' "$OUT/text_classifier.log" | tr '\n' ' ')"
  ((rc == 0)) || ROW[text]+=" $(tail -2 "$OUT/text_classifier.log" | tr '\n' ' ')"
else
  ROW[text]="not run (no text_classifier binary, data/reviews in the kit, compare_devices.py or python3)"
fi

# ---- benchmarks ----
BENCH_TABLE=$OUT/bench-summary.txt
: >"$BENCH_TABLE"
# ember_bench_text reads the bundled reviews from data/reviews beside it (the kit's, linked) and
# writes the batches it times for the PyTorch twin below.
export EMBER_BENCH_TEXT_BATCHES=$OUT/review_batches.bin
for b in ember_bench_ops ember_bench_train ember_bench_text; do
  if [[ ! -x $BIN/$b ]]; then
    ROW[$b]="not built in this tree"
    continue
  fi
  log "$b"
  (cd "$KIT" && timeout 100 "$BIN/$b" --benchmark_filter="${EMBER_BENCH_FILTER:-cuda}" --benchmark_min_time=0.05 \
    --benchmark_out="$OUT/$b.json" --benchmark_out_format=json >"$OUT/$b.log" 2>&1)
  rc=$?
  n=$(grep -cE '^[A-Za-z_].*[0-9]+ (ns|us|ms|s) ' "$OUT/$b.log")
  ROW[$b]="exit $rc, $n benchmarks$( ((rc == 124)) && echo ' (timed out after 100 s)')"
  { echo "== $b"; grep -E '^[A-Za-z_].*[0-9]+ (ns|us|ms|s) ' "$OUT/$b.log" | awk '{printf "%-60s %12s %s\n", $1, $2, $3}'; } >>"$BENCH_TABLE"
done

# ---- the BERT step and batch-1 inference against PyTorch eager on the same GPU and batches
# (bench/bert_twin.py: plain PyTorch, the LibTorch twin's model; TF32 off on both sides)
TWIN_ROWS=(bert_train_step/cuda:0/32/threads:1 bert_infer/cuda:0/1/128/threads:1 bert_infer/cuda:0/1/48/threads:1)
if [[ ! -f $OUT/ember_bench_text.json || ! -f $EMBER_BENCH_TEXT_BATCHES ]]; then
  ROW[text_twin]="not run (no ember_bench_text rows)"
elif [[ ! -f $KIT/bert_twin.py ]] || ! python3 -c 'import torch' >/dev/null 2>&1; then
  ROW[text_twin]="not run (no bert_twin.py or no PyTorch)"
else
  log "bert_twin.py (PyTorch eager) on cuda:0"
  timeout 120 python3 "$KIT/bert_twin.py" --min-time 0.3 --ember-json "$OUT/ember_bench_text.json" "${TWIN_ROWS[@]}" \
    >"$OUT/bert_twin.log" 2>&1
  rc=$?
  ROW[text_twin]="exit $rc, $(grep -c '^{' "$OUT/bert_twin.log") rows (bert_twin.log)"
  { echo "== Ember against PyTorch eager (bench/bert_twin.py)"; grep '^|' "$OUT/bert_twin.log"; } >>"$BENCH_TABLE"
fi

rm -rf "$WORK"
cat "$BENCH_TABLE"
echo
echo "==== Ember GPU run summary ($(date -u +%Y-%m-%dT%H:%M:%SZ), $((SECONDS - T0)) s) ===="
printf '%-18s | %s\n' "GPU" "${ROW[gpu]}" "driver" "${ROW[cuda]:-unknown}" \
  "versions" "${ROW[versions]:-unknown}" "binaries" "${ROW[binaries]}" "parity suite" "${ROW[parity]}" \
  "blocking rerun" "${ROW[blocking]:-not needed}" \
  "mnist (cuda:0)" "${ROW[mnist]}" "text (cuda:0)" "${ROW[text]}" "ember_bench_ops" "${ROW[ember_bench_ops]}" \
  "ember_bench_train" "${ROW[ember_bench_train]}" "ember_bench_text" "${ROW[ember_bench_text]}" \
  "text vs PyTorch" "${ROW[text_twin]}" "logs" "$OUT"
[[ $PARITY_RC == 0 ]]
