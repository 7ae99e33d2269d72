#!/usr/bin/env bash
# CI stage: the CUDA backend on the host emulator (EMBER_CUDA=EMULATE, emulator/).
# Builds the CUDA test suite with warnings as errors and runs the `cuda` test label on two
# emulated devices, cuBLAS and cuDNN through their models: in the default mode, with blocks
# and each block's threads in reverse and in shuffled order (a missing __syncthreads shows
# there), and with deferred streams; every run with strict devices (a kernel argument on
# another device than its launch fails, peer access or not). The label includes the mnist
# comparison (20 steps and the test accuracy on cuda:0 and cuda:1 against the CPU's) and the
# text classifier's (8 steps on cuda:0). Any skip, and any failure, fails the stage. The built
# libraries must name no path of the source or build tree (.ci/no_build_paths.sh). Then
# tests/gpu/run.sh is dry-run once against the same binaries. Prints the counts of each run.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
BUILD=${BUILD:-build-emu}
T0=$SECONDS

echo "=== emulated CUDA: configure + build ($BUILD)"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=EMULATE -DEMBER_WERROR=ON \
  -DEMBER_BUILD_BENCH=OFF -DEMBER_BUILD_EXAMPLES=ON >/dev/null
cmake --build "$BUILD" -j "$JOBS" --target ember_cuda_tests mnist text_classifier
echo "=== emulated CUDA: built in $((SECONDS - T0))s"
# The libraries name no path of the source or build tree here either (the emulator's headers
# and kernels included).
bash .ci/no_build_paths.sh "$PWD" "$BUILD" "$BUILD/libember.a" "$BUILD/libember_distributed.a"

source .ci/emulated_cuda_modes.sh
export "${EMULATED_CUDA_ENV[@]}"
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
  if ((skipped > 0 || total < 200)); then
    grep '(Skipped)$' "$log" >&2 || true
    echo "emulated CUDA ($mode): $total tests, $skipped skipped; every cuda-label test must run (>= 200)" >&2
    exit 1
  fi
  rm -f "$log"
  summary+=("$(printf '%-26s %4d passed, 0 failed, 0 skipped (%ds)' "$mode" "$total" $((SECONDS - t)))")
  echo "=== emulated CUDA ($mode): $total passed, 0 failed, 0 skipped"
}

for mode in "${EMULATED_CUDA_MODES[@]}"; do
  read -r -a settings <<<"${mode#*|}"
  run_label "${mode%%|*}" "${settings[@]}"
done

# tests/gpu/run.sh, the script a lent GPU runs, dry-run once against these binaries.
t=$SECONDS
log=$(mktemp)
ctest --test-dir "$BUILD" -L gpu_dry_run --output-on-failure >"$log" 2>&1 || { cat "$log"; exit 1; }
rm -f "$log"
summary+=("$(printf '%-26s passed (%ds)' "run.sh dry run" $((SECONDS - t)))")

printf '%s\n' "${summary[@]}"
echo "=== emulated CUDA passed in $((SECONDS - T0))s"
