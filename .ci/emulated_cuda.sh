#!/usr/bin/env bash
# CI stage: the CUDA backend on the host emulator (EMBER_CUDA=EMULATE, kernels/cuda/emulation).
# Builds the CUDA test suite with warnings as errors and runs the `cuda` test label on two
# emulated devices: in the default mode, with blocks in reverse and in shuffled order, and
# with deferred streams. Cases that reach cuBLAS or cuDNN skip until part 2 models them;
# any other skip, and any failure, fails the stage. Prints the counts of each run.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
BUILD=${BUILD:-build-emu}
T0=$SECONDS
SKIP_MESSAGE="needs the cuBLAS/cuDNN models (part 2)"

echo "=== emulated CUDA: configure + build ($BUILD)"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=EMULATE -DEMBER_WERROR=ON \
  -DEMBER_BUILD_BENCH=OFF -DEMBER_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$BUILD" -j "$JOBS" --target ember_cuda_tests
echo "=== emulated CUDA: built in $((SECONDS - T0))s"

export EMBER_EMULATED_CUDA_DEVICES=2
summary=()
run_label() {
  local mode=$1
  shift
  local log
  log=$(mktemp)
  local t=$SECONDS
  if ! env "$@" ctest --test-dir "$BUILD" -L cuda -j "$JOBS" --output-on-failure >"$log" 2>&1; then
    cat "$log"
    echo "emulated CUDA ($mode): ctest failed" >&2
    exit 1
  fi
  local total skipped
  total=$(sed -nE 's/.* tests failed out of ([0-9]+).*/\1/p' "$log")
  skipped=$(grep -c '(Skipped)$' "$log" || true)
  rm -f "$log"
  summary+=("$(printf '%-26s %4d passed, 0 failed, %3d skipped (%ds)' "$mode" $((total - skipped)) "$skipped" $((SECONDS - t)))")
  echo "=== emulated CUDA ($mode): $((total - skipped)) passed, 0 failed, $skipped skipped"
}

run_label "forward, immediate"
run_label "reverse block order" EMBER_EMULATED_CUDA_BLOCK_ORDER=reverse
run_label "shuffled block order" EMBER_EMULATED_CUDA_BLOCK_ORDER=shuffle:20261201
run_label "deferred streams" EMBER_EMULATED_CUDA_STREAMS=deferred

# Every skip must be a part-2 one: the suite's own output names each skip's reason.
out=$("$BUILD"/tests/ember_cuda_tests 2>&1)
skips=$(grep -c '^\[  SKIPPED \] .* ([0-9]* ms)$' <<<"$out" || true)
part2=$(grep -cxF "$SKIP_MESSAGE" <<<"$out" || true)
if [[ $skips != "$part2" ]]; then
  grep -B1 -A1 'Skipped$' <<<"$out" | grep -vxF "$SKIP_MESSAGE" >&2 || true
  echo "emulated CUDA: $skips skipped, but only $part2 with \"$SKIP_MESSAGE\"" >&2
  exit 1
fi

printf '%s\n' "${summary[@]}"
echo "=== emulated CUDA passed in $((SECONDS - T0))s"
