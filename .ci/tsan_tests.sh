#!/usr/bin/env bash
# CI stage: ThreadSanitizer over the tests that run Ember on several threads at once, and the
# emulated CUDA backend's racecheck. One clang build with the emulated CUDA backend
# (EMBER_TSAN=ON, EMBER_CUDA=EMULATE) serves both: in it every emulated GPU thread is a TSan
# identity of its own and barriers, launches and synchronisations are the only edges
# (emulator/include/cuda_emulator/race_detection.h), so a missing __syncthreads
# or a plain `+=` where an atomicAdd belongs is a report naming the kernel. Runs the
# concurrency suites, the racecheck's own cases (ember_cuda_tsan_tests) and
# ember_cuda_tests' cases (all but one: .ci/tsan_cuda_subset.sh). Any report fails the stage
# (halt_on_error), and so does a filter that matches too few tests.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
BUILD=${BUILD:-build-tsan}
# Suites that start threads: autograd across threads, the CPU thread pool, the DataLoader's
# workers, grad mode per thread, one Bert serving several inference threads, linear weights packed beside serving threads. Not the fork
# tests (tests/kernels/fork_test.cpp): TSan cannot start threads in the child of a
# multi-threaded fork, and those run in every other stage.
FILTER='AutogradThreads.*:ThreadPool*.*:DataLoader*.*:Autograd.NoGradGuardAndDetach:BertInferenceThreads.*:LinearPackThreads.*'
MIN_TESTS=28
# .ci/run's sanitizer optimisation (-O1, line tables) unless run alone.
OPT=${SANITIZER_OPT_FLAGS:-"-O1 -gline-tables-only -DNDEBUG"}

cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBER_WERROR=ON \
  -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 -DEMBER_CUDA=EMULATE -DEMBER_TSAN=ON \
  -DEMBER_MPI=OFF -DEMBER_BUILD_BENCH=OFF -DEMBER_BUILD_EXAMPLES=OFF \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$OPT" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$OPT" >/dev/null
T0=$SECONDS
cmake --build "$BUILD" -j "$JOBS" --target ember_concurrency_tests ember_cuda_tests ember_cuda_tsan_tests
echo "TSan: built in $((SECONDS - T0))s"
# Reports name the kernel once symbolised: the compiler's own llvm-symbolizer.
TSAN_SYMBOLIZER_PATH=$(dirname "$(realpath "$(command -v clang++-16)")")/llvm-symbolizer
export TSAN_SYMBOLIZER_PATH

LOGS=$(mktemp -d)
trap 'rm -rf "$LOGS"' EXIT
# Runs a gtest binary under TSan in SHARDS processes at once (gtest's sharding: each runs every
# SHARDS-th case; the emulator runs a launch on one host thread, so one process keeps one core
# busy): any report fails (halt_on_error; second_deadlock_stack: a lock-order report shows both
# stacks), and so do fewer than min tests in all and, with skips=no, a skipped case. Arguments
# after those four: `env`'s (settings, then the command).
run_under_tsan() {
  local what=$1 min=$2 skips=$3 shards=$4
  shift 4
  local t=$SECONDS i pids=() failed=0 ran=0 n
  for ((i = 0; i < shards; i++)); do
    env GTEST_TOTAL_SHARDS="$shards" GTEST_SHARD_INDEX="$i" TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
      "$@" --gtest_brief=1 >"$LOGS/$what.$i" 2>&1 &
    pids+=($!)
  done
  for ((i = 0; i < shards; i++)); do
    if ! wait "${pids[i]}"; then
      cat "$LOGS/$what.$i"
      failed=1
    fi
  done
  if ((failed)); then
    echo "TSan ($what): failed" >&2
    exit 1
  fi
  for ((i = 0; i < shards; i++)); do
    tail -n 3 "$LOGS/$what.$i"
    n=$(sed -nE 's/^\[==========\] ([0-9]+) tests? from .* ran\..*/\1/p' "$LOGS/$what.$i")
    ran=$((ran + ${n:-0}))
    if [[ $skips == no ]] && grep -q '^\[  SKIPPED \]' "$LOGS/$what.$i"; then
      grep '^\[  SKIPPED \]' "$LOGS/$what.$i" >&2
      echo "TSan ($what): every case must run" >&2
      exit 1
    fi
  done
  if ((ran < min)); then
    echo "TSan ($what): ran $ran tests, expected at least $min" >&2
    exit 1
  fi
  echo "TSan ($what): $ran tests in $shards process(es), no report ($((SECONDS - t))s)"
}
run_under_tsan concurrency "$MIN_TESTS" yes 1 "$BUILD/tests/ember_concurrency_tests" --gtest_filter="$FILTER"

# The racecheck: its own cases (each report case a death test), then ember_cuda_tests.
source .ci/tsan_cuda_subset.sh
run_under_tsan racecheck 6 no 1 "${TSAN_CUDA_ENV[@]}" "$BUILD/tests/ember_cuda_tsan_tests"
run_under_tsan ember_cuda_tests "$TSAN_CUDA_MIN_TESTS" no "$JOBS" "${TSAN_CUDA_ENV[@]}" "$BUILD/tests/ember_cuda_tests" \
  --gtest_filter="$TSAN_CUDA_FILTER"
